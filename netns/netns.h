/* SPDX-License-Identifier: MIT */
/*
 * Network namespace work for the engine, the CNI plugin and tests.
 *
 * Rule: no long-lived thread ever stays switched into another namespace.
 * Work inside a namespace runs in a short-lived thread (netns_run), and
 * sockets made there (netns_socket) stay bound to that namespace after the
 * thread is gone.  All functions return >= 0 on success, -errno on failure,
 * and never log.
 */
#ifndef NETNS_H
#define NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NETNS_IFNAME_MAX	16
#define NETNS_ADDR_MAX		16
#define NETNS_GID_MAX		16

/* Opens a namespace file (/var/run/netns/X, /proc/PID/ns/net); NULL or ""
 * opens the calling thread's own.  Returns an O_CLOEXEC fd or -errno
 * (-ENOENT: no such file; -EINVAL: not a network namespace).  The fd keeps
 * the namespace alive even after `ip netns del`. */
int netns_open(const char *path);
/* Opens /proc/PID/ns/net (pid 0: the calling thread's).  -ESRCH if the
 * process is gone. */
int netns_open_pid(pid_t pid);

/* The identity of a namespace: (st_dev, st_ino) of its nsfs inode. */
struct netns_id {
	uint64_t dev;
	uint64_t ino;
};
int netns_id_of_fd(int ns_fd, struct netns_id *ret_id);
int netns_id_of_pid(pid_t pid, struct netns_id *ret_id);
static inline bool netns_id_equal(const struct netns_id *a,
				  const struct netns_id *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

/* Runs fn(arg) in a short-lived thread switched into ns_fd and returns
 * what fn returned (fn follows the >= 0 / -errno convention).  The thread
 * starts with all signals blocked and is joined before returning.  When
 * the caller already is in ns_fd, fn runs on the caller's thread (no
 * privilege needed).  Switching needs CAP_SYS_ADMIN (-EPERM otherwise);
 * -EINVAL if ns_fd is not a network namespace. */
int netns_run(int ns_fd, int (*fn)(void *arg), void *arg);

/* socket(2) inside ns_fd; the fd is CLOEXEC and stays in that namespace. */
int netns_socket(int ns_fd, int domain, int type, int protocol);

struct netns_addr {
	int      family;	/* AF_INET or AF_INET6 */
	uint8_t  addr[16];	/* 4 bytes used for AF_INET */
	uint8_t  prefixlen;
	uint8_t  scope;		/* RT_SCOPE_* */
	uint32_t flags;		/* IFA_F_* (secondary, tentative, ...) */
};

struct netns_link {
	int      ifindex;
	char     name[NETNS_IFNAME_MAX];
	uint32_t mtu;
	bool     up;		/* IFF_UP */
	bool     running;	/* IFF_RUNNING / oper state up */
	uint8_t  mac[6];
	int      naddrs;
	struct netns_addr addrs[NETNS_ADDR_MAX];	/* kernel order */
};

/* Reads one interface (by name) and its addresses inside ns_fd.  -ENODEV
 * if there is no such interface, -EINVAL for a bad name; addresses past
 * NETNS_ADDR_MAX are left out.  Costs a thread and a netlink dump. */
int netns_link_get(int ns_fd, const char *ifname, struct netns_link *ret_link);

/*
 * A NETLINK_ROUTE socket inside ns_fd subscribed to link and address
 * changes; poll it for POLLIN, then netns_watch_drain() it.  Returns the fd.
 */
int netns_watch_open(int ns_fd);
/* Reads all queued notifications; returns 1 if any link or address change
 * was seen, 0 if none, -errno on error.  An overrun (lost notifications)
 * counts as a change: re-read with netns_link_get(). */
int netns_watch_drain(int watch_fd);
/* The pure part of netns_watch_drain: 1 if the netlink messages in buf
 * (len bytes) hold a link or address change, else 0. */
int netns_watch_parse(const void *buf, size_t len);

/* RoCEv2 GIDs (pure). */
struct netns_gid {
	uint8_t raw[16];
};
/* ::ffff:a.b.c.d for an IPv4 address (network byte order input). */
void netns_gid_from_ipv4(const uint8_t v4[4], struct netns_gid *ret_gid);
/* Copies an IPv6 address. */
void netns_gid_from_ipv6(const uint8_t v6[16], struct netns_gid *ret_gid);
/*
 * The dense GID table of an interface: [0] the primary IPv4 address (first
 * non-secondary global IPv4), then other IPv4 addresses, then global IPv6,
 * link-local IPv6 last; tentative and duplicate addresses are skipped.
 * Returns the number written (<= max).
 */
int netns_gid_table(const struct netns_link *link, struct netns_gid *ret_gids,
		    int max);
/* Formats a GID like ibv_devinfo does (fe80:0000:...); buf >= 40 bytes. */
void netns_gid_format(const struct netns_gid *gid, char *buf);

#endif /* NETNS_H */
