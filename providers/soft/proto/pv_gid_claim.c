/* SPDX-License-Identifier: MIT */
#include "providers/soft/proto/pv_gid_claim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

int pv_gid_claim_add(struct pv_ipc_adm_dev_claims *claims, uint32_t *flags,
		     const char *addr)
{
	char txt[INET6_ADDRSTRLEN];
	uint8_t gid[16] = { 0 };
	const char *slash = strchr(addr, '/');
	size_t n = slash ? (size_t)(slash - addr) : strlen(addr);

	if (n == 0 || n >= sizeof(txt))
		return -EINVAL;
	memcpy(txt, addr, n);
	txt[n] = '\0';
	if (inet_pton(AF_INET, txt, gid + 12) == 1) {
		gid[10] = 0xff;
		gid[11] = 0xff;
	} else if (inet_pton(AF_INET6, txt, gid) != 1) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i < claims->count && i < PV_GID_CLAIM_MAX; i++)
		if (!memcmp(claims->gid[i], gid, 16))
			return 0;
	if (claims->count >= PV_GID_CLAIM_MAX)
		return -ENOSPC;
	memcpy(claims->gid[claims->count++], gid, 16);
	*flags |= PV_ADM_DEV_ADD_CLAIMS;
	return 0;
}
