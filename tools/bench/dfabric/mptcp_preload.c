// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim that turns a program's TCP sockets into MPTCP ones, as
 * mptcpize(8) does (Debian 12's mptcpd does not ship it, and iperf3 3.12
 * has no --mptcp): socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or
 * IPPROTO_TCP) asks for IPPROTO_MPTCP instead. Everything else, and a
 * kernel without MPTCP (net.mptcp.enabled=0 gives ENOPROTOOPT), goes to
 * libc's socket() unchanged, so a refused MPTCP socket falls back to TCP
 * and the benchmark checks the MPTCP counters to see which one it got.
 *
 *   LD_PRELOAD=build/bench-dfabric/mptcp_preload.so iperf3 ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

typedef int (*socket_fn)(int, int, int);

static int wants_mptcp(int domain, int type, int protocol)
{
	if (domain != AF_INET && domain != AF_INET6)
		return 0;
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_STREAM)
		return 0;
	return protocol == 0 || protocol == IPPROTO_TCP;
}

int socket(int domain, int type, int protocol)
{
	static socket_fn real;
	int fd;

	if (!real)
		real = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!wants_mptcp(domain, type, protocol))
		return real(domain, type, protocol);
	fd = real(domain, type, IPPROTO_MPTCP);
	if (fd < 0 && (errno == ENOPROTOOPT || errno == EPROTONOSUPPORT ||
		       errno == EINVAL))
		fd = real(domain, type, protocol);
	return fd;
}
