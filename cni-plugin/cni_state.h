/* SPDX-License-Identifier: MIT */
/*
 * State per attachment under stateDir (default /var/lib/cni/podverbs):
 *   <network>@<containerID>@<ifname>.json   what ADD did (JSON)
 *   <network>@<containerID>@<ifname>.lock   flock(2) target
 *
 * Locking: every command takes the attachment's lock exclusively before
 * reading or changing its state, so an ADD, DEL, CHECK or GC of one
 * attachment never interleaves with another of the same, while different
 * containers proceed in parallel.  Whoever removes an attachment unlinks
 * the lock file while holding it; a waiter that then gets the lock notices
 * that its file is no longer the one at the path and retries.  The JSON is
 * replaced by rename, so a crash leaves either the old or the new state.
 *
 * ADD writes the state with phase "adding" (with the namespace's identity,
 * the interface and the intended device name) before it creates anything,
 * so a crash half-way leaves a record that DEL, GC and a retried ADD clean
 * up, finding the device through the claim (cni_claim.h) when the crash
 * came before its id was written.
 */
#ifndef CNI_STATE_H
#define CNI_STATE_H

#include <stdint.h>

#include "cni-plugin/cni_conf.h"
#include "cni-plugin/cni_env.h"

#define CNI_STATE_KEY_MAX	(CNI_NETNAME_MAX + CNI_CONTAINERID_MAX + \
				 CNI_IFNAME_MAX + 8)

enum cni_phase {
	CNI_PHASE_ADDING = 0,	/* ADD began; device may or may not exist */
	CNI_PHASE_READY,	/* ADD completed */
};

struct cni_state {
	char network[CNI_NETNAME_MAX];
	char containerid[CNI_CONTAINERID_MAX + 1];
	char ifname[CNI_IFNAME_MAX];
	char netns[CNI_NETNS_MAX];
	/* Identity (st_dev, st_ino) of netns when ADD began; 0 in records
	 * of older plugins.  With ifname it names the claim (cni_claim.h). */
	uint64_t netns_dev;
	uint64_t netns_ino;
	enum cni_phase phase;
	enum cni_mode mode;
	/* soft mode */
	char engine_socket[PV_PATH_MAX];
	char admin_socket[PV_PATH_MAX];	/* "": beside engine_socket */
	char device_name[CNI_DEVNAME_MAX];
	uint32_t dev_id;		/* 0 until the engine answered */
	uint16_t pkey;
	/* kernel mode */
	char kernel_device[CNI_KDEV_MAX];
	uint32_t kernel_index;		/* RDMA device index */
	int moved;			/* it is in the pod's namespace */
};

/* Pure: "<network>@<cid>@<ifname>"; -ENAMETOOLONG if it does not fit. */
int cni_state_key(const char *network, const char *cid, const char *ifname,
		  char *buf, size_t cap);

/* Pure: JSON text of a state (caller frees) and back. */
char *cni_state_to_json(const struct cni_state *st);
int cni_state_from_json(const char *text, struct cni_state *ret_st);

/* Creates dir (and parents) with mode 0700 where missing. */
int cni_state_mkdir(const char *dir);

/* Takes the attachment's lock; returns the lock fd (close to unlock). */
int cni_state_lock(const char *dir, const char *key);

/* Reads the state; -ENOENT when there is none, -EBADMSG when corrupt. */
int cni_state_read(const char *dir, const char *key, struct cni_state *ret_st);

/* Writes the state atomically (temp file, fsync, rename). */
int cni_state_write(const char *dir, const char *key,
		    const struct cni_state *st);

/* Removes the state and lock files (lock held by lock_fd, closed here). */
int cni_state_remove(const char *dir, const char *key, int lock_fd);

/*
 * Calls fn for the key of every state file of network in dir, in no
 * particular order.  Stops at the first negative return of fn and returns
 * it; 0 when done (also when dir does not exist).
 */
int cni_state_each(const char *dir, const char *network,
		   int (*fn)(const char *key, void *arg), void *arg);

#endif /* CNI_STATE_H */
