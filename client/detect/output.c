#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cgfb/utf8.h"
#include "detect/output.h"

static const char *const level_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

static void cgfb_detection_source(const struct cgfb_detection *d, const char *source_name, char *buf,
			   size_t bufsz)
{
	char name[256];

	if (!source_name) {
		snprintf(buf, bufsz, "kmsg:%" PRIu64, d->seq);
		return;
	}
	/* File names are bytes: escaped for the terminal and for JSON. */
	cgfb_utf8_escape(name, sizeof(name), source_name, strlen(source_name));
	snprintf(buf, bufsz, "%s:%lu", name, d->line);
}


json_object *cgfb_json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

int cgfb_print_json_line(FILE *out, json_object *o)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ferror(out) ? -EIO : 0;
}

json_object *cgfb_detection_json(const struct cgfb_detection *d, const char *source_name)
{
	json_object *o = json_object_new_object(), *fields = json_object_new_object();
	char text[CGFB_ESC_SIZE(CGFB_DETECTION_TEXT_MAX)], src[320];

	cgfb_utf8_escape(text, sizeof(text), d->text, d->text_len);
	cgfb_detection_source(d, source_name, src, sizeof(src));
	json_object_object_add(o, "id", json_object_new_string(d->entry->id));
	json_object_object_add(o, "title", json_object_new_string(d->entry->title));
	json_object_object_add(o, "contact", cgfb_json_str_or_null(cgfb_detection_contact(d)));
	if (d->entry->explain)
		json_object_object_add(o, "explain", json_object_new_string(d->entry->explain));
	json_object_object_add(o, "level", json_object_new_int(cgfb_detection_level(d)));
	json_object_object_add(o, "text", json_object_new_string(text));
	json_object_object_add(o, "source", json_object_new_string(src));
	json_object_object_add(o, "occurrence", json_object_new_int((int)d->occurrence));
	if (d->has_seq)
		json_object_object_add(o, "seq", json_object_new_uint64(d->seq));
	if (d->has_usec)
		json_object_object_add(o, "usec", json_object_new_uint64(d->usec));
	json_object_object_add(o, "warn_block", json_object_new_boolean(d->in_warn_block));
	json_object_object_add(o, "kernel_proven", json_object_new_boolean(!d->unproven));
	for (unsigned i = 0; i < d->fields.n; i++) {
		char v[CGFB_ESC_SIZE(CGFB_FIELD_VALUE_MAX)];

		cgfb_utf8_escape(v, sizeof(v), d->fields.f[i].value, strlen(d->fields.f[i].value));
		json_object_object_add(fields, d->fields.f[i].name, json_object_new_string(v));
	}
	json_object_object_add(o, "fields", fields);
	return o;
}

static void print_human(FILE *out, const struct cgfb_detection *d, const char *src)
{
	char text[CGFB_ESC_SIZE(CGFB_DETECTION_TEXT_MAX)];
	const int lvl = cgfb_detection_level(d);

	cgfb_utf8_escape(text, sizeof(text), d->text, d->text_len);
	fprintf(out, "%s: %s (%s): %s\n", src, d->entry->id,
		lvl >= 0 && lvl < 8 ? level_names[lvl] : "unknown", d->entry->title);
	fprintf(out, "    %s\n", text);
	if (d->unproven)
		fputs("    not proven the kernel's: a syslog line's \"kernel:\" is any program's "
		      "to claim\n", out);
	if (d->fields.n) {
		fputs("   ", out);
		for (unsigned i = 0; i < d->fields.n; i++) {
			char v[CGFB_ESC_SIZE(CGFB_FIELD_VALUE_MAX)];

			cgfb_utf8_escape(v, sizeof(v), d->fields.f[i].value,
					 strlen(d->fields.f[i].value));
			fprintf(out, " %s=%s", d->fields.f[i].name, v);
		}
		fputc('\n', out);
	}
	if (cgfb_detection_contact(d))
		fprintf(out, "    contact: %s\n", cgfb_detection_contact(d));
	if (d->entry->explain)
		fprintf(out, "    what broke: %s\n", d->entry->explain);
}

int cgfb_detection_print(FILE *out, const struct cgfb_detection *d, const char *source_name,
			 bool json)
{
	if (json) {
		cgfb_print_json_line(out, cgfb_detection_json(d, source_name));
	} else {
		char src[320];

		cgfb_detection_source(d, source_name, src, sizeof(src));
		print_human(out, d, src);
	}
	return ferror(out) ? -EIO : 0;
}
