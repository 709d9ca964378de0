/* SPDX-License-Identifier: MIT */
/*
 * pvctl: the operator's tool for the podverbs engine.  Talks the engine's
 * admin requests (root in the engine's network namespace only).
 *
 * Exit codes: 0 done, 1 the engine refused or failed the request, 2 bad
 * usage, 3 the engine could not be reached.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "providers/soft/proto/pv_gid_claim.h"
#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define EXIT_UNREACH	3

struct ctl {
	const char *socket;		/* the pod socket, named or default */
	const char *admin_socket;	/* where requests go */
	char admin_buf[108];
	bool json;
	int fd;
	uint32_t seq;
	const char *what;	/* "dev add": prefix of error messages */
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: pvctl [--admin-socket PATH | --socket PATH] [--json] COMMAND\n"
"\n"
"  dev add --netns PATH --ifname IF [--name NAME] [--pkey P] [--claim IP]...\n"
"                       create a soft RDMA device on interface IF of the\n"
"                       namespace PATH (\"\" or omitted: the engine's own);\n"
"                       the GID of each --claim address is this device's\n"
"                       even if another device holds it\n"
"  dev del NAME|ID [--netns PATH]\n"
"                       delete a device; a name used in several\n"
"                       namespaces needs --netns or the id\n"
"  dev list             devices with namespace, port state, MTU, GIDs\n"
"  obj list [DEV]       verbs objects of all devices or of DEV\n"
"  stats                engine counters\n"
"\n"
"  -a, --admin-socket PATH\n"
"                       the engine's admin socket (default $%s, else\n"
"                       the one next to the pod socket's folder:\n"
"                       <folder>-admin/admin.sock, %s\n"
"                       for the default); every command is an admin\n"
"                       request, served to root there only\n"
"  -s, --socket PATH    the engine's pod socket, to find the admin\n"
"                       socket beside it (default $%s or %s)\n"
"      --print-admin-socket\n"
"                       print the admin socket path and exit\n"
"  -j, --json           machine-readable output\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 ok, 1 request failed, 2 usage, 3 engine unreachable.\n",
		PV_IPC_ADMIN_SOCKET_ENV, PV_IPC_DEFAULT_ADMIN_SOCKET,
		PV_IPC_SOCKET_ENV, PV_IPC_DEFAULT_SOCKET);
}

static int fail(struct ctl *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctl *c, int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pvctl: %s: ", c->what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* A message for errors every admin request can get. */
static int fail_common(struct ctl *c, int err)
{
	if (err == -EPERM)
		return fail(c, EXIT_FAIL, "permission denied (admin requests "
			    "are served to root on the admin socket only)");
	if (err == -EPROTO || err == -EINVAL)
		return fail(c, EXIT_FAIL, "engine rejected the request: %s "
			    "(version mismatch?)", strerror(-err));
	return fail(c, EXIT_FAIL, "%s", strerror(-err));
}

static int ctl_connect(struct ctl *c)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	int ret;

	c->fd = pv_ipc_connect(c->admin_socket);
	if (c->fd < 0)
		return fail(c, EXIT_UNREACH, "cannot reach the engine at %s: %s%s",
			    c->admin_socket, strerror(-c->fd),
			    c->fd == -EACCES ? " (the admin socket is root's)" :
			    "");
	ret = pv_ipc_call(c->fd, &c->seq, PV_OP_HELLO, &h, sizeof(h), &h,
			  sizeof(h), NULL, NULL, NULL);
	if (ret < 0)
		return fail(c, EXIT_UNREACH, "engine at %s did not answer "
			    "HELLO: %s", c->admin_socket, strerror(-ret));
	return 0;
}

/* Calls op; the reply goes into a malloc'd buffer (*ret_buf). */
static int call(struct ctl *c, uint16_t op, const void *req, uint32_t len,
		void **ret_buf, uint32_t *ret_len)
{
	void *buf = calloc(1, PV_IPC_MAX_PAYLOAD);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = pv_ipc_call(c->fd, &c->seq, op, req, len, buf, PV_IPC_MAX_PAYLOAD,
			  ret_len, NULL, NULL);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*ret_buf = buf;
	return 0;
}

static void gid_str(const uint8_t g[16], char *out)
{
	for (int i = 0; i < 8; i++)
		sprintf(out + i * 5, "%02x%02x%s", g[2 * i], g[2 * i + 1],
			i < 7 ? ":" : "");
}

