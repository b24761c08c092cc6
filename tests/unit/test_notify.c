#include "testutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <utmpx.h>

#include "base/hint.h"
#include "consent/notify.h"

static char dir[64];
static struct cgfb_catalog *cat;
static struct cgfb_statedir sd = { .fd = -1 };

static int setup(void **state)
{
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/cgfb-notify.XXXXXX");
	cat = test_catalog();
	return mkdtemp(dir) && cgfb_statedir_open(&sd, dir, 0, err, sizeof(err)) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	cgfb_statedir_close(&sd);
	cgfb_catalog_free(cat);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void config(struct cgfb_config *c, unsigned channels)
{
	cgfb_config_defaults(c);
	c->notify = channels;
	/* A file login does not show (the test's), as make run's and the
	 * suite's configurations name: written for any spool. */
	snprintf(c->motd_path, sizeof(c->motd_path), "%s/motd.d/cgroup-feedback.motd", dir);
	snprintf(c->admin_group, sizeof(c->admin_group), "root");
}

static void add_login_pid(const char *utmp, const char *user, const char *line, pid_t pid)
{
	struct utmpx u;

	memset(&u, 0, sizeof(u));
	u.ut_type = USER_PROCESS;
	u.ut_pid = pid;
	snprintf(u.ut_user, sizeof(u.ut_user), "%s", user);
	snprintf(u.ut_line, sizeof(u.ut_line), "%s", line);
	/* ut_id is not a C string: up to 4 bytes, unterminated. */
	strncpy(u.ut_id, line + strlen(line) - 1, sizeof(u.ut_id));
	assert_int_equal(utmpxname(utmp), 0);
	setutxent();
	assert_non_null(pututxline(&u));
	endutxent();
}

static void add_login(const char *utmp, const char *user, const char *line)
{
	add_login_pid(utmp, user, line, getpid());
}

/* The pid of a process that existed and is gone (reaped). */
static pid_t gone_pid(void)
{
	const pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static size_t drain(int fd, char *buf, size_t sz)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;

	while (n + 1 < sz && poll(&p, 1, 200) > 0) {
		const ssize_t r = read(fd, buf + n, sz - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

/* wall to a real pseudo-terminal named in a utmp file: the admin's terminal
 * gets the message, another user's does not. */
static void walls_admin_terminals(void **state)
{
	struct cgfb_config c;
	struct cgfb_notify_paths p = { 0 };
	char utmp[96], admin_name[64], other_name[64], buf[2048];
	int am, as, om, os;

	assert_int_equal(openpty(&am, &as, admin_name, NULL, NULL), 0);
	assert_int_equal(openpty(&om, &os, other_name, NULL, NULL), 0);
	/* Both take messages (mesg y): the group bit decides, not the user. */
	assert_int_equal(chmod(admin_name, 0620), 0);
	assert_int_equal(chmod(other_name, 0620), 0);
	snprintf(utmp, sizeof(utmp), "%s/utmp", dir);
	close(open(utmp, O_CREAT | O_WRONLY, 0644));
	/* ut_line is relative to /dev, as login(1) writes it. */
	add_login(utmp, "root", admin_name + 5);
	add_login(utmp, "nobody", other_name + 5);
	config(&c, CGFB_NOTIFY_WALL);
	p.utmp = utmp;
	cgfb_notify_new_report(&c, &p, cat, &sd, "4f0c9a55-0000-4000-8000-000000000001", "M8", false);
	drain(am, buf, sizeof(buf));
	assert_non_null(strstr(buf, "the kernel asked for your use case"));
	assert_non_null(strstr(buf, "M8: Non-hierarchical memory cgroup mode is deprecated"));
	assert_non_null(strstr(buf, "review 4f0c9a55-0000-4000-8000-000000000001"));
	assert_int_equal(drain(om, buf, sizeof(buf)), 0);
	close(am);
	close(as);
	close(om);
	close(os);
}

/* The wall's command works as pasted: it names the program that wrote it
 * (a build tree's, by path) and the configuration it ran with, as every
 * hint does (base/hint.h). For a finding of check's it says who found it. */
static void wall_names_program_and_config(void **state)
{
	struct cgfb_config c;
	struct cgfb_notify_paths p = { 0 };
	char utmp[96], name[64], buf[2048], want[256];
	int m, s;

	assert_int_equal(openpty(&m, &s, name, NULL, NULL), 0);
	assert_int_equal(chmod(name, 0620), 0);
	snprintf(utmp, sizeof(utmp), "%s/utmp2", dir);
	close(open(utmp, O_CREAT | O_WRONLY, 0644));
	add_login(utmp, "root", name + 5);
	config(&c, CGFB_NOTIFY_WALL);
	p.utmp = utmp;
	cgfb_hint_use_program("/src/build/cgroup-feedback");
	cgfb_hint_use_config("/srv/cgfb test.conf");
	/* A finding of check's: the kernel printed nothing, and the wall
	 * does not say it did. */
	cgfb_notify_new_report(&c, &p, cat, &sd, "4f0c9a55-0000-4000-8000-000000000005", "M8", true);
	cgfb_hint_use_program(NULL);
	cgfb_hint_use_config(NULL);
	drain(m, buf, sizeof(buf));
	assert_non_null(strstr(buf, "*** cgroup-feedback: check found what the kernel asks about ***"));
	assert_null(strstr(buf, "kernel asked"));
	snprintf(want, sizeof(want), "sudo /src/build/cgroup-feedback --config '/srv/cgfb test.conf' "
		 "--state-dir %s review 4f0c9a55-0000-4000-8000-000000000005", dir);
	if (!strstr(buf, want))
		fail_msg("wall without '%s':\n%s", want, buf);
	close(m);
	close(s);
}

/* The counts a wall gives come from the terminals themselves: an
 * administrator's pty that takes messages, one of the same administrator
 * whose owner said mesg n (group write bit off), another user's pty that
 * is not counted at all, and a utmp line whose device is gone. */
static void wall_counts_what_each_terminal_did(void **state)
{
	struct cgfb_config c;
	struct cgfb_notify_paths p = { 0 };
	struct cgfb_wall_count n;
	char utmp[96], yes_name[64], no_name[64], other_name[64], buf[2048];
	int ym, ys, nm, ns, om, os;
	struct termios raw;

	/* Raw: what arrives is exactly what was written (no \n -> \r\n). */
	memset(&raw, 0, sizeof(raw));
	cfmakeraw(&raw);
	assert_int_equal(openpty(&ym, &ys, yes_name, &raw, NULL), 0);
	assert_int_equal(openpty(&nm, &ns, no_name, &raw, NULL), 0);
	assert_int_equal(openpty(&om, &os, other_name, &raw, NULL), 0);
	assert_int_equal(chmod(yes_name, 0620), 0);
	assert_int_equal(chmod(no_name, 0600), 0);     /* mesg n */
	snprintf(utmp, sizeof(utmp), "%s/utmp-counts", dir);
	close(open(utmp, O_CREAT | O_WRONLY, 0644));
	config(&c, CGFB_NOTIFY_WALL);
	p.utmp = utmp;

	/* Nobody logged in yet: nothing to reach, and that is not an error. */
	assert_int_equal(cgfb_wall_admins(&c, &p, "hello\r\n", &n), 0);
	assert_int_equal(n.terminals, 0);
	assert_int_equal(n.reached, 0);

	add_login(utmp, "root", yes_name + 5);
	add_login(utmp, "root", no_name + 5);
	add_login(utmp, "nobody", other_name + 5);
	assert_int_equal(cgfb_wall_admins(&c, &p, "hello\r\n", &n), 0);
	assert_int_equal(n.terminals, 2);
	assert_int_equal(n.reached, 1);
	assert_int_equal(n.refused, 1);
	assert_int_equal(n.failed, 0);
	drain(ym, buf, sizeof(buf));
	assert_string_equal(buf, "hello\r\n");
	assert_int_equal(drain(nm, buf, sizeof(buf)), 0);
	assert_int_equal(drain(om, buf, sizeof(buf)), 0);

	/* The administrator says mesg y again: both are reached. */
	assert_int_equal(chmod(no_name, 0620), 0);
	assert_int_equal(cgfb_wall_admins(&c, &p, "again\r\n", &n), 0);
	assert_int_equal(n.reached, 2);
	assert_int_equal(n.refused, 0);
	drain(nm, buf, sizeof(buf));
	assert_string_equal(buf, "again\r\n");
	drain(ym, buf, sizeof(buf));

	/* A terminal that is gone (logged out without a utmp update). */
	add_login(utmp, "root", "pts/cgfb-gone");
	assert_int_equal(cgfb_wall_admins(&c, &p, "x", &n), 0);
	assert_int_equal(n.terminals, 3);
	assert_int_equal(n.reached, 2);
	assert_int_equal(n.failed, 1);
	assert_int_equal(n.first_errno, ENOENT);
	drain(ym, buf, sizeof(buf));
	drain(nm, buf, sizeof(buf));

	/* A session whose process is gone, on a terminal that still takes
	 * messages: stale, not counted, and nothing written there. */
	add_login_pid(utmp, "root", other_name + 5, gone_pid());
	assert_int_equal(cgfb_wall_admins(&c, &p, "y", &n), 0);
	assert_int_equal(n.terminals, 3);
	assert_int_equal(n.reached, 2);
	assert_int_equal(drain(om, buf, sizeof(buf)), 0);
	close(ym);
	close(ys);
	close(nm);
	close(ns);
	close(om);
	close(os);
}

static void write_report(const char *id, const char *catalog_id)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/reports", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/reports/%s.json", dir, id);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"detection\":{\"catalog_id\":\"%s\"}}", catalog_id);
	fclose(f);
}

/* The banner's text with every run of white space one space. */
static void read_banner(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n, j = 0;

	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)buf[i]) || (j && buf[j - 1] != ' '))
			buf[j++] = isspace((unsigned char)buf[i]) ? ' ' : buf[i];
	buf[j] = '\0';
}

