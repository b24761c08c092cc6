/* Commands printed for a person to paste: the state directory named when
 * it is not the default, quoted for the shell. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/hint.h"

/* DIR as one shell word: as it is when it holds only safe bytes, else in
 * single quotes (a quote inside as '\''). */
static void shell_word(char *buf, size_t bufsz, const char *s)
{
	size_t n = 0;

	if (s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			      "0123456789/._-+:,@%=") == strlen(s)) {
		snprintf(buf, bufsz, "%s", s);
		return;
	}
	if (bufsz < 3) {
		buf[0] = '\0';
		return;
	}
	buf[n++] = '\'';
	for (; *s && n + 6 < bufsz; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
}

static bool use_sudo;

void cgfb_hint_use_sudo(bool on)
{
	use_sudo = on;
}

static const char *vhint(char *buf, size_t bufsz, bool sudo, const char *state_dir,
			 const char *fmt, va_list ap)
{
	const char *pre = sudo ? "sudo " : "";
	char word[1024];
	int n = 0;

	if (state_dir && strcmp(state_dir, CGFB_DEFAULT_STATE_DIR) != 0) {
		shell_word(word, sizeof(word), state_dir);
		n = snprintf(buf, bufsz, "%s" CGFB_CLI_NAME " --state-dir %s ", pre, word);
	} else {
		n = snprintf(buf, bufsz, "%s" CGFB_CLI_NAME " ", pre);
	}
	if (n < 0 || (size_t)n >= bufsz)
		return buf;
	vsnprintf(buf + n, bufsz - (size_t)n, fmt, ap);
	return buf;
}

const char *cgfb_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vhint(buf, bufsz, use_sudo, state_dir, fmt, ap);
	va_end(ap);
	return buf;
}

const char *cgfb_sudo_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vhint(buf, bufsz, true, state_dir, fmt, ap);
	va_end(ap);
	return buf;
}
