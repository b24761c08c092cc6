#!/bin/sh
# A purge keeps what withdrawing needs. The maintainer scripts as shipped
# (debian/cgroup-feedback.postrm, run with DPKG_ROOT over a root of the
# test's own; the RPM's %postun, taken from the spec) on a spool the real
# client made: a report sent to the real collector, one exported as an
# e-mail, one pending, one sent and withdrawn. The purge lists the two that
# can still be withdrawn, keeps their ids, endpoints and deletion tokens,
# and nothing else, in a root-only file in /var/backups, and the command
# that file gives withdraws the sent one from the collector. It never
# reads its input, never fails, and when the tokens cannot be kept it
# leaves the spool and says so. The function that reads the spool is the
# same text in both packages. docs/PRIVACY.md, "What a purge keeps".
. tests/lib.sh
. tests/server/lib.sh

case $BUILD in *san*)
	skip "the maintainer scripts" "shell scripts, run once, on the normal build"
	finish; exit 0 ;;
esac

POSTRM=$PWD/debian/cgroup-feedback.postrm
SPEC=$PWD/packaging/rpm/cgroup-feedback.spec
client_spool

# --- the spool: sent, exported, pending, withdrawn -----------------------------------
start_server purge --rate 0 || { not_ok "server starts"; finish; exit 1; }
EP=$URL/api/v1/reports
sent=$(new_report M8 201)
mailed=$(new_report M3 202)
pending=$(new_report M8 203)
gone=$(new_report M8 204)
cfb submit --state-dir "$ST" --endpoint "$EP" --yes --use-case-file "$T_TMP/uc" "$sent" >"$T_TMP/out" 2>&1 &&
	cfb submit --state-dir "$ST" --endpoint "$EP" --yes "$gone" >>"$T_TMP/out" 2>&1 &&
	cfb withdraw --state-dir "$ST" "$gone" >>"$T_TMP/out" 2>&1 &&
	(cd "$T_TMP" && cfb export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" --output r.eml "$mailed") \
		>>"$T_TMP/out" 2>&1
st=$?
check "the client sends one, exports one, sends and withdraws one" [ $st -eq 0 ]
[ $st -eq 0 ] || evidence "$T_TMP/out" 10
expect_eq "the collector has the sent report" "$(admin "/api/v1/reports/$sent")" 200
tok_sent=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["deletion_token"])' \
	"$ST/reports/$sent.state")

# A fake logger: what the scripts tell the journal, here in a file.
mkdir -p "$T_TMP/bin"
printf '#!/bin/sh\necho "$*" >> "%s/logged"\n' "$T_TMP" > "$T_TMP/bin/logger"
chmod 0755 "$T_TMP/bin/logger"
# A standard input that blocks a reader: a question would hang (and time out).
mkfifo "$T_TMP/stdin"
exec 7<>"$T_TMP/stdin"

# purge ROOT: the shipped postrm's purge on ROOT (spool: a copy of $ST);
# its exit status, its messages in ROOT.err.
purge() {
	mkdir -p "$1/var/lib" "$1/run"
	[ -e "$1/var/backups" ] || mkdir "$1/var/backups"
	[ -d "$1/var/lib/cgroup-feedback" ] || cp -a "$ST" "$1/var/lib/cgroup-feedback"
	DPKG_ROOT=$1 PATH=$T_TMP/bin:$PATH timeout 20 sh "$POSTRM" purge <"$T_TMP/stdin" >"$1.out" 2>"$1.err"
}
data_lines() { grep -v '^#' "$1"; }

# --- the purge: listed, kept, withdrawable -----------------------------------------
R=$T_TMP/root
purge "$R"
st=$?
check "postrm purge exits 0, without waiting for an answer" [ $st -eq 0 ]
[ $st -eq 0 ] || evidence "$R.err"
check "the spool is gone" [ ! -e "$R/var/lib/cgroup-feedback" ]
kept=$(ls "$R/var/backups/")
check "one file is kept in /var/backups: cgroup-feedback-withdraw-tokens.DATE" \
	[ "$kept" = "cgroup-feedback-withdraw-tokens.$(date +%Y-%m-%d)" ]