static void motd_follows_the_spool(void **state)
{
	struct cgfb_config c;
	char path[160], buf[2048];
	FILE *f;
	size_t n;

	config(&c, CGFB_NOTIFY_MOTD);
	assert_int_equal(cgfb_notify_refresh_motd(&c, &sd), 0);
	assert_int_equal(access(c.motd_path, F_OK), -1);
	write_report("4f0c9a55-0000-4000-8000-000000000002", "M7");
	cgfb_notify_new_report(&c, NULL, cat, &sd, "4f0c9a55-0000-4000-8000-000000000002", "M7", false);
	f = fopen(c.motd_path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "1 time: M7"));
	/* The test's spool is not the default one: the banner names it. */
	snprintf(path, sizeof(path), "sudo cgroup-feedback --state-dir %s review\n", dir);
	if (!strstr(buf, path))
		fail_msg("banner without '%s':\n%s", path, buf);
	/* Where a yes goes, before it is given: no collector by default,
	 * so the e-mail for the list; the collector once one is named. */
	read_banner(c.motd_path, buf, sizeof(buf));
	if (!strstr(buf, "Where a yes goes: No collector is configured (endpoint), so a yes writes "
		    "the report as an e-mail for the list the kernel message names "
		    "(linux-mm@kvack.org, and cgroups@vger.kernel.org for the cgroup core's "
		    "messages) to a file, for you to send; nothing goes over the network."))
		fail_msg("banner without where a yes goes (the e-mail):\n%s", buf);
	snprintf(c.endpoint, sizeof(c.endpoint), "https://collector.example/api/v1/reports");
	assert_int_equal(cgfb_notify_refresh_motd(&c, &sd), 0);
	read_banner(c.motd_path, buf, sizeof(buf));
	if (!strstr(buf, "Where a yes goes: A yes sends the report over the network to the collector "
		    "at https://collector.example/api/v1/reports (endpoint in the configuration)."))
		fail_msg("banner without where a yes goes (the collector):\n%s", buf);
	snprintf(path, sizeof(path), "%s/reports/4f0c9a55-0000-4000-8000-000000000002.json", dir);
	unlink(path);
	assert_int_equal(cgfb_notify_refresh_motd(&c, &sd), 0);
	assert_int_equal(access(c.motd_path, F_OK), -1);
}

