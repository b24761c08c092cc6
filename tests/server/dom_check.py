#!/usr/bin/env python3
"""Compare the dashboard's DOM (as dumped by headless chromium) with the
API's answers.

  dom_check.py DOM.html SUMMARY.json REPORTS.json

Checks: the page finished loading (status data-state="ready") and says when the
collector computed the summary (data-computed, the API's "computed"); the totals;
for every dimension, the rows of its table are exactly the API's groups
with the same report and install counts, and the suppressed-group note has
the API's number; the chart has one bar per group; the admin list shows
the use cases of the latest reports. Prints each difference; exit 1 if any.
"""
import html.parser
import json
import re
import sys


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []
        self.ids = {}           # id -> (attrs, text)
        self.rows = {}          # (dim, key) -> {"reports": ..., "installs": ...}
        self.notes = {}         # chart id -> suppressed count
        self.bars = {}          # chart id -> number of rect.bar
        self.usecases = []
        self.cur_row = None
        self.cur_cell = None
        self.cur_chart = None
        self.in_uc = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a))
        if a.get("id", "").startswith("chart-"):
            self.cur_chart = a["id"][6:]
        if "id" in a:
            self.ids[a["id"]] = [a, ""]
        if tag == "tr" and "data-dim" in a:
            self.cur_row = (a["data-dim"], a["data-key"])
            self.rows[self.cur_row] = {}
        if tag == "td" and self.cur_row:
            cls = a.get("class", "")
            self.cur_cell = "reports" if "reports" in cls else "installs" if "installs" in cls else None
        if tag == "rect" and "bar" in a.get("class", "") and self.cur_chart:
            self.bars[self.cur_chart] = self.bars.get(self.cur_chart, 0) + 1
        if "data-suppressed" in a and self.cur_chart:
            self.notes[self.cur_chart] = int(a["data-suppressed"])
        if tag == "li" and "data-id" in a:
            self.usecases.append([a["data-id"], "", []])
            self.in_uc += 1
        if tag == "dt" and "data-key" in a and self.in_uc and self.usecases:
            self.usecases[-1][2].append(a["data-key"])

    def handle_endtag(self, tag):
        while self.stack:
            t, a = self.stack.pop()
            if t == "tr":
                self.cur_row = None
            if t == "li" and "data-id" in a:
                self.in_uc -= 1
            if t == tag:
                break
        self.cur_cell = None

    def handle_data(self, data):
        for t, a in self.stack:
            if "id" in a and a["id"] in self.ids:
                self.ids[a["id"]][1] += data
        if self.cur_row and self.cur_cell:
            self.rows[self.cur_row][self.cur_cell] = int(data)
        if self.in_uc and self.usecases:
            self.usecases[-1][1] += data


def main():
    dom = Dom()
    dom.feed(open(sys.argv[1], encoding="utf-8").read())
    summary = json.load(open(sys.argv[2]))
    reports = json.load(open(sys.argv[3]))["reports"]
    bad = []
    state = dom.ids.get("status", [{}, ""])[0].get("data-state")
    if state != "ready":
        bad.append("page status is %r" % state)
    # The time shown is when the collector computed the summary (its form,
    # whole seconds, at or after the summary fetched before the page; it
    # recomputes every second in the tests), not the browser's clock
    # (toISOString() has milliseconds).
    computed = dom.ids.get("status", [{}, ""])[0].get("data-computed") or ""
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", computed) or computed < summary["computed"]:
        bad.append("page says computed %r, the API said %r before" % (computed, summary["computed"]))
    t = summary["total"]
    if str(t.get("reports")) != dom.ids["total-reports"][0].get("data-value"):
        bad.append("total reports: page %r, API %r" % (dom.ids["total-reports"][0].get("data-value"), t))
    if str(t.get("installs")) != dom.ids["total-installs"][0].get("data-value"):
        bad.append("total installs differ")
    shown = 0
    for dim, d in summary["dimensions"].items():
        want = {(dim, g["key"]): {"reports": g["reports"], "installs": g["installs"]} for g in d["groups"]}
        got = {k: v for k, v in dom.rows.items() if k[0] == dim}
        if got != want:
            bad.append("%s: page %r, API %r" % (dim, got, want))
        if dom.notes.get(dim, 0) != d["suppressed_groups"]:
            bad.append("%s suppressed: page %r, API %r" % (dim, dom.notes.get(dim), d["suppressed_groups"]))
        if dom.bars.get(dim, 0) != len(d["groups"]):
            bad.append("%s: %d bars for %d groups" % (dim, dom.bars.get(dim, 0), len(d["groups"])))
        shown += len(d["groups"])
    if shown == 0:
        bad.append("no group shown at all: nothing was compared")
    want_uc = [(r["id"], r["use_case"]) for r in reports if r["use_case"] is not None]
    got_uc = [(i, text) for i, text, _ in dom.usecases]
    if len(got_uc) != len(want_uc) or any(w[0] != g[0] or w[1] not in g[1] for w, g in zip(want_uc, got_uc)):
        bad.append("use cases: page %r, API %r" % (got_uc[:3], want_uc[:3]))
    # Each use case under its entry's own questions, in the catalog's order:
    # a knob entry (M7) is never shown the reorganisation question.
    sets = json.load(open("data/catalog.json"))
    qs = {e["id"]: [q["key"] for q in sets["question_sets"][e["questions"]]] for e in sets["entries"]}
    cids = {r["id"]: r["catalog_id"] for r in reports}
    for i, _, keys in dom.usecases:
        if keys != qs.get(cids.get(i), []):
            bad.append("answers of %s (%s): page %r, catalog %r" % (i, cids.get(i), keys, qs.get(cids.get(i))))
    if not any(cids.get(i) == "M7" for i, _, _ in dom.usecases):
        bad.append("no knob entry's use case on the page: its questions were not compared")
    for b in bad:
        print("# " + b)
    print("# compared %d groups in %d dimensions and %d use cases" %
          (shown, len(summary["dimensions"]), len(want_uc)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
