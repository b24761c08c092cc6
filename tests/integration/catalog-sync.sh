#!/bin/sh
# Acceptance (issue 42, part 1): tools/catalog-sync on the kernel-tree
# fixture tests/data/catalog-sync/tree proposes an entry with a new id for
# every planted message, keeps the existing ones (C4, M7) on their ids, and
# reports new / changed / gone / ambiguous. Each planted message plants one
# transformation the kernel applies to a format (split literals with the
# address split, pr_fmt from a local header, escapes and an embedded
# newline, %s of current->comm and %d of a pid, %s of cft->name through the
# cftype array, WARN_ONCE's and invalfc's format as second argument, two
# call sites of one text, trailing spaces, printk KERN_NOTICE); for each the
# proposed regex must match (grep -E, the POSIX ERE the product's regcomp
# takes) the line the kernel prints and its needle must be in it. Then the
# product's scan, given the proposed catalog, finds each line in a dmesg
# file with its proposed id. Python and one scan: about a second.
# shellcheck shell=sh
. tests/lib.sh

TREE=tests/data/catalog-sync/tree
OUT=$T_TMP/catalog.json
before=$(sha256sum data/catalog.json)
if ! nice python3 tools/catalog-sync "$TREE" --out "$OUT" > "$T_TMP/summary" 2>&1; then
	not_ok "tools/catalog-sync ran"
	evidence "$T_TMP/summary"
	finish
	exit 1
fi
ok "tools/catalog-sync ran"
check "data/catalog.json untouched" [ "$before" = "$(sha256sum data/catalog.json)" ]
if python3 tools/catalog-sync "$TREE" --catalog "$OUT" --out "$OUT" > "$T_TMP/self" 2>&1; then
	not_ok "--out may not be the catalog it reads"
else
	ok "--out may not be the catalog it reads"
fi

# The checks of the proposal: one "PASS|FAIL<TAB>name" line each, and the
# dmesg file of every planted line for scan, with the ids it must give.
python3 - "$OUT" "$T_TMP/summary" "$T_TMP" > "$T_TMP/results" 2>&1 <<'PY' || echo "FAIL	the checker crashed" >> "$T_TMP/results"
import json, subprocess, sys
out, summary_file, tmp = sys.argv[1:4]
cat = json.load(open(out))
summary = open(summary_file).read()
byid = {e["id"]: e for e in cat["entries"]}
orig = {e["id"] for e in json.load(open("data/catalog.json"))["entries"]}

def say(ok, name):
    print(("PASS" if ok else "FAIL") + "\t" + name)

def ere(rx, line):
    """The POSIX ERE matches line: grep -E, glibc's regcomp as the product."""
    return subprocess.run(["grep", "-Eq", "--", rx], input=line.encode()).returncode == 0

def proposed(func):
    got = [e for e in cat["entries"] if func in e.get("functions", []) and e["id"] not in orig]
    return got[0] if len(got) == 1 else None