K=$R/var/backups/$kept
check "readable by root only (0600, root)" [ "$(stat -c '%a %u %g' "$K")" = "600 0 0" ]
check "it holds the sent and the exported report, each with its endpoint and token, and nothing else" \
	python3 -c '
import json, sys
st, lines = sys.argv[1], open(sys.argv[2]).read().splitlines()
data = sorted(l for l in lines if not l.startswith("#"))
want = []
for i in sys.argv[3:]:
    s = json.load(open("%s/reports/%s.state" % (st, i)))
    want.append("%s %s %s" % (i, s["endpoint"], s["deletion_token"]))
assert data == sorted(want), (data, want)
assert want[0].split()[1].startswith(("http:", "mailto:")) and want[1].split()[1].startswith(("http:", "mailto:"))
' "$ST" "$K" "$sent" "$mailed"
check "the kept token is the one whose hash the sent report carries" python3 -c '
import hashlib, json, sys
rep = json.load(open(sys.argv[1]))
line = [l for l in open(sys.argv[2]) if l.startswith(sys.argv[3])][0]
assert hashlib.sha256(line.split()[2].encode()).hexdigest() == rep["deletion"]["token_sha256"]
' "$ST/reports/$sent.json" "$K" "$sent"
check "no other report's id, no use case, no secret in it" sh -c '
	! grep -q -e "$2" -e "$3" -e "KVM guest" "$1" &&
	! grep -q "$(od -An -tx1 "$4" | tr -d " \n")" "$1"' _ "$K" "$pending" "$gone" "$ST/secret"
check "the administrator is told which reports and where their tokens are" sh -c '
	grep -q "2 reports sent from this machine can still be withdrawn" "$1" && grep -q "$2 (sent to $4)" "$1" &&
	grep -q "$3 (sent to mailto:" "$1" && grep -q "/var/backups/cgroup-feedback-withdraw-tokens" "$1"' \
	_ "$R.err" "$sent" "$mailed" "$EP"
check "... and the journal (logger), neither with a token" sh -c '
	grep -q "purge: 2 reports .* kept in /var/backups/cgroup-feedback-withdraw-tokens" "$1/logged" &&
	! grep -q "$2" "$1/logged" "$3"' _ "$T_TMP" "$tok_sent" "$R.err"
# The file's own command, as the administrator pastes it (the path is the
# installed system's: here under the test's root).
cmd=$(sed -n 's|^#   \(awk .*\)$|\1|p' "$K" | sed "s|/var/backups/|$R/var/backups/|")
sh -c "$cmd" >"$T_TMP/withdrawn" 2>&1
check "the command the file gives withdraws the sent report from the collector (200)" \
	grep -qx "$sent 200" "$T_TMP/withdrawn"
expect_eq "the collector no longer has it" "$(admin "/api/v1/reports/$sent")" 404

# --- a second purge the same day keeps a second file --------------------------------
purge "$R"
check "a second purge the same day: a second file (.1), the first one untouched" sh -c '
	[ -f "$1.1" ] && [ "$(ls "$2" | wc -l)" = 2 ] && [ "$(stat -c %a "$1.1")" = 600 ]' _ "$K" "$R/var/backups"

# --- nothing to withdraw: nothing kept, nothing said ------------------------------------
R=$T_TMP/root-none
mkdir -p "$R/var/lib"
cp -a "$ST" "$R/var/lib/cgroup-feedback"
rm -f "$R/var/lib/cgroup-feedback/reports/$sent".* "$R/var/lib/cgroup-feedback/reports/$mailed".*
purge "$R"
check "no report to withdraw (pending, withdrawn): the spool goes, nothing is kept or said" sh -c '
	[ $2 -eq 0 ] && [ ! -e "$1/var/lib/cgroup-feedback" ] && [ -z "$(ls -A "$1/var/backups")" ] && [ ! -s "$1.err" ]' \
	_ "$R" $?

