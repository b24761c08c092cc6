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
plant "the collector including a client stage" server-stub/api/api.c \
	'#include "privacy/anon.h"' 'server-stub/ includes the client stage privacy/'
plant "a folder that is no stage" client/extra/x.c \
	'int x;' 'neither a stage nor a program'
plant "a layer of the collector including a later one" server-stub/store/store.c \
	'#include "api/handlers.h"' "the collector's store/ includes the later layer api/"
plant "a collector include that names no layer" server-stub/ingest/writer.c \
	'#include "writer.h"' 'does not name its layer'
plant "the watcher using the notification code" client/watch/watch.c \
	'#include "consent/notify.h"' 'the program watch/ may not use the stage consent/'
plant "the watcher using the snapshot" client/watch/main.c \
	'#include "snapshot/topology.h"' 'the program watch/ may not use the stage snapshot/'
plant "the report writer using delivery" client/reporter/main.c \
	'#include "deliver/submit.h"' 'the program reporter/ may not use the stage deliver/'
plant "one program including another" client/cli/main.c \
	'#include "watch/state.h"' 'the program cli/ includes the program watch/'
plant "a stage including a program" client/report/spool.c \
	'#include "reporter/x.h"' 'the stage report/ includes the program reporter/'
plant "a project header in angle brackets" client/watch/watch.c \
	'#include <consent/notify.h>' 'names a header of this project with angle brackets'
plant "an include through a macro" client/watch/state.c \
	'#define H "consent/notify.h"
#include H' 'an include through a macro'

# The same rule at compile time: each folder is compiled with an include
# tree of only the folders it may include ($(BUILD)/inc/, from
# check-layers.sh --allowed), so a forbidden include does not compile.
# ccplant NAME FILE LINE: in a copy of the tree with LINE added to FILE,
# FILE's object must fail to compile for want of the header; without LINE
# the same object compiles (the control, once).
cctree() {
	t=$T_TMP/cc-$1
	mkdir -p "$t/fuzz" "$t/packaging"
	cp -r Makefile client lib include server-stub tools "$t"/
	cp fuzz/fuzz.mk "$t/fuzz/"
	cp packaging/packaging.mk "$t/packaging/"
}
cctree control
check "the copy used below compiles a watcher object as it is" \
	make -s -C "$T_TMP/cc-control" BUILD=b b/client/watch/watch.o b/server-stub/store/store.o
ccplant() {
	name=$1 file=$2 line=$3
	tag=$(echo "$name" | tr -c 'a-z0-9\n' '-')
	cctree "$tag"
	t=$T_TMP/cc-$tag
	printf '%s\n' "$line" >> "$t/$file"
	if make -s -C "$t" BUILD=b "b/${file%.c}.o" > "$t/cc.out" 2>&1; then
		not_ok "$name does not compile (it compiled)"
	elif grep -q "fatal error: .*: No such file or directory" "$t/cc.out"; then
		ok "$name does not compile"
	else
		not_ok "$name does not compile for want of the header"; evidence "$t/cc.out"
	fi
}
ccplant "the watcher including the notification code" client/watch/watch.c \
	'#include "consent/notify.h"'
ccplant "an earlier stage including a later one" client/log/klog.c '#include "deliver/submit.h"'
ccplant "a project header in angle brackets, from a stage not allowed it" client/detect/scan.c \
	'#include <report/spool.h>'
ccplant "an include through a macro" client/watch/state.c '#define H "consent/notify.h"
#include H'
ccplant "a layer of the collector including a later one" server-stub/store/store.c \
	'#include "api/api.h"'
ccplant "the collector including a client stage" server-stub/ingest/ingest.c \
	'#include "report/spool.h"'

