/* SPDX-License-Identifier: MIT */
/*
 * pvctl dev add / dev del / dev list, and the device list that resolves
 * a NAME|ID argument for the other commands.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/pv_devnode.h"
#include "providers/soft/proto/pv_dev_pages.h"
#include "providers/soft/proto/pv_gid_claim.h"
#include "providers/soft/pvctl/pvctl.h"

static int copy_arg(struct pvctl *c, char *dst, size_t cap, const char *src,
		    const char *name)
{
	if (strlen(src) >= cap) {
		pvctl_fail(c, PVCTL_EXIT_USAGE, "%s too long (at most %zu "
			   "bytes)", name, cap - 1);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

/* Fills msg from dev add's options; returns 0 or an exit code. */
static int dev_add_parse(struct pvctl *c, int argc, char **argv,
			 struct pv_adm_dev_add_msg *msg,
			 struct pv_ipc_adm_dev_pod *pod, const char **ret_ns)
{
	static const struct option lopts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "ifname", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'N' },
		{ "pkey", required_argument, NULL, 'k' },
		{ "claim", required_argument, NULL, 'c' },
		{ "pod", required_argument, NULL, 'P' },
		{ 0 },
	};
	struct pv_ipc_adm_dev_add *req = &msg->req;
	unsigned long v;
	char *end, *slash;
	int opt;

	optind = 0;	/* 0: glibc re-initializes (main used "+") */
	while ((opt = getopt_long(argc, argv, "n:i:N:k:c:P:", lopts, NULL)) != -1) {
		switch (opt) {
		case 'P':	/* NAMESPACE/NAME, as the CNI passes them */
			slash = strchr(optarg, '/');
			if (!slash || slash == optarg || !slash[1] ||
			    (size_t)(slash - optarg) >= sizeof(pod->ns) ||
			    strlen(slash + 1) >= sizeof(pod->name))
				return pvctl_fail(c, PVCTL_EXIT_USAGE, "bad --pod "
						  "'%s' (NAMESPACE/NAME)", optarg);
			memcpy(pod->ns, optarg, (size_t)(slash - optarg));
			strcpy(pod->name, slash + 1);
			req->flags |= PV_ADM_DEV_ADD_POD;
			break;
		case 'n':
			*ret_ns = optarg;
			if (copy_arg(c, req->netns_path, sizeof(req->netns_path),
				     optarg, "--netns") < 0)
				return PVCTL_EXIT_USAGE;
			break;
		case 'i':
			if (copy_arg(c, req->ifname, sizeof(req->ifname), optarg,
				     "--ifname") < 0)
				return PVCTL_EXIT_USAGE;
			break;
		case 'N':
			if (copy_arg(c, req->name, sizeof(req->name), optarg,
				     "--name") < 0)
				return PVCTL_EXIT_USAGE;
			break;
		case 'k':
			v = strtoul(optarg, &end, 0);
			if (*end || !*optarg || v > 0xffff || !(v & 0x7fff))
				return pvctl_fail(c, PVCTL_EXIT_USAGE, "bad --pkey "
						  "'%s' (0x0001..0xffff, low 15 "
						  "bits not 0)", optarg);
			req->pkey = (uint16_t)v;
			break;
		case 'c':
			if (pv_gid_claim_add(&msg->claims, &req->flags,
					     optarg) < 0)
				return pvctl_fail(c, PVCTL_EXIT_USAGE, "bad or too "
						  "many --claim '%s' (at most "
						  "%d)", optarg,
						  PV_GID_CLAIM_MAX);
			break;
		default:
			return pvctl_fail(c, PVCTL_EXIT_USAGE, "see pvctl --help");
		}
	}
	if (!req->ifname[0] || optind < argc)
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: dev add --netns "
				  "PATH --ifname IF [--name NAME] [--pkey P]");
	return 0;
}

