/* SPDX-License-Identifier: MIT */
/*
 * The impairer's two ends: an AF_PACKET socket per interface (packet(7)),
 * bound to it, seeing every frame that arrives there (promiscuous, its own
 * transmissions ignored), receiving and sending in batches (recvmmsg,
 * sendmmsg) to keep system calls per frame low.
 */
#ifndef PVI_IO_H
#define PVI_IO_H

#include <stdint.h>

#include "tests/tools/pv-impair/pvi_path.h"

#define PVI_BATCH 64u

struct pvi_port {
	int fd;
	int ifindex;
	int mtu;
	char name[16];
};

/* Opens and binds the socket of interface name.  0 or -errno. */
int pvi_io_open(struct pvi_port *port, const char *name);
void pvi_io_close(struct pvi_port *port);

/* Receives up to PVI_BATCH frames from port into path (nonblocking) and
 * feeds them to pvi_path_input.  The number received (0: nothing
 * waiting), or -errno. */
int pvi_io_recv(struct pvi_port *port, struct pvi_path *path,
		uint64_t now_ns);

/* Adds the frames the kernel dropped for want of room in port's receive
 * queue since the last call to path's kdrop. */
void pvi_io_kernel_drops(const struct pvi_port *port, struct pvi_path *path);

/* Sends path's out[] on port, counts tx/txerr, frees them. */
void pvi_io_send(struct pvi_port *port, struct pvi_path *path);

#endif /* PVI_IO_H */
