# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the benchmarks' guest halves: one window of a system-wide
# cpu-clock profile (perf record -e cpu-clock -c 500000 -a, 2 kHz on every
# CPU; no PMU needed), for tools/bench/stages.py on the host.
#
#   prof_on       start perf with its events off, wait until it answers on
#                 its control FIFO, then switch them on; returns once they
#                 are on, so the window holds nothing of perf's start-up
#   prof_off FILE switch the events off, stop perf, and write its report
#                 (perf report --sort comm,dso,sym) to FILE, then edm.ko's
#                 symbols as "#module edm SYMBOL" lines: perf names the
#                 module's code [kernel.kallsyms] when it has no edm.ko
#                 at the path of /lib/modules
#   prof_window FILE PID DEV UNIT
#                 both around a 2 s wait, for a workload in its steady part;
#                 FILE.perf.txt gets the report, FILE.ops the ops of the
#                 window counted on DEV in PID's netns: UNIT rt, its packets
#                 one way (a ping-pong's round trips); UNIT MB, the MB it
#                 sent or received, whichever is more (a stream's data)
#   prof_during FILE LEAD CMD...
#                 perf started, then CMD in the background, a 2 s window
#                 from LEAD seconds after CMD's start, CMD waited for;
#                 FILE.perf.txt gets the report. CMD must outlast it.
#
# perf runs as "command perf": a guest script may have a function of that name.
# Only builtins run between the switches: under TCG an exec costs the
# better part of a second. Set PROF=0 to skip every window (prof_on fails).
# Set PROF_GRAPH=1 to record call chains too (perf record -g): prof_off then
# also writes FILE.graph, the callers of each symbol above 1% of the samples.

prof_pid=

prof_fifos() {
	local dir=/tmp/edm-prof

	[ -n "${prof_ctl:-}" ] && return
	mkdir -p $dir && mkfifo $dir/ctl $dir/ack $dir/nap &&
		exec {prof_ctl}<>$dir/ctl {prof_ack}<>$dir/ack {prof_nap}<>$dir/nap
}

# prof_start: perf running, its events off, ready for commands
prof_start() {
	local dir=/tmp/edm-prof ack

	[ "${PROF:-1}" = 1 ] && command -v perf >/dev/null && prof_fifos || return 1
	echo 0 >/proc/sys/kernel/kptr_restrict
	command perf record -q -D -1 --control "fd:$prof_ctl,$prof_ack" -e cpu-clock -c 500000 -a \
		${PROF_GRAPH:+-g} -o $dir/perf.data >$dir/record.log 2>&1 &
	prof_pid=$!
	echo ping >&"$prof_ctl"
	if ! read -r -t 60 -u "$prof_ack" ack || [ "$ack" != ack ]; then
		echo "profile: perf did not start: $(cat $dir/record.log)" >&2
		kill "$prof_pid" 2>/dev/null
		wait "$prof_pid" 2>/dev/null
		prof_pid=
		return 1
	fi
}

# prof_enable: the events on, once perf says so
prof_enable() {
	local ack

	echo enable >&"$prof_ctl"
	read -r -t 60 -u "$prof_ack" ack && [ "$ack" = ack ]
}

prof_on() {
	prof_start && prof_enable
}

prof_off() {
	local dir=/tmp/edm-prof ack

	[ -n "$prof_pid" ] || return 1
	echo disable >&"$prof_ctl"
	read -r -t 60 -u "$prof_ack" ack
	kill -INT "$prof_pid"
	wait "$prof_pid"
	prof_pid=
	command perf report -i $dir/perf.data --no-children --sort comm,dso,sym --stdio -n -g none \
		>"$1" 2>/dev/null
	[ "${PROF_GRAPH:-0}" = 0 ] ||
		command perf report -i $dir/perf.data --no-children --sort comm,sym --stdio \
			-g caller,0.5,callee --percent-limit 1 >"$1.graph" 2>/dev/null
	grep -F '[edm]' /proc/kallsyms | while read -r _ _ sym _; do echo "#module edm $sym"; done \
		>>"$1"
	rm -f $dir/perf.data
	[ -s "$1" ]
}

# prof_count PID DEV: sets prof_p (packets, the larger of rx and tx) and
# prof_b (bytes, likewise) of DEV in PID's netns
prof_count() {
	local name rest rxb rxp txb txp

	prof_p=0 prof_b=0
	while read -r name rest; do
		[ "$name" = "$2:" ] || continue
		read -r rxb rxp _ _ _ _ _ _ txb txp _ <<<"$rest"
		prof_p=$((rxp > txp ? rxp : txp)) prof_b=$((rxb > txb ? rxb : txb))
	done <"/proc/$1/net/dev"
}

prof_window() {
	local p0 b0

	prof_on || return 1
	prof_count "$2" "$3"
	p0=$prof_p b0=$prof_b
	read -r -t 2 -u "$prof_nap" || :
	prof_count "$2" "$3"
	prof_off "$1.perf.txt" || { echo "profile: no report for $1" >&2; return 1; }
	if [ "$4" = MB ]; then
		echo "$(((prof_b - b0) / 1000000))" >"$1.ops"
	else
		echo "$((prof_p - p0))" >"$1.ops"
	fi
}

prof_during() {
	local f=$1 lead=$2 pid rc

	shift 2
	prof_start || return 1
	"$@" >/dev/null 2>&1 &
	pid=$!
	read -r -t "$lead" -u "$prof_nap" || :
	prof_enable || echo "profile: perf did not switch on for $f" >&2
	read -r -t 2 -u "$prof_nap" || :
	prof_off "$f.perf.txt" || echo "profile: no report for $f" >&2
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || echo "profile: $* exited with $rc" >&2
	return $rc
}
