/* SPDX-License-Identifier: MIT */
/*
 * Type checks of fds a client passes with a request, before any handler
 * uses one: an op's fds must be what pv_ipc_req_fds() says it takes.
 */
#ifndef ENG_FDCHECK_H
#define ENG_FDCHECK_H

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/proto/pv_ipc_ops.h"

/* 0 if fd is of kind, else -EBADF (PV_IPC_FD_NONE: never).  Only
 * fstat/fstatfs/fcntl/ioctl queries, none of which can block. */
int eng_fd_check(int fd, enum pv_ipc_fd_kind kind);

#endif /* ENG_FDCHECK_H */