static const char *port_state_str(uint8_t s)
{
	switch (s) {
	case PV_PORT_DOWN: return "DOWN";
	case PV_PORT_INIT: return "INIT";
	case PV_PORT_ARMED: return "ARMED";
	case PV_PORT_ACTIVE: return "ACTIVE";
	}
	return "?";
}

/* Prints s as a JSON string (names and paths: no control characters
 * expected, escaped anyway). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static const char *ns_str(const char *path)
{
	return path[0] ? path : "(engine)";
}

static int copy_arg(struct ctl *c, char *dst, size_t cap, const char *src,
		    const char *name)
{
	if (strlen(src) >= cap) {
		fail(c, EXIT_USAGE, "%s too long (at most %zu bytes)", name,
		     cap - 1);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

static int dev_add(struct ctl *c, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "ifname", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'N' },
		{ "pkey", required_argument, NULL, 'k' },
		{ "claim", required_argument, NULL, 'c' },
		{ 0 },
	};
	struct pv_adm_dev_add_msg msg = { 0 };
	struct pv_ipc_adm_dev_add *req = &msg.req;
	struct pv_ipc_dev_info *info;
	const char *ns = "";
	uint32_t len;
	void *buf;
	int opt, ret;

	optind = 0;	/* 0: glibc re-initializes (main used "+") */
	while ((opt = getopt_long(argc, argv, "n:i:N:k:c:", lopts, NULL)) != -1) {
		char *end;
		unsigned long v;

		switch (opt) {
		case 'n':
			ns = optarg;
			if (copy_arg(c, req->netns_path, sizeof(req->netns_path),
				     optarg, "--netns") < 0)
				return EXIT_USAGE;
			break;
		case 'i':
			if (copy_arg(c, req->ifname, sizeof(req->ifname), optarg,
				     "--ifname") < 0)
				return EXIT_USAGE;
			break;
		case 'N':
			if (copy_arg(c, req->name, sizeof(req->name), optarg,
				     "--name") < 0)
				return EXIT_USAGE;
			break;
		case 'k':
			v = strtoul(optarg, &end, 0);
			if (*end || !*optarg || v > 0xffff || !(v & 0x7fff))
				return fail(c, EXIT_USAGE, "bad --pkey '%s' "
					    "(0x0001..0xffff, low 15 bits not 0)",
					    optarg);
			req->pkey = (uint16_t)v;
			break;
		case 'c':
			if (pv_gid_claim_add(&msg.claims, &req->flags,
					     optarg) < 0)
				return fail(c, EXIT_USAGE, "bad or too many "
					    "--claim '%s' (at most %d)",
					    optarg, PV_GID_CLAIM_MAX);
			break;
		default:
			return fail(c, EXIT_USAGE, "see pvctl --help");
		}
	}
	if (!req->ifname[0] || optind < argc)
		return fail(c, EXIT_USAGE, "usage: dev add --netns PATH "
			    "--ifname IF [--name NAME] [--pkey P]");
	if ((ret = ctl_connect(c)) != 0)
		return ret;
	ret = call(c, PV_OP_ADM_DEV_ADD, &msg, msg.claims.count ? sizeof(msg) :
		   sizeof(*req), &buf, &len);
	if (ret == -ENODEV)
		return fail(c, EXIT_FAIL, "interface %s not found in %s",
			    req->ifname, ns[0] ? ns : "the engine's namespace");
	if (ret == -ENOENT || ret == -EBADF)
		return fail(c, EXIT_FAIL, "cannot open namespace %s", ns);
	if (ret == -EEXIST)
		return fail(c, EXIT_FAIL, "%s%s%s or interface %s already has "
			    "a device in %s", req->name[0] ? "name " : "",
			    req->name, req->name[0] ? "" : "the name",
			    req->ifname, ns[0] ? ns : "the engine's namespace");
	if (ret == -ENOMEM)
		return fail(c, EXIT_FAIL, "device limit reached");
	if (ret < 0)
		return fail_common(c, ret);
	info = buf;
	if (c->json) {
		printf("{\"id\": %u, \"name\": ", info->dev_id);
		json_str(info->name);
		printf(", \"port_state\": \"%s\"}\n",
		       port_state_str(info->port_state));
	} else {
		printf("added %s (id %u) on %s in %s, port %s\n", info->name,
		       info->dev_id, info->ifname, ns_str(ns),
		       port_state_str(info->port_state));
	}
	free(buf);
	return 0;
}

