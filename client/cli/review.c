/* The interactive review (review.h): one dialogue, in order: the draft
 * kept, the report in words, the questions, the use case, the secret scan
 * of what was typed, the exact bytes in a pager, then send, export, keep
 * for later or decline. Over 600 lines, on purpose: every step reads and
 * writes the one review context, and the order is the product. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cgfb/sha256.h"
#include "cgfb/buf.h"
#include "cgfb/jsonget.h"
#include "cgfb/mail.h"
#include "cgfb/wrap.h"
#include "cgfb/utf8.h"
#include "consent/consent.h"
#include "consent/destination.h"
#include "consent/draft.h"
#include "consent/names.h"
#include "deliver/mailout.h"
#include "consent/notify.h"
#include "privacy/redact.h"
#include "privacy/where.h"
#include "snapshot/attrs.h"
#include "base/hint.h"
#include "base/statedir.h"
#include "cli/review.h"
#include "deliver/deliver.h"
#include "deliver/submit.h"

#define USE_CASE_MAX 8192
#define ANSWER_MAX   2048

/* Ctrl-C: what the administrator must know when a review ends there. The
 * handler may only write(2) and _exit(2), so each message is made ready
 * before the step it speaks for, in a buffer of its own, and the step
 * then switches to it. */
enum { SAY_RESUME, SAY_SENDING, SAY_N };
static char interrupt_say[SAY_N][800];
static volatile sig_atomic_t interrupt_which = -1;

static void on_interrupt(int sig)
{
	const sig_atomic_t w = interrupt_which;

	if (w >= 0 && w < SAY_N) {
		const ssize_t n = write(STDOUT_FILENO, interrupt_say[w], strlen(interrupt_say[w]));

		(void)n;
	}
	_exit(128 + sig);
}

static void interrupt_says(int which)
{
	interrupt_which = which;
}

/* Text read from disk (a draft, a report) or typed earlier is printed
 * through the one escape (cgfb/utf8.h): whoever could write the file must
 * not reach the administrator's terminal with it. */
static void put_shown(FILE *out, const char *s, enum cgfb_esc mode)
{
	if (s)
		cgfb_utf8_escape_put(out, s, strlen(s), mode);
}

/* Saved the moment it is given: a review that ends early — "keep for
 * later", a closed terminal, a crash — loses nothing, and the next step
 * (review again, submit, export, flush) starts from it. */
static void save_draft(const struct cgfb_review_ctx *rc, const char *id,
		       const struct cgfb_draft *d)
{
	const int r = cgfb_draft_save(rc->spool, id, d);

	if (r < 0)
		fprintf(rc->out, "Saving what you typed in %s failed: %s; it lasts only until this "
			"review ends.\n", rc->spool->dir, strerror(-r));
}

/* One line without its newline; NULL at end of input. */
static char *read_line(FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, in);

	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	return line;
}

/* A line of free text: one holding a control character other than tab (a
 * NUL would hide the rest, ESC or CR rewrite the review on the terminal) is
 * refused and asked for again, rather than cut or sent; NULL at end of input. */
static char *read_text_line(const struct cgfb_review_ctx *rc)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, rc->in)) >= 0) {
		ssize_t at;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		at = cgfb_text_control(line, (size_t)n);
		if (at < 0)
			return line;
		fprintf(rc->out, "That line holds the control character 0x%02x; only tab may be in "
			"a line. Type it again:\n> ", (unsigned char)line[at]);
		fflush(rc->out);
	}
	free(line);
	return NULL;
}

/* The answer, one of the letters of valid (lower-cased); def for an empty
 * line or the end of input. Anything else is asked again: a typo is not
 * the default, and never a decision. */
static int ask_choice(const struct cgfb_review_ctx *rc, const char *prompt, const char *valid,
		      int def)
{
	for (;;) {
		char *line;
		int c;

		fputs(prompt, rc->out);
		fflush(rc->out);
		line = read_line(rc->in);
		if (!line)
			return def;
		c = line[0] ? line[0] | 0x20 : def;
		if (line[0] && (line[1] || !strchr(valid, c)))
			c = 0;
		free(line);
		if (c)
			return c;
		fprintf(rc->out, "Please answer with one of the letters in brackets (%s).\n", valid);
	}
}

static void show_analysis(FILE *out, json_object *report)
{
	json_object *an, *flat, *knobs;

	if (!json_object_object_get_ex(report, "analysis", &an))
		return;
	if (json_object_object_get_ex(an, "flat_subtrees", &flat))
		for (size_t i = 0; i < json_object_array_length(flat); i++) {
			json_object *f = json_object_array_get_idx(flat, i), *v, *ch, *reorg;

			json_object_object_get_ex(f, "verdict", &v);
			json_object_object_get_ex(f, "children", &ch);
			json_object_object_get_ex(f, "reorganisation", &reorg);
			const size_t nch = json_object_array_length(ch);

			fprintf(out, "  A flat (use_hierarchy=0) group with %zu child group%s: %s if memcg "
				"became hierarchical.\n", nch, nch == 1 ? "" : "s",
				strcmp(json_object_get_string(v), "affected") == 0 ?
				"behaviour WOULD change" : "behaviour would not change");
			if (reorg && !json_object_is_type(reorg, json_type_null))
				fputs("    Suggested reorganisation: a new parent with use_hierarchy=1, "
				      "no limit and no tasks above the group and its children.\n", out);
		}
	if (json_object_object_get_ex(an, "knob_users", &knobs))
		for (size_t i = 0; i < json_object_array_length(knobs); i++) {
			json_object *k = json_object_array_get_idx(knobs, i), *name, *count, *repl;

			json_object_object_get_ex(k, "knob", &name);
			json_object_object_get_ex(k, "count", &count);
			json_object_object_get_ex(k, "replacement", &repl);
			fputs("  ", out);
			put_shown(out, json_object_get_string(name), CGFB_ESC_LINE);
			fprintf(out, " is set in %d cgroup(s)%s", json_object_get_int(count),
				repl && json_object_get_string(repl) ? "; cgroup v2 replacement: " : "");
			put_shown(out, repl ? json_object_get_string(repl) : NULL, CGFB_ESC_LINE);
			fputc('\n', out);
		}
}

/* The knob's way in cgroup v2, or that there is none: what the question
 * about the replacement refers to (asked only when there is one). */
