/* SPDX-License-Identifier: MIT */
/*
 * The values the IPC ABI keeps as its own enums although verbs.h has them
 * (pv-soft-abi.h: pvctl and the ABI headers build without verbs.h), and
 * the engine's limit-shaped constants, each checked against what it
 * mirrors: at compile time (a mismatch does not build) and again here,
 * where a failure names the value.  Every other verbs value the engine
 * uses comes from verbs.h itself (tests/abi/engine_values.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/pv-soft-abi.h"

#define SAME(ours, verbs) { #ours, (uint64_t)(ours), (uint64_t)(verbs) }

/* The provider copies these straight into ibv_port_attr and
 * ibv_gid_entry (soft_context.c). */
#define IPC_MIRRORS(X)					\
	X(PV_PORT_DOWN, IBV_PORT_DOWN)			\
	X(PV_PORT_INIT, IBV_PORT_INIT)			\
	X(PV_PORT_ARMED, IBV_PORT_ARMED)		\
	X(PV_PORT_ACTIVE, IBV_PORT_ACTIVE)		\
	X(PV_GID_TYPE_IB, IBV_GID_TYPE_IB)		\
	X(PV_GID_TYPE_ROCE_V1, IBV_GID_TYPE_ROCE_V1)	\
	X(PV_GID_TYPE_ROCE_V2, IBV_GID_TYPE_ROCE_V2)

#define ASSERT_SAME(ours, verbs) \
	_Static_assert((uint64_t)(ours) == (uint64_t)(verbs), #ours);
IPC_MIRRORS(ASSERT_SAME)

static const struct {
	const char *name;
	uint64_t ours, verbs;
} ipc_mirrors[] = {
#define ROW(ours, verbs) SAME(ours, verbs),
	IPC_MIRRORS(ROW)
#undef ROW
};

static void test_eng_values__ipc_enums_equal_verbs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ipc_mirrors) / sizeof(ipc_mirrors[0]);
	     i++) {
		if (ipc_mirrors[i].ours != ipc_mirrors[i].verbs)
			fail_msg("%s is %llu, verbs.h says %llu",
				 ipc_mirrors[i].name,
				 (unsigned long long)ipc_mirrors[i].ours,
				 (unsigned long long)ipc_mirrors[i].verbs);
	}
}

/* The port says what the requester enforces, in the IPC field's width. */
static void test_eng_values__limits_fit_their_fields(void **state)
{
	struct pv_ipc_port_attr pa = { .max_msg_sz = ENG_PORT_MAX_MSG_SZ };
	struct pv_ipc_dev_attr da = { .max_sge = ENG_SGE_MAX,
				      .max_inline_data = ENG_INLINE_MAX };
	struct eng_dp_swqe sw;

	(void)state;
	assert_int_equal(pa.max_msg_sz, 1ull << 31);
	assert_int_equal(da.max_sge, ENG_SGE_MAX);
	assert_int_equal(da.max_inline_data, ENG_INLINE_MAX);
	/* The engine's WQE copy holds the largest body a queue is granted. */
	assert_int_equal(sizeof(sw.sge) / sizeof(sw.sge[0]), ENG_SGE_MAX);
	assert_int_equal(sizeof(sw.inl), ENG_INLINE_MAX);
	/* QPNs: 24 bits (IBA 9.2), QP0/QP1 reserved, 0xffffff multicast. */
	assert_int_equal(ENG_BTH_24BIT_MASK, (1u << 24) - 1);
	assert_int_equal(ENG_QPN_MIN, 2);
	assert_int_equal(ENG_QPN_MAX, ENG_BTH_24BIT_MASK - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_values__ipc_enums_equal_verbs),
		cmocka_unit_test(test_eng_values__limits_fit_their_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