/* Fetches the admin device list (malloc'd, caller frees). */
static int dev_list_get(struct ctl *c, struct pv_ipc_adm_dev_list **ret)
{
	uint32_t len;
	void *buf;
	int err = call(c, PV_OP_ADM_DEV_LIST, NULL, 0, &buf, &len);

	if (err < 0)
		return err;
	if (len < sizeof(**ret) || len < sizeof(**ret) +
	    ((struct pv_ipc_adm_dev_list *)buf)->count *
	    sizeof(struct pv_ipc_adm_dev)) {
		free(buf);
		return -EPROTO;
	}
	*ret = buf;
	return 0;
}

/* Finds a device by id (all digits) or name, optionally in the namespace
 * at ns_path.  Returns its id, 0 if none, -ENOTUNIQ if ambiguous. */
static int64_t dev_resolve(const struct pv_ipc_adm_dev_list *l,
			   const char *arg, const char *ns_path)
{
	bool numeric = arg[0] && strspn(arg, "0123456789") == strlen(arg);
	struct stat st;
	int64_t found = 0;

	if (ns_path && stat(ns_path, &st) < 0)
		return -errno;
	for (uint32_t i = 0; i < l->count; i++) {
		const struct pv_ipc_adm_dev *d = &l->dev[i];

		if (numeric ? d->info.dev_id != strtoul(arg, NULL, 10)
			    : strcmp(d->info.name, arg) != 0)
			continue;
		if (ns_path && (d->netns_ino != st.st_ino ||
				d->netns_dev != st.st_dev))
			continue;
		if (found)
			return -ENOTUNIQ;
		found = d->info.dev_id;
	}
	return found;
}

static int dev_del(struct ctl *c, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ 0 },
	};
	struct pv_ipc_adm_dev_del req = { 0 };
	struct pv_ipc_adm_dev_list *l;
	const char *ns = NULL, *arg;
	uint32_t len;
	int64_t id;
	void *buf;
	int opt, ret;

	optind = 0;	/* 0: glibc re-initializes (main used "+") */
	while ((opt = getopt_long(argc, argv, "n:", lopts, NULL)) != -1) {
		if (opt != 'n')
			return fail(c, EXIT_USAGE, "see pvctl --help");
		ns = optarg;
	}
	if (optind != argc - 1)
		return fail(c, EXIT_USAGE, "usage: dev del NAME|ID "
			    "[--netns PATH]");
	arg = argv[optind];
	if ((ret = ctl_connect(c)) != 0)
		return ret;
	ret = dev_list_get(c, &l);
	if (ret < 0)
		return fail_common(c, ret);
	id = dev_resolve(l, arg, ns);
	free(l);
	if (id == -ENOTUNIQ)
		return fail(c, EXIT_FAIL, "name %s is used in several "
			    "namespaces; give --netns PATH or the id", arg);
	if (id < 0)
		return fail(c, EXIT_FAIL, "namespace %s: %s", ns,
			    strerror((int)-id));
	if (id == 0)
		return fail(c, EXIT_FAIL, "no device %s%s%s", arg,
			    ns ? " in " : "", ns ? ns : "");
	req.dev_id = (uint32_t)id;
	ret = call(c, PV_OP_ADM_DEV_DEL, &req, sizeof(req), &buf, &len);
	if (ret == -ENODEV)
		return fail(c, EXIT_FAIL, "no device %s", arg);
	if (ret < 0)
		return fail_common(c, ret);
	free(buf);
	if (!c->json)
		printf("deleted %s (id %u)\n", arg, (uint32_t)id);
	else
		printf("{\"deleted\": %u}\n", (uint32_t)id);
	return 0;
}

static void dev_print_json(const struct pv_ipc_adm_dev *d, bool last)
{
	char g[40];

	printf("  {\"id\": %u, \"name\": ", d->info.dev_id);
	json_str(d->info.name);
	printf(", \"ifname\": ");
	json_str(d->info.ifname);
	printf(", \"netns\": ");
	json_str(d->netns_path);
	printf(", \"netns_dev\": %" PRIu64 ", \"netns_ino\": %" PRIu64
	       ", \"port_state\": \"%s\", \"mtu\": %u, \"active_mtu\": %u, "
	       "\"pkey\": %u, \"clients\": %u, \"gid_conflicts\": %u, "
	       "\"node_guid\": \"%016" PRIx64 "\", \"gids\": [",
	       d->netns_dev, d->netns_ino, port_state_str(d->info.port_state),
	       d->info.netdev_mtu, 128u << d->info.active_mtu, d->info.pkey,
	       d->clients, d->info.gid_conflicts,
	       __builtin_bswap64(d->info.node_guid));
	for (uint32_t i = 0; i < d->gid_count && i < PV_GID_TABLE_MAX; i++) {
		gid_str(d->gid[i].gid, g);
		printf("%s\"%s\"", i ? ", " : "", g);
	}
	printf("]}%s\n", last ? "" : ",");
}

