/* SPDX-License-Identifier: MIT */
/*
 * Pure parts of kernel device discovery (no I/O): which provider's match
 * table entry claims a device, the driver id of a kernel driver name,
 * the transport of a node type, and one line of a provider config file.
 * The rules are rdma-core 44's (libibverbs/init.c, dynamic_driver.c): a
 * driver id match wins, then the device's name as the modalias
 * "rdma_device:N<name>", then the bound device's modalias, where PCI
 * entries match "pci:v<vendor>d<device>sv*".
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "libverbs/lv_kern.h"

static bool match_one(const struct verbs_match_ent *e, const char *alias)
{
	char pci[64];

	switch (e->kind) {
	case LV_MATCH_MODALIAS:
		return e->u.modalias && fnmatch(e->u.modalias, alias, 0) == 0;
	case LV_MATCH_PCI:
		snprintf(pci, sizeof(pci), "pci:v%08Xd%08Xsv*", e->vendor,
			 e->device);
		return fnmatch(pci, alias, 0) == 0;
	default:
		return false;
	}
}

/* A provider's table is ended by a zeroed (SENTINEL) entry; we bound the
 * walk too, in case a broken one is not. */
#define LV_MATCH_MAX 4096

const struct verbs_match_ent *
lv_kern_match_driver_id(const struct verbs_match_ent *tbl, uint32_t driver_id)
{
	if (!tbl || driver_id == RDMA_DRIVER_UNKNOWN)
		return NULL;
	for (int i = 0; i < LV_MATCH_MAX && tbl[i].kind; i++)
		if (tbl[i].kind == LV_MATCH_DRIVER_ID &&
		    tbl[i].u.driver_id == driver_id)
			return &tbl[i];
	return NULL;
}

static const struct verbs_match_ent *
match_alias(const struct verbs_match_ent *tbl, const char *alias)
{
	if (!alias || !alias[0])
		return NULL;
	for (int i = 0; i < LV_MATCH_MAX && tbl[i].kind; i++)
		if (match_one(&tbl[i], alias))
			return &tbl[i];
	return NULL;
}

const struct verbs_match_ent *
lv_kern_match_table(const struct verbs_match_ent *tbl, uint32_t driver_id,
		    const char *ibdev_name, const char *modalias)
{
	const struct verbs_match_ent *m;
	char name_alias[IBV_SYSFS_NAME_MAX + 16];

	if (!tbl)
		return NULL;
	m = lv_kern_match_driver_id(tbl, driver_id);
	if (m)
		return m;
	snprintf(name_alias, sizeof(name_alias), "rdma_device:N%s",
		 ibdev_name ? ibdev_name : "");
	m = match_alias(tbl, name_alias);
	return m ? m : match_alias(tbl, modalias);
}

/* Without RDMA netlink the kernel's driver id is not in sysfs; the name
 * of the driver the device's parent is bound to names it for the
 * drivers that have a parent device (rxe and siw have none: their
 * tables match by name). */
static const struct {
	const char *kdriver;
	uint32_t id;
} kdrivers[] = {
	{ "mlx5_core", RDMA_DRIVER_MLX5 },
	{ "mlx4_core", RDMA_DRIVER_MLX4 },
	{ "cxgb4", RDMA_DRIVER_CXGB4 },
	{ "ib_mthca", RDMA_DRIVER_MTHCA },
	{ "bnxt_en", RDMA_DRIVER_BNXT_RE },
	{ "bnxt_re", RDMA_DRIVER_BNXT_RE },
	{ "be2net", RDMA_DRIVER_OCRDMA },
	{ "ocrdma", RDMA_DRIVER_OCRDMA },
	{ "irdma", RDMA_DRIVER_IRDMA },
	{ "i40e", RDMA_DRIVER_IRDMA },
	{ "ice", RDMA_DRIVER_IRDMA },
	{ "vmw_pvrdma", RDMA_DRIVER_VMW_PVRDMA },
	{ "qede", RDMA_DRIVER_QEDR },
	{ "qedr", RDMA_DRIVER_QEDR },
	{ "hns3", RDMA_DRIVER_HNS },
	{ "hns_roce_hw_v2", RDMA_DRIVER_HNS },
	{ "hfi1", RDMA_DRIVER_HFI1 },
	{ "ib_qib", RDMA_DRIVER_QIB },
	{ "efa", RDMA_DRIVER_EFA },
	{ "erdma", RDMA_DRIVER_ERDMA },
	{ "mana", RDMA_DRIVER_MANA },
	{ "mana_ib", RDMA_DRIVER_MANA },
};

uint32_t lv_kern_driver_id(const char *kdriver)
{
	if (!kdriver)
		return RDMA_DRIVER_UNKNOWN;
	for (size_t i = 0; i < sizeof(kdrivers) / sizeof(kdrivers[0]); i++)
		if (strcmp(kdrivers[i].kdriver, kdriver) == 0)
			return kdrivers[i].id;
	return RDMA_DRIVER_UNKNOWN;
}

/* The kernel's node types (RDMA_NODE_* of ib_verbs.h: CA 1 .. USNIC_UDP
 * 6, UNSPECIFIED 7) in sysfs node_type, to enum ibv_node_type. */
enum ibv_node_type lv_kern_node_type(unsigned int knode)
{
	switch (knode) {
	case 1: return IBV_NODE_CA;
	case 2: return IBV_NODE_SWITCH;
	case 3: return IBV_NODE_ROUTER;
	case 4: return IBV_NODE_RNIC;
	case 5: return IBV_NODE_USNIC;
	case 6: return IBV_NODE_USNIC_UDP;
	case 7: return IBV_NODE_UNSPECIFIED;
	default: return IBV_NODE_UNKNOWN;
	}
}

enum ibv_transport_type lv_kern_transport(enum ibv_node_type t)
{
	switch (t) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static size_t word_len(const char *s)
{
	size_t n = 0;

	while (s[n] && !isspace((unsigned char)s[n]))
		n++;
	return n;
}

/* One line of an /etc/libibverbs.d/ *.driver file: "driver NAME".
 * Returns 1 with the name, 0 for a blank or '#' line, -EINVAL for any
 * other directive, -ENAMETOOLONG when NAME doesn't fit. */
int lv_kern_conf_line(const char *line, char *name, size_t name_len)
{
	const char *p = skip_blank(line);
	size_t n;

	if (!*p || *p == '\n' || *p == '#')
		return 0;
	n = word_len(p);
	if (n != 6 || strncmp(p, "driver", 6) != 0)
		return -EINVAL;
	p = skip_blank(p + n);
	n = word_len(p);
	if (!n)
		return -EINVAL;
	if (n >= name_len)
		return -ENAMETOOLONG;
	memcpy(name, p, n);
	name[n] = '\0';
	return 1;
}