/* A banner login shows is the system's: a spool elsewhere (this test's, a
 * trial, a copy, an experiment) never writes it, whether it is the
 * default one or the configuration names it (the packaged configuration
 * names the file a link in /run/motd.d points to); a file login does not
 * show is written. Login's places are the test's own here. */
static void system_banner_only_for_the_system_spool(void **state)
{
	struct cgfb_config c;
	char shown[96], run[96], target[128], link[128];
	const char *paths[] = { shown, NULL };

	snprintf(shown, sizeof(shown), "%s/login.d", dir);
	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(mkdir(shown, 0755), 0);
	assert_int_equal(mkdir(run, 0755), 0);
	snprintf(link, sizeof(link), "%s/cgroup-feedback.motd", shown);
	assert_int_equal(symlink("../run/motd", link), 0);      /* dangles, as tmpfiles makes it */
	cgfb_notify_set_login_paths(paths);
	config(&c, CGFB_NOTIFY_MOTD);
	write_report("4f0c9a55-0000-4000-8000-000000000003", "M8");
	/* In login's directory. */
	snprintf(c.motd_path, sizeof(c.motd_path), "%s/other.motd", shown);
	cgfb_notify_new_report(&c, NULL, cat, &sd, "4f0c9a55-0000-4000-8000-000000000003", "M8", false);
	assert_int_equal(cgfb_notify_refresh_motd(&c, &sd), 0);
	assert_int_equal(access(c.motd_path, F_OK), -1);
	/* Named by a link there, by another spelling of its directory. */
	snprintf(target, sizeof(target), "%s/run/motd", dir);
	snprintf(c.motd_path, sizeof(c.motd_path), "%s/login.d/../run/motd", dir);
	assert_int_equal(cgfb_notify_refresh_motd(&c, &sd), 0);
	assert_int_equal(access(target, F_OK), -1);
	/* Elsewhere: written. */
	config(&c, CGFB_NOTIFY_MOTD);
	assert_int_equal(cgfb_notify_refresh_motd(&c, &sd), 0);
	assert_int_equal(access(c.motd_path, F_OK), 0);
	cgfb_notify_set_login_paths(NULL);
}

