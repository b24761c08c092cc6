#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "cgfb/utf8.h"
#include "cli/reveal.h"
#include <json-c/json.h>

#include "privacy/anon.h"
#include "privacy/rekey.h"
#include "privacy/secret.h"
#include "snapshot/mountinfo.h"

#define TOKENS_MAX 512
#define TOKEN_LEN (2 + CGFB_TOKEN_HEX)

struct token {
	char tok[TOKEN_LEN + 1];
	char base[TOKEN_LEN + 1];    /* the snapshot's token: tok before the consent re-keyed it */
	char what[512];              /* "" until found */
};

struct reveal {
	struct cgfb_anon *anon;
	struct token t[TOKENS_MAX];
	size_t n, found;
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Every "h:" and 12 hex digits of the report, once each. */
static void collect(struct reveal *r, const char *text, size_t len)
{
	for (const char *p = text; (p = memmem(p, len - (size_t)(p - text), "h:", 2)) != NULL;
	     p += 2) {
		size_t i = 0;
		bool seen = false;

		while (i < CGFB_TOKEN_HEX && p + 2 + i < text + len && is_hex(p[2 + i]))
			i++;
		if (i != CGFB_TOKEN_HEX || (p + TOKEN_LEN < text + len && is_hex(p[TOKEN_LEN])))
			continue;
		for (size_t k = 0; k < r->n && !seen; k++)
			seen = memcmp(r->t[k].tok, p, TOKEN_LEN) == 0;
		if (!seen && r->n < TOKENS_MAX) {
			memcpy(r->t[r->n].tok, p, TOKEN_LEN);
			r->t[r->n].tok[TOKEN_LEN] = '\0';
			memcpy(r->t[r->n].base, r->t[r->n].tok, TOKEN_LEN + 1);
			r->t[r->n++].what[0] = '\0';
		}
	}
}

/* name's token; where it is one of the report's still unknown, what. */
static void match(struct reveal *r, const char *name, const char *what)
{
	char tok[CGFB_ANON_MAX];

	cgfb_anon_token(r->anon, name, strlen(name), tok);
	for (size_t k = 0; k < r->n; k++)
		if (!r->t[k].what[0] && strcmp(r->t[k].base, tok) == 0) {
			snprintf(r->t[k].what, sizeof(r->t[k].what), "%s", what);
			r->found++;
		}
}

/* A consented report's tokens are keyed for its endpoint
 * (privacy/rekey.h): taken back to the snapshot's, which local names give. */
static int unkey(struct reveal *r, const uint8_t key[CGFB_SECRET_LEN], const char *text)
{
	json_object *doc = json_tokener_parse(text), *c, *e;
	struct cgfb_rekey *rk = NULL;
	int rc = 0;

	if (json_object_object_get_ex(doc, "consent", &c) &&
	    json_object_object_get_ex(c, "endpoint", &e) && json_object_get_string(e))
		rc = cgfb_rekey_new(key, json_object_get_string(e), &rk);
	for (size_t k = 0; rk && k < r->n; k++)
		cgfb_rekey_hex(rk, r->t[k].base + 2, false);
	cgfb_rekey_free(rk);
	json_object_put(doc);
	return rc;
}

static struct reveal *walking;       /* nftw passes no context */

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
	char what[sizeof(walking->t[0].what)];

	if (type != FTW_D || f->level == 0)
		return 0;
	/* Whoever created the cgroup chose its name: shown escaped. */
	cgfb_utf8_escape(what + 7, sizeof(what) - 7, path, strlen(path));
	memcpy(what, "cgroup ", 7);
	match(walking, path + f->base, what);
	return walking->found == walking->n ? FTW_STOP : 0;
}

static void walk_cgroups(struct reveal *r, const struct cgfb_reveal_opts *o)
{
	struct cgfb_mounts ms = { 0 };
	const char *mi = o->mountinfo ? o->mountinfo : "/proc/self/mountinfo";
	const int rc = cgfb_mountinfo_read(mi, o->cgroup_root, &ms);

	if (rc < 0) {
		cgfb_log(LOG_WARNING, "reveal: %s: %s; no cgroup names looked at", mi, strerror(-rc));
		return;
	}
	walking = r;
	for (unsigned i = 0; i < ms.n && r->found < r->n; i++)
		nftw(ms.m[i].path, visit, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	walking = NULL;
	cgfb_mounts_free(&ms);
}

/* Process names: a report's comm tokens (a process that wrote the knob). */
static void walk_processes(struct reveal *r, const char *proc)
{
	DIR *d = opendir(proc);
	struct dirent *de;
	char path[512], comm[64], shown[CGFB_ESC_SIZE(sizeof(comm))], what[512];

	if (!d)
		return;
	while ((de = readdir(d)) != NULL && r->found < r->n) {
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s", proc, de->d_name);
		n = cgfb_read_at(AT_FDCWD, strcat(path, "/comm"), comm, sizeof(comm));
		if (n <= 0)
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		/* The process chose its name (prctl PR_SET_NAME): shown escaped. */
		cgfb_utf8_escape(shown, sizeof(shown), comm, strlen(comm));
		snprintf(what, sizeof(what), "process name %s (pid %.20s)", shown, de->d_name);
		match(r, comm, what);
	}
	closedir(d);
}

static void print(const struct reveal *r, FILE *out)
{
	fprintf(out, "\nTokens in this report, as this machine names them (shown here only; "
		"nothing of this is in the report):\n");
	if (!r->n)
		fputs("  none: the report holds no keyed token\n", out);
	for (size_t k = 0; k < r->n; k++)
		fprintf(out, "  %s  %s\n", r->t[k].tok, r->t[k].what[0] ? r->t[k].what :
			"not found here now (a cgroup since removed, a process gone, or a name "
			"the report took from elsewhere)");
}

int cgfb_reveal(const struct cgfb_statedir *sd, const struct cgfb_buf *report,
		const struct cgfb_reveal_opts *o, FILE *out)
{
	struct reveal *r = calloc(1, sizeof(*r));
	uint8_t key[CGFB_SECRET_LEN];
	char err[256];
	int rc = r ? cgfb_secret_load(sd, key, err, sizeof(err)) : -ENOMEM;

	if (rc < 0) {
		cgfb_log(LOG_ERR, "reveal: %s", r ? err : strerror(-rc));
		goto out;
	}
	rc = cgfb_anon_new(key, NULL, &r->anon);
	if (rc == 0) {
		collect(r, report->data, report->len);
		rc = unkey(r, key, report->data);
	}
	memset(key, 0, sizeof(key));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "reveal: %s", strerror(-rc));
		goto out;
	}
	if (r->n)
		walk_cgroups(r, o);
	if (r->found < r->n && (!o->proc || o->proc[0]))
		walk_processes(r, o->proc ? o->proc : "/proc");
	print(r, out);
out:
	if (r)
		cgfb_anon_free(r->anon);
	free(r);
	return rc;
}
