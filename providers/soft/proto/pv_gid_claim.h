/* SPDX-License-Identifier: MIT */
/*
 * The claims an ADM_DEV_ADD may carry (pv-soft-abi.h): the RoCEv2 GIDs
 * of the addresses a CNI assigned to an attachment, as the engine
 * derives them from an interface (IPv4-mapped ::ffff:a.b.c.d, or the
 * IPv6 address itself).  Pure.
 */
#ifndef PV_GID_CLAIM_H
#define PV_GID_CLAIM_H

#include "providers/soft/pv-soft-abi.h"

/* ADM_DEV_ADD's request followed by its claims, as sent. */
struct pv_adm_dev_add_msg {
	struct pv_ipc_adm_dev_add req;
	struct pv_ipc_adm_dev_claims claims;
};
_Static_assert(sizeof(struct pv_adm_dev_add_msg) ==
	       sizeof(struct pv_ipc_adm_dev_add) +
	       sizeof(struct pv_ipc_adm_dev_claims), "no padding");

/* Adds the GID of addr ("10.0.0.2", "10.0.0.2/24", "fd00::2/64") to
 * claims and sets PV_ADM_DEV_ADD_CLAIMS in *flags: 0, -EINVAL (not an
 * address), -ENOSPC (PV_GID_CLAIM_MAX already); a repeat is a no-op. */
int pv_gid_claim_add(struct pv_ipc_adm_dev_claims *claims, uint32_t *flags,
		     const char *addr);

#endif /* PV_GID_CLAIM_H */
