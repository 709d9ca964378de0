/* SPDX-License-Identifier: MIT */
/*
 * Old names of the kernel's SA path record (<rdma/ib_user_sa.h>), as
 * rdma-core 44 still installs them.  Like rdma-core's, this header is
 * obsolete: new code includes <rdma/ib_user_sa.h>.
 */
#ifndef INFINIBAND_SA_KERN_ABI_H
#define INFINIBAND_SA_KERN_ABI_H

#warning "This header is obsolete, use rdma/ib_user_sa.h instead"

#include <rdma/ib_user_sa.h>

#define ib_kern_path_rec ib_user_path_rec
#define ibv_kern_path_rec ib_user_path_rec

#endif /* INFINIBAND_SA_KERN_ABI_H */
