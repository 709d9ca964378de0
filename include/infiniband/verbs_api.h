/* SPDX-License-Identifier: MIT */
/*
 * <infiniband/verbs_api.h> as rdma-core 44 installs it: RDMA_UAPI_PTR, a
 * user pointer in a 64-bit ABI slot (the same layout for 32- and 64-bit
 * processes), and the kernel uAPI names of <infiniband/ib_user_ioctl_verbs.h>.
 *
 * rdma-core also defines here the ibv_ names of some uAPI types (flow
 * action ESP, advise_mr) as macros for the ib_uverbs_ ones; our verbs.h
 * declares those ibv_ types itself, with the same layout and values
 * (tests/abi/verbs_layout.sh), so they are not aliased here.
 */
#ifndef VERBS_API_H
#define VERBS_API_H

#include <stdint.h>
#include <endian.h>

#if UINTPTR_MAX == UINT64_MAX
#define RDMA_UAPI_PTR(_type, _name)                                            \
	union {                                                                \
		_type _name;                                                   \
		__aligned_u64 _name##_data_u64;                                \
	}
#elif __BYTE_ORDER == __LITTLE_ENDIAN
#define RDMA_UAPI_PTR(_type, _name)                                            \
	union {                                                                \
		struct {                                                       \
			_type _name;                                           \
			__u32 _name##_reserved;                                \
		};                                                             \
		__aligned_u64 _name##_data_u64;                                \
	}
#else
#define RDMA_UAPI_PTR(_type, _name)                                            \
	union {                                                                \
		struct {                                                       \
			__u32 _name##_reserved;                                \
			_type _name;                                           \
		};                                                             \
		__aligned_u64 _name##_data_u64;                                \
	}
#endif

#include <infiniband/ib_user_ioctl_verbs.h>

#endif /* VERBS_API_H */
