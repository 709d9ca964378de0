/* SPDX-License-Identifier: MIT */
/*
 * The uverbs command encoders and runners (lv_cmd_write.c, lv_cmd_ioctl.c)
 * behind the exported ibv_cmd_* family.  Runners return 0 or a positive
 * errno, as rdma-core's ibv_cmd_* do.
 */
#ifndef LV_CMD_H
#define LV_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "libverbs/lv_kern_abi.h"

/* Pure: fill the header(s) of a write command; -EINVAL for sizes the
 * ABI cannot express (not whole words, or too many). */
int lv_cmd_encode(void *req, size_t req_size, uint32_t command,
		  size_t resp_size);
int lv_cmd_encode_ex(void *req, size_t core_req, size_t req_size,
		     uint32_t command, void *resp, size_t core_resp,
		     size_t resp_size);

/* Copies core (core_size bytes, response address set) after the header
 * of req (the provider's buffer, or a local one when req is NULL or too
 * small), encodes and writes it on c's cmd fd. */
int lv_cmd_write(struct ibv_context *c, uint32_t command, void *req,
		 size_t req_size, const void *core, size_t core_size,
		 void *resp, size_t resp_size);
int lv_cmd_write_ex(struct ibv_context *c, uint32_t command, void *req,
		    size_t req_size, const void *core, size_t core_size,
		    void *resp, size_t core_resp, size_t resp_size);

/* Pure: the ioctl header of a command buffer chain, attributes of linked
 * buffers appended to the first's array (execute_ioctl). */
int lv_ioctl_finalize(struct ibv_command_buffer *cmd, uint32_t driver_id);

#endif /* LV_CMD_H */
