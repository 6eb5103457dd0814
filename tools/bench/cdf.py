#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Latency CDFs from sockperf's full logs, for the report's plots.

    cdf.py OUT.json TITLE NAME=LOG[,LOG...] [NAME=LOG[,LOG...] ...]

Each LOG is a `sockperf ping-pong --full-log` file, or a glob of them (a
NAME none of whose globs match is left out silently: it did not run).
After the log's header line
"packet, txTime(sec), rxTime(sec), latency(usec)", one line per message, the
last column sockperf's latency (half the round trip, as its percentiles).
The samples of one NAME's logs are pooled (its rounds) and cut to points of
the empirical CDF: every 0.5% and the tail (99.5, 99.9, 99.99%, the
maximum). OUT.json, which tools/bench/report.py plots:

    {"title": TITLE, "unit": "us", "series": [{"name", "n", "points":
     [[latency, fraction], ...]}, ...]}

A NAME whose logs hold no sample is left out and said so on stderr.
"""
import glob
import json
import sys

FRACTIONS = [i / 200 for i in range(1, 200)] + [0.995, 0.999, 0.9999, 1.0]


def samples(path):
    out, body = [], False
    with open(path, errors='replace') as f:
        for line in f:
            if not body:
                body = line.startswith('packet,')
                continue
            cols = line.split(',')
            if len(cols) == 4:
                try:
                    out.append(float(cols[3]))
                except ValueError:
                    pass
    return out


def points(xs):
    xs = sorted(xs)
    n = len(xs)
    return [[xs[min(n - 1, max(0, int(round(p * n)) - 1))], p] for p in FRACTIONS]


def main(argv):
    if len(argv) < 3 or any('=' not in a for a in argv[2:]):
        sys.exit(__doc__)
    series = []
    for arg in argv[2:]:
        name, pats = arg.split('=', 1)
        logs = sorted(f for p in pats.split(',') for f in (glob.glob(p) or
                                                              ([] if glob.has_magic(p) else [p])))
        if not logs:
            continue
        xs = []
        for log in logs:
            try:
                xs += samples(log)
            except OSError as e:
                print(f'cdf.py: {log}: {e.strerror}', file=sys.stderr)
        if not xs:
            print(f'cdf.py: no samples for {name}', file=sys.stderr)
            continue
        series.append({'name': name, 'n': len(xs), 'points': points(xs)})
    with open(argv[0], 'w') as f:
        json.dump({'title': argv[1], 'unit': 'us', 'series': series}, f)


if __name__ == '__main__':
    main(sys.argv[1:])
