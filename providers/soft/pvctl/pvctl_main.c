/* SPDX-License-Identifier: MIT */
/*
 * pvctl: the operator's tool for the podverbs engine.  This file holds
 * the command table, the global options and the usage text built from
 * the table; each command lives in the file of its object (pvctl_dev.c,
 * pvctl_obj.c, pvctl_stats.c).  Every command today is an admin request
 * (root in the engine's network namespace only); the table says which
 * socket each needs so a pod-socket command can join without special
 * cases.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "providers/soft/pvctl/pvctl.h"

static const struct pvctl_cmd cmds[] = {
	{ "dev", "add", pvctl_dev_add, PVCTL_SOCK_ADMIN,
	  "--netns PATH --ifname IF [--name NAME] [--pkey P] [--claim IP]...\n"
	  "        [--pod NAMESPACE/NAME]",
	  "create a soft RDMA device on interface IF of the\n"
	  "namespace PATH (\"\" or omitted: the engine's own);\n"
	  "the GID of each --claim address is this device's\n"
	  "even if another device holds it; --pod labels\n"
	  "its metrics as the CNI's K8S_POD_* would" },
	{ "dev", "del", pvctl_dev_del, PVCTL_SOCK_ADMIN,
	  "NAME|ID [--netns PATH]",
	  "delete a device; a name used in several\n"
	  "namespaces needs --netns or the id" },
	{ "dev", "list", pvctl_dev_list, PVCTL_SOCK_ADMIN, "",
	  "devices with namespace, port state, MTU, GIDs" },
	{ "obj", "list", pvctl_obj_list, PVCTL_SOCK_ADMIN, "[DEV]",
	  "verbs objects of all devices or of DEV" },
	{ "stats", NULL, pvctl_stats, PVCTL_SOCK_ADMIN, "",
	  "engine counters" },
	{ "mr", NULL, pvctl_mr, PVCTL_SOCK_ADMIN, "[dev DEV]",
	  "registered memory per pod and client, peaks,\n"
	  "growth, each MR (misaligned ones flagged)" },
	{ "stat", "show", pvctl_stat_show, PVCTL_SOCK_ADMIN,
	  "[dev DEV] [qp N|all]",
	  "NIC-style counters of ports and QPs, as\n"
	  "`rdma statistic show` prints them" },
	{ "top", NULL, pvctl_top, PVCTL_SOCK_ADMIN,
	  "[dev DEV] [--interval MS] [--count N]",
	  "per-QP packet, byte and resend rates, live" },
	{ "sysfs", NULL, pvctl_sysfs, PVCTL_SOCK_ADMIN,
	  "--netns PATH --out DIR",
	  "write DIR/<dev>/ like /sys/class/infiniband/<dev>\n"
	  "for the devices of namespace PATH only" },
};

#define HELP_COL 23	/* where help text starts */

/* "  dev add SYNOPSIS" then its help at HELP_COL, on the same line when
 * the command is short enough. */
static void usage_cmd(FILE *out, const struct pvctl_cmd *cmd)
{
	const char *h = cmd->help;
	int n;

	n = fprintf(out, "  %s%s%s%s%s", cmd->noun, cmd->verb ? " " : "",
		    cmd->verb ? cmd->verb : "", cmd->synopsis[0] ? " " : "",
		    cmd->synopsis);
	if (n >= HELP_COL - 1) {
		fputc('\n', out);
		n = 0;
	}
	while (*h) {
		size_t len = strcspn(h, "\n");

		fprintf(out, "%*s%.*s\n", HELP_COL - n, "", (int)len, h);
		n = 0;
		h += len + (h[len] == '\n');
	}
}

static void usage(FILE *out)
{
	fprintf(out, "usage: pvctl [--admin-socket PATH | --socket PATH] "
		"[--json] COMMAND\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		usage_cmd(out, &cmds[i]);
	fprintf(out,
"\n"
"  -a, --admin-socket PATH\n"
"                       the engine's admin socket (default $%s, else\n"
"                       the one next to the pod socket's folder:\n"
"                       <folder>-admin/admin.sock, %s\n"
"                       for the default); admin commands go there,\n"
"                       served to root only\n"
"  -s, --socket PATH    the engine's pod socket, to find the admin\n"
"                       socket beside it (default $%s or %s)\n"
"      --print-admin-socket\n"
"                       print the admin socket path and exit\n"
"  -j, --json           machine-readable output (JSON)\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 ok, 1 request failed, 2 usage, 3 engine unreachable.\n",
		PV_IPC_ADMIN_SOCKET_ENV, PV_IPC_DEFAULT_ADMIN_SOCKET,
		PV_IPC_SOCKET_ENV, PV_IPC_DEFAULT_SOCKET);
}

/* The entry argv names (a one-word command, or NOUN VERB), or NULL. */
static const struct pvctl_cmd *cmd_find(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct pvctl_cmd *cmd = &cmds[i];

		if (strcmp(argv[0], cmd->noun) != 0)
			continue;
		if (!cmd->verb || (argc > 1 && !strcmp(argv[1], cmd->verb)))
			return cmd;
	}
	return NULL;
}

/* --admin-socket, else $PODVERBS_ADMIN_SOCKET (unless --socket names the
 * engine), else beside the pod socket. */
static void admin_socket_resolve(struct pvctl *c, bool socket_named)
{
	if (!c->admin_socket && socket_named &&
	    pv_ipc_admin_path_for(c->socket, c->admin_buf,
				  sizeof(c->admin_buf)) == 0)
		c->admin_socket = c->admin_buf;
	if (!c->admin_socket)
		c->admin_socket = pv_ipc_admin_socket_path(c->socket,
							   c->admin_buf,
							   sizeof(c->admin_buf));
}

static int run(struct pvctl *c, int argc, char **argv)
{
	const struct pvctl_cmd *cmd = cmd_find(argc, argv);
	int words, ret;

	if (!cmd) {
		fprintf(stderr, "pvctl: unknown command '%s%s%s'\n", argv[0],
			argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
		usage(stderr);
		return PVCTL_EXIT_USAGE;
	}
	words = cmd->verb ? 2 : 1;
	snprintf(c->what_buf, sizeof(c->what_buf), "%s%s%s", cmd->noun,
		 cmd->verb ? " " : "", cmd->verb ? cmd->verb : "");
	c->what = c->what_buf;
	c->sock = cmd->sock;
	ret = cmd->run(c, argc - words + 1, argv + words - 1);
	if (c->fd >= 0)
		close(c->fd);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "print-admin-socket", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct pvctl c = { .socket = pv_ipc_socket_path(), .fd = -1,
			   .what = "error" };
	bool print_admin = false, socket_named = false;
	int opt;

	/* "+": stop at the command; its options are parsed per command. */
	while ((opt = getopt_long(argc, argv, "+s:a:jh", lopts, NULL)) != -1) {
		switch (opt) {
		case 's': c.socket = optarg; socket_named = true; break;
		case 'a': c.admin_socket = optarg; break;
		case 'P': print_admin = true; break;
		case 'j': c.json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return PVCTL_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	admin_socket_resolve(&c, socket_named);
	if (print_admin) {
		printf("%s\n", c.admin_socket);
		return 0;
	}
	if (argc < 1) {
		usage(stderr);
		return PVCTL_EXIT_USAGE;
	}
	return run(&c, argc, argv);
}
