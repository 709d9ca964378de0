/* SPDX-License-Identifier: MIT */
/* Shared by the two halves of the test_eng_qp_fsm binary: names for states
 * and types, a valid attribute set, and the one-call checker. */
#ifndef TEST_ENG_QP_FSM_H
#define TEST_ENG_QP_FSM_H

#include <stdint.h>
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_qp_fsm.h"

#define RESET	IBV_QPS_RESET
#define INIT	IBV_QPS_INIT
#define RTR	IBV_QPS_RTR
#define RTS	IBV_QPS_RTS
#define SQD	IBV_QPS_SQD
#define SQE	IBV_QPS_SQE
#define ERR	IBV_QPS_ERR

#define RC	IBV_QPT_RC
#define UC	IBV_QPT_UC
#define UD	IBV_QPT_UD

/* Every attribute mask bit rdma-core 44 defines. */
#define ALL_KNOWN_BITS	((uint32_t)((1u << 21) - 1) | IBV_QP_RATE_LIMIT)

extern const uint32_t types[3];

struct pv_ipc_qp_attr good_attr(uint32_t cur, uint32_t next);
struct eng_qp_fsm_in make_in(uint32_t type, uint32_t cur, uint32_t mask,
			    const struct pv_ipc_qp_attr *a);
/* Fails the running test, naming the case, unless the check returns want. */
void check_modify(uint32_t type, uint32_t cur, uint32_t next, uint32_t mask,
		  int want);

void test_eng_qp_fsm__cur_state_attr(void **state);
void test_eng_qp_fsm__value_ranges(void **state);
void test_eng_qp_fsm__device_limits_from_input(void **state);
void test_eng_qp_fsm__next_state(void **state);
void test_eng_qp_fsm__full_lifecycle(void **state);
void test_eng_qp_fsm__cap_check(void **state);
void test_eng_qp_fsm__cap_grant_examples(void **state);
void test_eng_qp_fsm__cap_grant_never_below_request(void **state);

#endif /* TEST_ENG_QP_FSM_H */
