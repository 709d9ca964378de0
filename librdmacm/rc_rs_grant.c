/* SPDX-License-Identifier: MIT */
/* The sender's side of the peer's buffer grants (rc_rs_grant.h). */
#include <errno.h>
#include <string.h>

#include "librdmacm/rc_rs_grant.h"

void rc_rs_grants_init(struct rc_rs_grants *g, struct rc_rs_sge first)
{
	/* The private data's check bounds it already (rc_rs_conn_decode). */
	if (first.length > RC_RS_MSG_DATA_MASK)
		first.length = RC_RS_MSG_DATA_MASK;
	g->cur = first;
	g->next = 1 % RC_RS_SGL_SIZE;
	g->ready = 0;
}

int rc_rs_grants_arrived(struct rc_rs_grants *g, uint32_t len)
{
	if (len == 0)
		return 0;
	if (len != sizeof(struct rc_rs_sge) || g->ready >= RC_RS_SGL_SIZE)
		return -EPROTO;
	g->ready++;
	return 0;
}

uint32_t rc_rs_grants_left(struct rc_rs_grants *g,
			   const struct rc_rs_sge *tsgl, bool swap)
{
	struct rc_rs_sge e;

	if (g->cur.length || !g->ready)
		return g->cur.length;
	/* One read of the entry; only the copy is used from here. */
	memcpy(&e, &tsgl[g->next], sizeof(e));
	e = rc_rs_sge_from_peer(e, swap);
	/* The peer's own memory, reached only through its rkey: all we
	 * bound is the size, so a DATA length fits the immediate. */
	if (e.length > RC_RS_MSG_DATA_MASK)
		e.length = RC_RS_MSG_DATA_MASK;
	g->cur = e;
	g->ready--;
	g->next = (g->next + 1) % RC_RS_SGL_SIZE;
	return e.length;
}

void rc_rs_grants_use(struct rc_rs_grants *g, uint32_t n, uint64_t *addr,
		      uint32_t *key)
{
	if (n > g->cur.length)
		n = g->cur.length;	/* callers stay within; never past */
	*addr = g->cur.addr;
	*key = g->cur.key;
	g->cur.addr += n;
	g->cur.length -= n;
}
