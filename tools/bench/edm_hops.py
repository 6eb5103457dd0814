#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where a remote read's time goes, hop by hop, from an ftrace text dump.

    edm_hops.py TRACE [TRACE ...]

TRACE is /sys/kernel/tracing/trace after ops ran one at a time with the
edm_fab events (and optionally net:net_dev_queue, net:netif_rx,
net:netif_receive_skb) enabled and trace_clock "mono". Each op is the span
from its edm_fab_op_submit to its edm_fab_op_done; its events are taken in
order. The most common sequence of events wins (ops that met a timer or
another op are left out and counted), and for each step of it the median
and mean time since the step before are printed, in microseconds. The
numbers include the tracepoints' own cost, about the same for every step.
"""
import re
import statistics
import sys
from collections import Counter, defaultdict

LINE = re.compile(r'\s*\S+-\d+\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)')
KEEP = {'net_dev_queue', 'netif_rx', 'netif_receive_skb'}


def label(ev, rest):
    f = dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)
    if ev.startswith('edm_fab_'):
        name = ev[len('edm_fab_'):]
        where = f.get('node', '?')
        if 'port' in f:
            where += ':' + f['port']
        return f'{where} {name}'
    return f"{f.get('dev', '?')} {ev}"


def ops_of(path):
    """Each op's [(t_us, label)], the submit first and the done last."""
    ops, cur = [], None
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        t, ev, rest = float(m.group(2)) * 1e6, m.group(3), m.group(4)
        if ev == 'edm_fab_op_submit':
            cur = [(t, label(ev, rest))]
            continue
        if cur is None or not (ev.startswith('edm_fab_') or ev in KEEP):
            continue
        cur.append((t, label(ev, rest)))
        if ev == 'edm_fab_op_done':
            ops.append(cur)
            cur = None
    return ops


def main():
    ops = [op for path in sys.argv[1:] for op in ops_of(path)]
    if not ops:
        print('no complete op in the trace')
        return 1
    seqs = Counter(tuple(lbl for _, lbl in op) for op in ops)
    top, n = seqs.most_common(1)[0]
    gaps = defaultdict(list)
    for op in ops:
        if tuple(lbl for _, lbl in op) != top:
            continue
        for i in range(1, len(op)):
            gaps[i].append(op[i][0] - op[i - 1][0])
    total = [op[-1][0] - op[0][0] for op in ops if tuple(lbl for _, lbl in op) == top]
    print(f'{n} of {len(ops)} ops took the same path of {len(top)} events '
          f'(the rest met a timer or another op); microseconds since the step before:')
    print(f'{"median":>8} {"mean":>8}  step')
    for i in range(1, len(top)):
        print(f'{statistics.median(gaps[i]):8.1f} {statistics.mean(gaps[i]):8.1f}  '
              f'{top[i - 1]} -> {top[i]}')
    print(f'{statistics.median(total):8.1f} {statistics.mean(total):8.1f}  '
          'submit to done, traced')
    return 0


if __name__ == '__main__':
    sys.exit(main())
