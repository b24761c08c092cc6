#!/bin/sh
# vg-wrap.sh BUILD DIR LOGDIR: programs in DIR that run each program of
# BUILD under valgrind memcheck, a log per process in LOGDIR/vg.PID.log
# (tests/tools/vg-check.sh reads them). Prints the valgrind command prefix.
#
# DIR/bin/NAME is what a test runs instead of BUILD/NAME. The programs find
# each other beside themselves (/proc/self/exe, client/cli/exec.c), and
# valgrind answers that with the real program's path, so each real program
# is copied into a directory of its own, DIR/NAME/NAME, next to wrappers
# for the others: `cgroup-feedback watch` execs a wrapper, and the watcher
# is under valgrind too. --trace-children stays off: the programs also run
# the pager, editor, sendmail and shells, which are not ours to check.
set -eu
BUILD=$1 DIR=$2 LOGDIR=$3
# --read-inline-info=no: valgrind does not read the inlined-call tables of
# the debug information (libc6-dbg's above all) at each start-up, 0.14 s
# of CPU of each process's 1.5 (eight runs of scan each way, 2026-12-06)
# in the suite's ~560 valgrind processes. What memcheck finds is the same
# (errors and leaks do not depend on it, and tests/valgrind.supp has no
# entry whose frames could); a stack in a log names the function a
# call was inlined into, at the inlined code's file and line. Run the
# program by hand without it for the inlined frames.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NAMES="cgroup-feedback cgroup-feedback-send cgroup-feedback-watch cgroup-feedback-report cgroup-feedback-server"
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --read-inline-info=no \
--errors-for-leak-kinds=definite --track-fds=no --trace-children=no --vgdb=no \
--suppressions=$DIR/valgrind.supp --log-file=$LOGDIR/vg.%p.log"

BUILD_ABS=$(cd "$BUILD" && pwd)
mkdir -p "$DIR/bin" "$LOGDIR"
# A copy beside the wrappers: a program run as another user reads it there
# whatever the modes of the directories above the checkout.
cp "$TOP/tests/valgrind.supp" "$DIR/valgrind.supp"
chmod 0644 "$DIR/valgrind.supp"
# A test may run a program as another user (setpriv, watch.sh): it must
# reach the programs and write its log. The directories above are the
# caller's to open (tests/lib.sh, tests/run.sh).
chmod 0755 "$DIR" "$DIR/bin"
chmod 1777 "$LOGDIR"
for n in $NAMES; do
	mkdir -p "$DIR/$n"
	chmod 0755 "$DIR/$n"
	cp "$BUILD/$n" "$DIR/$n/$n"
	# The client tells the watcher where it is (CGFB_CLI, for review):
	# valgrind's answer is the copy, and the wrapper stands in for it.
	# CGFB_VG_NATIVE (tests/lib.sh): the programs named there run as
	# the build's own, for a run whose paths in them another run of the
	# same script takes under valgrind; the others stay under it.
	# cgroup-feedback only execs cgroup-feedback-send for the sender's
	# commands (base/exec.c's exec_helper, which `watch` runs under
	# valgrind): for those the copy runs natively and the sender it
	# starts, the wrapper beside the copy, under valgrind, one valgrind
	# start-up (seconds) a command instead of two.
	# `cgroup-feedback watch` is the same dispatch to cgroup-feedback-watch
	# (client/cli/main.c's cmd_watch: the global options, then
	# exec_helper): the first `watch` of a script (the first to make
	# LOGDIR/cli-watch.once) runs the copy under valgrind, and that one
	# pass takes exec_helper's watcher branch (CGFB_CLI) and the sender's
	# shared code; every later one runs the copy natively and the watcher
	# it execs under valgrind, as for the sender's commands: one start-up a
	# watch instead of two (14 of watch.sh's runs, 2026-12-06).
	sender=
	[ "$n" = cgroup-feedback ] && sender='skip=
for a; do
	if [ -n "$skip" ]; then skip=; continue; fi
	case $a in
	--config|--catalog|--state-dir) skip=1 ;;
	-*) ;;
	review|submit|decline|reopen|withdraw|flush|export) exec "'"$DIR/$n/$n"'" "$@" ;;
	watch) mkdir "'"$LOGDIR/cli-watch.once"'" 2>/dev/null || exec "'"$DIR/$n/$n"'" "$@"; break ;;
	*) break ;;
	esac
done'
	cat > "$DIR/bin/$n" <<EOW
#!/bin/sh
[ "\${CGFB_CLI:-}" = "$DIR/cgroup-feedback/cgroup-feedback" ] && \
	CGFB_CLI="$DIR/bin/cgroup-feedback" && export CGFB_CLI
case " \${CGFB_VG_NATIVE:-} " in *" $n "*) exec "$BUILD_ABS/$n" "\$@" ;; esac
$sender
exec $VG "$DIR/$n/$n" "\$@"
EOW
	chmod 0755 "$DIR/bin/$n"
done
for n in $NAMES; do
	for m in $NAMES; do
		[ "$n" = "$m" ] || cp "$DIR/bin/$m" "$DIR/$n/$m"
	done
done
echo "$VG"
