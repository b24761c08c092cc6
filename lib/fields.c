#include <errno.h>
#include <string.h>

#include "cgfb/fields.h"

static void copy_bounded(char *dst, size_t dstsz, const char *src, size_t len)
{
	if (len >= dstsz)
		len = dstsz - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static struct cgfb_field *lookup(struct cgfb_fields *fs, const char *name)
{
	for (unsigned i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].name, name) == 0)
			return &fs->f[i];
	return NULL;
}

int cgfb_fields_set(struct cgfb_fields *fs, const char *name, const char *value, size_t len)
{
	struct cgfb_field *f = lookup(fs, name);

	if (!f) {
		if (fs->n >= CGFB_FIELDS_MAX)
			return -ENOSPC;
		f = &fs->f[fs->n++];
		copy_bounded(f->name, sizeof(f->name), name, strlen(name));
	}
	copy_bounded(f->value, sizeof(f->value), value, len);
	return 0;
}

int cgfb_fields_add_default(struct cgfb_fields *fs, const char *name, const char *value, size_t len)
{
	if (lookup(fs, name))
		return 0;
	return cgfb_fields_set(fs, name, value, len);
}

const char *cgfb_fields_get(const struct cgfb_fields *fs, const char *name)
{
	for (unsigned i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].name, name) == 0)
			return fs->f[i].value;
	return NULL;
}