static int dev_add_fail(struct pvctl *c, int err,
			const struct pv_ipc_adm_dev_add *req, const char *ns)
{
	const char *where = ns[0] ? ns : "the engine's namespace";

	if (err == -ENODEV)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "interface %s not found "
				  "in %s", req->ifname, where);
	if (err == -ENOENT || err == -EBADF)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "cannot open namespace %s",
				  ns);
	if (err == -EEXIST)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "%s%s%s or interface %s "
				  "already has a device in %s",
				  req->name[0] ? "name " : "", req->name,
				  req->name[0] ? "" : "the name", req->ifname,
				  where);
	if (err == -ENOMEM)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "device limit reached");
	return pvctl_fail_common(c, err);
}

/*
 * The node every soft device names as dev_name (common/pv_devnode.h),
 * for pods that share this host's /dev (plain namespaces).  One node for
 * all devices, so dev del leaves it.  Not fatal: the device works without
 * it, only UCX ignores it.  $PODVERBS_DEV_DIR moves it (tests).
 */
static void dev_node_ensure(void)
{
	const char *dir = getenv("PODVERBS_DEV_DIR");
	int ret;

	if (!dir || !*dir)
		dir = PV_DEVNODE_DIR;
	ret = pv_devnode_ensure(dir);
	if (ret < 0)
		fprintf(stderr,
			"pvctl: dev add: warning: %s/%s: %s (UCX will not use the device)\n",
			dir, PV_DEVNODE_NAME, strerror(-ret));
}

int pvctl_dev_add(struct pvctl *c, int argc, char **argv)
{
	struct {
		struct pv_adm_dev_add_msg m;
		struct pv_ipc_adm_dev_pod pod;
	} __attribute__((packed)) full;
	struct pv_adm_dev_add_msg msg = { 0 };
	struct pv_ipc_adm_dev_pod pod;
	struct pv_ipc_dev_info *info;
	const char *ns = "";
	cJSON *doc;
	uint32_t len;
	void *buf;
	bool ok;
	int ret;

	memset(&pod, 0, sizeof(pod));
	if ((ret = dev_add_parse(c, argc, argv, &msg, &pod, &ns)) != 0)
		return ret;
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	/* The pod follows the claims block (pv-soft-abi.h). */
	full.m = msg;
	full.pod = pod;
	ret = pvctl_call(c, PV_OP_ADM_DEV_ADD, &full,
			 (msg.req.flags & PV_ADM_DEV_ADD_POD) ? sizeof(full) :
			 msg.claims.count ? sizeof(msg) : sizeof(msg.req),
			 &buf, &len);
	if (ret < 0)
		return dev_add_fail(c, ret, &msg.req, ns);
	info = buf;
	if (len < sizeof(*info)) {
		free(buf);
		return pvctl_fail_common(c, -EPROTO);
	}
	dev_node_ensure();
	if (!c->json) {
		printf("added %.*s (id %u) on %.*s in %s, port %s\n",
		       (int)sizeof(info->name), info->name, info->dev_id,
		       (int)sizeof(info->ifname), info->ifname, pvctl_ns_str(ns),
		       pvctl_port_state_str(info->port_state));
		free(buf);
		return 0;
	}
	doc = cJSON_CreateObject();
	ok = doc && pvctl_json_u64(doc, "id", info->dev_id) &&
	     pvctl_json_strn(doc, "name", info->name, sizeof(info->name)) &&
	     cJSON_AddStringToObject(doc, "port_state",
				     pvctl_port_state_str(info->port_state));
	free(buf);
	return pvctl_json_print(c, doc, ok);
}

/* Fetches the admin device list, every page of it (malloc'd, caller
 * frees). */
int pvctl_dev_list_get(struct pvctl *c, struct pv_ipc_adm_dev_list **ret)
{
	struct pv_adm_pages pg;
	struct pv_ipc_list_req req;
	int err;

	pv_adm_pages_init(&pg);
	do {
		uint32_t len;
		void *buf;

		pv_adm_pages_req(&pg, &req);
		/* The first page without a request: all an engine before
		 * paging answers. */
		err = pvctl_call(c, PV_OP_ADM_DEV_LIST, pg.pages ? &req : NULL,
				 pg.pages ? sizeof(req) : 0, &buf, &len);
		if (err < 0)
			break;
		err = pv_adm_pages_take(&pg, buf, len);
		free(buf);
	} while (err == 1);
	if (err < 0) {
		pv_adm_pages_fini(&pg);
		return err;
	}
	*ret = pv_adm_pages_done(&pg);
	return 0;
}

