/* SPDX-License-Identifier: MIT */
/*
 * The RPC handlers: decode a request (protobuf-c), answer it from the pool
 * state, encode the reply as a gRPC byte buffer.  No transport here.
 */
#ifndef DP_RPC_H
#define DP_RPC_H

#include <grpc/grpc.h>
#include <grpc/status.h>
#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

#include "device-plugin/dp_daemon.h"

enum dp_method {
	DP_M_GET_OPTIONS,
	DP_M_LIST_AND_WATCH,
	DP_M_PREFERRED,
	DP_M_ALLOCATE,
	DP_M_PRESTART,
	DP_M_REG_GET_INFO,
	DP_M_REG_NOTIFY,
	DP_M_COUNT,
};

/* Packs any protobuf-c message into a new byte buffer (caller destroys). */
grpc_byte_buffer *dp_rpc_pack(const ProtobufCMessage *msg);

/* Full gRPC method path, e.g. "/v1beta1.DevicePlugin/Allocate". */
const char *dp_rpc_method_path(enum dp_method m);

/*
 * Answers a unary method for pool i.  On GRPC_STATUS_OK *resp holds the
 * reply (caller destroys it); otherwise details says why.  Caller holds
 * dp->lock.
 */
grpc_status_code dp_rpc_unary(struct dp_daemon *dp, int i, enum dp_method m,
			      grpc_byte_buffer *req, grpc_byte_buffer **resp,
			      char *details, size_t cap);

/* The ListAndWatchResponse of pool i's current list; NULL on ENOMEM.
 * Caller holds dp->lock. */
grpc_byte_buffer *dp_rpc_list(struct dp_daemon *dp, int i);

#endif /* DP_RPC_H */
