/* SPDX-License-Identifier: MIT */
/*
 * Per-device (= per pod) shares of the engine's finite resources (issue
 * 8, finding 6): the fds the engine holds for a device's clients
 * (completion channels, doorbells, rings not yet passed), the mappings
 * it makes for them (one per MR, one per ring) and the bytes they
 * register (a memlock-like limit).  One pod exhausting any of them must
 * be refused at its own limit while other pods carry on.
 *
 * Each device may use at most its limit (eng_limits.h: max_dev_fds,
 * max_dev_maps, max_dev_mr_mb, max_dev_ring_mb), and never more than half of what is
 * shared; all devices together may use the engine's total less a
 * reserve, so that no pod ever takes the last fd or mapping (the engine
 * needs some for connections, devices and admin).  Totals
 * come from RLIMIT_NOFILE and vm.max_map_count, read on first use (after
 * the engine raised its fd limit) and, for ring bytes, half the
 * machine's memory; the reserve is a quarter of the fds
 * (at least 256) and an eighth of the mappings (at least 1024).
 *
 * Usage is kept per connection and summed per device; when a device is
 * deleted under a connection, eng_quota_detach moves the connection's
 * usage off the device, so later releases never touch it.
 */
#ifndef ENG_QUOTA_H
#define ENG_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

enum eng_quota_kind {
	ENG_QUOTA_FDS,
	ENG_QUOTA_MAPS,
	ENG_QUOTA_MR_BYTES,
	/* Bytes of rings (QP, CQ, SRQ, context pages) the engine creates in
	 * its own memfds for a device's clients, and of its QP state: memory
	 * charged to the engine, not the pod, only touched when used, but a
	 * 4M-CQE CQ may use 256 MiB (issue 14). */
	ENG_QUOTA_RING_BYTES,
	ENG_QUOTA_KINDS
};

struct eng_quota {
	uint64_t used[ENG_QUOTA_KINDS];
};

struct eng_conn;

/* Pure: may a device using dev_used, in an engine whose devices use
 * all_used of total (less reserve), take n more with limit dev_limit? */
bool eng_quota_fits(uint64_t dev_used, uint64_t all_used, uint64_t n,
		    uint64_t dev_limit, uint64_t total, uint64_t reserve);

/* Charges n of kind to c and its device.  0, or -EMFILE (fds) / -ENOMEM
 * (mappings, bytes) with the quota counters bumped. */
int eng_quota_take(struct eng_conn *c, enum eng_quota_kind kind, uint64_t n);
void eng_quota_put(struct eng_conn *c, enum eng_quota_kind kind, uint64_t n);
/* Moves n of kind charged to from over to to, both of one device (or
 * both of none): an object changing hands.  Never refused. */
void eng_quota_move(struct eng_conn *from, struct eng_conn *to,
		    enum eng_quota_kind kind, uint64_t n);
/* c's device is going away: its usage leaves the device's sum. */
void eng_quota_detach(struct eng_conn *c);

#endif /* ENG_QUOTA_H */
