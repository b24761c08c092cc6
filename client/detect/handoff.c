#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/hex.h"
#include "detect/handoff.h"

static json_object *hex_string(const char *s, size_t len)
{
	char buf[2 * CGFB_DETECTION_TEXT_MAX + 1];

	/* What the other side can hold with its NUL. */
	if (len > CGFB_DETECTION_TEXT_MAX - 1)
		len = CGFB_DETECTION_TEXT_MAX - 1;
	cgfb_hex(s, len, buf);
	return json_object_new_string_len(buf, (int)(2 * len));
}

static int unhex(const char *h, char *out, size_t outsz, size_t *len)
{
	const size_t n = strlen(h);

	if (n % 2 || n / 2 >= outsz || cgfb_unhex(h, out, n / 2) < 0)
		return -EINVAL;
	out[n / 2] = '\0';
	*len = n / 2;
	return 0;
}

int cgfb_handoff_encode(const struct cgfb_detection *d, const char *source, struct cgfb_buf *out)
{
	json_object *o = json_object_new_object(), *f = json_object_new_object();
	int rc;

	json_object_object_add(o, "id", json_object_new_string(d->entry->id));
	json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "occurrence", json_object_new_int64(d->occurrence));
	json_object_object_add(o, "level", json_object_new_int(d->level));
	json_object_object_add(o, "in_warn_block", json_object_new_boolean(d->in_warn_block));
	json_object_object_add(o, "text", hex_string(d->text, d->text_len));
	for (unsigned i = 0; i < d->fields.n; i++)
		json_object_object_add(f, d->fields.f[i].name,
				       hex_string(d->fields.f[i].value, strlen(d->fields.f[i].value)));
	json_object_object_add(o, "fields", f);
	/* The boot as the log showed it: the report writer tells by it a
	 * message another kernel printed (docs/PRIVACY.md). */
	if (d->boot.release[0])
		json_object_object_add(o, "boot_release", hex_string(d->boot.release,
								     strlen(d->boot.release)));
	if (d->boot.cmdline[0])
		json_object_object_add(o, "boot_cmdline", hex_string(d->boot.cmdline,
								     strlen(d->boot.cmdline)));
	out->len = 0;
	rc = cgfb_buf_adds(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	if (rc == 0)
		rc = cgfb_buf_adds(out, "\n");
	json_object_put(o);
	return rc;
}

static int fail(char *err, size_t errsz, const char *why)
{
	snprintf(err, errsz, "handoff from the watcher: %s", why);
	return -EINVAL;
}

static int decode_fields(json_object *f, struct cgfb_detection *d)
{
	if (!json_object_is_type(f, json_type_object))
		return -EINVAL;
	json_object_object_foreach(f, name, v) {
		char value[CGFB_FIELD_VALUE_MAX];
		size_t len;

		if (!json_object_is_type(v, json_type_string) ||
		    strlen(name) >= CGFB_FIELD_NAME_MAX ||
		    unhex(json_object_get_string(v), value, sizeof(value), &len) < 0 ||
		    cgfb_fields_set(&d->fields, name, value, len) < 0)
			return -EINVAL;
	}
	return 0;
}

int cgfb_handoff_decode(const struct cgfb_catalog *cat, const char *json, size_t len,
			struct cgfb_detection *d, char source[16], char *err, size_t errsz)
{
	json_object *o = json_tokener_parse(json), *v;
	const char *src;
	size_t n;
	int rc = -EINVAL;

	(void)len;
	memset(d, 0, sizeof(*d));
	if (!o || !json_object_is_type(o, json_type_object)) {
		rc = fail(err, errsz, "not a JSON object");
		goto out;
	}
	if (!json_object_object_get_ex(o, "id", &v) ||
	    !(d->entry = cgfb_catalog_find(cat, json_object_get_string(v)))) {
		rc = fail(err, errsz, "no catalog entry of that id");
		goto out;
	}
	src = json_object_object_get_ex(o, "source", &v) ? json_object_get_string(v) : "";
	if (strcmp(src, "kmsg") != 0 && strcmp(src, "klogctl") != 0 && strcmp(src, "file") != 0 &&
	    strcmp(src, "journal") != 0 && strcmp(src, "check") != 0) {
		rc = fail(err, errsz, "an unknown source");
		goto out;
	}
	snprintf(source, 16, "%s", src);
	d->occurrence = json_object_object_get_ex(o, "occurrence", &v) ?
			(unsigned)json_object_get_int64(v) : 1;
	d->level = json_object_object_get_ex(o, "level", &v) ? json_object_get_int(v) : -1;
	d->in_warn_block = json_object_object_get_ex(o, "in_warn_block", &v) &&
			   json_object_get_boolean(v);
	if (!json_object_object_get_ex(o, "text", &v) ||
	    unhex(json_object_get_string(v), d->text, sizeof(d->text), &d->text_len) < 0) {
		rc = fail(err, errsz, "the text is not hex of at most 1 KiB");
		goto out;
	}
	if (!json_object_object_get_ex(o, "fields", &v) || decode_fields(v, d) < 0) {
		rc = fail(err, errsz, "malformed fields");
		goto out;
	}
	if (json_object_object_get_ex(o, "boot_release", &v) &&
	    unhex(json_object_get_string(v), d->boot.release, sizeof(d->boot.release), &n) < 0) {
		rc = fail(err, errsz, "the boot's release is not hex of at most 64 bytes");
		goto out;
	}
	if (json_object_object_get_ex(o, "boot_cmdline", &v) &&
	    unhex(json_object_get_string(v), d->boot.cmdline, sizeof(d->boot.cmdline), &n) < 0) {
		rc = fail(err, errsz, "the boot's command line is not hex of at most 1 KiB");
		goto out;
	}
	rc = 0;
out:
	json_object_put(o);
	return rc;
}
