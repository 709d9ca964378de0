/* SPDX-License-Identifier: MIT */
/*
 * The IB CM MAD codec: struct eng_cm_msg (eng_cm_msg.h) to and from the
 * 256 bytes of a CM MAD as carried in a UD packet to QP1 (IBA vol 1
 * §13.4.2 header, §12.6 bodies).  Pure: no I/O, no allocation.
 *
 * Decode reads exactly ENG_CM_MAD_SIZE bytes of a buffer the caller has
 * already copied into engine memory and never reads past it.  Errors
 * (each a distinct counter for the caller):
 *   -EMSGSIZE    length is not ENG_CM_MAD_SIZE
 *   -EPROTO      base version or management class is not the CM's
 *   -EPROTONOSUPPORT class version is not 2 (hdr is filled: a Get may be
 *                answered with status ENG_CM_MAD_STATUS_BAD_VERSION)
 *   -EOPNOTSUPP  attribute or method we do not serve (a Get of anything
 *                but ClassPortInfo, a CM message not sent with Send, an
 *                attribute not the CM's); hdr is filled
 *   -EINVAL      a length field in the body exceeds its array
 * Reserved bits are ignored on receive and written as zero.
 */
#ifndef ENG_CM_MAD_H
#define ENG_CM_MAD_H

#include <stddef.h>
#include <stdint.h>

#include "providers/soft/engine/eng_cm_msg.h"

/* Encode msg into out (out_len >= ENG_CM_MAD_SIZE).  base version, class
 * and class version are always the CM's; method, status, tid, attr_id
 * and attr_mod come from msg->hdr.  -EINVAL if a value does not fit its
 * field or a private-data length exceeds its field; -EOPNOTSUPP for an
 * attribute we do not encode; -ENOSPC if out is too short. */
int eng_cm_mad_encode(const struct eng_cm_msg *msg, uint8_t *out, size_t out_len);

/* Decode buf[0..len) into *out (fully overwritten). */
int eng_cm_mad_decode(const uint8_t *buf, size_t len, struct eng_cm_msg *out);

/* The GetResp to a decoded Get: the ClassPortInfo cpi for a Get of
 * ClassPortInfo, else the same attribute with status
 * ENG_CM_MAD_STATUS_UNSUP_METHOD_ATTR and an empty body (IBA 13.4.7).
 * bad_version selects status ENG_CM_MAD_STATUS_BAD_VERSION instead. */
void eng_cm_mad_get_resp(const struct eng_cm_mad_hdr *get,
			 const struct eng_cm_class_port_info *cpi,
			 int bad_version, struct eng_cm_msg *resp);

/* The CM's ClassPortInfo as we advertise it: base/class version, no
 * redirection, no traps, resp_time_value as given (5 bits; the kernel
 * uses 20 = ~4 s for its CM's response time). */
void eng_cm_mad_class_port_info(uint8_t resp_time_value,
				struct eng_cm_class_port_info *cpi);

/* Semantic checks of a decoded REQ that the passive side answers with a
 * REJ: 0 if acceptable, else the enum eng_cm_rej_reason to send (RC/UC
 * only, QPN non-zero, path MTU 1..5, a GRH hop limit, ...). */
int eng_cm_req_check(const struct eng_cm_req *req);

/* The name of an attribute ("REQ", "REP", ...) for logs; "?" if unknown. */
const char *eng_cm_attr_name(uint16_t attr_id);

#endif /* ENG_CM_MAD_H */