static void dev_print_row(const struct pv_ipc_adm_dev *d)
{
	char g[40];

	printf("%-4u %-10s %-24s %-8s %-6s %-5u 0x%04x %-7u ", d->info.dev_id,
	       d->info.name, ns_str(d->netns_path), d->info.ifname,
	       port_state_str(d->info.port_state), d->info.netdev_mtu,
	       d->info.pkey, d->clients);
	if (!d->gid_count)
		printf("-");
	for (uint32_t i = 0; i < d->gid_count && i < PV_GID_TABLE_MAX; i++) {
		gid_str(d->gid[i].gid, g);
		printf("%s%s", i ? " " : "", g);
	}
	if (d->info.gid_conflicts)
		printf("  (note: %u GID%s of %s left out, owned by another "
		       "device)", d->info.gid_conflicts,
		       d->info.gid_conflicts == 1 ? "" : "s", d->info.ifname);
	putchar('\n');
}

static int dev_list(struct ctl *c, int argc, char **argv)
{
	struct pv_ipc_adm_dev_list *l;
	int ret;

	if (argc > 1)
		return fail(c, EXIT_USAGE, "usage: dev list");
	if ((ret = ctl_connect(c)) != 0)
		return ret;
	ret = dev_list_get(c, &l);
	if (ret < 0)
		return fail_common(c, ret);
	if (c->json) {
		printf("[\n");
		for (uint32_t i = 0; i < l->count; i++)
			dev_print_json(&l->dev[i], i + 1 == l->count);
		printf("]\n");
	} else {
		printf("%-4s %-10s %-24s %-8s %-6s %-5s %-6s %-7s %s\n",
		       "ID", "NAME", "NETNS", "IFNAME", "PORT", "MTU", "PKEY",
		       "CLIENTS", "GIDS (index 0, 1, ...)");
		for (uint32_t i = 0; i < l->count; i++)
			dev_print_row(&l->dev[i]);
	}
	free(l);
	return 0;
}