/* Finds a device by id (all digits) or name, optionally in the namespace
 * at ns_path.  Returns its id, 0 if none, -ENOTUNIQ if ambiguous. */
int64_t pvctl_dev_resolve(const struct pv_ipc_adm_dev_list *l,
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
			    : strncmp(d->info.name, arg,
				      sizeof(d->info.name)) != 0)
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

int pvctl_dev_del(struct pvctl *c, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ 0 },
	};
	struct pv_ipc_adm_dev_del req = { 0 };
	struct pv_ipc_adm_dev_list *l;
	const char *ns = NULL, *arg;
	cJSON *doc;
	uint32_t len;
	int64_t id;
	void *buf;
	int opt, ret;

	optind = 0;	/* 0: glibc re-initializes (main used "+") */
	while ((opt = getopt_long(argc, argv, "n:", lopts, NULL)) != -1) {
		if (opt != 'n')
			return pvctl_fail(c, PVCTL_EXIT_USAGE, "see pvctl --help");
		ns = optarg;
	}
	if (optind != argc - 1)
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: dev del NAME|ID "
				  "[--netns PATH]");
	arg = argv[optind];
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if ((ret = pvctl_dev_list_get(c, &l)) < 0)
		return pvctl_fail_common(c, ret);
	id = pvctl_dev_resolve(l, arg, ns);
	free(l);
	if (id == -ENOTUNIQ)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "name %s is used in "
				  "several namespaces; give --netns PATH or the "
				  "id", arg);
	if (id < 0)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "namespace %s: %s", ns,
				  strerror((int)-id));
	if (id == 0)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "no device %s%s%s", arg,
				  ns ? " in " : "", ns ? ns : "");
	req.dev_id = (uint32_t)id;
	ret = pvctl_call(c, PV_OP_ADM_DEV_DEL, &req, sizeof(req), &buf, &len);
	if (ret == -ENODEV)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "no device %s", arg);
	if (ret < 0)
		return pvctl_fail_common(c, ret);
	free(buf);
	if (!c->json) {
		printf("deleted %s (id %u)\n", arg, req.dev_id);
		return 0;
	}
	doc = cJSON_CreateObject();
	return pvctl_json_print(c, doc, doc && pvctl_json_u64(doc, "deleted",
							      req.dev_id));
}

/* A device's UDP 4791 socket of one family (pv_ipc_dev_info.wire_state). */
static const char *wire_str(uint8_t st, uint8_t bound, uint8_t failed)
{
	return st & bound ? "bound" : st & failed ? "failed" : "none";
}

