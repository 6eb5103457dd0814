#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn edmsim's sweep CSVs into summary.md, gnuplot data and plots.gp.

Usage: report.py DIR    (DIR holds fig8a.csv, fig8b.csv, incast.csv,
                         artifact.csv, bench.txt and sweep.txt from sim-report)

Standard library only. The tables compare EDM with every baseline and
with the EDM paper's figures; the targets are issue #8's.
"""
import csv
import os
import sys

FABRICS = ["edm", "edm-fcfs", "eth", "pfc", "cxl", "fastpass", "ird"]
BASELINES = ["eth", "pfc", "cxl", "fastpass", "ird"]
TITLES = {"read": "64 B reads", "write": "64 B writes", "mix": "64 B, half reads",
          "heavy": "heavy-tailed sizes, half reads", "incast": "incast, half reads"}


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def loads_of(rows):
    return sorted({float(r["load"]) for r in rows})


def pick(rows, workload, fabric, load):
    for r in rows:
        if r["workload"] == workload and r["fabric"] == fabric and float(r["load"]) == load:
            return r
    return None


def table(rows, workload, col, fmt="{:.3f}"):
    loads = loads_of([r for r in rows if r["workload"] == workload])
    out = ["| fabric | " + " | ".join(f"{l:.1f}" for l in loads) + " |",
           "|---|" + "---|" * len(loads)]
    for fab in FABRICS:
        cells = []
        for l in loads:
            r = pick(rows, workload, fab, l)
            cells.append(fmt.format(float(r[col])) if r and r[col] != "" else "-")
        out.append(f"| {fab} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def verdict(value, target, aim):
    if value <= aim:
        return f"{value:.3f}: meets target {target} and aim {aim}"
    if value <= target:
        return f"{value:.3f}: meets target {target}, misses aim {aim} by {value - aim:.3f}"
    return f"{value:.3f}: misses target {target} by {value - target:.3f}"


def worst(rows, workload, col, upto=0.9):
    vals = [(float(r[col]), float(r["load"])) for r in rows
            if r["workload"] == workload and r["fabric"] == "edm" and float(r["load"]) <= upto]
    return max(vals) if vals else (float("nan"), 0)


def losses(rows, workload, col):
    """Baselines with a lower value than EDM at some load."""
    out = []
    for l in loads_of([r for r in rows if r["workload"] == workload]):
        e = pick(rows, workload, "edm", l)
        if not e:
            continue
        for b in BASELINES:
            r = pick(rows, workload, b, l)
            if r and float(r[col]) < float(e[col]):
                out.append(f"{b} at {l:.1f} ({float(r[col]):.3f} vs EDM {float(e[col]):.3f})")
    return out


def targets(a, b, c):
    lines = ["## Targets (issue #8) and the paper's figures", ""]
    if a:
        rd, rl = worst(a, "read", "read_norm_mean")
        wr, wl = worst(a, "write", "write_norm_mean")
        lines += [f"- EDM mean read latency / unloaded, worst load ({rl:.1f}): "
                  + verdict(rd, 1.2, 1.15) + " (paper: within 1.2x)",
                  f"- EDM mean write latency / unloaded, worst load ({wl:.1f}): "
                  + verdict(wr, 1.3, 1.25) + " (paper: within 1.3x)"]
        mr, _ = worst(a, "mix", "read_norm_mean")
        mw, _ = worst(a, "mix", "write_norm_mean")
        lines.append(f"- EDM with half reads, worst load: reads {mr:.3f}, writes {mw:.3f}"
                     " (paper: within 1.3x for mixes)")
        sr = pick(a, "read", "edm", 0.9)
        sw = pick(a, "write", "edm", 0.9)
        if sr and sw:
            lines.append(f"- Avg slowdown at load 0.9: reads {float(sr['avg_slowdown']):.3f} "
                         "(aim 1.2; the authors' simulator 1.22), writes "
                         f"{float(sw['avg_slowdown']):.3f} (aim 1.3; authors 1.38)")
    if b:
        for r in sorted((r for r in b if r["fabric"] == "edm"), key=lambda r: float(r["load"])):
            lines.append(f"- Heavy-tailed, load {float(r['load']):.1f}: EDM completion time / "
                         "ideal " + verdict(float(r["mct_mean"]), 1.4, 1.2)
                         + f"; Avg slowdown {float(r['avg_slowdown']):.3f} (aim 1.3; authors "
                         "1.31-1.39; paper Fig. 8b: 1.2-1.4x)")
    lines += ["", "Where a baseline beats EDM (lower mean, same trace):", ""]
    found = False
    for rows, wl, col in [(a, "read", "read_norm_mean"), (a, "write", "write_norm_mean"),
                          (a, "mix", "mct_mean"), (b, "heavy", "mct_mean"),
                          (c, "incast", "mct_mean")]:
        lost = losses(rows, wl, col) if rows else []
        if lost:
            found = True
            lines.append(f"- {TITLES[wl]} ({col}): " + "; ".join(lost))
    if not found:
        lines.append("- none")
    return "\n".join(lines)


def pair_hol(path):
    """Split a per-flow dump: messages that arrived while a larger message of
    the same scheduler pair (data source, data destination) was still open,
    and the rest. Returns (n, n_behind, mean_behind, mean_rest) of
    latency / unloaded."""
    flows = []
    for r in load(path):
        if not r["latency_ns"]:
            continue
        src, dst = int(r["src"]), int(r["dst"])
        pair = (dst, src) if r["type"] == "1" else (src, dst)
        t = int(r["start_timeslot"])
        flows.append((t, t + float(r["fct_slots"]), pair, int(r["size_bytes"]),
                      float(r["latency_ns"]) / float(r["unloaded_ns"])))
    flows.sort()
    open_msgs, behind, rest = {}, [], []
    for t, done, pair, size, ratio in flows:
        live = [m for m in open_msgs.get(pair, []) if m[0] > t]
        (behind if any(m[1] > size for m in live) else rest).append(ratio)
        live.append((done, size))
        open_msgs[pair] = live
    n = len(behind) + len(rest)
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    return n, len(behind), mean(behind), mean(rest)


def hol_section(d):
    runs = [("heavy-tailed, load 0.7", "heavy"), ("incast, load 0.4", "incast")]
    out = ["## Why EDM trails IRD on mixed sizes", "",
           "EDM keeps each (source, destination) pair in order (paper 3.1.1, property 5):",
           "SRPT ranks pairs by their head message, so a small message queued behind a",
           "large one on the same pair waits for it. IRD, as the paper describes it,",
           "orders nothing. Splitting the same runs' messages by whether a larger",
           "message of their pair was still open when they arrived:", "",
           "| run | fabric | all | behind a larger one on its pair | the rest |",
           "|---|---|---|---|---|"]
    found = False
    for title, tag in runs:
        for fab in ["edm", "ird"]:
            path = f"{d}/flows/{tag}_{fab}.csv"
            if not os.path.exists(path):
                continue
            found = True
            n, nb, mb, mr = pair_hol(path)
            allm = (mb * nb + mr * (n - nb)) / n if n else float("nan")
            out.append(f"| {title} | {fab} | {allm:.3f} | {mb:.2f} ({100 * nb / n:.1f}% of "
                       f"messages) | {mr:.3f} |")
    return "\n".join(out) + "\n" if found else ""


def section(rows, workload, cols):
    out = [f"### {TITLES[workload]}", ""]
    for col, what in cols:
        out += [f"{what}:", "", table(rows, workload, col), ""]
    return "\n".join(out)


def write_dat(path, rows, workload, col):
    loads = loads_of([r for r in rows if r["workload"] == workload])
    with open(path, "w") as f:
        f.write("# load " + " ".join(FABRICS) + "\n")
        for l in loads:
            vals = []
            for fab in FABRICS:
                r = pick(rows, workload, fab, l)
                vals.append(r[col] if r else "NaN")
            f.write(f"{l:.2f} " + " ".join(vals) + "\n")


PANEL = """set title "{title}"
set xlabel "offered load"
set ylabel "{ylabel}"
set logscale y
set key top left
set grid
plot {plots}
"""


def plot_cmd(dat):
    return ", ".join(f'"{dat}" using 1:{i + 2} with linespoints title "{fab}"'
                     for i, fab in enumerate(FABRICS))


def gnuplot(d, sets, extra=()):
    gp = ['set terminal pngcairo size 1400,520 font "sans,11"', "set datafile missing 'NaN'"]
    for name, rows, workload, panels in sets:
        if not rows:
            continue
        gp += [f'set output "{d}/{name}.png"', "set multiplot layout 1,2"]
        for col, title, ylabel in panels:
            dat = f"{d}/{name}_{col}.dat"
            write_dat(dat, rows, workload, col)
            gp.append(PANEL.format(title=title, ylabel=ylabel, plots=plot_cmd(dat)))
        gp += ["unset multiplot", "unset output"]
    gp += list(extra)
    with open(f"{d}/plots.gp", "w") as f:
        f.write("\n".join(gp) + "\n")


def golden():
    """golden.csv: {(program, family, rank): value}."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "golden.csv")) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(r["program"], r["family"], int(r["index"])): float(r["value"]) for r in rows}