# Every header compiles on its own: what it needs, it includes (a header
# that leans on what its includer included first breaks on the next move).
alone() {
	bad=0
	flags=$(pkg-config --cflags json-c libpq libmicrohttpd 2>/dev/null)
	for h in $(find client include server-stub -name '*.h' | sort); do
		case $h in
		server-stub/*) inc=${h#server-stub/} extra=-Iserver-stub ;;
		client/*) inc=${h#client/} extra= ;;
		include/*) inc=${h#include/} extra= ;;
		esac
		# shellcheck disable=SC2086
		if ! echo "#include \"$inc\"" | cc -fsyntax-only -std=gnu11 -D_GNU_SOURCE -Iinclude \
			-Iclient $extra $flags -x c - > "$T_TMP/alone.err" 2>&1; then
			echo "$h does not compile on its own:"; head -n 3 "$T_TMP/alone.err"
			bad=1
		fi
	done
	return $bad
}
check "every header compiles on its own" alone

# The same rule on the objects (tools/check-symbols.sh, run by every build):
# a prototype written out by hand passes the text check, not this one.
SYMS=$PWD/tools/check-symbols.sh
out=$(sh "$SYMS" "$BUILD" 2>&1)
check "the objects of $BUILD obey the layering rule" [ -z "$out" ]
[ -z "$out" ] || echo "$out" | sed 's/^/# /'
# symplant NAME FILE CODE EXPECT: FILE (a new source of the tree) holding
# CODE, compiled beside a copy of $BUILD's objects, must fail the check
# with a message containing EXPECT.
symplant() {
	name=$1 file=$2 code=$3 expect=$4
	t=$T_TMP/sym-$(echo "$name" | tr -c 'a-z0-9\n' '-')
	mkdir -p "$t/top" "$t/build"
	cp -r client lib include server-stub "$t/top/"
	cp -r "$BUILD/client" "$BUILD/lib" "$BUILD/server-stub" "$t/build/"
	mkdir -p "$t/top/$(dirname "$file")" "$t/build/$(dirname "$file")"
	printf '%s\n' "$code" > "$t/top/$file"
	if ! cc -c -o "$t/build/${file%.c}.o" "$t/top/$file" 2>"$t/cc.err"; then
		not_ok "$name: the planted file compiles: $(head -c 200 "$t/cc.err")"
		return
	fi
	if msg=$(sh "$SYMS" "$t/build" "$t/top" 2>&1); then
		not_ok "$name is caught on the objects (the check passed)"
	elif echo "$msg" | grep -qF "$expect"; then
		ok "$name is caught on the objects"
	else
		not_ok "$name is caught on the objects with a clear message"; echo "$msg" | sed 's/^/# /'
	fi
}
symplant "the watcher calling the notification code through a prototype of its own" \
	client/watch/planted.c \
	'int cgfb_notify_refresh_motd(const void *c, const char *d);
int planted(void);
int planted(void) { return cgfb_notify_refresh_motd(0, 0); }' 'watch/ may not use consent/'
symplant "an earlier stage calling a later one" client/log/planted.c \
	'int cgfb_spool_open(void *sp, const char *dir);
int planted(void);
int planted(void) { return cgfb_spool_open(0, 0); }' 'log/ may not use report/'
symplant "lib/ calling the client" lib/planted.c \
	'const char *cgfb_hint(char *b, unsigned long n, const char *d, const char *f, ...);
const char *planted(void);
const char *planted(void) { return cgfb_hint(0, 0, 0, "x"); }' 'lib/ may not use base/'
symplant "the collector calling the client" server-stub/planted.c \
	'int cgfb_read_boot_id(const char *p, char *b, unsigned long n);
int planted(void);
int planted(void) { return cgfb_read_boot_id(0, 0, 0); }' 'server-stub/ may not use base/'
symplant "a layer of the collector calling a later one" server-stub/store/planted.c \
	'void api_post_report(void *a, const void *rq, void *rp);
void planted(void);
void planted(void) { api_post_report(0, 0, 0); }' 'server-stub/store/ may not use server-stub/api/'
# Two files of the collector that call each other: a cycle (pubsum.c and
# summary.c were one, store_pg.c and store_pg_read.c another).
symplant2() {
	t=$T_TMP/sym-cycle
	mkdir -p "$t/top" "$t/build"
	cp -r client lib include server-stub "$t/top/"
	cp -r "$BUILD/client" "$BUILD/lib" "$BUILD/server-stub" "$t/build/"
	printf 'int cyc_b(void);\nint cyc_a(void);\nint cyc_a(void) { return cyc_b(); }\n' > "$t/top/server-stub/cyca.c"
	printf 'int cyc_a(void);\nint cyc_b(void);\nint cyc_b(void) { return cyc_a() + 1; }\n' > "$t/top/server-stub/cycb.c"
	cc -c -o "$t/build/server-stub/cyca.o" "$t/top/server-stub/cyca.c" &&
		cc -c -o "$t/build/server-stub/cycb.o" "$t/top/server-stub/cycb.c" || return 1
	msg=$(sh "$SYMS" "$t/build" "$t/top" 2>&1) && return 1
	echo "$msg" | grep -q 'cyca.o <-> .*cycb.o: each reaches the other'
}
check "two files that call each other are caught on the objects" symplant2
# Per program, through what its main object takes in: a planted use in an
# object the watcher links (watch.c's own object replaced).
symplant "a use the watcher takes in" client/watch/main.c \
	'int cgfb_spool_open(void *sp, const char *dir);
int main(void);
int main(void) { return cgfb_spool_open(0, 0); }' 'the program watch/ takes in'
# The command that scans, checks and says the status, taking in the review
# (so deliver/ and the secret scan): allowed by the room, refused by what
# its objects call, libcurl and ICU (LEAN in tools/check-symbols.sh).
symplant "cgroup-feedback taking in a command of cgroup-feedback-send" client/cli/main.c \
	'int cgfb_cmd_review(const void *g, int argc, char **argv);
int main(int argc, char **argv);
int main(int argc, char **argv) { return cgfb_cmd_review(0, argc, argv); }' \
	'which calls libcurl (curl_'

finish