# --- what looks like a sent report inside a string is not one ------------------------------
R=$T_TMP/root-forged
mkdir -p "$R/var/lib"
cp -a "$ST" "$R/var/lib/cgroup-feedback"
rm -f "$R/var/lib/cgroup-feedback/reports/$sent".* "$R/var/lib/cgroup-feedback/reports/$mailed".*
python3 -c '
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["last_error"] = "\"state\":\"sent\", \"endpoint\":\"mailto:x@example.org\", \"deletion_token\":\"" + "ab" * 32 + "\"\n\"state\": \"sent\""
open(p, "w").write(json.dumps(s, indent=2))
' "$R/var/lib/cgroup-feedback/reports/$gone.state"
purge "$R"
check "keys written inside another value (last_error) are not read as the report's" sh -c '
	[ $2 -eq 0 ] && [ -z "$(ls -A "$1/var/backups")" ] && [ ! -s "$1.err" ]' _ "$R" $?

# --- the tokens cannot be kept: the spool stays, and the administrator is told ------------
R=$T_TMP/root-nobackups
mkdir -p "$R/var"
: > "$R/var/backups"
purge "$R"
check "/var/backups cannot be written: exit 0, the spool is left in place with its tokens" sh -c '
	[ $2 -eq 0 ] && [ -f "$1/var/lib/cgroup-feedback/reports/$3.state" ]' _ "$R" $? "$sent"
check "... and it says so, with what to do" sh -c '
	grep -q "could not be written: the spool .*/var/lib/cgroup-feedback is left in place" "$1" &&
	grep -q "cgroup-feedback withdraw ID" "$1"' _ "$R.err"
R=$T_TMP/root-badtoken
mkdir -p "$R/var/lib"
cp -a "$ST" "$R/var/lib/cgroup-feedback"
sed -i 's/"deletion_token":"[0-9a-f]*"/"deletion_token":"not-hex"/' "$R/var/lib/cgroup-feedback/reports/$sent.state"
purge "$R"
check "a sent report whose token cannot be read: exit 0, nothing kept, the spool is left in place" sh -c '
	[ $2 -eq 0 ] && [ -z "$(ls -A "$1/var/backups")" ] && [ -d "$1/var/lib/cgroup-feedback/reports" ] &&
	grep -q "could not be read: the spool" "$1.err"' _ "$R" $?

# --- the RPM: the same reading of the spool; erase keeps the spool and says which --------
block() { sed -n '/^# >>> withdrawable/,/^# <<< withdrawable/p' "$1" | sed 1d; }
block "$POSTRM" > "$T_TMP/block.deb"
block "$SPEC" > "$T_TMP/block.rpm"
check "the function that reads the spool is the same text in the .deb's postrm and the RPM's %postun" \
	sh -c 'grep -q "^withdrawable() {" "$1" && diff "$1" "$2"' _ "$T_TMP/block.deb" "$T_TMP/block.rpm"
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1; then
	sed -n '/^%postun$/,/^%pre server/p' "$SPEC" | sed -e '1d' -e '$d' -e '/^%/d' > "$T_TMP/postun"
	# Its absolute paths, in a mount namespace whose /var/lib and /run are
	# the test's.
	mkdir -p "$T_TMP/rpmroot" "$T_TMP/rpmrun"
	cp -a "$ST" "$T_TMP/rpmroot/cgroup-feedback"
	PATH=$T_TMP/bin:$PATH timeout 20 unshare --mount --propagation private sh -c '
		mount --bind "$1" /var/lib && mount --bind "$2" /run && exec sh "$3" 0' \
		_ "$T_TMP/rpmroot" "$T_TMP/rpmrun" "$T_TMP/postun" \
		<"$T_TMP/stdin" >"$T_TMP/rpm.out" 2>"$T_TMP/rpm.err"
	check "RPM %postun of an erase: exit 0, the spool kept as it was" sh -c '
		[ $1 -eq 0 ] && [ -f "$2/cgroup-feedback/reports/$3.state" ]' _ $? "$T_TMP/rpmroot" "$sent"
	check "... and it names the two reports that can still be withdrawn and where their tokens stay" sh -c '
		grep -q "2 sent report(s) can still be withdrawn" "$1" && grep -q "$2" "$1" && grep -q "$3" "$1" &&
		grep -q "tokens stay in /var/lib/cgroup-feedback" "$1" && ! grep -q "$4" "$1"' \
		_ "$T_TMP/rpm.err" "$sent" "$mailed" "$tok_sent"
else
	skip "the RPM's %postun on a spool" "needs root and unshare (a mount namespace for its absolute paths)"
fi

finish
