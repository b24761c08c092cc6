/* The check's findings (findings.h): kept in rule order, each with the
 * first places it was seen and a count of the rest; what could not be read
 * is kept the same way. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/readfile.h"
#include "cgfb/utf8.h"
#include "readiness/findings.h"
#include "snapshot/attrs.h"

int cgfb_check_path(const struct cgfb_check_opts *o, const char *path, char *buf, size_t sz)
{
	const char *root = o && o->root ? o->root : "";
	int n = snprintf(buf, sz, "%s%s", root, path);

	return n < 0 || (size_t)n >= sz ? -ENAMETOOLONG : 0;
}

bool cgfb_mount_has(const struct cgfb_mount *m, const char *controller)
{
	int i;

	if (m->version != 1)
		return false;
	if (strcmp(controller, "*") == 0)
		return true;
	if (strcmp(controller, "other") == 0)
		return !(m->controllers & ((1u << CGFB_C_MEMORY) | (1u << CGFB_C_CPUSET)));
	i = cgfb_ctrl_index(controller, strlen(controller));
	return i >= 0 && (m->controllers & (1u << i));
}

static struct cgfb_finding *finding_new(struct cgfb_check *c, const struct cgfb_rule *r)
{
	struct cgfb_finding *f;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		void *p = realloc(c->f, cap * sizeof(*c->f));

		if (!p)
			return NULL;
		c->f = p;
		c->cap = cap;
	}
	f = &c->f[c->n++];
	memset(f, 0, sizeof(*f));
	f->rule = r;
	return f;
}

static struct cgfb_finding *finding_for(struct cgfb_check *c, const struct cgfb_rule *r)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].rule == r && !c->f[i].kernel)
			return &c->f[i];
	return finding_new(c, r);
}

/* What the check keeps to say holds cgroup names, file names and values
 * that whoever may create a cgroup or write the file chose (any byte but
 * '/' and NUL): kept escaped (cgfb/utf8.h), so that the text, the JSON
 * and a report show the same visible escape and never the bytes. */
static char *escaped(char *raw)
{
	char *s = raw ? cgfb_utf8_escape_dup(raw, CGFB_ESC_LINE) : NULL;

	free(raw);
	return s;
}

static int add_where(struct cgfb_finding *f, const char *fmt, va_list ap)
{
	char *s;

	f->count++;
	if (f->n_where == CGFB_WHERE_MAX)
		return 0;
	if (vasprintf(&s, fmt, ap) < 0 || !(s = escaped(s)))
		return -ENOMEM;
	f->where[f->n_where++] = s;
	return 0;
}

int cgfb_check_found(struct cgfb_check *c, const struct cgfb_rule *r, const char *fmt, ...)
{
	struct cgfb_finding *f = finding_for(c, r);
	va_list ap;
	int rc;

	if (!f)
		return -ENOMEM;
	va_start(ap, fmt);
	rc = add_where(f, fmt, ap);
	va_end(ap);
	return rc;
}

int cgfb_check_found_ctl(struct cgfb_check *c, const struct cgfb_rule *r, uint32_t ctl,
			 const char *fmt, ...)
{
	struct cgfb_finding *f = finding_for(c, r);
	va_list ap;
	int rc;

	if (!f)
		return -ENOMEM;
	f->controllers |= ctl;
	va_start(ap, fmt);
	rc = add_where(f, fmt, ap);
	va_end(ap);
	return rc;
}

int cgfb_check_owned(struct cgfb_check *c, const struct cgfb_owner *owner, const struct cgfb_rule *r)
{
	for (unsigned i = 0; i < c->n_owned; i++)
		if (c->owned[i].owner == owner && c->owned[i].rule == r) {
			c->owned[i].count++;
			return 0;
		}
	if (c->n_owned == CGFB_OWNED_MAX)
		return -ENOSPC;
	c->owned[c->n_owned++] = (struct cgfb_owned){ .owner = owner, .rule = r, .count = 1 };
	return 0;
}

int cgfb_check_unreadable_why(struct cgfb_check *c, const char *what, const char *why)
{
	unsigned i = c->unreadable < CGFB_UNREADABLE_MAX ? (unsigned)c->unreadable : CGFB_UNREADABLE_MAX;
	char *s;

	c->unreadable++;
	if (i == CGFB_UNREADABLE_MAX)
		return 0;
	if (asprintf(&s, "%s: %s", what, why) < 0 || !(s = escaped(s)))
		return -ENOMEM;
	c->unreadable_what[i] = s;
	return 0;
}

int cgfb_check_read_text(struct cgfb_check *c, const char *path, size_t max, struct cgfb_buf *b)
{
	int rc = cgfb_read_file(path, max, CGFB_RF_REGULAR, b);

	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return cgfb_check_unreadable(c, path, rc) ? -ENOMEM : 1;
	c->sources++;
	if (!b->data || memchr(b->data, '\0', b->len))
		return cgfb_check_unreadable_why(c, path, "not a text file (a NUL byte)") ? -ENOMEM : 1;
	return 0;
}

int cgfb_check_depth_cut(struct cgfb_check *c, const char *where)
{
	if (c->depth_cut++)
		return 0;
	return (c->depth_cut_first = escaped(strdup(where))) ? 0 : -ENOMEM;
}

int cgfb_check_unreadable(struct cgfb_check *c, const char *what, int err)
{
	return cgfb_check_unreadable_why(c, what, strerror(err > 0 ? err : -err));
}

int cgfb_check_found_kernel(struct cgfb_check *c, const struct cgfb_rule *r, const char *kernel,
			    const char *where)
{
	struct cgfb_finding *f = finding_new(c, r);

	if (!f)
		return -ENOMEM;
	f->count = 1;
	if (!(f->kernel = strdup(kernel)) || !(f->where[0] = escaped(strdup(where))))
		return -ENOMEM;
	f->n_where = 1;
	return 0;
}

void cgfb_check_free(struct cgfb_check *c)
{
	for (size_t i = 0; i < c->n; i++) {
		for (unsigned k = 0; k < c->f[i].n_where; k++)
			free(c->f[i].where[k]);
		free(c->f[i].kernel);
	}
	free(c->f);
	for (unsigned i = 0; i < CGFB_UNREADABLE_MAX; i++)
		free(c->unreadable_what[i]);
	free(c->depth_cut_first);
	free(c->env);
	memset(c, 0, sizeof(*c));
}
