# SPDX-License-Identifier: GPL-2.0
# The ABI's struct layouts (include/edm/uapi_layout.h), compiled natively and
# for 32-bit x86: a failed static_assert fails the build of make unit.
CHECKS += uapi_layout_64.o uapi_layout_32.o
uapi_layout_64.o: uapi_layout.c $(TOP)/include/edm/uapi_layout.h
	$(CC) -Wall -Wextra -Werror -std=gnu11 -I$(TOP)/include -c -o $@ $<
# The kernel's uapi asm headers serve both word sizes: the 64-bit ones do
# when no 32-bit multiarch headers are installed.
uapi_layout_32.o: uapi_layout.c $(TOP)/include/edm/uapi_layout.h
	$(CC) -m32 -Wall -Wextra -Werror -std=gnu11 -I$(TOP)/include \
		-idirafter /usr/include/$(shell $(CC) -print-multiarch) -c -o $@ $<
