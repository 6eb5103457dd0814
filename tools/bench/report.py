#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: from the run directories of tools/bench/all.sh, write
one CSV per benchmark into the run directory, Documentation/bench/summary.csv,
the plots (gnuplot, PNG) and Documentation/benchmarks.md.

    tools/bench/report.py RUNDIR [--doc DIR]

RUNDIR holds one directory per benchmark, each with rows.jsonl (the format is
tools/bench/README.md's "Rows"), meta.json (written by all.sh: command,
kernel, date, commit, seconds, exit status) and optionally, beside
rows.jsonl, breakdown.md (the benchmark's cost breakdown, copied into the
page under its rows) and cdf*.json (latency CDFs from tools/bench/cdf.py,
plotted). --doc (default: the tree's Documentation) is where summary.csv,
the plots and benchmarks.md go.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys

BENCHES = ["edm", "cowbird", "ndimm", "dfabric", "shpool"]
CSV_FIELDS = ["bench", "path", "metric", "better", "edm", "competitor", "comp", "ratio",
              "target", "met", "spread", "floor", "rounds", "commit", "date", "kernel", "command",
              "note"]
SUMMARY_FIELDS = ["path", "metric", "edm", "competitor", "comp", "ratio", "target", "met",
                  "spread", "floor", "commit", "date", "bench", "note"]
def met(row):
    """yes / no; no without a ratio or a target."""
    q, t = row.get("ratio"), row.get("target")
    if q is None or not t:
        return "no" if t else ""
    op, val = t.split()
    val = float(val)
    return "yes" if (q <= val if op == "<=" else q >= val) else "no"


def num(v, nd=None):
    if v is None:
        return ""
    if nd is None:
        nd = 0 if abs(v) >= 100 else 1 if abs(v) >= 10 else 2 if abs(v) >= 0.1 else 3
    return f"{v:.{nd}f}"


def spread(row):
    lo, hi = row.get("ratio_min"), row.get("ratio_max")
    return "" if lo is None or hi is None else f"{lo:.2f}-{hi:.2f}"


def floor_of(row, floor):
    """The machine's own cost for a row's metric, from tools/bench/floor's
    figures: a latency or a per-op cost is one cache-line round trip between
    two CPUs (a handoff to an engine and back), a rate one op per round trip,
    a bit rate one 1500 B memcpy per packet; "" when none applies (a CPU
    cost, a count of retransmits)."""
    if not floor:
        return ""
    m = row.get("metric", "")
    rtt = floor.get("cacheline_rtt_ns")
    if "latency" in m and "(us)" in m and rtt:
        return f"{rtt / 1000:.2f}"
    if "ns per" in m and rtt:
        return f"{rtt:.0f}"
    if ("ops/s" in m or "probes/s" in m or "packets/s" in m) and rtt:
        return f"{1e9 / rtt:.0f}"
    if "Mbit/s" in m and floor.get("memcpy_1500_ns"):
        return f"{1500 * 8 / floor['memcpy_1500_ns'] * 1000:.0f}"
    return ""


TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(rundir):
    runs = []
    for b in BENCHES:
        d = os.path.join(rundir, b)
        meta_f = os.path.join(d, "meta.json")
        if not os.path.exists(meta_f):
            continue
        with open(meta_f) as f:
            meta = json.load(f)
        # the command as one types it at the top of the tree
        meta["command"] = meta.get("command", "").replace(TOP + "/", "")
        rows = []
        rows_f = meta.get("rows") or os.path.join(d, "rows.jsonl")
        if not os.path.isabs(rows_f):
            rows_f = os.path.join(d, rows_f)
        if os.path.exists(rows_f):
            with open(rows_f) as f:
                rows = [json.loads(line) for line in f if line.strip()]
        # the benchmark's cost breakdown, Markdown, beside its rows
        bd_f = os.path.join(os.path.dirname(rows_f), "breakdown.md")
        if os.path.exists(bd_f):
            with open(bd_f) as f:
                meta["breakdown"] = f.read().strip()
        # its latency CDFs (tools/bench/cdf.py), one plot each
        meta["cdfs"] = []
        for cf in sorted(glob.glob(os.path.join(os.path.dirname(rows_f), "cdf*.json"))):
            with open(cf) as f:
                c = json.load(f)
            if c.get("series"):
                c["stem"] = os.path.basename(cf)[:-len(".json")]
                meta["cdfs"].append(c)
        for r in rows:
            r["met"] = met(r)
            r["spread"] = spread(r)
            for k in ("commit", "date", "kernel", "command"):
                r[k] = meta.get(k, "")
        runs.append((b, meta, rows))
    return runs


def load_floor(rundir):
    f = os.path.join(rundir, "floor.json")
    if not os.path.exists(f):
        return None
    with open(f) as fh:
        return json.load(fh)


def write_csv(path, fields, rows):
    """@rows with @fields, the figures rounded as the page shows them."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "edm": num(r.get("edm")), "comp": num(r.get("comp")),
                        "ratio": num(r.get("ratio"), 3)})


def write_csvs(rundir, runs):
    for b, _, rows in runs:
        write_csv(os.path.join(rundir, b + ".csv"), CSV_FIELDS, rows)


def write_summary(doc, runs):
    os.makedirs(os.path.join(doc, "bench"), exist_ok=True)
    write_csv(os.path.join(doc, "bench", "summary.csv"), SUMMARY_FIELDS,
              [r for _, _, rows in runs for r in rows])


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       stdout=subprocess.DEVNULL)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report.py: gnuplot failed: {e}", file=sys.stderr)
        return False


def write_dat(png, pts, cols):
    """gnuplot's data for @pts, the first row on top: "y COLS... label" lines."""
    data = png + ".dat"
    with open(data, "w") as f:
        for i, r in enumerate(pts):
            label = f"{r['path']}: {r['metric']}".replace('"', "'")
            f.write(f'{len(pts) - 1 - i} {cols(r)} "{label}"\n')
    return data


def preamble(png, height, n):
    """What both plots set first: one horizontal bar row per figure, top down."""
    return f"""set terminal pngcairo size 1300,{height} font ",9"
set output "{png}"
set yrange [-1:{n}]
set ytics scale 0
set grid x
set key bottom right
set style fill solid 0.6"""


def plot_ratios(png, runs):
    """Every row with a target: its ratio, and the target beside it."""
    pts = [r for _, _, rows in runs for r in rows if r.get("target") and r.get("ratio")]
    if not pts:
        return False
    data = write_dat(png, pts, lambda r: f'{r["ratio"]:.4f} {r["target"].split()[1]} '
                     f'{1 if r["met"] == "yes" else 0}')
    ok = gnuplot(preamble(png, max(400, 28 * len(pts) + 120), len(pts)) + f"""
set title "edm / competitor, one VM run each (bars), and issue 28's target (marks)"
set logscale x 10
set xrange [0.001:20]
set xlabel "ratio (log scale); met: green, not met: red"
plot "{data}" using (0.001):1:(0.001):2:($1-0.35):($1+0.35):($4 > 0 ? 0x33aa33 : 0xcc3333) \\
       :ytic(5) with boxxyerror lc rgb variable notitle, \\
     "{data}" using 3:1 with points pt 2 ps 1.5 lc rgb "black" title "target"
""")
    os.unlink(data)
    return ok


def plot_bench(png, bench, rows):
    """One bench's figures side by side with the competitor's, per metric."""
    pts = [r for r in rows if r.get("edm") is not None and r.get("comp") is not None]
    if not pts:
        return False
    # each pair over the competitor's figure: a bar of 1 and one of edm's ratio
    data = write_dat(png, pts, lambda r: f'1 {r["edm"] / r["comp"] if r["comp"] else 0:.4f} '
                     f'{num(r["comp"])} {num(r["edm"])}')
    ok = gnuplot(preamble(png, max(300, 34 * len(pts) + 120), len(pts)) + f"""
set title "{bench}: edm against its competitor, each pair over the competitor's figure"
set xrange [0:*]
set xlabel "over the competitor's figure (labels: the figures themselves)"
plot "{data}" using (0.5):($1+0.18):(0.5):(0.16):ytic(6) with boxxyerror lc rgb "#888888" \\
       title "competitor", \\
     "{data}" using ($3/2):($1-0.18):($3/2):(0.16) with boxxyerror lc rgb "#3366cc" title "edm", \\
     "{data}" using (1):($1+0.18):4 with labels left offset 0.5,0 notitle, \\
     "{data}" using 3:($1-0.18):5 with labels left offset 0.5,0 notitle
""")
    os.unlink(data)
    return ok


def plot_cdf(png, cdf):
    """One latency CDF: each series' points, latency on a log scale."""
    data = png + ".dat"
    with open(data, "w") as f:
        for sr in cdf["series"]:
            f.write(f'# {sr["name"]}\n')
            f.writelines(f"{x} {p}\n" for x, p in sr["points"])
            f.write("\n\n")
    plots = ", \\\n     ".join(
        f'"{data}" index {i} using 1:2 with lines lw 2 '
        f'title "{sr["name"]} ({sr["n"]} samples)"' for i, sr in enumerate(cdf["series"]))
    title = cdf["title"].replace('"', "'")
    ok = gnuplot(f"""set terminal pngcairo size 900,500 font ",9"
set output "{png}"
set title "{title}"
set logscale x 10
set xlabel "latency ({cdf['unit']}, log scale)"
set ylabel "fraction of messages"
set yrange [0:1]
set grid
set key bottom right
plot {plots}
""")
    os.unlink(data)
    return ok


def md_table(rows):
    out = ["| path | metric | edm | competitor | its figure | ratio | target | met | spread | "
           "floor |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['path']} | {r['metric']} | {num(r.get('edm'))} | {r['competitor']} | "
                   f"{num(r.get('comp'))} | {num(r.get('ratio'), 2)} | {r.get('target') or ''} | "
                   f"{r['met']} | {r['spread']} | {r['floor']} |")
    notes = [r for r in rows if r.get("note")]
    if notes:
        out.append("")
        out += [f"- {r['path']}, {r['metric']}: {r['note']}" for r in notes]
    return out


def md_floor(floor):
    if not floor:
        return ["No physical floor: `tools/bench/floor` did not run.", ""]
    return [
        "## The physical floor",
        "",
        f"Measured natively on this machine by `build/bench-floor/floor` before the VMs "
        f"(CPUs {floor['cpus'][0]} and {floor['cpus'][1]}, medians of 9 runs): a cache-line "
        f"round trip between the two CPUs takes {floor['cacheline_rtt_ns']:.1f} ns; a warm "
        f"memcpy of 64 B {floor['memcpy_64_ns']:.1f} ns, of 1500 B "
        f"{floor['memcpy_1500_ns']:.1f} ns, of 64 KiB {floor['memcpy_65536_ns']:.0f} ns.",
        "The floor column turns these into each row's unit: a latency (us) or a cost per op",
        "(ns) is one round trip; a rate is one op per round trip, the rate of one op at a time",
        "(ops in flight together can go faster); a bit rate is one 1500 B copy per packet. It",
        "is what the machine itself costs any software path, edm's or its competitor's,",
        "natively; under TCG every figure is far above it.",
        "",
    ]


def measured_on(runs):
    """'commit C on D', or per commit and date the benchmarks run there."""
    seen = {}
    for b, meta, _ in runs:
        seen.setdefault((meta.get("commit", "?"), meta.get("date", "?")), []).append(b)
    if len(seen) <= 1:
        c, d = next(iter(seen), ("?", "?"))
        return f"commit {c} on {d}"
    return "; ".join(f"commit {c} on {d} ({', '.join(bs)})" for (c, d), bs in seen.items())


def write_md(doc, runs, plots, floor):
    first = runs[0][1] if runs else {}
    allrows = [r for _, _, rows in runs for r in rows]
    targeted = [r for r in allrows if r.get("target")]
    lines = [
        "# Benchmarks",
        "",
        "This page is generated by `make bench` (`tools/bench/all.sh`, then",
        "`tools/bench/report.py`); do not edit it, run `make bench` again. Every figure below",
        f"was measured on {measured_on(runs)}, in",
        f"Debian's {first.get('kernel', '?')} under QEMU's TCG on this project's 2-core machine,",
        "edm and its competitor in the same VM boot. Absolute times under TCG mean little;",
        "the ratios are the figures to read. `Documentation/bench/summary.csv` has the same rows.",
        "",
        f"Targets met: {sum(r['met'] == 'yes' for r in targeted)} of {len(targeted)} rows with "
        "a target. A row's spread is the lowest and highest ratio of its single rounds,",
        "where a benchmark ran more than one.",
        "",
    ]
    if "ratios" in plots:
        lines += ["![every ratio against its target](bench/ratios.png)", ""]
    lines += md_floor(floor)
    for b, meta, rows in runs:
        lines += [f"## {b}", "",
                  f"`{meta.get('command', '?')}`: {meta.get('seconds', '?')} s, "
                  f"exit status {meta.get('status', '?')}.", ""]
        lines += md_table(rows) if rows else ["No rows: the run failed; see its directory."]
        if b in plots:
            lines += ["", f"![{b}](bench/{b}.png)"]
        for c in meta.get("cdfs", []):
            if f"{b}-{c['stem']}" in plots:
                lines += ["", f"![{c['title']}](bench/{b}-{c['stem']}.png)"]
        lines.append("")
        if meta.get("breakdown"):
            lines += [f"### {b}: where the time goes", "", meta["breakdown"], ""]
    with open(os.path.join(doc, "benchmarks.md"), "w") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rundir")
    ap.add_argument("--doc", default=os.path.join(TOP, "Documentation"))
    a = ap.parse_args()
    runs = load(a.rundir)
    if not runs:
        sys.exit(f"report.py: no benchmark's meta.json under {a.rundir}")
    floor = load_floor(a.rundir)
    for _, _, rows in runs:
        for r in rows:
            r["floor"] = floor_of(r, floor)
    write_csvs(a.rundir, runs)
    write_summary(a.doc, runs)
    plots = set()
    if plot_ratios(os.path.join(a.doc, "bench", "ratios.png"), runs):
        plots.add("ratios")
    for b, meta, rows in runs:
        if plot_bench(os.path.join(a.doc, "bench", b + ".png"), b, rows):
            plots.add(b)
        for c in meta.get("cdfs", []):
            if plot_cdf(os.path.join(a.doc, "bench", f"{b}-{c['stem']}.png"), c):
                plots.add(f"{b}-{c['stem']}")
    write_md(a.doc, runs, plots, floor)
    n = sum(len(rows) for _, _, rows in runs)
    print(f"report.py: {n} rows of {len(runs)} benchmarks; {a.doc}/benchmarks.md")


if __name__ == "__main__":
    main()
