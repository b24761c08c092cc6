#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgfb/atomic.h"

#include "cgfb/log.h"
#include "base/exec.h"

#ifndef CGFB_LIBEXECDIR
#define CGFB_LIBEXECDIR "/usr/local/libexec/cgroup-feedback"
#endif
#ifndef CGFB_BINDIR
#define CGFB_BINDIR "/usr/local/bin"
#endif

static int try_path(const char *dir, size_t dirlen, const char *name, char *out, size_t outsz)
{
	const int n = snprintf(out, outsz, "%.*s/%s", (int)dirlen, dir, name);

	if (n < 0 || (size_t)n >= outsz)
		return -ENAMETOOLONG;
	return access(out, X_OK) == 0 ? 0 : -ENOENT;
}

int cgfb_sibling_path(const char *name, char *out, size_t outsz)
{
	const char *installed = strcmp(name, CGFB_CLI_NAME) == 0 ? CGFB_BINDIR : CGFB_LIBEXECDIR;
	char self[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	/* Beside this program first: an uninstalled build runs its own pair,
	 * never an older installed one. */
	if (n > 0) {
		const char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash && try_path(self, (size_t)(slash - self), name, out, outsz) == 0)
			return 0;
	}
	return try_path(installed, strlen(installed), name, out, outsz);
}

/* Hints name path when it is not the installed command line program. */
static void name_cli(const char *path)
{
	char real[PATH_MAX], installed[PATH_MAX];

	/* Compared resolved: /bin may be a link to /usr/bin. */
	if (realpath(path, real) && realpath(CGFB_BINDIR "/" CGFB_CLI_NAME, installed) &&
	    strcmp(real, installed) == 0)
		return;
	cgfb_hint_use_program(path);
}

void cgfb_hint_name_cli(bool self)
{
	char path[PATH_MAX];
	ssize_t n;

	if (self) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n <= 0)
			return;
		path[n] = '\0';
	} else if (cgfb_sibling_path(CGFB_CLI_NAME, path, sizeof(path)) < 0) {
		return;
	}
	name_cli(path);
}

void cgfb_hint_name_cli_as(const char *path)
{
	if (path && path[0] == '/')
		name_cli(path);
	else
		cgfb_hint_name_cli(false);
}

/* Exec the program name (LIBEXECDIR, or beside this one) with the global
 * options, then pass (and, for a command, --cli with this program's path),
 * then argv[first..]. Returns only on failure, having said why. */
static int exec_helper(const char *name, const char *what, const char *config_path,
		       const char *catalog_path, const char *state_dir, bool pass_cli,
		       int argc, char **argv, int first)
{
	char path[PATH_MAX], self[PATH_MAX];
	char **args = calloc((size_t)argc + 10, sizeof(*args));
	int n = 0, rc;
	ssize_t len;

	if (!args) {
		cgfb_log(LOG_ERR, "%s: out of memory", what);
		return -ENOMEM;
	}
	if (cgfb_sibling_path(name, path, sizeof(path)) < 0) {
		cgfb_log(LOG_ERR, "%s: %s is neither beside this program nor in %s; "
			 "is cgroup-feedback installed completely?", what, name, CGFB_LIBEXECDIR);
		free(args);
		return -ENOENT;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0)
		self[len] = '\0';
	/* The watcher starts `cgroup-feedback review` for --prompt: this
	 * very program, not whatever $PATH finds. */
	if (len > 0 && !pass_cli)
		setenv("CGFB_CLI", self, 1);
	args[n++] = path;
	if (pass_cli && len > 0) {
		args[n++] = "--cli";
		args[n++] = self;
	}
	if (config_path) {
		args[n++] = "--config";
		args[n++] = (char *)config_path;
	}
	if (catalog_path) {
		args[n++] = "--catalog";
		args[n++] = (char *)catalog_path;
	}
	if (state_dir) {
		args[n++] = "--state-dir";
		args[n++] = (char *)state_dir;
	}
	for (int i = first; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execv(path, args);
	rc = -errno;
	cgfb_log(LOG_ERR, "%s: starting %s: %s", what, path, strerror(-rc));
	free(args);
	return rc;
}

int cgfb_exec_watcher(const char *config_path, const char *catalog_path,
		      const char *state_dir, int argc, char **argv)
{
	return exec_helper(CGFB_WATCHER_NAME, "watch", config_path, catalog_path, state_dir,
			   false, argc, argv, 1);
}

int cgfb_exec_sender(const char *config_path, const char *catalog_path,
		     const char *state_dir, int argc, char **argv)
{
	return exec_helper(CGFB_SENDER_NAME, argv[0], config_path, catalog_path, state_dir,
			   true, argc, argv, 0);
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

void cgfb_die_with_parent(pid_t parent)
{
	/* Set in the child after fork(): the parent may have died before it,
	 * and then the signal will never come; a parent that is not ours
	 * any more says so. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(127);
}

/* The child's output until it closes it (or out is full). */
static int read_output(int fd, pid_t pid, char *out, size_t outsz, bool (*stop)(pid_t))
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < outsz && (r = read(fd, out + got, outsz - 1 - got)) != 0) {
		if (r < 0 && errno == EINTR && stop && stop(pid))
			return -EINTR;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	out[got] = '\0';
	return 0;
}

int cgfb_run_filter(const char *path, const char *const *argv, const char *in, size_t inlen,
		    char *out, size_t outsz, int *status, bool (*stop)(pid_t pid))
{
	int ip[2] = { -1, -1 }, op[2] = { -1, -1 }, rc = 0;
	pid_t pid, parent;

	if (pipe2(ip, O_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out;
	}
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		cgfb_die_with_parent(parent);
		if (dup2(ip[0], STDIN_FILENO) < 0 || dup2(op[1], STDOUT_FILENO) < 0)
			_exit(127);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	close(ip[0]);
	close(op[1]);
	ip[0] = op[1] = -1;
	/* A child that died early: its exit status says so below. */
	cgfb_write_all(ip[1], in, inlen);
	close(ip[1]);
	ip[1] = -1;
	rc = read_output(op[0], pid, out, outsz, stop);
	while (rc == 0 && waitpid(pid, status, 0) < 0 && errno == EINTR)
		if (stop && stop(pid))
			rc = -EINTR;
out:
	close_pair(ip);
	close_pair(op);
	return rc;
}
