#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/utf8.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not one.
 * Rejects overlongs, surrogates and code points above U+10FFFF (RFC 3629). */
static size_t seq_len(const unsigned char *s, size_t avail)
{
	const unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (avail < n)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

bool cgfb_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t n;
		uint64_t w;

		/* Reports are nearly all ASCII: eight bytes at a time. */
		if (len - i >= 8) {
			memcpy(&w, p + i, 8);
			if (!(w & UINT64_C(0x8080808080808080))) {
				i += 8;
				continue;
			}
		}
		n = seq_len(p + i, len - i);

		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

size_t cgfb_utf8_lead_len(unsigned char c)
{
	if (c >= 0xf0)
		return 4;
	if (c >= 0xe0)
		return 3;
	if (c >= 0xc0)
		return 2;
	return 1;
}

/* The one list of what is shown escaped (cgfb/utf8.h): code points that
 * move a terminal's cursor or talk to it (C0, DEL, C1: U+009B is CSI,
 * U+009D OSC), that make text read otherwise than it is stored (the bidi
 * controls and marks) or that cannot be seen at all (the other format
 * controls, the line and paragraph separators, the tag characters).
 * free_text marks what the report schema's "text" refuses too
 * (cgfb_text_control): C0 but newline and tab, DEL, C1, and every code
 * point of the Unicode property Bidi_Control (PropList.txt: U+061C,
 * U+200E-U+200F, U+202A-U+202E, U+2066-U+2069; issue 41: an RLM made
 * "limit 10<RLM>-<RLM>20 MB" read "limit 1020- MB" in Chromium); the rest
 * is only shown escaped. U+00AD (soft
 * hyphen) is here though terminals draw it as a hyphen: it then makes
 * "a\u00adb" read as "a-b", another name, and no cgroup name or use case
 * needs one. U+2065 is unassigned but default-ignorable (invisible) like
 * its neighbours; the whole block is taken. */
static const struct hidden {
	uint32_t lo, hi;
	bool free_text;
} hidden[] = {
	{ 0x0000, 0x001f, true },     /* C0 (newline and tab: the caller's mode) */
	{ 0x007f, 0x009f, true },     /* DEL, C1 */
	{ 0x00ad, 0x00ad, false },    /* soft hyphen */
	{ 0x061c, 0x061c, true },     /* Arabic letter mark (Bidi_Control) */
	{ 0x180e, 0x180e, false },    /* Mongolian vowel separator */
	{ 0x200b, 0x200d, false },    /* zero width space, non-joiner, joiner */
	{ 0x200e, 0x200f, true },     /* LRM, RLM (Bidi_Control) */
	{ 0x2028, 0x2029, false },    /* line and paragraph separators */
	{ 0x202a, 0x202e, true },     /* bidi embeddings and overrides */
	{ 0x2060, 0x2065, false },    /* word joiner, invisible operators */
	{ 0x2066, 0x2069, true },     /* bidi isolates */
	{ 0x206a, 0x206f, false },    /* deprecated format controls */
	{ 0xfeff, 0xfeff, false },    /* zero width no-break space (BOM) */
	{ 0xfff9, 0xfffb, false },    /* interlinear annotation */
	{ 0xe0000, 0xe007f, false },  /* tag characters */
};

static uint32_t code_point(const unsigned char *s, size_t n)
{
	static const unsigned char lead_bits[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t c = s[0] & lead_bits[n];

	for (size_t i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

static const struct hidden *hidden_range(uint32_t c)
{
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (c >= hidden[i].lo && c <= hidden[i].hi)
			return &hidden[i];
	return NULL;
}

/* One step of the escape: the bytes src[0..*used) become out[0..return),
 * at most CGFB_ESC_STEP_MAX of them. */
#define CGFB_ESC_STEP_MAX 10
static size_t escape_step(const unsigned char *s, size_t avail, enum cgfb_esc mode, char *out,
			  size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	const size_t n = seq_len(s, avail);
	uint32_t c;

	*used = n ? n : 1;
	if (n == 0 || (n == 1 && s[0] < 0x20 && !(mode == CGFB_ESC_TEXT && (s[0] == '\n' || s[0] == '\t'))) ||
	    (n == 1 && s[0] == 0x7f)) {
		out[0] = '\\';
		out[1] = 'x';
		out[2] = hex[s[0] >> 4];
		out[3] = hex[s[0] & 15];
		return 4;
	}
	if (s[0] == '\\') {
		out[0] = out[1] = '\\';
		return 2;
	}
	c = code_point(s, n);
	if (n == 1 || !hidden_range(c)) {
		memcpy(out, s, n);
		return n;
	}
	/* \uXXXX, or \UXXXXXXXX beyond the BMP (the tag characters). */
	{
		const int digits = c > 0xffff ? 8 : 4;

		out[0] = '\\';
		out[1] = digits == 8 ? 'U' : 'u';
		for (int i = 0; i < digits; i++)
			out[2 + i] = hex[(c >> (4 * (digits - 1 - i))) & 15];
		return 2 + (size_t)digits;
	}
}

/* As many whole steps as fit in dst with its NUL; *consumed says how much
 * of src they took. */
static size_t escape_into(char *dst, size_t dstsz, const char *src, size_t len,
			  enum cgfb_esc mode, size_t *consumed)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0;

	if (!dstsz) {
		*consumed = 0;
		return 0;
	}
	while (i < len) {
		char step[CGFB_ESC_STEP_MAX];
		size_t used;
		const size_t k = escape_step(s + i, len - i, mode, step, &used);

		if (o + k >= dstsz)
			break;
		memcpy(dst + o, step, k);
		o += k;
		i += used;
	}
	dst[o] = '\0';
	*consumed = i;
	return o;
}

size_t cgfb_utf8_escape_as(char *dst, size_t dstsz, const char *src, size_t len,
			   enum cgfb_esc mode)
{
	size_t used;

	return escape_into(dst, dstsz, src, len, mode, &used);
}

size_t cgfb_utf8_escape(char *dst, size_t dstsz, const char *src, size_t len)
{
	return cgfb_utf8_escape_as(dst, dstsz, src, len, CGFB_ESC_LINE);
}

char *cgfb_utf8_escape_dup(const char *s, enum cgfb_esc mode)
{
	const size_t len = s ? strlen(s) : 0;
	char *d;

	if (!s || len > (SIZE_MAX - 1) / 4)
		return NULL;
	d = malloc(CGFB_ESC_SIZE(len));
	if (d)
		cgfb_utf8_escape_as(d, CGFB_ESC_SIZE(len), s, len, mode);
	return d;
}

int cgfb_utf8_escape_put(FILE *f, const char *s, size_t len, enum cgfb_esc mode)
{
	char chunk[1024];

	while (len) {
		size_t used;
		const size_t n = escape_into(chunk, sizeof(chunk), s, len, mode, &used);

		if (fwrite(chunk, 1, n, f) != n)
			return -EIO;
		s += used;
		len -= used;
	}
	return ferror(f) ? -EIO : 0;
}

ssize_t cgfb_text_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		const size_t n = seq_len(p + i, len - i);
		const struct hidden *h;

		/* Bytes that are not UTF-8 are the schema's business (canon). */
		if (n == 0) {
			i++;
			continue;
		}
		h = hidden_range(code_point(p + i, n));
		if (h && h->free_text && p[i] != '\n' && p[i] != '\t')
			return (ssize_t)i;
		i += n;
	}
	return -1;
}
