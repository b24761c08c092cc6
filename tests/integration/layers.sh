#!/bin/sh
# The layering rule (docs/ARCHITECTURE.md): the tree obeys it, and each kind
# of violation planted in a copy of the tree is caught.
. tests/lib.sh
CHECK=$PWD/tools/check-layers.sh

out=$(sh "$CHECK" 2>&1)
check "the tree obeys the layering rule" [ -z "$out" ]
[ -z "$out" ] || echo "$out" | sed 's/^/# /'

# plant NAME FILE LINE EXPECT: a copy of the tree with LINE added to FILE
# must fail the check with a message containing EXPECT.
plant() {
	name=$1 file=$2 line=$3 expect=$4
	t=$T_TMP/$name
	mkdir -p "$t"
	cp -r client lib include server-stub "$t"/
	mkdir -p "$t/$(dirname "$file")"
	printf '%s\n' "$line" >> "$t/$file"
	if msg=$(sh "$CHECK" "$t" 2>&1); then
		not_ok "$name is caught (the check passed)"
	elif echo "$msg" | grep -qF "$expect"; then
		ok "$name is caught"
	else
		not_ok "$name is caught with a clear message"; echo "$msg" | sed 's/^/# /'
	fi
}

plant "an earlier stage including a later one" client/log/klog.c \
	'#include "deliver/submit.h"' 'log/ includes the later stage deliver/'
plant "the report stage including consent" client/report/spool.h \
	'#include "consent/consent.h"' 'report/ includes the later stage consent/'
plant "curl outside deliver/" client/consent/notify.c \
	'#include <curl/curl.h>' 'libcurl is included outside client/deliver/'
plant "an include that does not name its stage" client/detect/scan.c \
	'#include "spool.h"' 'does not name its stage'
plant "lib/ including a client stage" lib/buf.c \
	'#include "report/spool.h"' 'lib/ includes the client stage report/'
plant "the collector including a client stage" server-stub/api.c \
	'#include "privacy/anon.h"' 'server-stub/ includes the client stage privacy/'
plant "a folder that is no stage" client/extra/x.c \
	'int x;' 'not a stage'

finish