static const char *v2_way(const struct cgfb_entry *e)
{
	const int a = e->knob ? cgfb_attr_for_knob(e->knob) : -1;

	return a < 0 ? NULL : cgfb_attr((enum cgfb_attr)a)->replacement;
}

static void show_v2_way(FILE *out, const struct cgfb_entry *e)
{
	const char *r = v2_way(e);

	if (r)
		fprintf(out, "In cgroup v2: %s.\n", r);
}

static void show_detection(const struct cgfb_review_ctx *rc, const struct cgfb_entry *e,
			   json_object *report, const char *id)
{
	json_object *det, *msg, *src;
	FILE *out = rc->out;
	const char *contact;

	json_object_object_get_ex(report, "detection", &det);
	json_object_object_get_ex(det, "message", &msg);
	json_object_object_get_ex(det, "source", &src);
	fprintf(out, "\n== cgroup-feedback: report %s ==\n\n", id);
	if (strcmp(json_object_get_string(src) ?: "", "check") == 0)
		fprintf(out, "cgroup-feedback check found on this machine what the kernel asks about "
			"with this message (%s); the kernel has not printed it here:\n  %s\n\n",
			e->id, e->message);
	else {
		fprintf(out, "The kernel printed (%s):\n  ", e->id);
		put_shown(out, json_object_get_string(msg), CGFB_ESC_LINE);
		fputs("\n\n", out);
	}
	fprintf(out, "What it means: %s.\n", e->title);
	if (e->explain)
		fprintf(out, "What broke: %s\n", e->explain);
	if (e->trigger)
		fprintf(out, "It is printed on: %s.\n", e->trigger);
	if (e->kernels)
		fprintf(out, "Kernels that print it: %s.\n", e->kernels);
	/* The most useful fact, where there is one: the setting may already
	 * not be what the administrator thinks it is. */
	if (e->effect)
		fprintf(out, "What the kernel did with the write: %s.\n", e->effect);
	show_v2_way(out, e);
	/* The report's: for G1 the address its message named. */
	contact = cgfb_json_str(report, "detection.contact");
	if (!contact)
		contact = e->contact;
	if (contact)
		fprintf(out, "The kernel developers ask you to tell %s if you depend on this.\n",
			contact);
	fputs("\nWhat this machine's cgroup setup says:\n", out);
	show_analysis(out, report);
	fputs("\n", out);
}

/* Where a yes at the end goes, before anything is asked: a collector, or
 * the e-mail for to (consent/destination.h). */
static void say_where(const struct cgfb_review_ctx *rc, const char *to)
{
	struct cgfb_buf s = { 0 }, b = { 0 };

	if (cgfb_buf_adds(&s, "Where a yes at the end goes: ") == 0 &&
	    cgfb_destination_say(&s, rc->config, to) == 0 && cgfb_wrap(&b, "", s.data, 76) == 0)
		fprintf(rc->out, "%s\n", b.data);
	cgfb_buf_free(&s);
	cgfb_buf_free(&b);
}

/* The text written in $EDITOR, or NULL when nothing is to be taken: an
 * editor that exits non-zero was aborted (vim's :cq, as git takes it), and
 * its file may hold the half-written text the administrator abandoned. */
static char *edit_in_editor(const struct cgfb_review_ctx *rc, const char *initial)
{
	char path[] = "/tmp/cgroup-feedback-usecase.XXXXXX";
	struct cgfb_buf cmd = { 0 };
	const char *ed = getenv("VISUAL") ? getenv("VISUAL") : getenv("EDITOR");
	struct cgfb_buf b = { 0 };
	FILE *f = NULL;
	char *line;
	int fd = mkstemp(path);

	if (fd < 0) {
		fprintf(rc->out, "No file for the editor (%s); the use case is unchanged.\n",
			strerror(errno));
		return NULL;
	}
	dprintf(fd, "%s\n# Describe your use case above. Lines starting with '#' are dropped.\n",
		initial ? initial : "");
	close(fd);
	/* $EDITOR may carry arguments ("emacs -nw"), as for git: the shell
	 * splits it; the file name is ours and needs no quoting beyond this. */
	if (cgfb_buf_printf(&cmd, "%s '%s'", ed ? ed : "vi", path) < 0 || system(cmd.data) != 0) {
		fprintf(rc->out, "The editor failed or was aborted; nothing was taken from it, "
			"the use case is unchanged.\n");
		goto out;
	}
	f = fopen(path, "re");
	while (f && (line = read_line(f)) != NULL) {
		if (line[0] != '#')
			cgfb_buf_printf(&b, "%s%s", b.len ? "\n" : "", line);
		free(line);
	}
	if (b.data && cgfb_text_control(b.data, b.len) >= 0) {
		fprintf(rc->out, "The text holds a control character other than newline and tab; "
			"nothing was taken from the editor, the use case is unchanged.\n");
		cgfb_buf_free(&b);
		goto out;
	}
	if (!b.data)
		b.data = strdup("");
out:
	if (f)
		fclose(f);
	cgfb_buf_free(&cmd);
	unlink(path);
	return b.data;
}

static void show_kept_text(FILE *out, const char *text)
{
	fputs("Your use case so far:\n", out);
	for (const char *p = text; *p;) {
		const size_t n = strcspn(p, "\n");

		fputs("  | ", out);
		cgfb_utf8_escape_put(out, p, n, CGFB_ESC_TEXT);
		fputc('\n', out);
		p += n + (p[n] == '\n');
	}
	fputs("Press Enter to keep it, type a new one, !e to edit it in $EDITOR, or - alone "
	      "to remove it.\n", out);
}

/* Who reads the use case, said where it is typed: the collector's digest
 * quotes it for the public list; an e-mail carries it, with the whole
 * report, to its recipients. The full account of each channel comes
 * before its yes (offer). */
