#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/utf16.h>

#include "privacy/normalise.h"

/* ICU's NFKC instance is a singleton it owns; the spoof checker is opened
 * once and kept for the life of the process (it holds only ICU's data). */
static const UNormalizer2 *nfkc;
static USpoofChecker *spoof;
static pthread_once_t icu_once = PTHREAD_ONCE_INIT;

static void icu_open(void)
{
	UErrorCode e = U_ZERO_ERROR;

	nfkc = unorm2_getNFKCInstance(&e);
	if (U_FAILURE(e))
		nfkc = NULL;
	e = U_ZERO_ERROR;
	spoof = uspoof_open(&e);
	if (U_FAILURE(e))
		spoof = NULL;
}

static int grow(struct cgfb_normal *n, size_t *cap, size_t more)
{
	if (n->len + more + 1 <= *cap)
		return 0;
	const size_t c = (n->len + more + 1) * 2;
	char *t = realloc(n->text, c);

	if (!t)
		return -ENOMEM;
	n->text = t;
	size_t *a = realloc(n->at, c * sizeof(*a));

	if (!a)
		return -ENOMEM;
	n->at = a;
	*cap = c;
	return 0;
}

static int put(struct cgfb_normal *n, size_t *cap, const char *s, size_t len, size_t from)
{
	if (grow(n, cap, len) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		n->text[n->len] = s[i];
		n->at[n->len++] = from;
	}
	return 0;
}

/* One code point of s (at most n bytes): its value and length; an invalid
 * byte is -1, length 1. */
