#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "privacy/allowlist.h"
#include "privacy/anon.h"
#include "privacy/deltoken.h"
#include "cgfb/sha256.h"
#include "privacy/secret.h"

static char dir[64];
static struct cgfb_allowlist *al;

static int setup(void **state)
{
	char err[256] = "";

	snprintf(dir, sizeof(dir), "/tmp/cgfb-anon.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return cgfb_allowlist_load(&al, NULL, err, sizeof(err));
}

static int teardown(void **state)
{
	char cmd[128];

	cgfb_allowlist_free(al);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *name(const char *s)
{
	return cgfb_allowlist_name(al, s, strlen(s));
}

static void kept_and_generalised(void **state)
{
	static const char id64[] = "4f2b9c0e1d3a5b7c9e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f";
	char buf[300];

	assert_string_equal(name("system.slice"), "system.slice");
	assert_string_equal(name("kubepods"), "kubepods");
	assert_string_equal(name("burstable"), "burstable");
	assert_string_equal(name("user-1000.slice"), "user-N.slice");
	assert_string_equal(name("user@1000.service"), "user@N.service");
	assert_string_equal(name("session-42.scope"), "session-N.scope");
	assert_string_equal(name("session-c3.scope"), "session-N.scope");
	snprintf(buf, sizeof(buf), "docker-%s.scope", id64);
	assert_string_equal(name(buf), "docker-ID.scope");
	assert_string_equal(name(id64), "ID");
	snprintf(buf, sizeof(buf), "cri-containerd-%s.scope", id64);
	assert_string_equal(name(buf), "cri-containerd-ID.scope");
	assert_string_equal(name("pod6b4c1c8e-2f3a-4d5e-8a9b-0c1d2e3f4a5b"), "podUID");
	assert_string_equal(name("kubepods-burstable-pod6b4c1c8e_2f3a_4d5e_8a9b_0c1d2e3f4a5b.slice"),
			    "kubepods-burstable-podUID.slice");
	assert_string_equal(name("machine-qemu\\x2d1\\x2dacme\\x2dweb.scope"), "machine-qemu-ID.scope");
	assert_string_equal(name("machine-fedora38.scope"), "machine-NAME.scope");
	assert_string_equal(name("lxc.payload.customer-db"), "lxc.payload.NAME");
	assert_string_equal(name("guest7.libvirt-qemu"), "NAME.libvirt-qemu");
	assert_string_equal(name("vcpu12"), "vcpuN");
	/* Near misses are not generalised: the rules are anchored. */
	assert_null(name("user-1000.slice.bak"));
	assert_null(name("xsystem.slice"));
	assert_null(name("docker-abc.scope"));
	assert_null(name("session-42.scope\n"));
	/* A NUL inside the bytes never matches a C string. */
	assert_null(cgfb_allowlist_name(al, "system.slice\0x", 14));
	assert_null(name("ACME-Corporation"));
}

static void comms(void **state)
{
	assert_true(cgfb_allowlist_comm(al, "runc", 4));
	assert_true(cgfb_allowlist_comm(al, "libvirtd", 8));
	assert_true(cgfb_allowlist_comm(al, "docker-containe", 15));
	assert_false(cgfb_allowlist_comm(al, "run", 3));
	assert_false(cgfb_allowlist_comm(al, "acme-billing", 12));
	assert_false(cgfb_allowlist_comm(al, "", 0));
}

static void shapes(void **state)
{
	assert_true(cgfb_name_shape_ok("user-N.slice", 12));
	assert_true(cgfb_name_shape_ok("getty@ttyN.service", 18));
	assert_false(cgfb_name_shape_ok("-.slice", 7));
	assert_false(cgfb_name_shape_ok("a b", 3));
	assert_false(cgfb_name_shape_ok("", 0));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void extra_files(void **state)
{
	struct cgfb_allowlist *x = NULL;
	char path[128], err[256];

	snprintf(path, sizeof(path), "%s/plain", dir);
	write_file(path, "# ours\n  billing.slice  \n\ntenant-db\n");
	assert_int_equal(cgfb_allowlist_load(&x, path, err, sizeof(err)), 0);
	assert_string_equal(cgfb_allowlist_name(x, "billing.slice", 13), "billing.slice");
	assert_string_equal(cgfb_allowlist_name(x, "tenant-db", 9), "tenant-db");
	assert_string_equal(cgfb_allowlist_name(x, "system.slice", 12), "system.slice");
	cgfb_allowlist_free(x);

	snprintf(path, sizeof(path), "%s/json", dir);
	write_file(path, "{\"generalise\":[{\"match\":\"^job-[0-9]+$\",\"as\":\"job-N\"}],\"comms\":[\"lsfjob\"]}");
	assert_int_equal(cgfb_allowlist_load(&x, path, err, sizeof(err)), 0);
	assert_string_equal(cgfb_allowlist_name(x, "job-77", 6), "job-N");
	assert_true(cgfb_allowlist_comm(x, "lsfjob", 6));
	cgfb_allowlist_free(x);

	/* What could let a raw name through is refused, naming the entry. */
	write_file(path, "good\nbad name\n");
	assert_int_equal(cgfb_allowlist_load(&x, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2"));
	write_file(path, "{\"generalise\":[{\"match\":\"job-[0-9]+\",\"as\":\"job-N\"}]}");
	assert_int_equal(cgfb_allowlist_load(&x, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "^"));
	write_file(path, "{\"generalise\":[{\"match\":\"^(.*)$\",\"as\":\"\\\\1\"}]}");
	assert_int_equal(cgfb_allowlist_load(&x, path, err, sizeof(err)), -EINVAL);
	write_file(path, "{\"names\":[\"ok\", 7]}");
	assert_int_equal(cgfb_allowlist_load(&x, path, err, sizeof(err)), -EINVAL);
	assert_int_equal(cgfb_allowlist_load(&x, "/nonexistent", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent"));
}

/* The token is HMAC-SHA256(key, name), hex, first 12 digits: computed here
 * with OpenSSL's one-shot EVP_Q_mac as the reference. */
static void tokens(void **state)
{
	static const char names[][300] = { "ACME-Corporation", "line\nbreak", "caf\xe9\xff", "" };
	uint8_t k1[CGFB_SECRET_LEN], k2[CGFB_SECRET_LEN];
	struct cgfb_anon *a, *b;
	char t1[CGFB_ANON_MAX], t2[CGFB_ANON_MAX];

	for (int i = 0; i < CGFB_SECRET_LEN; i++) {
		k1[i] = (uint8_t)i;
		k2[i] = (uint8_t)(i + 1);
	}
	assert_int_equal(cgfb_anon_new(k1, al, &a), 0);
	assert_int_equal(cgfb_anon_new(k2, al, &b), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unsigned char md[32];
		size_t mdlen = 0;
		char want[CGFB_ANON_MAX];
		const size_t len = strlen(names[i]);

		assert_non_null(EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, k1, sizeof(k1),
					  (const unsigned char *)names[i], len, md, sizeof(md), &mdlen));
		snprintf(want, sizeof(want), "h:%02x%02x%02x%02x%02x%02x", md[0], md[1], md[2], md[3],
			 md[4], md[5]);
		cgfb_anon_name(a, names[i], len, t1);
		assert_string_equal(t1, want);
		cgfb_anon_name(a, names[i], len, t2);
		assert_string_equal(t2, t1);            /* stable */
		cgfb_anon_name(b, names[i], len, t2);
		assert_string_not_equal(t2, t1);        /* another install */
	}
	cgfb_anon_name(a, "init.scope", 10, t1);
	assert_string_equal(t1, "init.scope");
	cgfb_anon_comm(a, "kubelet", 7, t1);
	assert_string_equal(t1, "kubelet");
	cgfb_anon_comm(a, "runc:[1:CHILD]", 14, t1);
	assert_string_equal(t1, "runc");
	cgfb_anon_comm(a, "acme-billing", 12, t1);
	assert_int_equal(strncmp(t1, "h:", 2), 0);
	assert_int_equal(strlen(t1), 14);
	cgfb_anon_free(a);
	cgfb_anon_free(b);
}

static void secret_file(void **state)
{
	uint8_t k1[CGFB_SECRET_LEN], k2[CGFB_SECRET_LEN];
	char sub[96], path[128], err[256];
	struct cgfb_statedir sd;
	struct stat st;
	int fd;

	snprintf(sub, sizeof(sub), "%s/state/sub", dir);
	assert_int_equal(cgfb_statedir_open(&sd, sub, CGFB_SD_CREATE, err, sizeof(err)), 0);
	assert_int_equal(cgfb_secret_load(&sd, k1, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s", sub, CGFB_SECRET_FILE);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, CGFB_SECRET_LEN);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(cgfb_secret_load(&sd, k2, err, sizeof(err)), 0);
	assert_memory_equal(k1, k2, sizeof(k1));
	chmod(path, 0640);
	assert_int_equal(cgfb_secret_load(&sd, k2, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "readable by others"));
	chmod(path, 0600);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(cgfb_secret_load(&sd, k2, err, sizeof(err)), -EBADMSG);
	unlink(path);
	/* Two installs: two secrets. */
	assert_int_equal(cgfb_secret_load(&sd, k2, err, sizeof(err)), 0);
	assert_memory_not_equal(k1, k2, sizeof(k1));
	cgfb_statedir_close(&sd);
}

/* A golden image's secret copied to its clones: each clone's machine-id
 * makes it another install; the same machine-id, the same key; without a
 * machine-id (a container without one, or "uninitialized") the stored
 * secret is the key. */
static void machine_binding(void **state)
{
	uint8_t stored[CGFB_SECRET_LEN], ka[CGFB_SECRET_LEN], kb[CGFB_SECRET_LEN];
	uint8_t k[CGFB_SECRET_LEN];
	char sub[96], path[128], mid[128], err[256];
	struct cgfb_statedir sd;
	int fd;

	snprintf(sub, sizeof(sub), "%s/state/clone", dir);
	snprintf(mid, sizeof(mid), "%s/machine-id", dir);
	assert_int_equal(setenv(CGFB_MACHINE_ID_ENV, mid, 1), 0);
	assert_int_equal(cgfb_statedir_open(&sd, sub, CGFB_SD_CREATE, err, sizeof(err)), 0);
	write_file(mid, "0123456789abcdef0123456789abcdef\n");
	assert_int_equal(cgfb_secret_load(&sd, ka, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s", sub, CGFB_SECRET_FILE);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, stored, sizeof(stored)), sizeof(stored));
	close(fd);
	assert_memory_not_equal(ka, stored, sizeof(ka));
	/* The clone: the same secret file, another machine-id. */
	write_file(mid, "fedcba9876543210fedcba9876543210\n");
	assert_int_equal(cgfb_secret_load(&sd, kb, err, sizeof(err)), 0);
	assert_memory_not_equal(ka, kb, sizeof(ka));
	write_file(mid, "0123456789abcdef0123456789abcdef\n");
	assert_int_equal(cgfb_secret_load(&sd, k, err, sizeof(err)), 0);
	assert_memory_equal(k, ka, sizeof(k));
	write_file(mid, "uninitialized\n");
	assert_int_equal(cgfb_secret_load(&sd, k, err, sizeof(err)), 0);
	assert_memory_equal(k, stored, sizeof(k));
	unlink(mid);
	assert_int_equal(cgfb_secret_load(&sd, k, err, sizeof(err)), 0);
	assert_memory_equal(k, stored, sizeof(k));
	/* The raw secret is the stored one whatever the machine-id: the
	 * deletion tokens derived from it survive a change of machine-id. */
	write_file(mid, "fedcba9876543210fedcba9876543210\n");
	assert_int_equal(cgfb_secret_load_raw(&sd, k, err, sizeof(err)), 0);
	assert_memory_equal(k, stored, sizeof(k));
	unsetenv(CGFB_MACHINE_ID_ENV);
	cgfb_statedir_close(&sd);
}

/* A new report id is bound to the token derived for it, which only the
 * secret's holder can derive again; a reserved id gives its nonce. */
static void deletion_tokens(void **state)
{
	uint8_t secret[CGFB_SECRET_LEN], other[CGFB_SECRET_LEN];
	char id[CGFB_REPORT_ID_LEN + 1], again[CGFB_REPORT_ID_LEN + 1], t[65], t2[65], h[65];
	const char *reserved = "0b0e0000-1111-4222-8333-444455556666";

	memset(secret, 7, sizeof(secret));
	memset(other, 8, sizeof(other));
	assert_int_equal(cgfb_deltoken_new_id(secret, NULL, id), 0);
	assert_true(cgfb_report_id_valid(id));
	assert_true(cgfb_deltoken_of(secret, id, t));
	assert_int_equal(strlen(t), 64);
	cgfb_sha256_hex(t, 64, h);
	assert_true(cgfb_report_id_bound(id, h));
	/* Another install's secret derives no token for it. */
	assert_false(cgfb_deltoken_of(other, id, t2));
	assert_string_equal(t2, "");
	/* Two new ids: two nonces, two tokens. */
	assert_int_equal(cgfb_deltoken_new_id(secret, NULL, again), 0);
	assert_string_not_equal(id, again);
	assert_true(cgfb_deltoken_of(secret, again, t2));
	assert_string_not_equal(t, t2);
	/* An id of an earlier client (random) is bound to nothing. */
	assert_false(cgfb_deltoken_of(secret, reserved, t2));
	/* The watcher's reserved id gives the same id every time. */
	assert_int_equal(cgfb_deltoken_new_id(secret, reserved, id), 0);
	assert_int_equal(cgfb_deltoken_new_id(secret, reserved, again), 0);
	assert_string_equal(id, again);
	assert_memory_equal(id, reserved, 18);   /* its nonce: the first 8 bytes */
	assert_true(cgfb_deltoken_of(secret, id, t));
	assert_int_equal(cgfb_deltoken_new_id(secret, "not-an-id", id), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kept_and_generalised),
		cmocka_unit_test(comms),
		cmocka_unit_test(shapes),
		cmocka_unit_test(extra_files),
		cmocka_unit_test(tokens),
		cmocka_unit_test(secret_file),
		cmocka_unit_test(machine_binding),
		cmocka_unit_test(deletion_tokens),
	};

	return cmocka_run_group_tests_name("anon", tests, setup, teardown);
}
