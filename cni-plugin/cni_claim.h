/* SPDX-License-Identifier: MIT */
/*
 * Claims: which attachment owns the engine device of one pod interface.
 *
 *   <stateDir>/netns-<dev>-<ino>@<ifname>.claim   holds the owner's state key
 *
 * The engine allows one device per (namespace identity, interface), so the
 * pair names a device even before the engine has told us its id.  ADD
 * takes the claim (atomically, by link(2) of a complete temp file) before
 * it asks the engine, and keeps it until DEL.  A DEL or retried ADD that
 * finds its own record still "adding" with no device id (the plugin died
 * between the engine's answer and the state write) may then look the
 * device up by (namespace, interface) and delete it: the claim proves no
 * other attachment of ours asked for a device there.  Devices made by
 * something else (pvctl, a plugin with another stateDir) are kept out by
 * ADD checking the engine after taking the claim.
 *
 * Callers hold the attachment's state lock (cni_state.h), so the temp file
 * name, derived from the key, is theirs alone.
 */
#ifndef CNI_CLAIM_H
#define CNI_CLAIM_H

#include <stddef.h>

#include "cni-plugin/cni_state.h"

/* Pure: "netns-<dev>-<ino>@<ifname>.claim"; -ENAMETOOLONG if too long. */
int cni_claim_name(const struct cni_state *st, char *buf, size_t cap);

/*
 * Takes st's claim for key.  0: taken now; 1: it already was key's (left
 * by an ADD that died); -EEXIST: another attachment's, whose key is put in
 * owner (cap bytes); other -errno on I/O errors.
 */
int cni_claim_take(const char *dir, const struct cni_state *st,
		   const char *key, char *owner, size_t cap);

/* 1 if st's claim is key's, else 0. */
int cni_claim_is_ours(const char *dir, const struct cni_state *st,
		      const char *key);

/* Replaces another attachment's claim that turned out stale. */
int cni_claim_replace(const char *dir, const struct cni_state *st,
		      const char *key);

/* Removes st's claim if it is key's; nothing otherwise. */
void cni_claim_drop(const char *dir, const struct cni_state *st,
		    const char *key);

#endif /* CNI_CLAIM_H */
