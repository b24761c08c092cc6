#include <stdint.h>
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

size_t cgfb_utf8_sanitize(char *dst, size_t dstsz, const char *src, size_t len)
{
	static const char repl[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)src;
	size_t i = 0, o = 0;

	if (dstsz == 0)
		return 0;
	while (i < len) {
		size_t n = seq_len(p + i, len - i);
		const char *from = src + i;
		size_t step = n;

		if (n == 0 || (n == 1 && p[i] < 0x20 && p[i] != '\t')) {
			from = repl;
			n = 3;
			step = 1;
		}
		if (o + n >= dstsz)
			break;
		memcpy(dst + o, from, n);
		o += n;
		i += step;
	}
	dst[o] = '\0';
	return o;
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

size_t cgfb_utf8_escape(char *dst, size_t dstsz, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;

	if (!dstsz)
		return 0;
	for (size_t i = 0; i < len;) {
		const size_t n = seq_len(s + i, len - i);
		/* C0, DEL, C1 (U+0080-U+009F), the backslash, and every byte
		 * that is not valid UTF-8: \xNN, byte by byte. */
		const bool esc = n == 0 || (n == 1 && (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')) ||
				 (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0);
		const size_t take = esc ? (n ? n : 1) : n;

		for (size_t k = 0; k < take; k++) {
			if (esc) {
				if (o + 4 >= dstsz)
					goto out;
				dst[o++] = '\\';
				dst[o++] = 'x';
				dst[o++] = hex[s[i + k] >> 4];
				dst[o++] = hex[s[i + k] & 15];
			} else {
				if (o + take - k >= dstsz)
					goto out;
				dst[o++] = (char)s[i + k];
			}
		}
		i += take;
	}
out:
	dst[o] = '\0';
	return o;
}

/* Bytes of the C1 control (U+0080-U+009F) or bidi control (U+202A-U+202E,
 * U+2066-U+2069) that starts at p, or 0. */
static size_t hidden_control(const unsigned char *p, size_t avail)
{
	if (avail >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	if (avail >= 3 && p[0] == 0xe2 &&
	    ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
	     (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
		return 3;
	return 0;
}

ssize_t cgfb_text_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; i++) {
		const unsigned char c = p[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || hidden_control(p + i, len - i))
			return (ssize_t)i;
	}
	return -1;
}