static int32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	const unsigned need = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
			      (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	int32_t cp = need == 1 ? s[0] : need == 2 ? s[0] & 0x1f : need == 3 ? s[0] & 0x0f : s[0] & 0x07;

	*len = 1;
	if (need == 1)
		return cp;
	if (need == 0 || need > n)
		return -1;
	for (unsigned i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*len = need;
	/* Surrogates and what lies past U+10FFFF are not characters. */
	return (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ? -1 : cp;
}

/* Shown as nothing: hidden inside a word, it would split what the scan
 * looks for while the reader sees one word. */
static bool invisible(UChar32 cp)
{
	return u_charType(cp) == U_FORMAT_CHAR || u_charType(cp) == U_NON_SPACING_MARK ||
	       u_hasBinaryProperty(cp, UCHAR_DEFAULT_IGNORABLE_CODE_POINT);
}

/* s (n UTF-16 units) in ASCII, or false when some of it is not. */
static bool ascii(const UChar *s, int32_t n, char *out)
{
	for (int32_t i = 0; i < n; i++) {
		if (s[i] >= 0x80)
			return false;
		out[i] = (char)s[i];
	}
	out[n] = '\0';
	return n > 0;
}

/* What cp reads as in ASCII (NFKC, then its confusable skeleton), in out;
 * false when it reads as nothing ASCII. */
static bool fold_cp(UChar32 cp, char out[40])
{
	UChar src[2], nf[20], sk[20];
	int32_t n = 0, m;
	UErrorCode e = U_ZERO_ERROR;

	U16_APPEND_UNSAFE(src, n, cp);
	m = nfkc ? unorm2_normalize(nfkc, src, n, nf, 20, &e) : 0;
	if (U_FAILURE(e) || m <= 0) {
		memcpy(nf, src, n * sizeof(*src));
		m = n;
	}
	if (ascii(nf, m, out))
		return true;
	/* Ideographic full stops: no skeleton of theirs is ASCII. */
	if (m == 1 && (nf[0] == 0x3002 || nf[0] == 0xff61)) {
		strcpy(out, ".");
		return true;
	}
	e = U_ZERO_ERROR;
	n = spoof ? uspoof_getSkeleton(spoof, 0, nf, m, sk, 20, &e) : 0;
	if (U_FAILURE(e) || !ascii(sk, n, out))
		return false;
	/* The skeletons' prototypes are "rn" for every m-like letter and "l"
	 * for every I-like one: read as the letter they imitate. */
	if (strcmp(out, "rn") == 0)
		strcpy(out, "m");
	else if (strcmp(out, "l") == 0 && u_isupper(cp))
		strcpy(out, "I");
	return true;
}

static int unicode_pass(const char *text, struct cgfb_normal *n)
{
	const size_t len = strlen(text);
	size_t cap = 0;
	char buf[40];

	for (size_t i = 0; i < len;) {
		size_t cl;
		const int32_t cp = decode((const unsigned char *)text + i, len - i, &cl);
		int rc;

		/* ICU's data only for text that needs it: most use cases are
		 * ASCII, and opening the spoof checker is the scan's dearest step. */
		if (cp >= 0x80)
			pthread_once(&icu_once, icu_open);
		if (cp >= 0x80 && invisible(cp))
			rc = 0;
		else if (cp >= 0x80 && fold_cp(cp, buf))
			rc = put(n, &cap, buf, strlen(buf), i);
		else
			rc = put(n, &cap, text + i, cl, i);
		if (rc < 0)
			return rc;
		i += cl;
	}
	if (grow(n, &cap, 0) < 0)
		return -ENOMEM;
	n->text[n->len] = '\0';
	n->at[n->len] = len;
	return 0;
}

/* The defanged forms of '.' and '@' that never occur in innocent text. */
static const struct {
	const char *from, *to;
} fangs[] = {
	{ "[.]", "." }, { "(.)", "." }, { "{.}", "." }, { "[dot]", "." }, { "(dot)", "." },
	{ "{dot}", "." }, { "[at]", "@" }, { "(at)", "@" }, { "{at}", "@" }, { "[@]", "@" },
	{ "(@)", "@" }, { "[:]", ":" }, { "[://]", "://" }, { "hxxp", "http" },
};

static bool word_at(const char *s, const char *w)
{
	return strncasecmp(s, w, strlen(w)) == 0;
}

/* " dot " between two parts of an address: "10 dot 1", "acme dot example". */
static size_t spelled_dot(const char *s, size_t i)
{
	if (i == 0 || !isalnum((unsigned char)s[i - 1]) || !word_at(s + i, " dot ") ||
	    !isalnum((unsigned char)s[i + 5]))
		return 0;
	return 5;
}

/* A label followed by a dot in any of its forms. */
static bool dotted_label(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return false;
	while (isalnum((unsigned char)*s) || *s == '-' || *s == '_')
		s++;
	while (*s == ' ')
		s++;
	return (*s == '.' && isalnum((unsigned char)s[1])) || word_at(s, "dot ") ||
	       word_at(s, "[.]") || word_at(s, "(.)") || word_at(s, "[dot]") || word_at(s, "(dot)");
}

/* " at " only before a dotted domain: "alice at acme dot example", not
 * "at night" or "at 10.1.2.3". */
static size_t spelled_at(const char *s, size_t i)
{
	if (i == 0 || !isalnum((unsigned char)s[i - 1]) || !word_at(s + i, " at ") ||
	    !dotted_label(s + i + 4))
		return 0;
	return 4;
}

static size_t fang(const char *s, size_t i, const char **to)
{
	size_t k;

	for (size_t f = 0; f < sizeof(fangs) / sizeof(fangs[0]); f++)
		if (word_at(s + i, fangs[f].from)) {
			*to = fangs[f].to;
			return strlen(fangs[f].from);
		}
	if ((k = spelled_dot(s, i)) != 0) {
		*to = ".";
		return k;
	}
	if ((k = spelled_at(s, i)) != 0) {
		*to = "@";
		return k;
	}
	return 0;
}

/* Spaces around a bracketed fang go with it: "acme [.] example". */
static int defang_pass(const struct cgfb_normal *in, struct cgfb_normal *n)
{
	const char *s = in->text;
	size_t cap = 0;

	for (size_t i = 0; i < in->len;) {
		const char *to = NULL;
		size_t k = fang(s, i, &to);
		int rc;

		if (k && (s[i] == '[' || s[i] == '(' || s[i] == '{')) {
			while (n->len && n->text[n->len - 1] == ' ')
				n->len--;
			while (s[i + k] == ' ')
				k++;
		}
		rc = k ? put(n, &cap, to, strlen(to), in->at[i]) : put(n, &cap, s + i, 1, in->at[i]);
		if (rc < 0)
			return rc;
		i += k ? k : 1;
	}
	if (grow(n, &cap, 0) < 0)
		return -ENOMEM;
	n->text[n->len] = '\0';
	n->at[n->len] = in->at[in->len];
	return 0;
}

int cgfb_normalise(const char *text, struct cgfb_normal *out)
{
	struct cgfb_normal u = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = unicode_pass(text, &u);
	if (rc == 0)
		rc = defang_pass(&u, out);
	cgfb_normal_free(&u);
	if (rc < 0)
		cgfb_normal_free(out);
	return rc;
}

void cgfb_normal_free(struct cgfb_normal *n)
{
	free(n->text);
	free(n->at);
	memset(n, 0, sizeof(*n));
}
