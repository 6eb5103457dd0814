// SPDX-License-Identifier: GPL-2.0
/*
 * Traces in the EDM authors' simulator format, one flow per line:
 *
 *   flow_id,type,src,dst,size_bytes,rreq_bytes,start_timeslot
 *
 * type 1 is a read: src sends an RREQ of rreq_bytes to dst, which answers
 * with size_bytes. type 3 is a write of size_bytes from src to dst, and its
 * rreq_bytes is -1. A timeslot is one 8-byte block time at the link rate.
 * Lines that start with '#' and a header line are skipped; anything else
 * that does not parse is an error naming its line.
 */
#include <stdlib.h>

#include "edmsim.h"

enum { TRACE_FIELDS = 7, TRACE_LINE = 512 };

int edmsim_trace_add(struct edmsim_trace *t, const struct edmsim_msg *m)
{
	struct edmsim_msg *msg;

	if (t->n == t->cap) {
		u32 cap = t->cap ? 2 * t->cap : 4096;

		msg = realloc(t->msg, (size_t)cap * sizeof(*msg));
		if (!msg)
			return -ENOMEM;
		t->msg = msg;
		t->cap = cap;
	}
	t->msg[t->n++] = *m;
	if (m->src + 1U > t->nodes)
		t->nodes = m->src + 1U;
	if (m->dst + 1U > t->nodes)
		t->nodes = m->dst + 1U;
	return 0;
}

void edmsim_trace_free(struct edmsim_trace *t)
{
	free(t->msg);
	memset(t, 0, sizeof(*t));
}

static int parse_fields(char *line, long long *v)
{
	char *p = line, *end;
	int i;

	for (i = 0; i < TRACE_FIELDS; i++) {
		v[i] = strtoll(p, &end, 10);
		if (end == p)
			return -EINVAL;
		while (*end == ' ' || *end == '\t')
			end++;
		if (i < TRACE_FIELDS - 1 && *end != ',')
			return -EINVAL;
		p = end + 1;
	}
	return *end == '\0' || *end == '\n' || *end == '\r' ? 0 : -EINVAL;
}

/* Validate before building: a bad line leaves the trace as it was. */
static const char *check_fields(const long long *v)
{
	if (v[0] < 0 || v[0] > UINT32_MAX)
		return "flow_id out of range";
	if (v[1] != EDMSIM_READ && v[1] != EDMSIM_WRITE)
		return "type must be 1 (read) or 3 (write)";
	if (v[2] < 0 || v[3] < 0 || v[2] >= EDM_SCHED_MAX_PORTS || v[3] >= EDM_SCHED_MAX_PORTS)
		return "src and dst must be ports 0..511";
	if (v[2] == v[3])
		return "src and dst must differ";
	if (v[4] <= 0 || v[4] > UINT32_MAX / 2)
		return "size_bytes must be positive";
	if (v[1] == EDMSIM_READ && (v[5] <= 0 || v[5] > EDM_SCHED_MAX_CHUNK))
		return "a read needs rreq_bytes in 1..65535";
	if (v[6] < 0)
		return "start_timeslot must not be negative";
	return NULL;
}

int edmsim_trace_read(struct edmsim_trace *t, const char *path, u64 slot_ps)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char line[TRACE_LINE];
	long long v[TRACE_FIELDS];
	struct edmsim_msg m;
	const char *why;
	u32 lineno = 0;
	int err = 0;

	if (!f) {
		fprintf(stderr, "edmsim: %s: cannot open\n", path);
		return -ENOENT;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n' ||
		    (lineno == 1 && (line[0] < '0' || line[0] > '9')))
			continue;
		why = parse_fields(line, v) ? "expected 7 comma-separated integers" :
		      check_fields(v);
		if (why) {
			fprintf(stderr, "edmsim: %s:%u: %s\n", path, lineno, why);
			err = -EINVAL;
			break;
		}
		memset(&m, 0, sizeof(m));
		m.flow_id = v[0];
		m.type = v[1];
		m.src = v[2];
		m.dst = v[3];
		m.size = v[4];
		m.rreq = m.type == EDMSIM_READ ? v[5] : 0;
		m.arrive_ps = (u64)v[6] * slot_ps;
		err = edmsim_trace_add(t, &m);
	}
	if (f != stdin)
		fclose(f);
	return err;
}

int edmsim_trace_write(const struct edmsim_trace *t, FILE *f, u64 slot_ps)
{
	const struct edmsim_msg *m;
	u32 i;

	for (i = 0; i < t->n; i++) {
		m = &t->msg[i];
		if (fprintf(f, "%u,%u,%u,%u,%u,%d,%llu\n", m->flow_id, m->type, m->src, m->dst,
			    m->size, m->type == EDMSIM_READ ? (int)m->rreq : -1,
			    (unsigned long long)(m->arrive_ps / slot_ps)) < 0)
			return -EIO;
	}
	return 0;
}