static cJSON *dev_json(const struct pv_ipc_adm_dev *d)
{
	const struct pv_ipc_dev_info *in = &d->info;
	cJSON *o = cJSON_CreateObject(), *gids;
	char g[40];
	bool ok;

	ok = o && pvctl_json_u64(o, "id", in->dev_id) &&
	     pvctl_json_strn(o, "name", in->name, sizeof(in->name)) &&
	     pvctl_json_strn(o, "ifname", in->ifname, sizeof(in->ifname)) &&
	     pvctl_json_strn(o, "netns", d->netns_path,
			     sizeof(d->netns_path)) &&
	     pvctl_json_u64(o, "netns_dev", d->netns_dev) &&
	     pvctl_json_u64(o, "netns_ino", d->netns_ino) &&
	     cJSON_AddStringToObject(o, "port_state",
				     pvctl_port_state_str(in->port_state)) &&
	     pvctl_json_u64(o, "mtu", in->netdev_mtu) &&
	     pvctl_json_u64(o, "active_mtu", 128u << in->active_mtu) &&
	     pvctl_json_u64(o, "pkey", in->pkey) &&
	     pvctl_json_u64(o, "clients", d->clients) &&
	     pvctl_json_u64(o, "gid_conflicts", in->gid_conflicts) &&
	     cJSON_AddStringToObject(o, "wire_ipv4",
				     wire_str(in->wire_state, PV_WIRE_V4_BOUND,
					      PV_WIRE_V4_FAILED)) &&
	     cJSON_AddStringToObject(o, "wire_ipv6",
				     wire_str(in->wire_state, PV_WIRE_V6_BOUND,
					      PV_WIRE_V6_FAILED));
	snprintf(g, sizeof(g), "%016" PRIx64, __builtin_bswap64(in->node_guid));
	ok = ok && cJSON_AddStringToObject(o, "node_guid", g) &&
	     (gids = cJSON_AddArrayToObject(o, "gids")) != NULL;
	for (uint32_t i = 0; ok && i < d->gid_count && i < PV_GID_TABLE_MAX;
	     i++) {
		pvctl_gid_str(d->gid[i].gid, g);
		ok = pvctl_json_array_strn(gids, g, sizeof(g));
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static void dev_print_row(const struct pv_ipc_adm_dev *d)
{
	char g[40];

	printf("%-4u %-10.*s %-24.*s %-8.*s %-6s %-5u 0x%04x %-7u ",
	       d->info.dev_id, (int)sizeof(d->info.name), d->info.name,
	       (int)sizeof(d->netns_path), pvctl_ns_str(d->netns_path),
	       (int)sizeof(d->info.ifname), d->info.ifname,
	       pvctl_port_state_str(d->info.port_state), d->info.netdev_mtu,
	       d->info.pkey, d->clients);
	if (!d->gid_count)
		printf("-");
	for (uint32_t i = 0; i < d->gid_count && i < PV_GID_TABLE_MAX; i++) {
		pvctl_gid_str(d->gid[i].gid, g);
		printf("%s%s", i ? " " : "", g);
	}
	if (d->info.gid_conflicts)
		printf("  (note: %u GID%s of %.*s left out, owned by another "
		       "device)", d->info.gid_conflicts,
		       d->info.gid_conflicts == 1 ? "" : "s",
		       (int)sizeof(d->info.ifname), d->info.ifname);
	if (d->info.wire_state & (PV_WIRE_V4_FAILED | PV_WIRE_V6_FAILED))
		printf("  (note: no UDP 4791 socket on %s: its bind failed, "
		       "same-node traffic only)",
		       d->info.wire_state & PV_WIRE_V4_FAILED ? "IPv4" : "IPv6");
	putchar('\n');
}

int pvctl_dev_list(struct pvctl *c, int argc, char **argv)
{
	struct pv_ipc_adm_dev_list *l;
	cJSON *doc, *o;
	bool ok;
	int ret;

	if (argc > 1)
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: dev list");
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if ((ret = pvctl_dev_list_get(c, &l)) < 0)
		return pvctl_fail_common(c, ret);
	if (!c->json) {
		printf("%-4s %-10s %-24s %-8s %-6s %-5s %-6s %-7s %s\n",
		       "ID", "NAME", "NETNS", "IFNAME", "PORT", "MTU", "PKEY",
		       "CLIENTS", "GIDS (index 0, 1, ...)");
		for (uint32_t i = 0; i < l->count; i++)
			dev_print_row(&l->dev[i]);
		free(l);
		return 0;
	}
	doc = cJSON_CreateArray();
	ok = doc != NULL;
	for (uint32_t i = 0; ok && i < l->count; i++) {
		o = dev_json(&l->dev[i]);
		ok = o && cJSON_AddItemToArray(doc, o);
		if (o && !ok)
			cJSON_Delete(o);
	}
	free(l);
	return pvctl_json_print(c, doc, ok);
}

/* DEV (a name or an id) as its id, for the commands that filter by
 * device (obj list, mr); 0 or an exit code. */
int pvctl_dev_ref(struct pvctl *c, const char *dev, uint32_t *ret_id)
{
	struct pv_ipc_adm_dev_list *l;
	int64_t id;
	int ret;

	if ((ret = pvctl_dev_list_get(c, &l)) < 0)
		return pvctl_fail_common(c, ret);
	id = pvctl_dev_resolve(l, dev, NULL);
	free(l);
	if (id == -ENOTUNIQ)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "name %s is used in "
				  "several namespaces; give the id", dev);
	if (id <= 0)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "no device %s", dev);
	*ret_id = (uint32_t)id;
	return 0;
}
