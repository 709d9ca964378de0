/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_gid_own.h"

#include <string.h>

bool eng_gid_table_has(const struct pv_ipc_gid_entry *t, uint32_t n,
		       const uint8_t gid[16])
{
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(t[i].gid, gid, 16) == 0)
			return true;
	return false;
}

bool eng_gid_in(const uint8_t (*set)[16], uint32_t n, const uint8_t gid[16])
{
	if (!set)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(set[i], gid, 16) == 0)
			return true;
	return false;
}

uint32_t eng_gid_owner_for(const struct eng_gid_holder *h, uint32_t nh,
			   uint32_t self_id, const uint8_t (*claims)[16],
			   uint32_t nclaims, const uint8_t gid[16])
{
	bool mine = eng_gid_in(claims, nclaims, gid);

	for (uint32_t i = 0; i < nh; i++) {
		if (h[i].dev_id == self_id ||
		    !eng_gid_table_has(h[i].gid, h[i].count, gid))
			continue;
		if (mine && !eng_gid_in(h[i].claims, h[i].nclaims, gid))
			continue;	/* a squatter: the claim wins */
		return h[i].dev_id;
	}
	return 0;
}

uint32_t eng_gid_owner(const struct eng_gid_holder *h, uint32_t nh,
		       uint32_t self_id, const uint8_t gid[16])
{
	return eng_gid_owner_for(h, nh, self_id, NULL, 0, gid);
}

void eng_gid_claim(uint32_t self_id, const uint8_t (*want)[16],
		   uint32_t nwant, const struct eng_gid_holder *h,
		   uint32_t nh, struct eng_gid_claim *out)
{
	eng_gid_claim_with(self_id, want, nwant, NULL, 0, h, nh, out);
}

void eng_gid_claim_with(uint32_t self_id, const uint8_t (*want)[16],
			uint32_t nwant, const uint8_t (*claims)[16],
			uint32_t nclaims, const struct eng_gid_holder *h,
			uint32_t nh, struct eng_gid_claim *out)
{
	out->count = 0;
	out->nconflicts = 0;
	if (nwant > ENG_GID_WANT_MAX)
		nwant = ENG_GID_WANT_MAX;
	for (uint32_t i = 0; i < nwant; i++) {
		uint32_t owner;

		if (eng_gid_in(out->gid, out->count, want[i]) ||
		    eng_gid_in(out->conflict, out->nconflicts, want[i]))
			continue;
		owner = eng_gid_owner_for(h, nh, self_id, claims, nclaims,
					  want[i]);
		if (owner) {
			memcpy(out->conflict[out->nconflicts], want[i], 16);
			out->conflict_owner[out->nconflicts++] = owner;
			continue;
		}
		if (out->count < PV_GID_TABLE_MAX)
			memcpy(out->gid[out->count++], want[i], 16);
	}
}

bool eng_gid_released(const struct pv_ipc_gid_entry *old, uint32_t nold,
		      const uint8_t (*new_gids)[16], uint32_t nnew)
{
	for (uint32_t i = 0; i < nold; i++)
		if (!eng_gid_in(new_gids, nnew, old[i].gid))
			return true;
	return false;
}
