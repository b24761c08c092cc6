/* Commands printed for a person to paste: the program, the configuration
 * and the state directory named when they are not the defaults, quoted for
 * the shell. */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
/* Each as the shell word printed; "" for none. */
static char program_word[PATH_MAX + 64];
static char config_word[PATH_MAX + 64];

void cgfb_hint_use_sudo(bool on)
{
	use_sudo = on;
}

void cgfb_hint_use_program(const char *path)
{
	program_word[0] = '\0';
	if (path)
		shell_word(program_word, sizeof(program_word), path);
}

void cgfb_hint_use_config(const char *path)
{
	char abs[PATH_MAX + 2], cwd[PATH_MAX];

	config_word[0] = '\0';
	if (!path || !*path || strcmp(path, CGFB_DEFAULT_CONFIG) == 0)
		return;
	/* Without a working directory the path is printed as given: wrong
	 * elsewhere, but no worse than leaving it out. */
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)) &&
	    (size_t)snprintf(abs, sizeof(abs), "%s/%s", strcmp(cwd, "/") ? cwd : "", path) <
		    sizeof(abs))
		path = abs;
	shell_word(config_word, sizeof(config_word), path);
}

static const char *vhint(char *buf, size_t bufsz, bool sudo, const char *state_dir,
			 const char *fmt, va_list ap)
{
	const char *pre = sudo ? "sudo " : "";
	const char *prog = program_word[0] ? program_word : CGFB_CLI_NAME;
	char word[1024];
	int n = 0;

	word[0] = '\0';
	if (state_dir && strcmp(state_dir, CGFB_DEFAULT_STATE_DIR) != 0)
		shell_word(word, sizeof(word), state_dir);
	n = snprintf(buf, bufsz, "%s%s%s%s%s%s ", pre, prog, config_word[0] ? " --config " : "",
		     config_word, word[0] ? " --state-dir " : "", word);
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
