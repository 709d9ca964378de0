/* SPDX-License-Identifier: MIT */
/*
 * netns-probe: drives the netns library for the integration tests.
 *
 *   netns-probe link  NS IFNAME        link info and addresses
 *   netns-probe gids  NS IFNAME        the GID table, "IDX GID" per line
 *   netns-probe watch NS TIMEOUT_MS    prints "ready", then "changed" when
 *                                      a link/address event arrives (exit
 *                                      0) or "timeout" (exit 2)
 *   netns-probe run   NS [NS...]       runs work inside each NS from
 *                                      concurrent threads and checks no
 *                                      thread of the process stays switched
 *   netns-probe overrun NS             a watch with a tiny buffer prints
 *                                      "ready", drains after a line on
 *                                      stdin: "changed", then "again 0"
 *   netns-probe socket NS IPV4         a UDP socket made in NS binds to
 *                                      IPV4 (an address only NS has)
 *   netns-probe id    NS               "DEV:INO" of the namespace
 *
 * NS is a path (/var/run/netns/X, /proc/PID/ns/net) or "self".
 * Errors print "netns-probe: WHAT: strerror" and exit 1.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/netns.h"

static int fail(const char *what, int r)
{
	fprintf(stderr, "netns-probe: %s: %s\n", what, strerror(-r));
	return 1;
}

static int open_ns(const char *arg)
{
	return netns_open(strcmp(arg, "self") == 0 ? NULL : arg);
}

static void print_addr(const struct netns_addr *a)
{
	char txt[INET6_ADDRSTRLEN];

	inet_ntop(a->family, a->addr, txt, sizeof(txt));
	printf("addr %s %s/%u scope %u flags 0x%x\n",
	       a->family == AF_INET ? "inet" : "inet6", txt, a->prefixlen,
	       a->scope, a->flags);
}

static int cmd_link(int ns_fd, const char *ifname)
{
	struct netns_link l;
	int r = netns_link_get(ns_fd, ifname, &l);

	if (r < 0)
		return fail("netns_link_get", r);
	printf("ifindex %d\nname %s\nmtu %u\nup %d\nrunning %d\n", l.ifindex,
	       l.name, l.mtu, l.up, l.running);
	printf("mac %02x:%02x:%02x:%02x:%02x:%02x\n", l.mac[0], l.mac[1],
	       l.mac[2], l.mac[3], l.mac[4], l.mac[5]);
	printf("naddrs %d\n", l.naddrs);
	for (int i = 0; i < l.naddrs; i++)
		print_addr(&l.addrs[i]);
	return 0;
}

static int cmd_gids(int ns_fd, const char *ifname)
{
	struct netns_gid gids[NETNS_GID_MAX];
	struct netns_link l;
	char txt[40];
	int r, n;

	r = netns_link_get(ns_fd, ifname, &l);
	if (r < 0)
		return fail("netns_link_get", r);
	n = netns_gid_table(&l, gids, NETNS_GID_MAX);
	for (int i = 0; i < n; i++) {
		netns_gid_format(&gids[i], txt);
		printf("%d %s\n", i, txt);
	}
	return 0;
}

static int cmd_watch(int ns_fd, const char *timeout_arg)
{
	int timeout = atoi(timeout_arg), fd, r;
	struct pollfd p;

	fd = netns_watch_open(ns_fd);
	if (fd < 0)
		return fail("netns_watch_open", fd);
	printf("ready\n");
	fflush(stdout);
	p.fd = fd;
	p.events = POLLIN;
	for (;;) {
		r = poll(&p, 1, timeout);
		if (r == 0) {
			printf("timeout\n");
			return 2;
		}
		if (r < 0)
			return fail("poll", -errno);
		r = netns_watch_drain(fd);
		if (r < 0)
			return fail("netns_watch_drain", r);
		if (r > 0)
			break;
	}
	printf("changed\n");
	close(fd);
	return 0;
}

/* Overrun: a watch with the smallest receive buffer, drained only after
 * the test has made many changes (it writes a line on stdin).  The drain
 * must report a change, not an error. */
static int cmd_overrun(int ns_fd)
{
	int fd, r, one = 1;
	char line[16];

	fd = netns_watch_open(ns_fd);
	if (fd < 0)
		return fail("netns_watch_open", fd);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)) < 0)
		return fail("SO_RCVBUF", -errno);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return fail("stdin", -EIO);
	r = netns_watch_drain(fd);
	if (r < 0)
		return fail("netns_watch_drain", r);
	printf("%s\n", r ? "changed" : "none");
	/* Everything lost was reported; the socket is usable again. */
	r = netns_watch_drain(fd);
	printf("again %d\n", r);
	close(fd);
	return 0;
}

