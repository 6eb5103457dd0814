// SPDX-License-Identifier: GPL-2.0
/* Unit tests of edm_name_valid(), the object-name rule (core/name.c). */
#include <string.h>

#include "kselftest_harness.h"
#include "edm/name.h"

#define MAX 15

static bool valid(const char *s)
{
	return edm_name_valid(s, strlen(s), MAX);
}

TEST(accepts_names_of_allowed_characters)
{
	EXPECT_TRUE(valid("a"));
	EXPECT_TRUE(valid("dev0"));
	EXPECT_TRUE(valid("0dev"));
	EXPECT_TRUE(valid("Sw-1.port_2"));
	EXPECT_TRUE(valid("abcdefghijklmno"));		/* exactly MAX */
}

TEST(rejects_empty_and_too_long)
{
	EXPECT_FALSE(valid(""));
	EXPECT_FALSE(valid("abcdefghijklmnop"));	/* MAX + 1 */
}

TEST(rejects_bad_first_character)
{
	EXPECT_FALSE(valid("-x"));
	EXPECT_FALSE(valid(".x"));
	EXPECT_FALSE(valid("_x"));
	EXPECT_FALSE(valid("."));
	EXPECT_FALSE(valid(".."));
}

TEST(rejects_every_character_outside_the_set)
{
	char s[3] = "a?";
	int c;

	for (c = 1; c < 256; c++) {
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';

		s[1] = (char)c;
		EXPECT_EQ(ok, edm_name_valid(s, 2, MAX)) {
			TH_LOG("character %d", c);
		}
	}
}

TEST(length_is_explicit_not_nul_terminated)
{
	/* Only the first len bytes count: a NUL or junk after them is ignored. */
	EXPECT_TRUE(edm_name_valid("ab/cd", 2, MAX));
	EXPECT_FALSE(edm_name_valid("ab/cd", 3, MAX));
	EXPECT_FALSE(edm_name_valid("ab\0cd", 5, MAX));
}

TEST_HARNESS_MAIN
