/* SPDX-License-Identifier: MIT */
/*
 * podverbs: the CNI plugin binary.  Reads the network configuration from
 * stdin and CNI_* from the environment, confines itself, runs one command
 * and prints its result, or an error result and exits 1 (CNI spec,
 * "Execution Protocol").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_result.h"
#include "cni-plugin/cni_seccomp.h"

#define STDIN_MAX	(1024 * 1024)

static const char *env_get(const char *name)
{
	return getenv(name);
}

static int read_stdin(char **ret_buf, size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap) {
			char *bigger = cap < STDIN_MAX ?
				realloc(buf, cap * 2 + 1) : NULL;

			if (!bigger) {
				free(buf);
				return -EFBIG;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

/* Commands newer than a config's cniVersion are refused (as libcni's skel
 * does): CHECK came with 0.4.0, GC and STATUS with 1.1.0. */
static int check_version_gate(struct cni_ctx *ctx)
{
	enum cni_ver need = CNI_V_0_3_0;

	if (ctx->env.cmd == CNI_CMD_CHECK)
		need = CNI_V_0_4_0;
	else if (ctx->env.cmd == CNI_CMD_GC || ctx->env.cmd == CNI_CMD_STATUS)
		need = CNI_V_1_1_0;
	if (ctx->conf.ver < need)
		return cni_fail(&ctx->err, CNI_ERR_INCOMPATIBLE_VERSION,
				"%s needs cniVersion %s or later, the config has %s",
				cni_cmd_name(ctx->env.cmd), cni_version_str(need),
				ctx->conf.version);
	if (ctx->env.cmd != CNI_CMD_STATUS && !ctx->conf.name[0])
		return cni_fail(&ctx->err, CNI_ERR_INVALID_CONFIG,
				"network config: \"name\" is missing");
	return 0;
}

static int prepare(struct cni_ctx *ctx, const char *in, size_t len)
{
	const char *no_sc = getenv("PODVERBS_CNI_NO_SECCOMP");
	int ret;

	if (cni_env_read(&ctx->env, env_get, &ctx->err) < 0 ||
	    cni_conf_parse(&ctx->conf, in, len, &ctx->err) < 0 ||
	    check_version_gate(ctx) < 0)
		return -EINVAL;
	cni_conf_defaults(&ctx->conf, ctx->env.ifname,
			  getenv(PV_IPC_SOCKET_ENV));
	if (no_sc && !strcmp(no_sc, "1"))
		return 0;
	ret = cni_seccomp_confine();
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_IO,
				"installing the seccomp filter failed: %s",
				strerror(-ret));
	return 0;
}

static int dispatch(struct cni_ctx *ctx)
{
	switch (ctx->env.cmd) {
	case CNI_CMD_ADD:
		return cni_cmd_add(ctx);
	case CNI_CMD_DEL:
		return cni_cmd_del(ctx);
	case CNI_CMD_CHECK:
		return cni_cmd_check(ctx);
	case CNI_CMD_GC:
		return cni_cmd_gc(ctx);
	case CNI_CMD_STATUS:
		return cni_cmd_status(ctx);
	default:
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"CNI_COMMAND not handled");
	}
}

static int print_out(const char *text)
{
	if (!text)
		return 0;
	if (fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF ||
	    fflush(stdout) == EOF)
		return -EIO;
	return 0;
}

static int report_error(const struct cni_ctx *ctx, const char *version)
{
	char *text = cni_result_error(version, &ctx->err);

	fprintf(stderr, "podverbs: %s: %s\n",
		ctx->env.command ? ctx->env.command : "-", ctx->err.msg);
	print_out(text);
	free(text);
	return 1;
}

int main(void)
{
	struct cni_ctx ctx;
	char vbuf[16], *in = NULL;
	const char *version = NULL;
	size_t len = 0;
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	ret = read_stdin(&in, &len);
	if (ret < 0) {
		cni_fail(&ctx.err, CNI_ERR_IO, "reading stdin failed: %s",
			 strerror(-ret));
		return report_error(&ctx, NULL);
	}
	version = cni_conf_peek_version(in, len, vbuf, sizeof(vbuf));
	if (cni_env_command(&ctx.env, env_get, &ctx.err) < 0)
		goto err_report;
	if (ctx.env.cmd == CNI_CMD_VERSION) {
		char *text = cni_result_version(version);

		ret = print_out(text);
		free(text);
		free(in);
		return ret < 0;
	}
	if (prepare(&ctx, in, len) < 0 || dispatch(&ctx) < 0)
		goto err_report;
	if (print_out(ctx.out) < 0) {
		cni_fail(&ctx.err, CNI_ERR_IO, "writing the result failed");
		goto err_report;
	}
	free(ctx.out);
	cni_conf_free(&ctx.conf);
	free(in);
	return 0;

err_report:
	ret = report_error(&ctx, version);
	free(ctx.out);
	cni_conf_free(&ctx.conf);
	free(in);
	return ret;
}
