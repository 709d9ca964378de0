/* SPDX-License-Identifier: MIT */
/*
 * The engine's device state file: what lets a restarted engine (a crash,
 * an upgrade of the DaemonSet) bring back every pod's device with the
 * same id, name, node GUID and P_Key, so applications can reopen it and
 * the CNI plugin's DEL still finds it (by id, name, ifname and netns).
 *
 * Each change of the device set (ADM_DEV_ADD, ADM_DEV_DEL), and each
 * change of a recorded device's GID table (the GIDs a restart holds for
 * it; the entry again, which replaces the old one), is appended
 * to a journal beside it (PATH.journal, one JSON line per change, then
 * fdatasync) before the request is answered, so a change costs the same
 * whatever the number of devices.  Once the journal holds as many lines
 * as there are devices, the file is written whole (compaction: a temp
 * file in the same folder, fsync, rename over the old one, fsync of the
 * folder) and the journal emptied; the cost of a compaction is spread
 * over as many changes as it writes devices.  A crash leaves the old or
 * the new file, never a mix, and a journal whose every complete line is
 * a change that was answered (a torn last line was never answered and
 * is ignored); a crash between the rename and the truncation replays
 * lines already in the file, which is harmless (an add replaces the
 * entry of the same id, a delete of an absent id does nothing).
 * Anything that later changes a device's identity must call
 * eng_state_save.  The engine's own teardown on SIGTERM is not a
 * deletion and writes nothing.
 *
 * Read once at start-up, before the first client is served.  The file is
 * input this engine did not write: it is opened without following links,
 * must be a regular file of the engine's uid that nobody else can write,
 * at most ENG_STATE_FILE_MAX bytes of JSON, and every entry is checked on
 * its own (a bad entry is rejected with a log line and a counter; the
 * others are restored); the journal is read the same way and replayed
 * over the file, a bad line rejected on its own.  Entries whose
 * namespace is gone, or is now another namespace (the (st_dev, st_ino)
 * of the path changed: a /proc/PID/ns/net of a reused pid), or whose
 * interface is gone, are dropped with a log line.  Then the file is
 * rewritten with what was restored, and the journal emptied.
 *
 * Format (version 1):
 *   {"version": 1, "nextId": N, "devices": [
 *     {"id": 1, "name": "rdma0", "ifname": "eth0",
 *      "netns": "/var/run/netns/x", "netnsDev": 4, "netnsIno": 4026532741,
 *      "pkey": 65535, "flags": 0, "guid": "0x...",
 *      "gids": ["00000000000000000000ffff0a4e0001", ...],
 *      "claims": ["00000000000000000000ffff0a4e0001"]}, ...]}
 * "claims" (optional, at most PV_GID_CLAIM_MAX) are the GIDs of the
 * addresses the CNI assigned to the attachment (ADM_DEV_ADD's claims,
 * eng_gid_own.h): without them a restored device would lose its claim to
 * a squatter holding its address once it let it go for a moment.
 * Unknown keys are ignored (a newer engine may add some).
 */
#ifndef ENG_STATE_H
#define ENG_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/netns.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/pv-soft-abi.h"

struct eng;

#define ENG_STATE_VERSION	1
/* Above what ENG_DEVICES_HARD_MAX entries take (~300 bytes each, up to
 * ~1.5 KiB with a full GID table and claims). */
#define ENG_STATE_FILE_MAX	(8 * 1024 * 1024)
#define ENG_STATE_DEVS_MAX	ENG_DEVICES_HARD_MAX
/* The node's engine (on PV_IPC_DEFAULT_SOCKET) keeps its state here by
 * default: /run is cleared by a reboot, when every namespace is gone
 * anyway, and survives the engine's container.  Not under /run/podverbs,
 * which pods see (the device plugin mounts it). */
#define ENG_STATE_DEFAULT_PATH	"/run/podverbs-engine/devices.json"

/* One device as the file keeps it. */
struct eng_state_dev {
	uint32_t id;
	char name[PV_NAME_MAX];
	char ifname[PV_IFNAME_MAX];
	char netns_path[PV_PATH_MAX];	/* "" = the engine's namespace */
	struct netns_id ns;
	uint16_t pkey;
	uint32_t flags;
	uint64_t guid;
	/* The GIDs it owned: held for it while devices are restored, so a
	 * device restored earlier that wants one too (a pod that added its
	 * neighbour's address) cannot take it (eng_gid_own.h). */
	uint32_t gid_count;
	struct pv_ipc_gid_entry gid[PV_GID_TABLE_MAX];
	/* The GIDs its attachment claims (eng_dev.claim[]). */
	uint32_t claim_count;
	uint8_t claim[PV_GID_CLAIM_MAX][16];
	/* The pod (metrics labels; "podNamespace"/"podName", optional). */
	char pod_ns[PV_POD_NS_MAX];
	char pod_name[PV_POD_NAME_MAX];
};

struct eng_state_doc {
	uint32_t next_id;		/* the id cursor; 0 when absent */
	uint32_t count;
	struct eng_state_dev dev[ENG_STATE_DEVS_MAX];
	uint32_t rejected;		/* entries refused by the parser */
};

/* Called for each refused entry (index in the file's array, or -1 for
 * the file as a whole) with a reason, for the caller to log. */
typedef void (*eng_state_reject_fn)(void *arg, long index,
				    const char *why);

/*
 * Pure (eng_state_json.c).  Parses len bytes of text (no NUL needed)
 * into *doc: 0 with the valid entries (doc->rejected counts the others;
 * reject() hears of each, at most ENG_STATE_REJECTS_LOGGED times plus a
 * summary), or -EBADMSG when the text as a whole is not a state file
 * (reject() is told why, with index -1).
 */
#define ENG_STATE_REJECTS_LOGGED 16
int eng_state_parse(const char *text, size_t len, struct eng_state_doc *doc,
		    eng_state_reject_fn reject, void *arg);
/* The JSON text of doc (malloc'd, NUL-terminated), or NULL. */
char *eng_state_format(const struct eng_state_doc *doc);
/* One journal line (malloc'd, ending in '\n'): {"add": ENTRY} for added,
 * else {"del": removed_id}; with "nextId" unless next_id is 0. */
char *eng_state_format_line(const struct eng_state_dev *added,
			    uint32_t removed_id, uint32_t next_id);
/* Replays the journal's len bytes of text over *doc (an add replaces the
 * entry of its id, a delete drops it; a last line without its newline is
 * ignored).  Bad lines are counted in doc->rejected and told to reject();
 * returns how many. */
int eng_state_journal_apply(const char *text, size_t len,
			    struct eng_state_doc *doc,
			    eng_state_reject_fn fn, void *arg);

/* eng_state.c: I/O, on the engine's loop thread. */

/* Where the state lives; NULL or "" keeps none.  Takes a lock beside the
 * file (PATH.lock) so two engines never share one: -EBUSY if another
 * holds it.  Creates the folder (0700) when missing. */
int eng_state_open(struct eng *e, const char *path);
void eng_state_close(struct eng *e);
/* Restores the devices of the file (see above) and rewrites it; a
 * missing file is an empty state.  Never fails the engine: problems are
 * logged and counted.  Returns the number of devices restored. */
int eng_state_restore(struct eng *e);
/* Writes the current device set whole and empties the journal; logs and
 * counts a failure (the next change tries again).  0 or -errno; a no-op
 * without a state file. */
int eng_state_save(struct eng *e);

#endif /* ENG_STATE_H */
