// SPDX-License-Identifier: GPL-2.0
/*
 * Traces in the EDM authors' simulator format, one flow per line:
 *
 *   flow_id,type,src,dst,sent_bytes,reply_bytes,start_timeslot
 *
 * type 1 is a read: src sends a request of sent_bytes to dst, which answers
 * with reply_bytes. type 3 is a write of sent_bytes from src to dst, and its
 * reply_bytes is -1. That is the order the authors' reader uses
 * (EDMSIM_ORDER_ARTIFACT); EDMSIM_ORDER_EDMSIM swaps a read's two sizes, as
 * edmsim wrote them before. A timeslot is one 8-byte block time at the link
 * rate. Lines that start with '#' and a header line are skipped; anything
 * else that does not parse is an error naming its line.
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
		return "column 5 (bytes sent) must be positive";
	if (v[1] == EDMSIM_READ && (v[5] <= 0 || v[5] > UINT32_MAX / 2))
		return "a read needs a positive size in column 6";
	if (v[6] < 0)
		return "start_timeslot must not be negative";
	return NULL;
}

/* A read's (request, reply) sizes from columns 5 and 6. */
static const char *read_sizes(const long long *v, u32 order, u32 *rreq, u32 *size)
{
	long long req = order == EDMSIM_ORDER_ARTIFACT ? v[4] : v[5];
	long long rep = order == EDMSIM_ORDER_ARTIFACT ? v[5] : v[4];

	if (req > EDM_SCHED_MAX_CHUNK)
		return order == EDMSIM_ORDER_ARTIFACT ?
		       "a read's request (column 5) exceeds 65535 bytes; --trace-order edmsim?" :
		       "a read's request (column 6) exceeds 65535 bytes; --trace-order artifact?";
	*rreq = req;
	*size = rep;
	return NULL;
}

int edmsim_trace_read(struct edmsim_trace *t, const char *path, u64 slot_ps, u32 order)
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
		memset(&m, 0, sizeof(m));
		if (!why) {
			m.size = v[4];
			if (v[1] == EDMSIM_READ)
				why = read_sizes(v, order, &m.rreq, &m.size);
		}
		if (why) {
			fprintf(stderr, "edmsim: %s:%u: %s\n", path, lineno, why);
			err = -EINVAL;
			break;
		}
		m.flow_id = v[0];
		m.type = v[1];
		m.src = v[2];
		m.dst = v[3];
		m.arrive_ps = (u64)v[6] * slot_ps;
		err = edmsim_trace_add(t, &m);
	}
	if (f != stdin)
		fclose(f);
	return err;
}

int edmsim_trace_write(const struct edmsim_trace *t, FILE *f, u64 slot_ps, u32 order)
{
	const struct edmsim_msg *m;
	long long c5, c6;
	u32 i;

	for (i = 0; i < t->n; i++) {
		m = &t->msg[i];
		c5 = m->size;
		c6 = -1;
		if (m->type == EDMSIM_READ) {
			c5 = order == EDMSIM_ORDER_ARTIFACT ? m->rreq : m->size;
			c6 = order == EDMSIM_ORDER_ARTIFACT ? m->size : m->rreq;
		}
		if (fprintf(f, "%u,%u,%u,%u,%lld,%lld,%llu\n", m->flow_id, m->type, m->src, m->dst,
			    c5, c6, (unsigned long long)(m->arrive_ps / slot_ps)) < 0)
			return -EIO;
	}
	return 0;
}