ART_LABELS = [0.2, 0.4, 0.6, 0.8, 0.9]


def art_mean(rows, fabric, mode, workload, label, col, reads=None):
    v = [float(r[col]) for r in rows if r["fabric"] == fabric and r["mode"] == mode and
         r["workload"] == workload and float(r["label"]) == label and
         (reads is None or float(r["reads"]) == reads)]
    return (sum(v) / len(v), min(v), max(v)) if v else (float("nan"),) * 3


def art_section(rows):
    """Like for like with the authors' simulator (set "artifact")."""
    if not rows:
        return ""
    g = golden()
    seeds = len({r["seed"] for r in rows})
    out = ["## Like for like with the EDM authors' simulator", "",
           f"Bursts of {rows[0]['msgs']} messages of 64 B (reads with 16 B requests) at the "
           "authors' data loads, as their generator makes them; "
           f"each value is the mean of {seeds} seeds (min-max in brackets). \"as-artifact\" "
           "is edmsim with --as-artifact and the authors' Avg slowdown (their golden "
           "metric); \"own\" is edmsim's model and Figure 8's metric, mean latency over "
           "the unloaded latency of Table 1. Added delay: mean latency less the unloaded "
           "latency, in ns.", ""]
    for wl, fam, col, dcol in (("write", "wonly", "write_norm_mean", "write_delay_ns"),
                               ("read", "ronly", "read_norm_mean", "read_delay_ns")):
        out += [f"### {TITLES[wl]}", "",
                "| their load label | data load | EDM golden | EDM as-artifact | IRD golden"
                " | IRD as-artifact | EDM own: latency / unloaded | EDM added delay ns"
                " (as-artifact / own) |", "|---|---|---|---|---|---|---|---|"]
        for i, lab in enumerate(ART_LABELS):
            dl = art_mean(rows, "edm", "own", wl, lab, "data_load")[0]
            ea = art_mean(rows, "edm", "as-artifact", wl, lab, "art_avg_slowdown")
            ia = art_mean(rows, "ird", "as-artifact", wl, lab, "art_avg_slowdown")
            eo = art_mean(rows, "edm", "own", wl, lab, col)[0]
            da = art_mean(rows, "edm", "as-artifact", wl, lab, dcol)[0]
            do = art_mean(rows, "edm", "own", wl, lab, dcol)[0]
            out.append(f"| {lab} | {dl:.2f} | {g[('edm', fam, i)]:.2f} | {ea[0]:.3f} "
                       f"({ea[1]:.3f}-{ea[2]:.3f}) | {g[('ird', fam, i)]:.2f} | {ia[0]:.3f} "
                       f"({ia[1]:.3f}-{ia[2]:.3f}) | {eo:.3f} | {da:.1f} / {do:.1f} |")
        out.append("")
    out += ["### 64 B mixes at their \"0.8\"", "",
            "The golden mix rows are sorted values (1.23, 1.24, 1.30 for EDM; 1.63, 1.64, "
            "1.66 for IRD) that do not say which mix each came from.", "",
            "| writes | EDM as-artifact | IRD as-artifact | EDM own: latency / unloaded |",
            "|---|---|---|---|"]
    for reads in (0.8, 0.5, 0.2):
        ea = art_mean(rows, "edm", "as-artifact", "mix", 0.8, "art_avg_slowdown", reads)
        ia = art_mean(rows, "ird", "as-artifact", "mix", 0.8, "art_avg_slowdown", reads)
        eo = art_mean(rows, "edm", "own", "mix", 0.8, "mct_mean", reads)[0]
        out.append(f"| {100 * (1 - reads):.0f} % | {ea[0]:.3f} | {ia[0]:.3f} | {eo:.3f} |")
    return "\n".join(out) + "\n"