static void runs_the_command(void **state)
{
	struct cgfb_config c;
	char out[128], buf[256];
	FILE *f = NULL;
	size_t n = 0;

	config(&c, CGFB_NOTIFY_COMMAND);
	snprintf(out, sizeof(out), "%s/hook.out", dir);
	snprintf(c.notify_command, sizeof(c.notify_command),
		 "printf '%%s %%s %%s' \"$CGFB_REPORT_ID\" \"$CGFB_CATALOG_ID\" \"${HOME:-nohome}\" > %s.tmp && mv %s.tmp %s",
		 out, out, out);
	cgfb_notify_new_report(&c, NULL, cat, &sd, "4f0c9a55-0000-4000-8000-000000000003", "M1b", false);
	for (int i = 0; i < 100 && !(f = fopen(out, "r")); i++)
		usleep(20000);
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	/* The hook gets the ids and nothing of our environment. */
	assert_string_equal(buf, "4f0c9a55-0000-4000-8000-000000000003 M1b nohome");
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void silenced_ids_stay_quiet(void **state)
{
	struct cgfb_config c;
	char out[128], path[160];

	config(&c, CGFB_NOTIFY_COMMAND | CGFB_NOTIFY_MOTD);
	snprintf(out, sizeof(out), "%s/silenced.out", dir);
	snprintf(c.notify_command, sizeof(c.notify_command), "touch %s", out);
	assert_false(cgfb_silenced(&sd, "V3"));
	assert_int_equal(cgfb_silence_add(&sd, "V3"), 0);
	assert_int_equal(cgfb_silence_add(&sd, "V3"), 0);
	assert_int_equal(cgfb_silence_add(&sd, "M2"), 0);
	assert_true(cgfb_silenced(&sd, "V3"));
	assert_true(cgfb_silenced(&sd, "M2"));
	assert_false(cgfb_silenced(&sd, "V"));
	cgfb_notify_new_report(&c, NULL, cat, &sd, "4f0c9a55-0000-4000-8000-000000000004", "V3", false);
	usleep(200000);
	assert_int_equal(access(out, F_OK), -1);
	snprintf(path, sizeof(path), "%s/silenced", dir);
	assert_int_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walls_admin_terminals),
		cmocka_unit_test(wall_names_program_and_config),
		cmocka_unit_test(wall_counts_what_each_terminal_did),
		cmocka_unit_test(motd_follows_the_spool),
		cmocka_unit_test(system_banner_only_for_the_system_spool),
		cmocka_unit_test(runs_the_command),
		cmocka_unit_test(silenced_ids_stay_quiet),
	};

	return cmocka_run_group_tests_name("notify", tests, setup, teardown);
}
