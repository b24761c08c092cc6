/* The cgroup attribute readers (client/snapshot/attrs.c): what a file of
 * a cgroup holds, parsed for one attribute. The walker reads the files
 * from directory fds; these are its value parsers. The first byte of the
 * input picks the attribute, the rest is the file.
 *
 * Properties: a value accepted is one the kernel could have written: for
 * numbers, the decimal digits of the file (less leading zeros and the
 * trailing newline) are the value's, or the file says "max" or a number
 * past the unlimited mark; a small integer is within its maximum, a
 * freezer state one of three, a controller list holds known bits only;
 * and the report's text of a value fits its buffer. */
#include <inttypes.h>

#include "fuzz.h"
#include "privacy/bucket.h"
#include "snapshot/attrs.h"

/* The file's number as text: without the trailing newline or spaces and
 * leading zeros. NULL when it is not only digits. */
static const char *digits(const char *s, size_t n, size_t *len)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return NULL;
	while (n > 1 && s[0] == '0') {
		s++;
		n--;
	}
	*len = n;
	return n ? s : NULL;
}

static void check_number(enum cgfb_attr a, const char *s, size_t n, uint64_t v)
{
	const struct cgfb_attr_def *d = cgfb_attr(a);
	char num[24];
	size_t dl;
	const char *dg;

	if (d->kind == CGFB_K_SIZE_V2 && v == CGFB_UNLIMITED && n >= 3 && memcmp(s, "max", 3) == 0)
		return;
	if (d->kind == CGFB_K_OOM) {
		/* The number is on the first line that starts with the key. */
		const char *p = s, *end = s + n;

		for (;;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const size_t ln = (size_t)((nl ? nl : end) - p);

			if (ln > 17 && memcmp(p, "oom_kill_disable ", 17) == 0) {
				s = p + 17;
				n = ln - 17;
				break;
			}
			PROPERTY(nl != NULL, "oom_control without oom_kill_disable");
			p = nl + 1;
		}
	}
	dg = digits(s, n, &dl);
	PROPERTY(dg != NULL, "%s: '%.*s' accepted as %" PRIu64, d->file, (int)n, s, v);
	if ((d->kind == CGFB_K_SIZE || d->kind == CGFB_K_SIZE_V2) && v == CGFB_UNLIMITED)
		return;
	snprintf(num, sizeof(num), "%" PRIu64, v);
	PROPERTY(strlen(num) == dl && memcmp(num, dg, dl) == 0, "%s: '%.*s' read as %s", d->file,
		 (int)n, s, num);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[CGFB_ATTR_TEXT_MAX];
	enum cgfb_attr a;
	const struct cgfb_attr_def *d;
	char *buf;
	uint64_t v = 0;
	uint32_t bits;

	if (size < 1)
		return 0;
	a = (enum cgfb_attr)(data[0] % CGFB_A_N);
	d = cgfb_attr(a);
	size--;
	buf = malloc(size ? size : 1);
	memcpy(buf, data + 1, size);
	bits = cgfb_ctrl_parse_list(buf, size);
	PROPERTY(bits < (UINT32_C(1) << CGFB_C_N), "controller bits %#x", bits);
	if (cgfb_attr_parse(a, buf, size, &v) == 0) {
		switch (d->kind) {
		case CGFB_K_INT:
		case CGFB_K_OOM:
			PROPERTY(v <= d->max, "%s: %" PRIu64 " over %" PRIu64, d->file, v, d->max);
			/* fall through */
		case CGFB_K_SIZE:
		case CGFB_K_SIZE_V2:
			check_number(a, buf, size, v);
			break;
		case CGFB_K_FREEZER:
			PROPERTY(v < 3, "freezer state %" PRIu64, v);
			break;
		case CGFB_K_CTRL_LIST:
			PROPERTY(v == bits, "controller list");
			break;
		}
		const char *t = cgfb_attr_text(a, v, text);

		PROPERTY(t && strlen(t) < CGFB_ATTR_TEXT_MAX, "text of %s", d->file);
		(void)cgfb_attr_is_default(a, v, 0);
		(void)cgfb_attr_is_default(a, v, 1);
	}
	free(buf);
	return 0;
}
