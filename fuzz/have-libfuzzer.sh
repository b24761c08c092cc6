#!/bin/sh
# Whether CC (default clang) links a libFuzzer target with ASan and UBSan:
# exit 0 if so. Debian 12: clang and libclang-rt-dev (libclang-rt-14-dev
# holds libclang_rt.fuzzer-x86_64.a).
CC=${1:-clang}
command -v "$CC" >/dev/null 2>&1 || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-hasfuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return (int)(n && !d); }' \
	> "$tmp/t.c"
"$CC" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1
