#include <errno.h>
#include <string.h>

#include "log/kmsg_record.h"

static int parse_u64(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return -EBADMSG;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*out = v;
	return 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -EBADMSG;
	(*p)++;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t unescape(const char *s, size_t len, char *buf, size_t bufsz)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < bufsz; i++) {
		int hi, lo;

		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    (hi = hexval(s[i + 2])) >= 0 && (lo = hexval(s[i + 3])) >= 0) {
			buf[o++] = (char)(hi << 4 | lo);
			i += 3;
			continue;
		}
		buf[o++] = s[i];
	}
	buf[o] = '\0';
	return o;
}

/* The optional fields between flags and ';': only caller= is used. */
static void parse_extra(const char *p, const char *semi, struct cgfb_record *rec)
{
	while (p < semi && *p == ',') {
		const char *f = ++p;
		const char *e = memchr(f, ',', (size_t)(semi - f));

		if (!e)
			e = semi;
		if ((size_t)(e - f) > 7 && memcmp(f, "caller=", 7) == 0) {
			const size_t n = (size_t)(e - f - 7);

			if (n < sizeof(rec->caller)) {
				memcpy(rec->caller, f + 7, n);
				rec->caller[n] = '\0';
			}
		}
		p = e;
	}
}

bool cgfb_kmsg_looks_like(const char *line, size_t len)
{
	struct cgfb_record rec;
	char buf[1];

	/* Parsing the header alone is cheap; buf of one byte stops the copy. */
	return cgfb_kmsg_parse(line, len, buf, sizeof(buf), &rec) == 0;
}

int cgfb_kmsg_parse(const char *line, size_t len, char *buf, size_t bufsz,
		    struct cgfb_record *rec)
{
	const char *p = line, *end = line + len;
	const char *semi = memchr(line, ';', len);
	uint64_t prio;

	memset(rec, 0, sizeof(*rec));
	if (!semi || bufsz == 0)
		return -EBADMSG;
	if (parse_u64(&p, semi, &prio) < 0 || prio > 1023 || expect(&p, semi, ',') < 0 ||
	    parse_u64(&p, semi, &rec->seq) < 0 || expect(&p, semi, ',') < 0 ||
	    parse_u64(&p, semi, &rec->usec) < 0 || expect(&p, semi, ',') < 0)
		return -EBADMSG;
	if (p >= semi)
		return -EBADMSG;
	rec->fragment = *p != '-';
	rec->frag_start = *p == 'c';
	for (p++; p < semi && *p != ','; p++)
		;
	parse_extra(p, semi, rec);
	rec->level = (int)(prio & 7);
	rec->facility = (int)(prio >> 3);
	rec->has_seq = true;
	rec->has_usec = true;
	rec->len = unescape(semi + 1, (size_t)(end - semi - 1), buf, bufsz);
	rec->text = buf;
	return 0;
}