# function -> (what it plants, the line the kernel prints, lines it must not match)
PLANTED = {
    "mem_cgroup_frob_limit_write": ("split literals, address split", "memory.frob_limit is deprecated "
        "and will be removed. Please report your usecase to linux-mm@kvack.org if you depend on "
        "this functionality.", ["memory.frob_limit is deprecated and will be removed. Please report "
        "your usecase to linux-mm@ kvack.org if you depend on this functionality."]),
    "mem_cgroup_frob_events_write": ("two call sites", "memory.frob_events is deprecated. Contact "
        "cgroups@vger.kernel.org.", []),
    "mem_cgroup_frob_swap_write": ("%s comm, %d pid", "kworker/u8:1 (4711): memory.frob_swap is "
        "obsolete and will be removed", ["%s (%d): memory.frob_swap is obsolete and will be removed",
        "a seventeen-byte! (4711): memory.frob_swap is obsolete and will be removed"]),
    "mem_cgroup_frob_escape_write": ("escapes", 'memory.frob_"esc" \\ AA is deprecated.',
        ['memory.frob_\\"esc\\" \\\\ \\x41\\101 is deprecated.']),
    "mem_cgroup_frob_space_write": ("trailing spaces, printk KERN_NOTICE",
        "memory.frob_space is deprecated and will be removed  ", []),
    "cgroup1_frob_mount": ("pr_fmt from a local header", "cgroup: the frob mount option is "
        "deprecated and will be removed", ["the frob mount option is deprecated and will be removed"]),
    "cgroup1_frob_param": ("invalfc: no pr_fmt, logfc's file system type prefix",
        "cpuset: frob_v1 is obsolete, mount cgroup2 instead",
        ["frob_v1 is obsolete, mount cgroup2 instead", "nfs: frob_v1 is obsolete, mount cgroup2 instead"]),
    "cgroup1_frob_warn": ("warnfc: the type's name, then a comm capture",
        "cgroup2: frob_v2 used by kworker/0:1 is deprecated", []),
    "cpu_frob_shares_write_u64": ("kernel/sched/: a cpu controller knob's handler",
        "cpu.frob_shares is deprecated, use cpu.weight", []),
    "cpuset_write_u64": ("cftype alternation", "cgroup: cpuset.frob_spread_b is obsolete and will be "
        "removed", ["cgroup: cpuset.frob_relax_level is obsolete and will be removed",
        "cgroup: cpuset.%s is obsolete and will be removed"]),
    "blkcg_frob_weight_write": ("WARN_ONCE format position", "blkio.frob_weight is deprecated and will "
        "be removed", ["1 is deprecated and will be removed"]),
    "frob_probe": ("whole-tree address search", "frob: please mail cgroups@vger.kernel.org about "
        "frob groups", []),
}
dmesg, expect = [], []
for func, (what, line, bad) in PLANTED.items():
    e = proposed(func)
    say(e is not None, "%s: one proposed entry with a new id" % what)
    if not e:
        continue
    new = summary.split("changed:")[0]
    say(e["id"] != "G1" and ("\n  %s: " % e["id"]) in new, "%s: %s listed as new" % (what, e["id"]))
    say(ere(e["regex"], line), "%s: regex %s matches %r" % (what, e["regex"], line))
    say(any(n in line for n in e["needles"]) and all(len(n.encode()) >= 10 for n in e["needles"]),
        "%s: needle %r in the line" % (what, e["needles"]))
    for b in bad:
        say(not ere(e["regex"], b), "%s: regex does not match %r" % (what, b))
    dmesg.append("[   %d.000000] %s" % (len(dmesg) + 1, line))
    expect.append(e["id"])

e = proposed("mem_cgroup_frob_events_write")
say(e and e.get("attribution") == "ambiguous" and e["functions"] == ["mem_cgroup_frob_events_write",
    "memcg_frob_event_register"] and proposed("memcg_frob_event_register") is e,
    "two call sites: one entry, both functions, attribution ambiguous")
say(e and ("ambiguous: 1\n  %s: 2 call sites" % e["id"]) in summary, "two call sites: summary says ambiguous")
e = proposed("mem_cgroup_frob_swap_write")
say(e and e.get("fields") == {"comm": 1, "pid": 2} and e["message"].startswith("{comm} ({pid}): "),
    "%s comm: fields comm and pid, message names them")
e = proposed("cpuset_write_u64")
say(e and e.get("fields") == {"knob": 1} and "frob_relax_level" not in e["regex"]
    and "frob_spread_a" in e["regex"], "cftype: only the knobs whose handler prints it")
e = proposed("mem_cgroup_frob_escape_write")
say(e and ere(e.get("continuation", "^$"), "Tell linux-mm@kvack.org what you use it for."),
    "escapes: the embedded newline's second line is the continuation")
e = proposed("mem_cgroup_frob_space_write")
say(e and e["message"].endswith("removed  ") and e["level"] == 5 and e["once"] is True,
    "trailing spaces kept in the message, level 5 and once from printk_once(KERN_NOTICE")
e = proposed("blkcg_frob_weight_write")
say(e and e.get("warn_block") is True and e["once"] is True and e["level"] == 4,
    "WARN_ONCE: a warn block, once, level 4")
e = proposed("cgroup1_frob_warn")
say(e and e["level"] == 4 and e.get("fields") == {"comm": 2}
    and subprocess.run(["sed", "-E", "s/%s/\\%d/" % (e["regex"], e["fields"]["comm"])],
                       input=b"cgroup: frob_v2 used by kworker/0:1 is deprecated",
                       capture_output=True).stdout == b"kworker/0:1",
    "warnfc: level 4, comm is group 2 (the type's alternation is group 1)")
e = proposed("cgroup1_frob_mount")
say(e and e["level"] == 4 and e["once"] is False, "pr_warn: level 4, not once")
say(proposed("mem_cgroup_frob_noise") is None and "commented_out" not in json.dumps(cat)
    and "no address and out of scope" not in json.dumps(cat),
    "out of scope: noise, a comment and an addressless message elsewhere are not proposed")
say(proposed("cgroup1_reconfigure") is None and "C4" not in summary.split("gone:")[0]
    and "  C4:" not in summary, "existing C4 kept on its id, unchanged")