static void say_who_reads(const struct cgfb_review_ctx *rc, const char *to)
{
	const enum cgfb_dest d = cgfb_destination(rc->config);
	struct cgfb_buf s = { 0 }, b = { 0 };
	int r;

	if (d == CGFB_DEST_COLLECTOR)
		r = cgfb_buf_adds(&s, "What you write here will be PUBLISHED: the collector's "
				  "digest, written for the public linux-mm mailing list, quotes it "
				  "word for word.");
	else if (d == CGFB_DEST_NONE)
		r = cgfb_buf_printf(&s, "Nothing is sent from here (consent = never); what you "
				    "write goes only into an e-mail you choose to write, for %s.", to);
	else if (cgfb_mail_public(to, false))
		r = cgfb_buf_printf(&s, "What you write here will be PUBLISHED: the e-mail goes "
				    "to a public list that is archived for anyone to read (%s).", to);
	else
		r = cgfb_buf_printf(&s, "What you write here goes, in the e-mail, to %s.", to);
	if (r == 0 && cgfb_wrap(&b, "", s.data, 76) == 0)
		fputs(b.data, rc->out);
	cgfb_buf_free(&s);
	cgfb_buf_free(&b);
}

/* Lines up to an empty one; "!e" alone hands over to $EDITOR. Into
 * d->text; a use case kept from before stays unless replaced. */
static void read_use_case(const struct cgfb_review_ctx *rc, struct cgfb_draft *d, const char *to)
{
	const bool kept = d->text && d->text[0];
	struct cgfb_buf b = { 0 };
	bool typed = false;
	char *line;

	fputs("Describe your use case: what the setup is for and why it is needed.\n", rc->out);
	say_who_reads(rc, to);
	fputs("End with an empty line (or type !e alone to use $EDITOR):\n", rc->out);
	if (kept)
		show_kept_text(rc->out, d->text);
	fflush(rc->out);
	while ((line = read_text_line(rc)) != NULL) {
		typed = true;
		if (!line[0])
			break;
		if (b.len == 0 && (strcmp(line, "!e") == 0 || strcmp(line, "-") == 0)) {
			b.data = line[0] == '-' ? strdup("") : edit_in_editor(rc, d->text);
			break;
		}
		cgfb_buf_printf(&b, "%s%s", b.len ? "\n" : "", line);
		free(line);
	}
	free(line);
	/* Enter alone keeps what was there, or gives an empty use case, which
	 * the question before the yes points out; a closed terminal gives
	 * nothing. */
	if (b.data || (typed && !kept))
		cgfb_draft_set_text(&d->text, b.data ? b.data : "");
	cgfb_buf_free(&b);
}

/* Whether the report shows a reorganisation (a flat subtree with one). */
static bool reorganisation_shown(json_object *report)
{
	json_object *an, *flat, *reorg;

	if (!json_object_object_get_ex(report, "analysis", &an) ||
	    !json_object_object_get_ex(an, "flat_subtrees", &flat))
		return false;
	for (size_t i = 0; i < json_object_array_length(flat); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(flat, i), "reorganisation",
					      &reorg) && reorg)
			return true;
	return false;
}

/* The cgroup v2 replacement of the entry's knob, NULL when there is none
 * to ask about: no knob, none known, or "none" (cgroup v2 has nothing). */
static const char *replacement_of(const struct cgfb_entry *e)
{
	const char *r = v2_way(e);

	return r && strncmp(r, "none", 4) != 0 ? r : NULL;
}

/* A question that would be about nothing shown is not asked: "the
 * reorganisation shown" when none was, "the replacement named" when
 * cgroup v2 has none. */
static bool question_applies(const char *key, const struct cgfb_entry *e, json_object *report)
{
	if (strcmp(key, "reorganisation") == 0)
		return reorganisation_shown(report);
	if (strcmp(key, "v2_replacement") == 0)
		return replacement_of(e) != NULL;
	return true;
}

static void ask_questions(const struct cgfb_review_ctx *rc, const struct cgfb_entry *e,
			  json_object *report, struct cgfb_draft *d, const char *id)
{
	fputs("A few questions (press Enter to skip one or to keep an earlier answer;\n"
	      "- alone removes it):\n", rc->out);
	for (size_t i = 0; i < e->questions->n; i++) {
		const char *key = e->questions->q[i].key, *cur = cgfb_draft_answer(d, key);
		char *line;

		if (!question_applies(key, e, report))
			continue;

		fprintf(rc->out, "%s\n", e->questions->q[i].text);
		if (cur) {
			fputs("  (your answer so far: ", rc->out);
			put_shown(rc->out, cur, CGFB_ESC_LINE);
			fputs(")\n", rc->out);
		}
		fputs("> ", rc->out);
		fflush(rc->out);
		line = read_text_line(rc);
		if (!line)
			break;
		if (strlen(line) > ANSWER_MAX)
			line[ANSWER_MAX] = '\0';
		if (line[0] && cgfb_draft_set_answer(d, key, strcmp(line, "-") ? line : NULL) == 0)
			save_draft(rc, id, d);
		free(line);
	}
}

/* A message no catalog entry describes goes out shaped: only words of the
 * catalog's vocabulary, "_" for the rest. The administrator, who can read
 * the kernel log, may say it better; what they type is checked for
 * secrets like the use case. NULL keeps the shaped text. */
static void ask_message(const struct cgfb_review_ctx *rc, json_object *report,
			struct cgfb_draft *d, const char *id)
{
	json_object *det = json_object_object_get(report, "detection");
	const char *shaped = json_object_get_string(json_object_object_get(det, "message"));
	char *line;

	fputs("\nThis kernel message is not in the catalog. It is sent in this shape,\n"
	      "every word that is not the kernel's wording replaced by \"_\":\n  ", rc->out);
	put_shown(rc->out, shaped, CGFB_ESC_LINE);
	fputc('\n', rc->out);
	if (d->message) {
		fputs("Your wording so far (Enter keeps it, - alone sends the shape):\n  ", rc->out);
		put_shown(rc->out, d->message, CGFB_ESC_LINE);
		fputc('\n', rc->out);
	}
	fputs("Type the message as you want it sent (check it against your kernel log:\n"
	      "journalctl -k), or press Enter to send it as shown:\n> ", rc->out);
	fflush(rc->out);
	line = read_text_line(rc);
	if (line && strlen(line) > 1024)
		fputs("Longer than 1024 characters: not taken.\n", rc->out);
	else if (line && line[0] && cgfb_draft_set_text(&d->message, strcmp(line, "-") ? line : NULL) == 0)
		save_draft(rc, id, d);
	free(line);
}

/* The secret check of what was typed, one finding at a time. */
struct secret_check {
	const struct cgfb_review_ctx *rc;
	const struct cgfb_local_names *ln;
	struct cgfb_draft *d;
	bool asked;          /* the explanation was printed */
	bool redact_rest;    /* "a": every finding from here on is replaced */
};

