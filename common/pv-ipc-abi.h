/* SPDX-License-Identifier: MIT */
/*
 * Framing of the engine socket, the part every speaker shares whatever
 * device it drives: AF_UNIX SOCK_SEQPACKET, one message per datagram,
 * each a struct pv_msg_hdr followed by hdr.len payload bytes, with up to
 * PV_IPC_MAX_FDS file descriptors as SCM_RIGHTS.  What an op means and
 * carries is the device's ABI above this one (the soft device's is
 * providers/soft/pv-soft-abi.h).
 *
 * Rules: fixed-width fields, host byte order (both ends are on one node),
 * reserved fields zero on send and ignored on receive.  A reply carries
 * the request's op and seq; status is 0 or a negative errno.
 */
#ifndef PV_IPC_ABI_H
#define PV_IPC_ABI_H

#include <stdint.h>

#define PV_IPC_MAGIC		0x50564950u	/* "PVIP" */
#define PV_IPC_VERSION		1
#define PV_IPC_MAX_MSG		65536		/* header + payload */
#define PV_IPC_MAX_FDS		4
#define PV_IPC_DEFAULT_SOCKET	"/run/podverbs/engine.sock"
#define PV_IPC_SOCKET_ENV	"PODVERBS_ENGINE"

struct pv_msg_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t op;
	uint32_t len;		/* payload bytes after this header */
	uint32_t seq;
	int32_t  status;	/* replies: 0 or -errno */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_msg_hdr) == 24, "pv_msg_hdr size");

#define PV_IPC_MAX_PAYLOAD	(PV_IPC_MAX_MSG - sizeof(struct pv_msg_hdr))

#endif /* PV_IPC_ABI_H */
