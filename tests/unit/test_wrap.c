#include <stdio.h>

#include "testutil.h"

#include "cgfb/buf.h"
#include "cgfb/wrap.h"

/* A use case as an editor wraps it at 78 columns. */
static const char typed[] =
	"We run one KVM guest per cgroup under libvirt, and each guest's memory limit\n"
	"is set on its own cgroup. Siblings must not see each other's pressure, which\n"
	"is why the hierarchy stays flat: a parent limit would make them compete for\n"
	"one budget.";

static char *wrapped(const char *indent, const char *s, unsigned width)
{
	struct cgfb_buf b = { 0 };

	assert_int_equal(cgfb_wrap(&b, indent, s, width), 0);
	assert_non_null(b.data);
	return b.data;
}

/* Lines of out, without their indent, put back together with spaces. */
static void assert_same_words(const char *out, const char *indent, const char *want)
{
	char joined[1024] = "", got[1024] = "";
	size_t n = 0;

	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_memory_equal(p, indent, strlen(indent));
		p += strlen(indent);
		n += (size_t)snprintf(joined + n, sizeof(joined) - n, "%s%.*s", n ? " " : "",
				      (int)(nl - p), p);
		p = nl + 1;
	}
	for (size_t i = 0, o = 0; want[i] && o + 1 < sizeof(got); i++)
		got[o++] = want[i] == '\n' ? ' ' : want[i];
	assert_string_equal(joined, got);
}

/* Re-wrapped at 72 with an indent, the editor's breaks go: no line holds
 * a word or two alone between long ones, and no word is lost or moved. */
static void editor_breaks_are_joined(void **state)
{
	char *out = wrapped("  ", typed, 72);
	unsigned lines = 0;

	for (const char *p = out; *p; lines++) {
		const char *nl = strchr(p, '\n');
		const size_t len = (size_t)(nl - p);

		if (nl[1])     /* not the last line */
			assert_in_range(len, 50, 72);
		assert_true(len <= 72);
		p = nl + 1;
	}
	assert_int_equal(lines, 4);
	assert_same_words(out, "  ", typed);
	free(out);
}

/* Breaks the writer meant stay: after a short line, before a list item or
 * an indented line, and blank lines between paragraphs. */
static void meant_breaks_stay(void **state)
{
	char *out = wrapped("", "Thanks,\nJohn", 72);

	assert_string_equal(out, "Thanks,\nJohn\n");
	free(out);
	out = wrapped("", "The cgroups that must stay flat are these ones below:\n"
			  "- machine.slice\n* docker\n1. kubepods\n  indented line", 72);
	assert_string_equal(out, "The cgroups that must stay flat are these ones below:\n"
				 "- machine.slice\n* docker\n1. kubepods\n  indented line\n");
	free(out);
	out = wrapped("", "A first paragraph that is long enough to have been wrapped\n"
			  "\n"
			  "and a second one.", 72);
	assert_string_equal(out, "A first paragraph that is long enough to have been wrapped\n"
				 "\n"
				 "and a second one.\n");
	free(out);
	/* CR LF is a line end like LF. */
	out = wrapped("", "A line that an editor on another system wrapped for us\r\nhere.", 72);
	assert_string_equal(out, "A line that an editor on another system wrapped for us here.\n");
	free(out);
}

/* Control characters never reach the mail, joined or not. */
static void controls_become_spaces(void **state)
{
	char *out = wrapped("> ", "bell\a and escape\x1b[2J here", 72);

	assert_string_equal(out, "> bell  and escape [2J here\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(editor_breaks_are_joined),
		cmocka_unit_test(meant_breaks_stay),
		cmocka_unit_test(controls_become_spaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
