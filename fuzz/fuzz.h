/* What every fuzz target shares. A target is one libFuzzer entry point
 * (LLVMFuzzerTestOneInput) over the bytes an attacker controls; besides the
 * sanitizers' checks it asserts properties with PROPERTY(), which abort()s
 * with a message so that libFuzzer saves the input as a crash. */
#ifndef CGFB_FUZZ_H
#define CGFB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define PROPERTY(cond, ...)                                                         \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "property failed at %s:%d: %s: ", __FILE__, \
				__LINE__, #cond);                                   \
			fprintf(stderr, __VA_ARGS__);                               \
			fputc('\n', stderr);                                        \
			abort();                                                    \
		}                                                                   \
	} while (0)

/* LLVMFuzzerInitialize for a target that reads with a built-in table:
 * LOAD (cgfb_catalog_load_builtin, cgfb_schema_load_builtin) fills VAR
 * once, or the run stops before the first input, saying WHAT failed. */
#define FUZZ_INIT_BUILTIN(load, var, what)                                    \
	int LLVMFuzzerInitialize(int *argc, char ***argv)                     \
	{                                                                     \
		char err[256];                                                \
                                                                              \
		if (load(&(var), err, sizeof(err)) < 0) {                     \
			fprintf(stderr, "%s: %s\n", what, err);               \
			abort();                                              \
		}                                                             \
		return 0;                                                     \
	}

/* A NUL-terminated heap copy of the input, so that ASan sees a read past
 * its end (the fuzzer's own buffer has no such guard for C strings). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Touch every byte of [p, p + n): a pointer a parser returns must point
 * at memory it may read, and ASan says so here if it does not. */
static inline unsigned fuzz_touch(const void *p, size_t n)
{
	const volatile unsigned char *c = p;
	unsigned sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += c[i];
	return sum;
}

#endif