static void explain_check(struct secret_check *sc)
{
	if (sc->asked)
		return;
	fputs("\nWhat you wrote contains what looks like private information. Each one is\n"
	      "asked about on its own: r (or Enter) replaces it with [redacted ...], k sends\n"
	      "it as written (remembered for this text only), a replaces it and every one\n"
	      "after it.\n", sc->rc->out);
	sc->asked = true;
}

/* The finding, where it is and a little of its line: a false alarm
 * (system.slice) and a real address in one text are told apart here. */
static void show_finding(FILE *out, const char *what, const char *text,
			 const struct cgfb_finding *f)
{
	const struct cgfb_where w = cgfb_finding_where(text, f);
	struct cgfb_buf ctx = { 0 };

	fprintf(out, "\n  %s: ", cgfb_secret_name(f->kind));
	cgfb_utf8_escape_put(out, text + f->start, f->len, CGFB_ESC_LINE);
	fputs(" (", out);
	put_shown(out, what, CGFB_ESC_LINE);
	fprintf(out, ", line %zu, column %zu)\n", w.line, w.column);
	if (cgfb_finding_context(&ctx, text, f) == 0) {
		fputs("    ", out);
		put_shown(out, ctx.data, CGFB_ESC_LINE);
		fputc('\n', out);
	}
	cgfb_buf_free(&ctx);
}

/* 'k' to keep f as written, 'r' to replace it. Enter, a closed terminal
 * and "a" (for this one and the rest) replace: nothing is kept unless it
 * was shown and k was typed for it. */
static int decide_finding(struct secret_check *sc, const char *what, const char *text,
			  const struct cgfb_finding *f)
{
	int c;

	show_finding(sc->rc->out, what, text, f);
	if (sc->redact_rest) {
		fputs("    replaced (you said a: all the rest)\n", sc->rc->out);
		return 'r';
	}
	c = ask_choice(sc->rc, "[r]eplace it, [k]eep it as written, replace [a]ll the rest? [r] ",
		       "rka", 'r');
	sc->redact_rest = c == 'a';
	return c == 'k' ? 'k' : 'r';
}

/* Each finding in text (the value of field) not kept before for this very
 * text is asked about; the kept ones are remembered for the text as it
 * leaves here, the others replaced. Returns the (new) text. */
static char *check_secrets(struct secret_check *sc, const char *field, const char *what,
			   char *text)
{
	struct cgfb_finding f[CGFB_REDACT_MAX_FINDINGS], gone[CGFB_REDACT_MAX_FINDINGS];
	size_t n, m = 0;
	char *now;

	if (!text)
		return text;
	n = cgfb_draft_unkept(sc->d, field, text, f,
			      cgfb_find_secrets(text, sc->ln, f, CGFB_REDACT_MAX_FINDINGS));
	for (size_t i = 0; i < n; i++) {
		explain_check(sc);
		if (decide_finding(sc, what, text, &f[i]) == 'k') {
			if (cgfb_draft_keep(sc->d, field, text, text + f[i].start, f[i].len) == 0)
				continue;
			/* Kept but not remembered would be refused unattended
			 * later, with nobody told why. */
			fputs("    The draft cannot remember more kept strings: replaced.\n",
			      sc->rc->out);
		}
		gone[m++] = f[i];
	}
	now = m ? cgfb_redact(text, gone, m) : text;
	if (!now) {
		fputs("Out of memory replacing them; the text is left as it was and will be "
		      "refused unattended.\n", sc->rc->out);
		now = text;
	}
	cgfb_draft_rebind(sc->d, field, text, now);
	if (now != text)
		free(text);
	return now;
}

static void redact_answers(const struct cgfb_review_ctx *rc, struct cgfb_draft *d, const char *id)
{
	struct cgfb_local_names ln;
	struct secret_check sc = { .rc = rc, .ln = &ln, .d = d };
	char field[CGFB_CONFIG_STR_MAX], what[CGFB_CONFIG_STR_MAX];
	const char *texts[2 + CGFB_DRAFT_ANSWERS_MAX] = { d->text, d->message };

	for (size_t i = 0; i < d->n; i++)
		texts[2 + i] = d->values[i];
	cgfb_consent_names(&ln, rc->sd, rc->spool, id, texts, 2 + d->n);
	d->text = check_secrets(&sc, "use_case", "the use case", d->text);
	d->message = check_secrets(&sc, "message", "your wording of the message", d->message);
	for (size_t i = 0; i < d->n; i++) {
		snprintf(what, sizeof(what), "your answer to %s", d->keys[i]);
		d->values[i] = check_secrets(&sc, cgfb_draft_answer_field(field, sizeof(field),
									    d->keys[i]),
					     what, d->values[i]);
	}
	cgfb_local_names_free(&ln);
	if (sc.asked)
		save_draft(rc, id, d);
}

static int build(const struct cgfb_review_ctx *rc, const struct cgfb_spool_entry *e,
		 const struct cgfb_buf *report, const struct cgfb_draft *d, const char *endpoint,
		 struct cgfb_buf *out, char token[65])
{
	struct cgfb_use_case uc;
	char err[256];
	int r;

	cgfb_draft_use_case(d, &uc);
	r = cgfb_consent_build(rc->schema, rc->sd, report, &uc, endpoint, e->deletion_token,
			       out, token, err, sizeof(err));
	if (r < 0)
		fprintf(rc->out, "This report cannot be completed: %s\n", err);
	return r;
}

/* The same JSON a person can read: indented, one top-level member per
 * section. It is still JSON, so parsing it and writing it canonically gives
 * back exactly the bytes whose size and hash the header names. */
