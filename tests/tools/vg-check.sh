#!/bin/sh
# vg-check.sh LOGDIR NAME: one TAP test, "valgrind: NAME", that fails when
# a log of tests/tools/vg-wrap.sh reports an error or a definite leak (run
# with -q, a log holds nothing else but valgrind's warnings, which are not
# the program's errors and are shown as comments). The offending logs are
# shown as TAP comments.
# A process killed with SIGKILL leaves a log without its leak check; the
# errors it did log before are real and count.
LOGDIR=$1 NAME=$2
bad=0 n=0
for f in "$LOGDIR"/vg.*.log; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	# Errors: any line but a warning and its indented continuation lines.
	errs=$(awk '/^==[0-9]+== +Warning:/ { w = 1; next }
		/^==[0-9]+== *$/ { w = 0; next }
		w && /^==[0-9]+==    / { next }
		{ w = 0; e++ } END { print e + 0 }' "$f")
	if [ "$errs" -gt 0 ]; then
		bad=$((bad + 1))
		echo "# $f:"
		sed 's/^/#   /' "$f"
	elif [ -s "$f" ]; then
		sed 's/^/#   /' "$f"
	fi
done
if [ "$n" -eq 0 ]; then
	# Every such script runs programs, and valgrind makes a log for each
	# (empty with -q): none means they logged elsewhere, unchecked.
	echo "not ok 1 - valgrind: $NAME (no process logged in $LOGDIR)"
	bad=1
elif [ "$bad" -eq 0 ]; then
	echo "ok 1 - valgrind: $NAME ($n processes, no error, no definite leak)"
else
	echo "not ok 1 - valgrind: $NAME ($bad of $n processes with errors or definite leaks)"
fi
echo "1..1"
[ "$bad" -eq 0 ]
