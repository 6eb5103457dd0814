// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: edm_name_valid() on arbitrary bytes, lengths and limits,
 * checked against a reference written differently (a character-class table
 * instead of comparisons). Any disagreement, or any sanitizer report, stops
 * the fuzzer with a crash input.
 */
#include <stdlib.h>
#include <string.h>

#include "edm/name.h"

static int ref_class(unsigned char c)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	if (c && strchr(alnum, c))
		return 2;
	return (c == '_' || c == '.' || c == '-') ? 1 : 0;
}

static bool ref_valid(const unsigned char *s, size_t len, size_t max)
{
	size_t i;

	if (len == 0 || len > max)
		return false;
	for (i = 0; i < len; i++)
		if (ref_class(s[i]) < (i == 0 ? 2 : 1))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t max;
	char *copy;

	if (size < 1)
		return 0;
	max = data[0] % 32;
	/* An exact-size heap copy, so ASan sees any read past the length. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if (edm_name_valid(copy, size - 1, max) != ref_valid(data + 1, size - 1, max))
		abort();
	free(copy);
	return 0;
}
