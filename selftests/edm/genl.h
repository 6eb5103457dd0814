/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw generic netlink client for the edm tests: byte-exact messages, so
 * tests can send what no well-behaved library would, and the kernel's
 * extack message back with every error. Single-threaded use per socket.
 */
#ifndef _EDM_SELFTEST_GENL_H
#define _EDM_SELFTEST_GENL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

struct genl_sock {
	int fd;
	uint16_t family;
	uint32_t seq;
	char errmsg[256];	/* extack message of the last request, or "" */
	int erroff;		/* extack offset of the bad attribute, or -1 */
	int misstype;		/* extack type of a missing attribute, or -1 */
	int nmsgs;		/* messages received by the last request */
};

struct attrbuf {
	size_t len;
	unsigned char data[8192];
};

/* Open a socket with extended acks on and resolve @family; 0 or -errno. */
int genl_open(struct genl_sock *gs, const char *family);
void genl_close(struct genl_sock *gs);

void ab_put(struct attrbuf *ab, uint16_t type, const void *data, size_t len);
void ab_put_u32(struct attrbuf *ab, uint16_t type, uint32_t v);
void ab_put_str(struct attrbuf *ab, uint16_t type, const char *s);

typedef void (*genl_msg_cb)(const struct nlattr *attrs, size_t len, void *arg);

/*
 * Send @cmd with the attribute bytes @ab (may be NULL) and read the whole
 * answer. @dump asks for NLM_F_DUMP. Every reply message's attributes are
 * passed to @cb. Returns 0 or the kernel's -errno.
 */
int genl_request(struct genl_sock *gs, uint8_t cmd, int dump, const struct attrbuf *ab,
		 genl_msg_cb cb, void *arg);

/* Find attribute @type among @len bytes of attributes; NULL if absent. */
const struct nlattr *genl_attr(const struct nlattr *attrs, size_t len, uint16_t type);

#endif
