/* Words a report may carry from a kernel message. The vocabularies are
 * the report schema's own (docs/report.schema.json $defs: controller,
 * knob, replacement, kernel_file) and the catalog's wording: a value is
 * kept only when the schema accepts it, so what the client writes and what
 * the collector accepts cannot drift apart. Nothing is copied and then
 * scrubbed: a value is either a word of a closed list, a placeholder, or a
 * token. */
#ifndef CGFB_VOCAB_H
#define CGFB_VOCAB_H

#include <stddef.h>

#include "cgfb/catalog.h"
#include "cgfb/schema.h"

#define CGFB_VOCAB_WORD_MAX 64

/* word if the schema's definition def accepts it, else fallback. */
const char *cgfb_vocab_or(const struct cgfb_schema *s, const char *def, const char *word,
			  const char *fallback);

/* A kernel source path as a WARN block prints it, made relative to the top
 * of the kernel tree however the build directory was named
 * ("/srv/builds/jdoe/linux/mm/memcontrol.c" -> "mm/memcontrol.c"), and kept
 * only if it is one of the schema's kernel_file values; else "other". */
const char *cgfb_vocab_kernel_file(const struct cgfb_schema *s, const char *path);

/* A symbol as the kernel prints it ("mem_cgroup_css_alloc+0x1a/0x2b0",
 * "foo.isra.0", "bar [mod]") reduced to its name in out; "" when the result
 * is not a plain C identifier. */
void cgfb_vocab_symbol(const char *sym, char out[CGFB_VOCAB_WORD_MAX + 1]);

/* Free text the catalog does not describe (the G1 safety net), shaped so
 * that it cannot carry identity: words of generic's vocabulary (the
 * catalog's messages, titles and "vocabulary" list) and of the schema's knob and controller
 * lists stay, the maintainers' addresses stay, numbers become "N", every
 * other word "_". Punctuation from a closed set stays; control and
 * non-ASCII bytes are dropped. */
void cgfb_vocab_shape(const struct cgfb_entry *generic, const struct cgfb_schema *s,
		      const char *text, size_t len, char *out, size_t outsz);

#endif
