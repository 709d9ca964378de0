/* SPDX-License-Identifier: MIT */
/*
 * The engine's Prometheus endpoint (podverbsd --metrics-listen
 * ADDR:PORT; off by default): text exposition format 0.0.4 at /metrics,
 * served by the loop thread itself, never blocking it: non-blocking
 * accept, read and write; a request head of at most metrics_req_bytes;
 * at most metrics_conns connections (more are closed at accept); every
 * connection closed metrics_timeout_ms after its accept, answered or
 * not (a slow scraper is dropped); one answer per connection
 * (Connection: close).  Labels: device, dev_id, netns, and pod_namespace
 * and pod_name where the CNI passed them at ADM_DEV_ADD.
 */
#ifndef ENG_METRICS_H
#define ENG_METRICS_H

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_prom_fmt.h"

/* Parses "ADDR:PORT" ("[v6]:PORT" for IPv6; ADDR may be empty for any
 * IPv4 address) into *ss / *len.  0 or -EINVAL.  Pure. */
struct sockaddr_storage;
int eng_metrics_addr_parse(const char *s, struct sockaddr_storage *ss,
			   unsigned *len);

/* True for 127.0.0.0/8 and ::1 (a parsed address).  Pure. */
bool eng_metrics_addr_loopback(const struct sockaddr_storage *ss);

/*
 * Opens the listener on addr (before confinement).  With token_file,
 * every request must carry "Authorization: Bearer <its token>" (else
 * 401, counted in metrics_unauthorized); the file is read now and again
 * whenever its identity, size or mtime changes (checked each timer
 * tick; a Secret's atomic swap is seen).  Without token_file, a
 * non-loopback addr is -EACCES unless insecure.  0 or -errno.
 */
int eng_metrics_listen(struct eng *e, const char *addr,
		       const char *token_file, bool insecure);
void eng_metrics_fini(struct eng *e);

/* eng_metrics_body.c: the exposition of e's counters into b. */
void eng_metrics_body(struct eng *e, struct eng_prom_buf *b);

#endif /* ENG_METRICS_H */
