/* SPDX-License-Identifier: MIT */
/*
 * The uverbs write ABI (linux/rdma/ib_user_verbs.h): a command is a
 * struct ib_uverbs_cmd_hdr (command, in_words and out_words in 4-byte
 * words, the whole request counted) followed by the core payload, whose
 * first field is the user address of the response, then the provider's
 * own data; an extended command adds struct ib_uverbs_ex_cmd_hdr and
 * counts 8-byte words of core and provider parts separately.  One
 * write(2) of the request on the cmd fd runs it.
 *
 * A provider passes its request buffer with room for our header and
 * core payload before its data (rdma-core's kern-abi.h layouts), or NULL
 * when it has none: then a zeroed local buffer takes the core only.
 * The encoders are pure (tests/unit/libverbs/test_lv_cmd.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"

int lv_cmd_encode(void *req, size_t req_size, uint32_t command,
		  size_t resp_size)
{
	struct ib_uverbs_cmd_hdr *h = req;

	if (req_size < sizeof(*h) || req_size % 4 || resp_size % 4 ||
	    req_size / 4 > UINT16_MAX || resp_size / 4 > UINT16_MAX)
		return -EINVAL;
	h->command = command;
	h->in_words = (uint16_t)(req_size / 4);
	h->out_words = (uint16_t)(resp_size / 4);
	return 0;
}

int lv_cmd_encode_ex(void *req, size_t core_req, size_t req_size,
		     uint32_t command, void *resp, size_t core_resp,
		     size_t resp_size)
{
	struct lv_ex_hdr *h = req;

	if (core_req < sizeof(*h) || req_size < core_req ||
	    resp_size < core_resp || (core_req - sizeof(*h)) % 8 ||
	    (req_size - core_req) % 8 || core_resp % 8 ||
	    (resp_size - core_resp) % 8 ||
	    (core_req - sizeof(*h)) / 8 > UINT16_MAX ||
	    core_resp / 8 > UINT16_MAX ||
	    (req_size - core_req) / 8 > UINT16_MAX ||
	    (resp_size - core_resp) / 8 > UINT16_MAX)
		return -EINVAL;
	h->hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command;
	h->hdr.in_words = (uint16_t)((core_req - sizeof(*h)) / 8);
	h->hdr.out_words = (uint16_t)(core_resp / 8);
	h->ex_hdr.provider_in_words = (uint16_t)((req_size - core_req) / 8);
	h->ex_hdr.provider_out_words = (uint16_t)((resp_size - core_resp) / 8);
	h->ex_hdr.response = (uintptr_t)resp;
	h->ex_hdr.cmd_hdr_reserved = 0;
	return 0;
}

/* Writes the request; 0 or a positive errno (the ibv_cmd_* convention). */
static int run(struct ibv_context *c, const void *req, size_t size)
{
	ssize_t n = write(c->cmd_fd, req, size);

	if (n == (ssize_t)size)
		return 0;
	return n < 0 ? errno : EIO;
}

/* Largest core request + header we build locally (create_qp_ex is 96). */
#define LV_CMD_LOCAL 256

int lv_cmd_write(struct ibv_context *c, uint32_t command, void *req,
		 size_t req_size, const void *core, size_t core_size,
		 void *resp, size_t resp_size)
{
	uint64_t local[LV_CMD_LOCAL / 8] = { 0 };
	size_t min = sizeof(struct ib_uverbs_cmd_hdr) + core_size;
	int ret;

	if (min > sizeof(local))
		return EINVAL;
	if (!req || req_size < min) {
		req = local;
		req_size = min;
	}
	memcpy((char *)req + sizeof(struct ib_uverbs_cmd_hdr), core, core_size);
	ret = lv_cmd_encode(req, req_size, command, resp_size);
	return ret < 0 ? -ret : run(c, req, req_size);
}

int lv_cmd_write_ex(struct ibv_context *c, uint32_t command, void *req,
		    size_t req_size, const void *core, size_t core_size,
		    void *resp, size_t core_resp, size_t resp_size)
{
	uint64_t local[LV_CMD_LOCAL / 8] = { 0 };
	size_t min = sizeof(struct lv_ex_hdr) + core_size;
	int ret;

	if (min > sizeof(local))
		return EINVAL;
	if (!req || req_size < min) {
		req = local;
		req_size = min;
	}
	memcpy((char *)req + sizeof(struct lv_ex_hdr), core, core_size);
	ret = lv_cmd_encode_ex(req, min, req_size, command, resp, core_resp,
			       resp_size);
	if (ret < 0)
		return -ret;
	/* The kernel fills only what it knows: the rest must read zero. */
	if (resp)
		memset(resp, 0, resp_size);
	return run(c, req, req_size);
}
