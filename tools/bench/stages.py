#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where the CPU of a packet path goes, stage by stage, from perf profiles.

    stages.py [--unit WHAT] [--ops N ...] [--secs S] [--md] NAME=REPORT [NAME=REPORT ...]

REPORT is the text of

    perf report -i DATA --no-children --sort comm,dso,sym --stdio -n -g none

on a `perf record -e cpu-clock -c 500000 -a` taken in the guest while one
workload ran (tools/bench/profile-guest.sh does both). Every sampled symbol
is put in the first stage of STAGES whose pattern it matches; the idle loop
and perf's own process are left out, so the figures are the busy CPU of all
CPUs together. With --ops (one per NAME, in order: the round trips, or the
megabytes, of that run's window) each stage is printed in microseconds of
CPU per op ("per WHAT", default "op"), else in percent of the busy samples.
A sample is 500 us of one CPU's time. --secs S, the window's length, adds
a row of how many CPUs were busy on average in it. Below the table, the
busiest threads (perf's comm) of each run.

REPORT's lines "#module edm SYMBOL" name edm.ko's functions (perf calls
them [kernel.kallsyms] when it cannot find the module's file).

The stages are a heuristic over kernel symbol names; they say which kind
of work costs, not the exact boundary of each function's caller. The
"edm.ko" stage is everything in the module; its own lines below split it
by the functions' prefixes.
"""
import json
import re
import sys

PERIOD_US = 500.0
LINE = re.compile(r'^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$')

# (stage, pattern over the symbol); first match wins. The module's own
# code is matched by its dso before these.
STAGES = [
    ('idle', r'safe_halt$|^default_idle|^cpu_idle|^do_idle|^poll_idle|^mwait_idle|'
             r'^intel_idle|^acpi_idle|^cpuidle_'),
    ('veth', r'^veth_'),
    ('rxe, RDMA core', r'^rxe_|^ib_|^uverbs|^rdma_|^ib_uverbs'),
    ('LSM (AppArmor, TOMOYO)', r'^aa_|apparmor|tomoyo|^security_'),
    ('workqueue', r'^(mod|queue|__queue)_(delayed_)?work|^try_to_grab_pending|^worker_|'
                  r'^process_one_work|^insert_work|^__flush_work|^kick_pool'),
    ('genalloc', r'^gen_pool|^bitmap_'),
    ('copy, checksum', r'memcpy|memmove|memset|copy_user|copy_to_user|copy_from_user|'
                       r'^_copy_|copy_page|skb_copy|csum|copyin|copyout|rep_movs'),
    ('GRO', r'gro'),
    ('qdisc, xmit', r'^__?dev_queue_xmit|qdisc|^sch_|^pfifo|^fq_|^dev_hard_start|'
                    r'^validate_xmit|^netdev_core_pick|^dql_|^netdev_pick|^netif_skb_features'),
    ('NAPI, rx', r'^net_rx_action|napi|^__?netif_receive|^process_backlog|^netif_rx|'
                 r'^enqueue_to_backlog|^__netif_rx|^eth_type_trans|^__?netif_receive_skb'),
    ('IP, UDP, TCP', r'^(__)?(ip|ip6|udp|udpv6|tcp|inet|inet6|raw|icmp|nf_|ipv4|ipv6|dst_|'
                     r'fib|rt_|xfrm|sock_def|sk_|__sk|sock_|__sock|security_sock)'),
    ('skb, alloc, free', r'skb|kmem_cache|kmalloc|kfree|alloc_pages|__alloc|free_unref|'
                         r'^page_|slab|_free_|^free_|^__free|build_skb|page_pool|^mem_cgroup|'
                         r'memcg|^__mod_|refill_obj|^obj_cgroup|clear_page|cmpxchg16b|'
                         r'^get_page_from|^rmqueue|^__rmqueue|^post_alloc|^prep_new'),
    ('syscall entry, exit', r'entry_SYSCALL|syscall|^__x64_sys|^__se_sys|^__do_sys|^__sys_|'
                            r'^sys_|^ksys_|exit_to_user|^fput|^fget|^__fget|^fdget|'
                            r'^import_|^iov_|^rw_verify|^__fdget|^do_epoll|^ep_|^do_select|'
                            r'^do_sys_poll|^core_sys_select|^poll_|^sockfd|^__check_object|'
                            r'^check_heap|^__virt_addr_valid|^__get_user|^__put_user'),
    ('sched, wake-up', r'schedule|^try_to_wake_up|ttwu|^enqueue_|^dequeue_|pick_next|'
                       r'finish_task_switch|^update_|^psi_|__switch_to|wake_up|'
                       r'^select_task|^set_next|^put_prev|^check_preempt|^resched|'
                       r'^prepare_task|^__wake|^autoremove_wake|^prepare_to_wait|'
                       r'^finish_wait|^reweight|^avg_vruntime|^place_entity|^hrtick|'
                       r'^__calc_delta|^pick_eevdf|^__enqueue|^__dequeue|^migrate_'),
    ('irq, softirq, timers', r'irq|apic|^tick|timer|^run_|^__do_softirq|softirq|'
                             r'^do_softirq|^ktime|^clockevents|^lapic|^__sysvec|sysvec|'
                             r'^read_tsc|^native_sched_clock|^sched_clock'),
    ('locks, RCU', r'spin_|^queued_|^_raw_|rcu|^mutex|^down_|^up_|^__mutex|^preempt_'),
]
COMPILED = [(s, re.compile(p)) for s, p in STAGES]
ORDER = ['user space'] + [s for s, _ in STAGES if s != 'idle'] + ['edm.ko', 'other kernel']

# the module's own lines, by function prefix; first match wins
EDM_PARTS = [
    ('netdimm', r'^edm_ndimm|^edm_netdimm|^ndimm|^netdimm'),
    ('rack CN', r'^edm_rack|^rack'),
    ('shared pool', r'^edm_shpool|^shpool'),
    ('NIC pool', r'^edm_nicpool|^nicpool'),
    ('pool, shared buffers',
     r'^edm_(pool|mpool|shared|build_shared|alloc_shared|pass_shared)|^pool'),
    ('fabric', r'^edm_(fab|host|op|sw|switch|link|pcs|sched|req|resp|mux|node|eth|sync)'),
    ('cowbird', r'^cowbird|^edm_cowbird'),
]
EDM_COMPILED = [(s, re.compile(p)) for s, p in EDM_PARTS]


RDMA_DSOS = ('[rdma_rxe]', '[ib_core]', '[ib_uverbs]')


def stage_of(dso, kind, sym, mod):
    if dso == '[edm]' or sym in mod:
        return 'edm.ko'
    if dso in RDMA_DSOS:
        return 'rxe, RDMA core'
    if kind != 'k':
        return 'user space'
    sym = sym.split('.')[0]
    for stage, pat in COMPILED:
        if pat.search(sym):
            return stage
    return 'other kernel'


def edm_part_of(sym):
    for part, pat in EDM_COMPILED:
        if pat.search(sym):
            return part
    return 'other'


def parse(path):
    """{stage: samples}, {edm part: samples}, {other kernel symbol: samples},
    {busy thread: samples}"""
    stages, parts, other, comms = {}, {}, {}, {}
    lines = open(path, errors='replace').read().splitlines()
    mod = {ln.split()[2] for ln in lines if ln.startswith('#module edm ')}
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        n, comm, dso, kind, sym = (int(m.group(2)),) + m.group(3, 4, 5, 6)
        if comm == 'perf':
            continue
        st = stage_of(dso, kind, sym, mod)
        stages[st] = stages.get(st, 0) + n
        if st != 'idle':
            # kworker/0:2-events -> kworker
            c = re.sub(r'[/:-]\d.*$', '', comm)
            comms[c] = comms.get(c, 0) + n
        if st == 'edm.ko':
            p = edm_part_of(sym)
            parts[p] = parts.get(p, 0) + n
        elif st == 'other kernel':
            other[sym] = other.get(sym, 0) + n
    return stages, parts, other, comms


def main(argv):
    md = '--md' in argv
    argv = [a for a in argv if a != '--md']
    ops, what, secs = [], 'op', None
    while len(argv) > 1 and argv[0] in ('--ops', '--unit', '--secs'):
        if argv[0] == '--ops':
            ops.append(float(argv[1]))
        elif argv[0] == '--secs':
            secs = float(argv[1])
        else:
            what = argv[1]
        argv = argv[2:]
    runs = [a.split('=', 1) for a in argv]
    if not runs or any(len(r) != 2 for r in runs) or (ops and len(ops) != len(runs)):
        sys.exit(__doc__)
    data = [(name,) + parse(path) for name, path in runs]
    unit = f'us of CPU per {what}' if ops else '% of busy CPU'

    def fig(samples, busy, i):
        if ops:
            return samples * PERIOD_US / ops[i] if ops[i] else 0.0
        return 100.0 * samples / busy if busy else 0.0

    rows = []
    for st in ORDER:
        if not any(d[1].get(st) for d in data):
            continue
        rows.append((st, [d[1].get(st, 0) for d in data]))
        if st == 'edm.ko':
            names = sorted({p for d in data for p in d[2]},
                           key=lambda p: -sum(d[2].get(p, 0) for d in data))
            rows += [('  edm.ko: ' + p, [d[2].get(p, 0) for d in data]) for p in names]
    busy = [sum(v for k, v in d[1].items() if k != 'idle') for d in data]
    rows.append(('all busy', busy))

    if secs:
        rows.append(('CPUs busy in the window', None))
    out = {'unit': unit, 'runs': [d[0] for d in data], 'busy_samples': busy,
           'ops': ops or None, 'period_us': PERIOD_US,
           'rows': [{'stage': st, 'figs': [round(fig(s, busy[i], i), 3)
                                           for i, s in enumerate(v)] if v else
                     [round(b * PERIOD_US / (secs * 1e6), 2) for b in busy]}
                    for st, v in rows]}
    if not md:
        print(json.dumps(out))
        return
    print('| stage (' + unit + ') | ' + ' | '.join(d[0] for d in data) + ' |')
    print('| --- |' + ' --- |' * len(data))
    for r in out['rows']:
        print(f"| {r['stage']} | " + ' | '.join(f'{f:.1f}' for f in r['figs']) + ' |')
    print()
    print('Busiest threads (% of busy CPU): ' + '; '.join(
        f"{d[0]}: " + ', '.join(f'{c} {100.0 * n / b:.0f}' for c, n in
                               sorted(d[4].items(), key=lambda kv: -kv[1])[:4] if b)
        for d, b in zip(data, busy)) + '.')
    tops = []
    for d in data:
        top = sorted(d[3].items(), key=lambda kv: -kv[1])[:4]
        if top:
            tops.append(f"{d[0]}: " + ', '.join(f'{s} ({n})' for s, n in top))
    if tops:
        print()
        print('Largest "other kernel" symbols (samples): ' + '; '.join(tops) + '.')


if __name__ == '__main__':
    main(sys.argv[1:])