def art_plot(d, rows):
    """fig8_artifact.png: golden against edmsim, reads and writes."""
    if not rows:
        return []
    g = golden()
    gp = [f'set output "{d}/fig8_artifact.png"', "set multiplot layout 1,2"]
    for wl, fam, col in (("read", "ronly", "read_norm_mean"),
                         ("write", "wonly", "write_norm_mean")):
        dat = f"{d}/artifact_{wl}.dat"
        with open(dat, "w") as f:
            f.write("# label golden_edm edm_as_artifact golden_ird ird_as_artifact edm_own\n")
            for i, lab in enumerate(ART_LABELS):
                f.write(f"{lab} {g[('edm', fam, i)]} "
                        f"{art_mean(rows, 'edm', 'as-artifact', wl, lab, 'art_avg_slowdown')[0]} "
                        f"{g[('ird', fam, i)]} "
                        f"{art_mean(rows, 'ird', 'as-artifact', wl, lab, 'art_avg_slowdown')[0]} "
                        f"{art_mean(rows, 'edm', 'own', wl, lab, col)[0]}\n")
        titles = ["EDM, authors' golden", "EDM, edmsim --as-artifact", "IRD, authors' golden",
                  "IRD, edmsim --as-artifact", "EDM, edmsim: latency / unloaded (Table 1)"]
        plots = ", ".join(f'"{dat}" using 1:{i + 2} with linespoints title "{t}"'
                          for i, t in enumerate(titles))
        gp += [f'set title "{TITLES[wl]}, the authors\' regime"',
               'set xlabel "the authors\' load label"',
               'set ylabel "Avg slowdown (their metric) or latency / unloaded"',
               "unset logscale y", "set key top left", "set grid", f"plot {plots}"]
    return gp + ["unset multiplot", "unset output"]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    a, b, c = load(f"{d}/fig8a.csv"), load(f"{d}/fig8b.csv"), load(f"{d}/incast.csv")
    art = load(f"{d}/artifact.csv")
    norm = "latency / unloaded latency"
    mct = "completion time / alone"
    gnuplot(d, [
        ("fig8a_read", a, "read", [("read_norm_mean", "64 B reads: mean", norm),
                                   ("read_norm_p99", "64 B reads: p99", norm)]),
        ("fig8a_write", a, "write", [("write_norm_mean", "64 B writes: mean", norm),
                                     ("write_norm_p99", "64 B writes: p99", norm)]),
        ("fig8a_mix", a, "mix", [("mct_mean", "64 B, half reads: mean", norm),
                                 ("mct_p99", "64 B, half reads: p99", norm)]),
        ("fig8b", b, "heavy", [("mct_mean", "heavy-tailed: mean", mct),
                               ("mct_p99", "heavy-tailed: p99", mct)]),
        ("incast", c, "incast", [("mct_mean", "incast: mean", mct),
                                 ("mct_p99", "incast: p99", mct)]),
    ], art_plot(d, art))
    first = (a or b or c or [{"msgs": "?", "seed": "?"}])[0]
    md = ["# edmsim report", "",
          "Written by `make sim-report` (tools/edmsim/sim-report). 144 nodes, one switch,",
          f"100 Gb/s links, EDM chunk 256 B, X = 3; {first['msgs']} messages per run, "
          f"seed {first['seed']}.",
          "Each value is normalized to that fabric's own unloaded latency for the",
          "message (Figure 8's normalization); see README.md for what each model is.", ""]
    md += [targets(a, b, c), ""]
    md += ["## Figure 8a: all-to-all, 64 B, RREQ 8 B", ""]
    if a:
        md += [section(a, "read", [("read_norm_mean", "Mean read latency / unloaded"),
                                   ("read_norm_p99", "p99 read latency / unloaded"),
                                   ("avg_slowdown", "Avg slowdown (edmsim's expected time)")]),
               section(a, "write", [("write_norm_mean", "Mean write latency / unloaded"),
                                    ("write_norm_p99", "p99 write latency / unloaded"),
                                    ("avg_slowdown", "Avg slowdown (edmsim's expected time)")]),
               section(a, "mix", [("read_norm_mean", "Mean read latency / unloaded"),
                                  ("write_norm_mean", "Mean write latency / unloaded"),
                                  ("mct_p99", "p99, all messages")])]
    if b:
        md += ["## Figure 8b: heavy-tailed message sizes (cdf/heavy.cdf)", "",
               section(b, "heavy", [("mct_mean", "Mean completion time / ideal"),
                                    ("mct_p99", "p99 completion time / ideal"),
                                    ("avg_slowdown", "Avg slowdown (edmsim's expected time)"),
                                    ("avg_fct_slots", "Avg flow completion time, timeslots")])]
    if c:
        md += ["## Incast: 16 x 4 KiB bursts over 64 B all-to-all", "",
               section(c, "incast", [("mct_mean", "Mean completion time / ideal"),
                                     ("mct_p99", "p99 completion time / ideal")])]
    md.append(hol_section(d))
    md.append(art_section(art))
    for name in ["bench.txt", "sweep.txt"]:
        if os.path.exists(f"{d}/{name}"):
            with open(f"{d}/{name}") as f:
                md += [f"## {name}", "", "```", f.read().rstrip(), "```", ""]
    with open(f"{d}/summary.md", "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
