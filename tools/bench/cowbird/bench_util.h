/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every Cowbird benchmark program shares: the clock, a random stream,
 * CPU pinning, the user-space instruction counter (when the machine has a
 * PMU), and the one row format that tools/bench/cowbird/cowbird.sh reads.
 *
 * A program prints notes as lines starting with '#' and one row per
 * contender: its name (no spaces) and numbers, "n/a" for what could not be
 * measured and "-" for what does not apply. cowbird.sh puts the rows of
 * several programs under one header and computes the ratios.
 */
#ifndef _COWBIRD_BENCH_UTIL_H
#define _COWBIRD_BENCH_UTIL_H

#include <stdint.h>

/* Per op; instr < 0: n/a; helper_ns < 0: no compute-side helper thread. */
struct bench_result {
	double instr;		/* user-space instructions of issue + reap */
	double cpu_ns;		/* app thread: issue + reap */
	double issue_ns;	/* app thread: issue alone */
	double wall_ns;
	double helper_ns;	/* compute-side helper's CPU (io_uring's SQPOLL thread) */
};

uint64_t bench_now_ns(void);
uint64_t bench_rnd(uint64_t *s);
void bench_pin(int cpu);

/* Instructions: user space, this thread, between on() and off(). */
void bench_perf_open(void);
int bench_perf_ok(void);
const char *bench_perf_why(void);
void bench_perf_on(void);
void bench_perf_off(void);
uint64_t bench_perf_take(void);		/* read and reset */
double bench_perf_overhead(void);	/* of one on() + off(), to subtract */

void bench_notes(const char *program);	/* machine, clock and counter notes */
void bench_row(const char *name, const struct bench_result *r);

#endif /* _COWBIRD_BENCH_UTIL_H */