/* Compares every thread's namespace with the process's starting one. */
static int check_tasks(const struct netns_id *want)
{
	char path[300];
	struct dirent *de;
	int bad = 0;
	DIR *d;

	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct netns_id id;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/ns/net",
			 de->d_name);
		fd = netns_open(path);
		if (fd < 0)
			continue;	/* the thread just ended */
		if (netns_id_of_fd(fd, &id) == 0 && !netns_id_equal(&id, want))
			bad++;
		close(fd);
	}
	closedir(d);
	return bad ? -EXDEV : 0;
}

struct run_arg {
	int ns_fd;
	struct netns_id target;
	struct netns_id seen;
	int ret;
};

static int run_fn(void *p)
{
	struct run_arg *a = p;

	return netns_id_of_pid(0, &a->seen);
}

/* One caller thread: many short trips into its namespace. */
static void *run_loop(void *p)
{
	struct run_arg *a = p;

	a->ret = netns_id_of_fd(a->ns_fd, &a->target);
	for (int i = 0; i < 50 && a->ret >= 0; i++) {
		a->ret = netns_run(a->ns_fd, run_fn, a);
		if (a->ret >= 0 && !netns_id_equal(&a->seen, &a->target))
			a->ret = -EXDEV;
	}
	return NULL;
}

/* Runs work in every given namespace from concurrent caller threads, then
 * checks that the caller and every thread of the process are still in
 * the namespace the process started in. */
static int cmd_run(int argc, char **argv)
{
	struct run_arg args[8];
	pthread_t tids[8];
	struct netns_id self, self_after;
	int n = argc < 8 ? argc : 8, r;

	r = netns_id_of_pid(0, &self);
	if (r < 0)
		return fail("netns_id_of_pid", r);
	for (int i = 0; i < n; i++) {
		args[i].ns_fd = open_ns(argv[i]);
		if (args[i].ns_fd < 0)
			return fail("netns_open", args[i].ns_fd);
		if (pthread_create(&tids[i], NULL, run_loop, &args[i]) != 0)
			return fail("pthread_create", -EAGAIN);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(tids[i], NULL);
		if (args[i].ret == -EXDEV)
			return fail("work ran outside its namespace", -EXDEV);
		if (args[i].ret < 0)
			return fail("netns_run", args[i].ret);
		close(args[i].ns_fd);
	}
	r = netns_id_of_pid(0, &self_after);
	if (r < 0)
		return fail("netns_id_of_pid", r);
	if (!netns_id_equal(&self, &self_after))
		return fail("caller switched", -EXDEV);
	r = check_tasks(&self);
	if (r < 0)
		return fail("a thread stayed switched", r);
	for (int i = 0; i < n; i++)
		printf("ok %llu:%llu\n", (unsigned long long)args[i].target.dev,
		       (unsigned long long)args[i].target.ino);
	return 0;
}

/* A UDP socket made inside NS and bound to ADDR (which exists only
 * there): proves the socket lives in NS after the worker thread ended. */
static int cmd_socket(int ns_fd, const char *addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd, r = 0;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return fail("bad IPv4 address", -EINVAL);
	fd = netns_socket(ns_fd, AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return fail("netns_socket", fd);
	if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC))
		r = fail("socket not CLOEXEC", -EINVAL);
	else if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		r = fail("bind", -errno);
	else
		printf("bound %s\n", addr);
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	int ns_fd, rc;

	if (argc < 3) {
		fprintf(stderr, "usage: netns-probe link|gids|watch|run|id NS ...\n");
		return 64;
	}
	ns_fd = open_ns(argv[2]);
	if (ns_fd < 0)
		return fail("netns_open", ns_fd);
	if (strcmp(argv[1], "link") == 0 && argc == 4)
		rc = cmd_link(ns_fd, argv[3]);
	else if (strcmp(argv[1], "gids") == 0 && argc == 4)
		rc = cmd_gids(ns_fd, argv[3]);
	else if (strcmp(argv[1], "watch") == 0 && argc == 4)
		rc = cmd_watch(ns_fd, argv[3]);
	else if (strcmp(argv[1], "run") == 0)
		rc = cmd_run(argc - 2, argv + 2);
	else if (strcmp(argv[1], "overrun") == 0)
		rc = cmd_overrun(ns_fd);
	else if (strcmp(argv[1], "socket") == 0 && argc == 4)
		rc = cmd_socket(ns_fd, argv[3]);
	else if (strcmp(argv[1], "id") == 0) {
		struct netns_id id;
		int r = netns_id_of_fd(ns_fd, &id);

		rc = r < 0 ? fail("netns_id_of_fd", r) : 0;
		if (r == 0)
			printf("%llu:%llu\n", (unsigned long long)id.dev,
			       (unsigned long long)id.ino);
	} else {
		fprintf(stderr, "netns-probe: bad command\n");
		rc = 64;
	}
	close(ns_fd);
	return rc;
}