say(proposed("mem_cgroup_move_charge_write") is None and "  M7: level 4 -> 6 (" in summary,
    "existing M7 kept on its id, its level change reported")
say("  M4: memory.oom_control is deprecated" in summary.split("gone:")[1], "M4 reported gone")
say(summary.startswith("new: 12\n"), "twelve new messages")
say(proposed("setup_frob_decay") is None and "frob_decay" not in summary,
    "kernel/sched/: a deprecated boot option (no cftype handler) is not a cgroup message")
with open(tmp + "/dmesg", "w") as f:
    f.write("\n".join(dmesg) + "\n")
with open(tmp + "/expect", "w") as f:
    f.write("\n".join(expect) + "\n")
PY
while IFS='	' read -r verdict name; do
	case $verdict in
	PASS) ok "$name" ;;
	*) not_ok "$verdict $name" ;;
	esac
done < "$T_TMP/results"

# --verify: the tool renders every proposal into dmesg, syslog, kmsg and
# journal records and has scan find each; a scan that finds nothing (a
# stand-in program) fails it, naming the format and the ids missing.
python3 tools/catalog-sync "$TREE" --out "$T_TMP/v.json" --verify "$CGFB" > "$T_TMP/verify" 2>&1
check "--verify: scan finds each of the 12 proposals in all four record formats" \
	grep -qx "verified: 12 proposals found by scan in dmesg, syslog, kmsg and journal records" "$T_TMP/verify"
printf '#!/bin/sh\nexit 1\n' > "$T_TMP/finds-nothing"
chmod +x "$T_TMP/finds-nothing"
check "--verify with a scan that finds nothing: exit 1, each format named" \
	sh -c '! python3 tools/catalog-sync "$1" --out "$2/v2.json" --verify "$2/finds-nothing" > "$2/v2" 2>&1 &&
	for f in dmesg syslog kmsg journal; do grep -q "^verify $f: scan found \[\], want \[.N1.," "$2/v2" || exit 1; done' \
	_ "$TREE" "$T_TMP"

# --printk-index: which entries a kernel can print, from its printk index
# (the format as kernel/printk/index.c writes it: \" \\ \n and octal escaped).
python3 tools/catalog-sync "$TREE" --out "$T_TMP/p.json" --printk-index tests/data/catalog-sync/printk-index \
	> "$T_TMP/pindex" 2>&1
check "--printk-index: printable, not indexed, never indexed (WARN, invalfc) and untold, each right" \
	python3 - "$T_TMP/p.json" "$T_TMP/pindex" <<'EOP'
import json, sys
cat = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
def ids(func):
    return [e["id"] for e in cat["entries"] if func in e.get("functions", []) and e["id"].startswith("N")]
def line(head):
    l = [x for x in out.splitlines() if x.startswith("  " + head + ": ")]
    assert len(l) == 1, (head, out)
    return set(l[0].split(": ", 1)[1].split())
can = {"C4"} | {i for f in ("cgroup1_frob_mount", "mem_cgroup_frob_swap_write",
                            "mem_cgroup_frob_escape_write", "cpuset_write_u64") for i in ids(f)}
assert len(can) == 5 and line("this kernel can print") == can, out
never = line("never indexed (WARN text, fs_context log)")
assert {"S1", "P1"} | set(ids("blkcg_frob_weight_write") + ids("cgroup1_frob_param")) <= never, out
assert {"M7", "M8", "V1"} | set(ids("mem_cgroup_frob_limit_write")) <= line("not in its index"), out
assert line("cannot tell (no regex or needle)") == {"M5"}, out
EOP

# The product's own scan recognises each planted line with its proposed id.
"$CGFB" scan --catalog "$OUT" --json "$T_TMP/dmesg" > "$T_TMP/scan.json" 2> "$T_TMP/scan.err"
python3 -c 'import json, sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1])]' \
	"$T_TMP/scan.json" > "$T_TMP/ids" 2>> "$T_TMP/scan.err"
if cmp -s "$T_TMP/ids" "$T_TMP/expect"; then
	ok "scan with the proposed catalog finds every planted line with its new id"
else
	not_ok "scan with the proposed catalog finds every planted line with its new id"
	diff "$T_TMP/expect" "$T_TMP/ids" | sed 's/^/#   /'
	evidence "$T_TMP/scan.err"
fi
# docs/MESSAGES.md is what tools/messages-doc makes of data/catalog.json.
if python3 tools/messages-doc --check 2> "$T_TMP/messages.err"; then
	ok "docs/MESSAGES.md is current with data/catalog.json"
else
	not_ok "docs/MESSAGES.md is current with data/catalog.json"
	evidence "$T_TMP/messages.err"
fi
finish