static void print_section(FILE *out, const char *key, json_object *val, bool first, bool last)
{
	json_object *k = json_object_new_string(key);
	const char *v = json_object_to_json_string_ext(val, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	fprintf(out, "%s  %s: ", first ? "" : "\n", json_object_to_json_string_ext(k,
		JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(k);
	/* Only layout puts newlines there: strings keep theirs escaped. */
	for (const char *p = v; *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fputs("  ", out);
	}
	fputs(last ? "\n" : ",\n", out);
}

/* The administrator's own words first (the use case and the answers, then
 * the message as it goes), the rest of the report after them in its
 * canonical order: the same JSON, what a person checks first on top. */
static void print_readable(FILE *out, const struct cgfb_buf *bytes)
{
	static const char *const first[] = { "use_case", "detection" };
	json_object *r = NULL, *v;
	char err[128];
	size_t i = 0, n;

	if (cgfb_canon_parse(bytes->data, bytes->len, CGFB_REPORT_DEPTH_MAX, &r, err,
			     sizeof(err)) < 0) {
		fwrite(bytes->data, 1, bytes->len, out);    /* never: we built them */
		fputc('\n', out);
		return;
	}
	n = (size_t)json_object_object_length(r);
	fputs("{\n", out);
	for (size_t f = 0; f < sizeof(first) / sizeof(first[0]); f++)
		if (json_object_object_get_ex(r, first[f], &v)) {
			print_section(out, first[f], v, i == 0, i + 1 == n);
			i++;
		}
	json_object_object_foreach(r, key, val) {
		if (strcmp(key, first[0]) == 0 || strcmp(key, first[1]) == 0)
			continue;
		print_section(out, key, val, i == 0, i + 1 == n);
		i++;
	}
	fputs("}\n", out);
	json_object_put(r);
}

/* False when the pager could not be run (the shell's 127: not installed,
 * as less is not on a minimal Debian): the bytes must then be shown here.
 * A pager quit before the end closes the pipe; that is no reason to die. */
static bool page_bytes(const char *pager, const struct cgfb_buf *bytes)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old, old_int;
	FILE *p;
	int st;

	/* Ctrl-C in the pager is the pager's (less stops a search with it, a
	 * plain cat ignores it): ignored here from before the pager starts,
	 * which it inherits; the review goes on once the pager is quit. */
	sigaction(SIGINT, &ign, &old_int);
	p = popen(pager, "w");
	if (!p) {
		sigaction(SIGINT, &old_int, NULL);
		return false;
	}
	sigaction(SIGPIPE, &ign, &old);
	print_readable(p, bytes);
	st = pclose(p);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGPIPE, &old, NULL);
	return st != -1 && !(WIFEXITED(st) && WEXITSTATUS(st) == 127);
}

/* Through $PAGER when a person is looking, otherwise straight out. */
static void show_bytes(const struct cgfb_review_ctx *rc, const struct cgfb_buf *bytes)
{
	const char *pager = getenv("PAGER");
	char sha[65];

	cgfb_sha256_hex(bytes->data, bytes->len, sha);
	fprintf(rc->out, "\nThese %zu bytes (SHA-256 %s) are exactly what would leave this "
		"machine.\nThey go as one line of canonical JSON; below is the same JSON, "
		"indented, one section\nper part of the report:\n\n", bytes->len, sha);
	fflush(rc->out);
	if (!isatty(fileno(rc->out)) || (pager && !*pager)) {
		print_readable(rc->out, bytes);
	} else if (!page_bytes(pager ? pager : "less -F -X", bytes)) {
		fprintf(rc->out, "(The pager \"%s\" could not be run; the bytes are shown here.)\n\n",
			pager ? pager : "less");
		print_readable(rc->out, bytes);
	}
	fprintf(rc->out, "\n(%zu bytes, SHA-256 %s)\n", bytes->len, sha);
}

static int do_send(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e,
		   const struct cgfb_buf *bytes, const char *token)
{
	int r = cgfb_consent_record(rc->spool, e, bytes, rc->config->endpoint, token);
	char hint[CGFB_HINT_MAX], status[CGFB_HINT_MAX];
	char said[CGFB_ESC_SIZE(sizeof(e->last_error))];

	if (r < 0) {
		/* -ESTALE: another command changed the report meanwhile (said). */
		fprintf(rc->out, "Saving your consent failed: %s. Nothing was sent.\n",
			r == -ESTALE ? "another command changed the report meanwhile" : strerror(-r));
		return r;
	}
	snprintf(interrupt_say[SAY_SENDING], sizeof(interrupt_say[SAY_SENDING]),
		 "\nInterrupted while sending. Your consent is recorded: %s sends the report, "
		 "and %s says whether it was.\n",
		 cgfb_hint(hint, sizeof(hint), rc->sd->path, "flush"),
		 cgfb_hint(status, sizeof(status), rc->sd->path, "status"));
	interrupt_says(SAY_SENDING);
	fprintf(rc->out, "Sending to %s ...\n", rc->config->endpoint);
	r = cgfb_deliver(rc->config, rc->spool, e);
	interrupt_says(SAY_RESUME);
	/* The collector's words (its receipt id, its error): escaped. */
	if (r == 0) {
		cgfb_utf8_escape(said, sizeof(said), e->receipt_id, strlen(e->receipt_id));
		fprintf(rc->out, "Sent. The collector stored it as %s (SHA-256 %s).\n"
			"Withdraw it at any time: %s\n", said, e->receipt_sha256,
			cgfb_hint(hint, sizeof(hint), rc->sd->path, "withdraw %s", e->id));
		return CGFB_REVIEW_SENT;
	}
	if (r == -ESTALE) {
		/* Withdrawn or declined by another command meanwhile: said. */
		fprintf(rc->out, "Not sent: another command changed the report meanwhile; see %s.\n",
			cgfb_hint(hint, sizeof(hint), rc->sd->path, "status"));
		return CGFB_REVIEW_SEND_FAILED;
	}
	cgfb_utf8_escape(said, sizeof(said), e->last_error, strlen(e->last_error));
	if (e->next_attempt > 0)
		fprintf(rc->out, "Sending failed: %s\nIt will be tried again by %s.\n", said,
			cgfb_hint(hint, sizeof(hint), rc->sd->path, "flush"));
	else
		fprintf(rc->out, "Sending failed: %s\nIt will not be retried automatically; see %s.\n",
			said, cgfb_hint(hint, sizeof(hint), rc->sd->path, "status"));
	return CGFB_REVIEW_SEND_FAILED;
}

/* The e-mail exactly as it will be written, up to the report's own block,
 * whose bytes were shown just before with their size and hash: who it
 * goes to, from whom, and every line the list reads. */
static void show_mail(FILE *out, const struct cgfb_buf *mail, size_t report_len)
{
	const char *begin = mail->data ? strstr(mail->data, "\n" CGFB_MAIL_BEGIN "\n") : NULL;
	const char *qp = mail->data ? strstr(mail->data, "\nContent-Transfer-Encoding: "
					     "quoted-printable\n") : NULL;
	const char *p = mail->data;

	if (!begin)
		return;
	fputs("The e-mail, exactly as it will be written:\n\n", out);
	while (p <= begin) {
		const char *nl = strchr(p, '\n');

		fprintf(out, "  %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
	/* A use case that is not ASCII makes the body quoted-printable. */
	fprintf(out, "  " CGFB_MAIL_BEGIN "\n  [the %zu bytes shown above, wrapped at %d columns%s]\n"
		"  " CGFB_MAIL_END "\n\n", report_len, CGFB_MAIL_WIDTH,
		qp && qp < begin ? ", quoted-printable" : "");
}

static bool has_use_case(const struct cgfb_buf *bytes)
{
	json_object *r = json_tokener_parse(bytes->data ? bytes->data : "");
	const char *t = cgfb_json_str(r, "use_case.text");
	const bool has = t && t[0];

	json_object_put(r);
	return has;
}

/* The yes is asked for the bytes of one channel, shown just before: the
 * consent record names the endpoint (and this install's pseudonym for it),
 * so the bytes for the collector and for the e-mail differ, and each is
 * previewed before its own question, with what that channel publishes
 * (consent/destination.h): for the e-mail (mail not NULL, to its
 * recipients, from its From:) the whole message, for a collector what
 * its digest quotes. Returns the letter answered, of valid; 'n' is no. */
static int offer(const struct cgfb_review_ctx *rc, const struct cgfb_buf *bytes,
		 const struct cgfb_buf *mail, const char *to, const char *from,
		 const char *question, const char *valid)
{
	struct cgfb_buf say = { 0 };

	show_bytes(rc, bytes);
	if (mail)
		show_mail(rc->out, mail, bytes->len);
	if (!has_use_case(bytes))
		fputs("This report has no use case: whoever reads it sees only what the snapshot "
		      "and the\nanswers say.\n", rc->out);
	if ((mail ? cgfb_publish_say_mail(&say, to, from) :
		    cgfb_publish_say_collector(&say, bytes)) == 0)
		fputs(say.data, rc->out);
	cgfb_buf_free(&say);
	return ask_choice(rc, question, valid, 'n');
}

bool cgfb_review_confirm_mail(FILE *in, FILE *out, const struct cgfb_config *conf,
			      const struct cgfb_buf *bytes, const struct cgfb_buf *mail,
			      const char *to, const char *question)
{
	const struct cgfb_review_ctx rc = { .config = conf, .in = in, .out = out };

	return offer(&rc, bytes, mail, to, conf->mail_from, question, "yn") == 'y';
}

/* Ask for the From: line when the configuration has none. */
static void ask_from(const struct cgfb_review_ctx *rc, struct cgfb_config *conf)
{
	char *from;

	if (conf->mail_from[0])
		return;
	fputs("Your address for the From: line (Enter to fill it in later): ", rc->out);
	fflush(rc->out);
	from = read_line(rc->in);
	if (from && from[0])
		snprintf(conf->mail_from, sizeof(conf->mail_from), "%s", from);
	else
		fputs(CGFB_MAILOUT_NO_FROM "\n", rc->out);
	free(from);
}

/* What export did, exactly: a complete e-mail whose consent could not be
 * recorded (a full disk, say) is still a complete e-mail, and the report
 * stays pending here. */
static int written(const struct cgfb_review_ctx *rc, int wrote, const char *path, const char *to,
		   int recorded)
{
	if (wrote < 0) {
		fprintf(rc->out, "Writing %s failed: %s. The report is still pending; nothing was "
			"recorded.\n", path, strerror(-wrote));
		return wrote;
	}
	if (recorded == -ESTALE) {
		fprintf(rc->out, "Wrote %s. But another command changed the report meanwhile "
			"(above): your consent was not recorded. Look at the report again before "
			"you send the e-mail.\n", path);
		return recorded;
	}
	if (recorded < 0) {
		fprintf(rc->out, "Wrote %s, complete. But recording your consent in %s failed: %s; "
			"the report still shows as pending here.\nThe e-mail can be sent as it is, "
			"to %s.\n", path, rc->spool->dir, strerror(-recorded), to);
		return recorded;
	}
	fprintf(rc->out, "Wrote %s. Send it to %s from any machine with mail.\n", path, to);
	return 0;
}

/* Handed to the mail system the configuration names: sent once it took
 * it, and the consent recorded after, as for a file. */
static int mailed_out(const struct cgfb_review_ctx *rc, const struct cgfb_config *conf,
		      struct cgfb_spool_entry *e, const struct cgfb_buf *bytes,
		      const struct cgfb_buf *mail, const char *endpoint, const char *token,
		      const char *to, const char *way)
{
	char err[512];
	int r = cgfb_mailout_send(conf, mail, err, sizeof(err));

	if (r < 0) {
		fprintf(rc->out, "Sending it failed: %s. Nothing was sent or recorded; the report is "
			"still pending.\n", err);
		return r;
	}
	r = cgfb_consent_record(rc->spool, e, bytes, endpoint, token);
	if (r < 0) {
		fprintf(rc->out, "Handed to %s for %s. But recording your consent in %s failed: %s; "
			"the report still shows as it was here.\n", way, to, rc->spool->dir,
			r == -ESTALE ? "another command changed the report meanwhile" : strerror(-r));
		return r;
	}
	fprintf(rc->out, "Handed to %s for %s.\n", way, to);
	return 0;
}

static int do_export(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e,
		     const struct cgfb_buf *report, const struct cgfb_draft *a)
{
	/* The way said at the start of the review: the configuration's. */
	const enum cgfb_mail_way way = cgfb_mail_way(rc->config);
	struct cgfb_config conf = *rc->config;
	struct cgfb_buf bytes = { 0 }, mail = { 0 };
	char to[600], endpoint[620], token[65], path[PATH_MAX], question[PATH_MAX + 1400];
	char waysay[CGFB_CONFIG_STR_MAX + 40];
	int r, c;

	ask_from(rc, &conf);
	cgfb_mailout_recipients(&conf, report, to, sizeof(to));
	snprintf(endpoint, sizeof(endpoint), "mailto:%s", to);
	if (cgfb_consent_one_way(e, endpoint, question, sizeof(question)) < 0) {
		fprintf(rc->out, "%s.\n", question);
		return CGFB_REVIEW_KEPT;
	}
	if (rc->export_path)
		snprintf(path, sizeof(path), "%s", rc->export_path);
	else
		snprintf(path, sizeof(path), "cgroup-feedback-%s.eml", e->id);
	r = build(rc, e, report, a, endpoint, &bytes, token);
	if (r < 0)
		goto out;
	r = cgfb_mailout_format(&conf, &bytes, &mail);
	if (r < 0) {
		fprintf(rc->out, "Making the e-mail failed: %s. Nothing was written.\n", strerror(-r));
		goto out;
	}
	cgfb_mail_way_say(&conf, way, waysay, sizeof(waysay));
	if (way == CGFB_MAIL_FILE)
		snprintf(question, sizeof(question), "Write this report as an e-mail for %s to %s? "
			 "[y/N] ", to, path);
	else
		snprintf(question, sizeof(question), "[s]end this e-mail for %s through %s now, "
			 "[w]rite it to %s instead, or [n]either? [n] ", to, waysay, path);
	c = offer(rc, &bytes, &mail, to, conf.mail_from, question, way == CGFB_MAIL_FILE ? "yn" :
		  "swn");
	if (c == 'n') {
		fputs("Kept for later. Nothing was written.\n", rc->out);
		r = CGFB_REVIEW_KEPT;
		goto out;
	}
	if (c == 's') {
		r = mailed_out(rc, &conf, e, &bytes, &mail, endpoint, token, to, waysay);
		goto out;
	}
	r = cgfb_mailout_file(&mail, path, false);
	r = written(rc, r, path, to, r < 0 ? 0 : cgfb_consent_record(rc->spool, e, &bytes,
								     endpoint, token));
out:
	cgfb_buf_free(&bytes);
	cgfb_buf_free(&mail);
	return r < 0 ? r : r == CGFB_REVIEW_KEPT ? r : CGFB_REVIEW_EXPORTED;
}

/* offer_send's answer when there was no yes: decide goes on to what then.
 * Not an outcome's value. */
#define NOT_SENT 100
_Static_assert(NOT_SENT > CGFB_REVIEW_SILENCED, "NOT_SENT is no outcome");

/* Build for the collector, show, ask. NOT_SENT, else an outcome. */
static int offer_send(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e,
		      const struct cgfb_buf *report, const struct cgfb_draft *a)
{
	struct cgfb_buf bytes = { 0 };
	char prompt[700], token[65], err[1024];
	int r;

	if (cgfb_consent_one_way(e, rc->config->endpoint, err, sizeof(err)) < 0) {
		fprintf(rc->out, "%s.\n", err);
		return NOT_SENT;
	}
	r = build(rc, e, report, a, rc->config->endpoint, &bytes, token);
	if (r < 0)
		return r;
	snprintf(prompt, sizeof(prompt), "Send this report to %s? [y/N] ", rc->config->endpoint);
	r = offer(rc, &bytes, NULL, NULL, NULL, prompt, "yn") == 'y' ?
	    do_send(rc, e, &bytes, token) : NOT_SENT;
	cgfb_buf_free(&bytes);
	return r;
}

/* Decline (c 'd') or never (c 'v'), each after its own yes: neither is
 * one key away from "no" ('n' answers nothing here). 1 when not
 * confirmed (asked again), else an outcome. */
static int refuse(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e, int c)
{
	char question[PATH_MAX + 300], undo[CGFB_HINT_MAX];

	if (c == 'd')
		snprintf(question, sizeof(question), "Decline report %s: it will never be sent. "
			 "Sure? [y/N] ", e->id);
	else
		snprintf(question, sizeof(question), "Never ask about %s again: its reports are "
			 "kept, but nobody is told of new ones (status lists them, reopen undoes "
			 "it). Sure? [y/N] ", e->catalog_id);
	if (ask_choice(rc, question, "yn", 'n') != 'y')
		return 1;
	e->state = CGFB_R_DECLINED;
	if (cgfb_spool_save_state(rc->spool, e) < 0)
		return -EIO;
	if (c == 'v' && cgfb_silence_add(rc->sd, e->catalog_id) < 0)
		return -EIO;
	fprintf(rc->out, "Declined%s. Nothing was sent. To undo: %s\n",
		c == 'v' ? "; you will not be asked about this message again" : "",
		cgfb_hint(undo, sizeof(undo), rc->sd->path, "reopen %s", e->id));
	return c == 'v' ? CGFB_REVIEW_SILENCED : CGFB_REVIEW_DECLINED;
}

/* Kept, but consented before (a send that failed): it is not waiting for
 * anyone, flush sends it where the consent said. Say so, and how to stop
 * it; and when that is no longer the configured endpoint, say that too. */
static void kept_consented(const struct cgfb_review_ctx *rc, const struct cgfb_spool_entry *e)
{
	char hint[CGFB_HINT_MAX], stop[CGFB_HINT_MAX];

	fprintf(rc->out, "Kept as it was: you consented to sending it to %s, and %s.\n",
		e->endpoint, e->next_attempt < 0 ? "it is not retried automatically" :
		"flush tries again (the hourly timer)");
	cgfb_hint(stop, sizeof(stop), rc->sd->path, "withdraw %s", e->id);
	if (!rc->config->endpoint[0]) {
		fprintf(rc->out, "No collector is configured now: the consent named %s, and only "
			"there will it go. Stop it: %s.\n", e->endpoint, stop);
		return;
	}
	if (strcmp(e->endpoint, rc->config->endpoint) != 0)
		fprintf(rc->out, "That is not the endpoint configured now (%s): the consent named "
			"%s, and only there will it go.\n", rc->config->endpoint, e->endpoint);
	fprintf(rc->out, "Send it now to %s: %s. Stop it: %s.\n", rc->config->endpoint,
		cgfb_hint(hint, sizeof(hint), rc->sd->path, "submit %s --yes", e->id), stop);
}

/* With a collector, its offer first, then what else; without one (no
 * endpoint) the e-mail is what reaches the maintainers, and the first
 * choice; consent = never offers the e-mail to write by hand. */
static int decide(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e,
		  const struct cgfb_buf *report, const struct cgfb_draft *a, const char *to)
{
	const enum cgfb_dest dest = cgfb_destination(rc->config);
	char prompt[900], hint[CGFB_HINT_MAX];
	int c, r = 1;

	if (dest == CGFB_DEST_COLLECTOR) {
		c = offer_send(rc, e, report, a);
		/* A send that failed goes on too: the report may still go out as
		 * an e-mail, and kept it says that flush retries it. */
		if (c != NOT_SENT && c != CGFB_REVIEW_SEND_FAILED)
			return c;
	} else if (dest == CGFB_DEST_NONE) {
		fputs("Sending is off (consent = never in the configuration).\n", rc->out);
	}
	if (dest == CGFB_DEST_MAIL)
		snprintf(prompt, sizeof(prompt), "Now: [e]-mail it to %s (shown first, then "
			 "asked), [k]eep for later, [d]ecline, ne[v]er ask about %s again? [k] ", to,
			 e->catalog_id);
	else
		snprintf(prompt, sizeof(prompt), "Then: [e]xport as e-mail, [k]eep for later, "
			 "[d]ecline, ne[v]er ask about %s again? [k] ", e->catalog_id);
	while (r == 1) {
		c = ask_choice(rc, prompt, "ekdv", 'k');
		if (c == 'e')
			return do_export(rc, e, report, a);
		if (c != 'd' && c != 'v')
			break;
		r = refuse(rc, e, c);
	}
	if (r != 1)
		return r;
	if (e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) != 0) {
		kept_consented(rc, e);
		return CGFB_REVIEW_KEPT;
	}
	fprintf(rc->out, "Kept for later with what you typed; nothing was sent. %s starts "
		"from it.\n", cgfb_hint(hint, sizeof(hint), rc->sd->path, "review %s", e->id));
	return CGFB_REVIEW_KEPT;
}

/* What was typed, when it is in neither a report that left nor the draft
 * (a full or read-only spool): printed, so that it is not lost with the
 * review. */
static void keep_typed(const struct cgfb_review_ctx *rc, const char *id,
		       const struct cgfb_draft *d, int outcome)
{
	const bool typed = (d->text && d->text[0]) || d->message || d->n;
	int r;

	if (!typed || outcome == CGFB_REVIEW_SENT || outcome == CGFB_REVIEW_SEND_FAILED ||
	    outcome == CGFB_REVIEW_EXPORTED)
		return;
	r = cgfb_draft_save(rc->spool, id, d);
	if (r == 0)
		return;
	fprintf(rc->out, "\nWhat you typed could not be kept in %s (%s). Here it is, to copy "
		"before this terminal goes:\n", rc->spool->dir, strerror(-r));
	if (d->message) {
		fputs("--- the message ---\n", rc->out);
		put_shown(rc->out, d->message, CGFB_ESC_TEXT);
		fputc('\n', rc->out);
	}
	for (size_t i = 0; i < d->n; i++) {
		fputs("--- ", rc->out);
		put_shown(rc->out, d->keys[i], CGFB_ESC_LINE);
		fputs(" ---\n", rc->out);
		put_shown(rc->out, d->values[i], CGFB_ESC_TEXT);
		fputc('\n', rc->out);
	}
	if (d->text && d->text[0]) {
		fputs("--- your use case ---\n", rc->out);
		put_shown(rc->out, d->text, CGFB_ESC_TEXT);
		fputc('\n', rc->out);
	}
	fputs("---\n", rc->out);
}

/* From here to the decision, Ctrl-C says what was kept and how to go on
 * (everything answered is in the draft already: save_draft). */
static int catch_interrupt(const struct cgfb_review_ctx *rc, const char *id,
			   struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	char hint[CGFB_HINT_MAX];

	snprintf(interrupt_say[SAY_RESUME], sizeof(interrupt_say[SAY_RESUME]),
		 "\nInterrupted: nothing was sent. What you answered so far is kept; %s "
		 "goes on from there.\n", cgfb_hint(hint, sizeof(hint), rc->sd->path, "review %s", id));
	interrupt_says(SAY_RESUME);
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGINT, &sa, old) < 0 ? -errno : 0;
}

int cgfb_review(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e)
{
	struct sigaction old_int;
	struct cgfb_buf report = { 0 };
	struct cgfb_draft a = { 0 };
	const struct cgfb_entry *ce;
	json_object *r = NULL;
	char err[256], to[600];
	int ret;

	ret = cgfb_spool_load(rc->spool, e->id, e, &report);
	if (ret == 0)
		ret = cgfb_draft_load(rc->spool, e->id, &a);
	if (ret == 0)
		ret = cgfb_canon_parse(report.data, report.len, CGFB_REPORT_DEPTH_MAX, &r, err,
				       sizeof(err));
	ce = ret == 0 ? cgfb_catalog_find(rc->cat, e->catalog_id) : NULL;
	if (!ce) {
		fprintf(rc->out, "Report %s cannot be reviewed: %s\n", e->id,
			ret < 0 ? strerror(-ret) : "its catalog id is unknown to this version");
		ret = ret < 0 ? ret : -EINVAL;
		goto out;
	}
	if (cgfb_destination(rc->config) == CGFB_DEST_COLLECTOR &&
	    cgfb_endpoint_check(rc->config->endpoint, err, sizeof(err)) < 0) {
		fprintf(rc->out, "%s\n", err);
		ret = -EINVAL;
		goto out;
	}
	ret = catch_interrupt(rc, e->id, &old_int);
	if (ret < 0)
		goto out;
	cgfb_mailout_recipients(rc->config, &report, to, sizeof(to));
	show_detection(rc, ce, r, e->id);
	say_where(rc, to);
	if (ce->generic)
		ask_message(rc, r, &a, e->id);
	ask_questions(rc, ce, r, &a, e->id);
	read_use_case(rc, &a, to);
	save_draft(rc, e->id, &a);
	redact_answers(rc, &a, e->id);
	ret = decide(rc, e, &report, &a, to);
	keep_typed(rc, e->id, &a, ret);
	cgfb_notify_refresh_motd(rc->config, rc->sd);
	interrupt_says(-1);
	sigaction(SIGINT, &old_int, NULL);
out:
	json_object_put(r);
	cgfb_draft_free(&a);
	cgfb_buf_free(&report);
	return ret;
}
