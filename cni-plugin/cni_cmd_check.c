/* SPDX-License-Identifier: MIT */
/*
 * CHECK: the attachment is still what ADD made.  The interface is in the
 * namespace and still has the addresses prevResult gave it; the engine
 * still has the device, on that interface, with the configured P_Key and a
 * GID table equal to the one the interface's addresses give, whose entry 0
 * is prevResult's first IPv4 address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_engine.h"
#include "cni-plugin/cni_result.h"
#include "netns/netns.h"

#define CHECK_IPS_MAX	16

static int link_has(const struct netns_link *link, const struct cni_ip *ip)
{
	size_t len = ip->family == AF_INET ? 4 : 16;

	for (int i = 0; i < link->naddrs; i++)
		if (link->addrs[i].family == ip->family &&
		    !memcmp(link->addrs[i].addr, ip->addr, len))
			return 1;
	return 0;
}

static int check_addresses(struct cni_ctx *ctx, const struct netns_link *link,
			   struct cni_ip *ips, int *ret_n)
{
	const cJSON *prev = ctx->conf.prev_result;
	int iface, n;

	iface = cni_result_find_iface(prev, ctx->env.ifname, ctx->env.netns);
	if (iface < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_CONFIG,
				"prevResult has no interface \"%s\" inside a sandbox",
				ctx->env.ifname);
	n = cni_result_ips(prev, iface, 0, ips, CHECK_IPS_MAX);
	if (n < 0)
		return cni_fail(&ctx->err, CNI_ERR_DECODE,
				"prevResult has a malformed IP address");
	for (int i = 0; i < n; i++)
		if (!link_has(link, &ips[i])) {
			struct netns_gid g;
			char s[48];

			if (ips[i].family == AF_INET)
				netns_gid_from_ipv4(ips[i].addr, &g);
			else
				netns_gid_from_ipv6(ips[i].addr, &g);
			netns_gid_format(&g, s);
			return cni_fail(&ctx->err, CNI_ERR_CHECK_MISMATCH,
					"interface \"%s\" no longer has the address prevResult gave it (GID %s)",
					ctx->env.ifname, s);
		}
	*ret_n = n;
	return 0;
}

static int check_gids(struct cni_ctx *ctx, const struct pv_ipc_adm_dev *dev,
		      const struct netns_link *link, const struct cni_ip *ips,
		      int nips)
{
	struct netns_gid want[NETNS_GID_MAX], first;
	int n = netns_gid_table(link, want, NETNS_GID_MAX);

	if ((int)dev->gid_count != n)
		return cni_fail(&ctx->err, CNI_ERR_CHECK_MISMATCH,
				"device \"%s\" has %u GIDs, interface \"%s\" has addresses for %d",
				dev->info.name, dev->gid_count, link->name, n);
	for (int i = 0; i < n; i++)
		if (memcmp(dev->gid[i].gid, want[i].raw, 16))
			return cni_fail(&ctx->err, CNI_ERR_CHECK_MISMATCH,
					"GID[%d] of device \"%s\" does not match the addresses of \"%s\"",
					i, dev->info.name, link->name);
	for (int i = 0; i < nips; i++) {
		if (ips[i].family != AF_INET)
			continue;
		netns_gid_from_ipv4(ips[i].addr, &first);
		if (n == 0 || memcmp(dev->gid[0].gid, first.raw, 16))
			return cni_fail(&ctx->err, CNI_ERR_CHECK_MISMATCH,
					"GID[0] of device \"%s\" is not the pod's IPv4 address from prevResult",
					dev->info.name);
		break;
	}
	return 0;
}

static int check_device(struct cni_ctx *ctx, const struct cni_state *st,
			const struct netns_link *link, const struct cni_ip *ips,
			int nips)
{
	struct pv_ipc_adm_dev_list *list;
	const struct pv_ipc_adm_dev *dev;
	struct cni_engine eng;
	uint16_t pkey = st->pkey ? st->pkey : 0xffff;
	int ret;

	ret = cni_engine_open(&eng, st->engine_socket, st->admin_socket,
			      &ctx->err);
	if (ret < 0)
		return ret;
	ret = cni_engine_dev_list(&eng, &list, &ctx->err);
	cni_engine_close(&eng);
	if (ret < 0)
		return ret;
	dev = cni_engine_find(list, st->dev_id, st->device_name, st->ifname,
			      st->netns);
	if (!dev)
		ret = cni_fail(&ctx->err, CNI_ERR_CHECK_MISMATCH,
			       "the engine has no device \"%s\" on \"%s\" any more",
			       st->device_name, st->ifname);
	else if (dev->info.pkey != pkey)
		ret = cni_fail(&ctx->err, CNI_ERR_CHECK_MISMATCH,
			       "device \"%s\" has P_Key 0x%04x, the network wants 0x%04x",
			       st->device_name, dev->info.pkey, pkey);
	else
		ret = check_gids(ctx, dev, link, ips, nips);
	free(list);
	return ret;
}

static int check_locked(struct cni_ctx *ctx, const struct cni_state *st)
{
	struct cni_ip ips[CHECK_IPS_MAX];
	struct netns_link link;
	int ns_fd, nips = 0, ret;

	ns_fd = cni_pod_netns_open(ctx);
	if (ns_fd < 0)
		return ns_fd;
	ret = cni_pod_link_get(ctx, ns_fd, &link);
	close(ns_fd);
	if (ret < 0)
		return ret;
	ret = check_addresses(ctx, &link, ips, &nips);
	if (ret < 0 || st->mode == CNI_MODE_KERNEL)
		return ret;
	return check_device(ctx, st, &link, ips, nips);
}

int cni_cmd_check(struct cni_ctx *ctx)
{
	char key[CNI_STATE_KEY_MAX];
	struct cni_state st;
	int lock, ret;

	if (!ctx->conf.prev_result)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_CONFIG,
				"CHECK needs prevResult");
	lock = cni_attachment_lock(ctx, key);
	if (lock < 0)
		return lock;
	ret = cni_state_read(ctx->conf.state_dir, key, &st);
	if (ret == -ENOENT) {
		/* Leave no lock file behind for an attachment never made. */
		cni_state_remove(ctx->conf.state_dir, key, lock);
		return cni_fail(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER,
				"no podverbs attachment for container %s, interface %s in network %s",
				ctx->env.containerid, ctx->env.ifname,
				ctx->conf.name);
	}
	if (ret == 0 && st.phase != CNI_PHASE_READY)
		ret = cni_fail(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER,
			       "the podverbs attachment for container %s, interface %s never completed ADD",
			       ctx->env.containerid, ctx->env.ifname);
	else if (ret < 0)
		ret = cni_fail(&ctx->err, CNI_ERR_IO, "reading state %s: %s",
			       key, strerror(-ret));
	else
		ret = check_locked(ctx, &st);
	close(lock);
	return ret;
}
