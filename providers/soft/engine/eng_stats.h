/* SPDX-License-Identifier: MIT */
/* Engine counters, declared once; ADM_STATS sends them by name. */
#ifndef ENG_STATS_H
#define ENG_STATS_H

#include <stdint.h>

#define ENG_STATS(X)			\
	X(clients_accepted)		\
	X(clients_closed)		\
	X(clients_rejected)		\
	X(clients_live)			\
	X(requests)			\
	X(msgs_malformed)		\
	X(msgs_unknown_op)		\
	X(requests_denied)		\
	X(requests_failed)		\
	X(limit_hits)			\
	X(replies_dropped)		\
	X(events_sent)			\
	X(events_dropped)		\
	X(devices_added)		\
	X(devices_removed)		\
	X(devices_live)			\
	X(objects_created)		\
	X(objects_destroyed)		\
	X(objects_live)			\
	X(link_events)			\
	X(gid_changes)			\
	X(port_state_changes)

enum eng_stat {
#define ENG_STAT_ENUM(n) ENG_STAT_##n,
	ENG_STATS(ENG_STAT_ENUM)
#undef ENG_STAT_ENUM
	ENG_STAT_COUNT
};

extern uint64_t eng_stats[ENG_STAT_COUNT];

#define eng_stat_inc(n)		(eng_stats[ENG_STAT_##n]++)
#define eng_stat_dec(n)		(eng_stats[ENG_STAT_##n]--)

const char *eng_stat_name(enum eng_stat s);

#endif /* ENG_STATS_H */
