#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "privacy/vocab.h"

static const char *const contacts[] = {
	"linux-mm@kvack.org", "linux-mm-@kvack.org", "cgroups@vger.kernel.org",
};

/* Punctuation a shaped message keeps: enough for the kernel's sentences,
 * nothing that builds an address or a path on its own. */
static const char punct[] = " ().,:;\"'!?[]<>+*#%&";

const char *cgfb_vocab_or(const struct cgfb_schema *s, const char *def, const char *word,
			  const char *fallback)
{
	if (!word || !*word || strlen(word) > CGFB_VOCAB_WORD_MAX)
		return fallback;
	return cgfb_schema_check_word(s, def, word) == 0 ? word : fallback;
}

const char *cgfb_vocab_kernel_file(const struct cgfb_schema *s, const char *path)
{
	static const char other[] = "other";

	if (!path)
		return other;
	/* The longest tail on a '/' boundary the schema knows: the build
	 * directory, whatever its name, is never part of it. */
	for (const char *p = path; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (cgfb_schema_check_word(s, "kernel_file", p) == 0)
			return p;
	}
	return other;
}

void cgfb_vocab_symbol(const char *sym, char out[CGFB_VOCAB_WORD_MAX + 1])
{
	size_t n = 0;

	out[0] = '\0';
	if (!sym)
		return;
	/* "+0x1a/0x2b0", ".isra.0", ".cold", " [module]" all end the name. */
	while (sym[n] && (isalnum((unsigned char)sym[n]) || sym[n] == '_'))
		n++;
	if (n == 0 || n > CGFB_VOCAB_WORD_MAX || isdigit((unsigned char)sym[0]))
		return;
	for (size_t i = 0; i < n; i++)
		if (isupper((unsigned char)sym[i]))
			return;
	memcpy(out, sym, n);
	out[n] = '\0';
}

static void put(char *out, size_t outsz, size_t *len, const char *s, size_t n)
{
	if (*len + n >= outsz)
		n = outsz - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
}

static size_t contact_at(const char *p, const char *end)
{
	for (size_t i = 0; i < sizeof(contacts) / sizeof(contacts[0]); i++) {
		const size_t n = strlen(contacts[i]);

		if ((size_t)(end - p) >= n && memcmp(p, contacts[i], n) == 0)
			return n;
	}
	return 0;
}

/* 123, 0x1f: a number, which a shaped message shows as "N". */
static bool is_number(const char *w, size_t n)
{
	const bool hex = n > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X');

	for (size_t i = hex ? 2 : 0; i < n; i++)
		if (hex ? !isxdigit((unsigned char)w[i]) : !isdigit((unsigned char)w[i]))
			return false;
	return n > 0;
}

static bool known_word(const struct cgfb_entry *generic, const struct cgfb_schema *s,
		       const char *w, size_t n)
{
	char word[CGFB_VOCAB_WORD_MAX + 1];

	if (cgfb_catalog_word(generic, w, n))
		return true;
	if (n > CGFB_VOCAB_WORD_MAX)
		return false;
	memcpy(word, w, n);
	word[n] = '\0';
	return cgfb_schema_check_word(s, "knob", word) == 0 ||
	       cgfb_schema_check_word(s, "controller", word) == 0;
}

static void shape_word(const struct cgfb_entry *generic, const struct cgfb_schema *s,
		       const char *w, size_t n, char *out, size_t outsz, size_t *len)
{
	/* A sentence's final dot is punctuation, not part of the word. */
	const size_t core = (n > 1 && w[n - 1] == '.') ? n - 1 : n;

	if (is_number(w, core))
		put(out, outsz, len, "N", 1);
	else if (known_word(generic, s, w, core))
		put(out, outsz, len, w, core);
	else
		put(out, outsz, len, "_", 1);
	if (core < n)
		put(out, outsz, len, ".", 1);
}

void cgfb_vocab_shape(const struct cgfb_entry *generic, const struct cgfb_schema *s,
		      const char *text, size_t len, char *out, size_t outsz)
{
	const char *p = text, *end = text + len;
	size_t olen = 0;

	out[0] = '\0';
	while (p < end) {
		const size_t c = contact_at(p, end);
		size_t n = 0;

		if (c) {
			put(out, outsz, &olen, p, c);
			p += c;
			continue;
		}
		while (p + n < end && p[n] && strchr(CGFB_CATALOG_WORD_CHARS, p[n]))
			n++;
		if (n) {
			shape_word(generic, s, p, n, out, outsz, &olen);
			p += n;
		} else if (*p && strchr(punct, *p) && !(*p == ' ' && (olen == 0 || out[olen - 1] == ' ')) &&
			   /* "fe80::1" is an address, "at: x" a sentence */
			   !(*p == ':' && p + 1 < end && p[1] != ' ')) {
			put(out, outsz, &olen, p++, 1);
		} else {
			/* Control bytes, non-ASCII, '@', '\\', '$'...: gone. A run of
			 * them is one separator, so words do not fuse. */
			if (olen && out[olen - 1] != ' ')
				put(out, outsz, &olen, " ", 1);
			p++;
		}
	}
	while (olen && out[olen - 1] == ' ')
		out[--olen] = '\0';
}