static const char *kind_str(uint32_t k)
{
	static const char *const names[] = {
		"none", "pd", "mr", "cq", "qp", "srq", "ah", "channel", "port",
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static const char *qp_state_str(uint32_t s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static void obj_print(const struct pv_ipc_adm_obj *o, bool json, bool first)
{
	const char *state = o->kind == PV_OBJ_QP ? qp_state_str(o->state) : "";

	if (json) {
		printf("%s  {\"dev_id\": %u, \"client\": %u, \"pid\": %u, "
		       "\"kind\": \"%s\", \"handle\": %u, \"detail\": %u, "
		       "\"state\": \"%s\"}", first ? "" : ",\n", o->dev_id,
		       o->client_id, o->client_pid, kind_str(o->kind),
		       o->handle, o->detail, state);
		return;
	}
	printf("%-4u %-7u %-8u %-8s 0x%08x ", o->dev_id, o->client_id,
	       o->client_pid, kind_str(o->kind), o->handle);
	switch (o->kind) {
	case PV_OBJ_QP: printf("qpn %u %s\n", o->detail, state); break;
	case PV_OBJ_MR: printf("lkey 0x%08x\n", o->detail); break;
	case PV_OBJ_CQ: printf("depth %u\n", o->detail); break;
	case PV_OBJ_SRQ: printf("max_wr %u\n", o->detail); break;
	default: printf("-\n"); break;
	}
}

static int obj_list(struct ctl *c, int argc, char **argv)
{
	struct pv_ipc_dev_ref ref = { 0 };
	uint32_t shown = 0, len;
	int ret;

	if (argc > 2)
		return fail(c, EXIT_USAGE, "usage: obj list [DEV]");
	if ((ret = ctl_connect(c)) != 0)
		return ret;
	if (argc == 2) {
		struct pv_ipc_adm_dev_list *l;
		int64_t id;

		ret = dev_list_get(c, &l);
		if (ret < 0)
			return fail_common(c, ret);
		id = dev_resolve(l, argv[1], NULL);
		free(l);
		if (id == -ENOTUNIQ)
			return fail(c, EXIT_FAIL, "name %s is used in several "
				    "namespaces; give the id", argv[1]);
		if (id <= 0)
			return fail(c, EXIT_FAIL, "no device %s", argv[1]);
		ref.dev_id = (uint32_t)id;
	}
	if (c->json)
		printf("[\n");
	else
		printf("%-4s %-7s %-8s %-8s %-10s %s\n", "DEV", "CLIENT", "PID",
		       "KIND", "HANDLE", "DETAIL");
	/* The engine pages: index is the first entry, total counts all. */
	for (;;) {
		struct pv_ipc_adm_obj_list *l;
		void *buf;

		ref.index = shown;
		ret = call(c, PV_OP_ADM_OBJ_LIST, &ref, sizeof(ref), &buf, &len);
		if (ret < 0)
			return fail_common(c, ret);
		l = buf;
		if (len < sizeof(*l) + l->count * sizeof(l->obj[0])) {
			free(buf);
			return fail_common(c, -EPROTO);
		}
		for (uint32_t i = 0; i < l->count; i++, shown++)
			obj_print(&l->obj[i], c->json, shown == 0);
		ret = l->count == 0 || shown >= l->total;
		free(buf);
		if (ret)
			break;
	}
	if (c->json)
		printf("%s]\n", shown ? "\n" : "");
	return 0;
}

static int stats(struct ctl *c, int argc, char **argv)
{
	struct pv_ipc_stats *s;
	uint32_t len;
	void *buf;
	int ret;

	if (argc > 1)
		return fail(c, EXIT_USAGE, "usage: stats");
	if ((ret = ctl_connect(c)) != 0)
		return ret;
	ret = call(c, PV_OP_ADM_STATS, NULL, 0, &buf, &len);
	if (ret < 0)
		return fail_common(c, ret);
	s = buf;
	if (len < sizeof(*s) + s->count * sizeof(s->stat[0])) {
		free(buf);
		return fail_common(c, -EPROTO);
	}
	if (c->json)
		printf("{");
	for (uint32_t i = 0; i < s->count; i++) {
		s->stat[i].name[PV_STAT_NAME_MAX - 1] = '\0';
		if (c->json)
			printf("%s\n  \"%s\": %" PRIu64, i ? "," : "",
			       s->stat[i].name, s->stat[i].value);
		else
			printf("%-24s %" PRIu64 "\n", s->stat[i].name,
			       s->stat[i].value);
	}
	if (c->json)
		printf("\n}\n");
	free(buf);
	return 0;
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
	struct ctl c = { .socket = pv_ipc_socket_path(), .fd = -1,
			 .what = "error" };
	bool print_admin = false, socket_named = false;
	int opt, ret;

	/* "+": stop at the command; its options are parsed per command. */
	while ((opt = getopt_long(argc, argv, "+s:a:jh", lopts, NULL)) != -1) {
		switch (opt) {
		case 's': c.socket = optarg; socket_named = true; break;
		case 'a': c.admin_socket = optarg; break;
		case 'P': print_admin = true; break;
		case 'j': c.json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	/* --admin-socket, else $PODVERBS_ADMIN_SOCKET (unless --socket
	 * names the engine), else beside the pod socket. */
	if (!c.admin_socket && socket_named &&
	    pv_ipc_admin_path_for(c.socket, c.admin_buf,
				  sizeof(c.admin_buf)) == 0)
		c.admin_socket = c.admin_buf;
	if (!c.admin_socket)
		c.admin_socket = pv_ipc_admin_socket_path(c.socket, c.admin_buf,
							  sizeof(c.admin_buf));
	if (print_admin) {
		printf("%s\n", c.admin_socket);
		return 0;
	}
	if (argc < 2 && !(argc == 1 && strcmp(argv[0], "stats") == 0)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[0], "stats") == 0) {
		c.what = "stats";
		ret = stats(&c, argc, argv);
	} else if (strcmp(argv[0], "dev") == 0 && !strcmp(argv[1], "add")) {
		c.what = "dev add";
		ret = dev_add(&c, argc - 1, argv + 1);
	} else if (strcmp(argv[0], "dev") == 0 && !strcmp(argv[1], "del")) {
		c.what = "dev del";
		ret = dev_del(&c, argc - 1, argv + 1);
	} else if (strcmp(argv[0], "dev") == 0 && !strcmp(argv[1], "list")) {
		c.what = "dev list";
		ret = dev_list(&c, argc - 1, argv + 1);
	} else if (strcmp(argv[0], "obj") == 0 && !strcmp(argv[1], "list")) {
		c.what = "obj list";
		ret = obj_list(&c, argc - 1, argv + 1);
	} else {
		fprintf(stderr, "pvctl: unknown command '%s%s%s'\n", argv[0],
			argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (c.fd >= 0)
		close(c.fd);
	return ret;
}
