// SPDX-License-Identifier: GPL-2.0
/*
 * Message-size distributions read from a file, so a user can drop in a CDF
 * measured on their own workload.
 *
 * Format: one "size_bytes cumulative_probability" pair per line, sizes
 * strictly increasing, probabilities nondecreasing and ending at 1; '#'
 * starts a comment. The first point's probability is a point mass at its
 * size; between two points the size is spread uniformly (linear
 * interpolation of the CDF). Samples are rounded up to whole 8-byte blocks.
 */
#include <math.h>
#include <stdlib.h>

#include "edmsim.h"

enum { CDF_LINE = 256, CDF_MAX = 4096 };

static int cdf_add(struct edmsim_cdf *c, u32 size, double p, const char *path, u32 line)
{
	if (c->n == CDF_MAX) {
		fprintf(stderr, "edmsim: %s: more than %d points\n", path, CDF_MAX);
		return -EINVAL;
	}
	if (p < 0 || p > 1 || (c->n && (size <= c->size[c->n - 1] || p < c->p[c->n - 1]))) {
		fprintf(stderr, "edmsim: %s:%u: sizes must increase and probabilities must "
			"not decrease within [0, 1]\n", path, line);
		return -EINVAL;
	}
	c->size[c->n] = size;
	c->p[c->n++] = p;
	return 0;
}

static u32 round_block(double x)
{
	u64 b = (u64)ceil(x / EDM_TIMING_BLOCK_BYTES);

	return (u32)(b ? b : 1) * EDM_TIMING_BLOCK_BYTES;
}

/* Exact for the point mass, and adds the rounding up to 8-byte blocks. */
static double cdf_mean(const struct edmsim_cdf *c)
{
	double mean = c->p[0] * round_block(c->size[0]);
	u32 i;

	for (i = 1; i < c->n; i++) {
		double mass = c->p[i] - c->p[i - 1];

		mean += mass * ((c->size[i - 1] + (double)c->size[i]) / 2 +
				EDM_TIMING_BLOCK_BYTES / 2.0);
	}
	return mean;
}

int edmsim_cdf_load(struct edmsim_cdf *c, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[CDF_LINE], *end;
	u32 lineno = 0;
	double size, p;
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!f) {
		fprintf(stderr, "edmsim: %s: cannot open\n", path);
		return -ENOENT;
	}
	c->size = edmsim_zalloc(CDF_MAX, sizeof(*c->size));
	c->p = edmsim_zalloc(CDF_MAX, sizeof(*c->p));
	while (!err && fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[strspn(line, " \t")] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		size = strtod(line, &end);
		p = strtod(end, &end);
		if (size < 1 || size > UINT32_MAX / 2 || end == line) {
			fprintf(stderr, "edmsim: %s:%u: expected \"size probability\"\n", path,
				lineno);
			err = -EINVAL;
			break;
		}
		err = cdf_add(c, (u32)size, p, path, lineno);
	}
	fclose(f);
	if (!err && (!c->n || fabs(c->p[c->n - 1] - 1) > 1e-9)) {
		fprintf(stderr, "edmsim: %s: the last probability must be 1\n", path);
		err = -EINVAL;
	}
	if (err) {
		edmsim_cdf_free(c);
		return err;
	}
	c->mean = cdf_mean(c);
	return 0;
}

void edmsim_cdf_free(struct edmsim_cdf *c)
{
	free(c->size);
	free(c->p);
	memset(c, 0, sizeof(*c));
}

/* The size at quantile u in [0, 1). */
u32 edmsim_cdf_sample(const struct edmsim_cdf *c, double u)
{
	u32 lo = 1, hi = c->n - 1, mid;
	double x;

	if (u < c->p[0] || c->n == 1)
		return round_block(c->size[0]);
	while (lo < hi) {		/* first i with u < p[i] */
		mid = (lo + hi) / 2;
		if (u < c->p[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	x = c->size[lo - 1] + (u - c->p[lo - 1]) / (c->p[lo] - c->p[lo - 1]) *
			      (c->size[lo] - c->size[lo - 1]);
	return round_block(x);
}
