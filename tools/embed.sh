#!/bin/sh
# Usage: embed.sh SYMBOL FILE — print a C file defining SYMBOL as FILE's bytes
# plus a NUL, and SYMBOL_len. od is in coreutils, so no xxd dependency.
set -eu
sym=$1 file=$2
printf '/* generated from %s by tools/embed.sh; do not edit */\n' "$file"
printf '#include <stddef.h>\nextern const char %s[];\nextern const size_t %s_len;\n' "$sym" "$sym"
printf 'const char %s[] = {\n' "$sym"
od -An -v -tx1 "$file" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/^/\t/'
printf '\t0x00\n};\nconst size_t %s_len = sizeof(%s) - 1;\n' "$sym" "$sym"
