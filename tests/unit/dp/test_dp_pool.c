/* SPDX-License-Identifier: MIT */
/* Unit tests of sysfs discovery (against tests/fixtures/sysfs trees), pool
 * building, selectors, health and preferred allocation. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "device-plugin/dp_pool.h"

static char root[PATH_MAX];
static struct dp_kdev scan[DP_MAX_KDEVS];
static int nscan;

static int setup(void **state)
{
	const char *pv = getenv("PV_ROOT");

	(void)state;
	snprintf(root, sizeof(root), "%s/tests/fixtures/sysfs/mlx5-2numa",
		 pv ? pv : ".");
	nscan = dp_discover_scan(root, scan, DP_MAX_KDEVS);
	return nscan == 5 ? 0 : -1;
}

static const struct dp_kdev *by_name(const char *name)
{
	for (int i = 0; i < nscan; i++)
		if (strcmp(scan[i].name, name) == 0)
			return &scan[i];
	return NULL;
}

static void test_dp_pool__discover_fields(void **state)
{
	const struct dp_kdev *d = by_name("mlx5_2"), *b = by_name("bnxt_re0");

	(void)state;
	assert_string_equal(scan[0].name, "bnxt_re0");	/* sorted */
	assert_non_null(d);
	assert_string_equal(d->pci_addr, "0000:af:00.0");
	assert_string_equal(d->vendor, "15b3");
	assert_string_equal(d->device_id, "101d");
	assert_string_equal(d->driver, "mlx5_core");
	assert_string_equal(d->netdev, "ens2f0np0");
	assert_string_equal(d->link_layer, "Ethernet");
	assert_int_equal(d->numa, 1);
	assert_int_equal(d->port_active, 1);
	assert_int_equal(d->uverbs, 2);
	assert_int_equal(d->umad, 2);
	assert_non_null(b);
	assert_string_equal(b->vendor, "14e4");
	assert_string_equal(b->driver, "bnxt_en");
	assert_int_equal(b->numa, 0);
	assert_int_equal(b->uverbs, 4);
}

static void test_dp_pool__discover_missing_root(void **state)
{
	(void)state;
	assert_int_equal(dp_discover_scan("/nonexistent-sysfs", scan, 4), 0);
	setup(NULL);
}

/* Writes path (relative to base) with text, making its folders. */
static void put(const char *base, const char *rel, const char *text)
{
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *base, const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	assert_int_equal(symlink(target, path), 0);
}

/*
 * The layout Debian 12's kernel gives rxe0 over virtio_net's eth0 in the
 * vm tier (tests/vm/t_dp_kernel.sh): no "device" link, "parent" names the
 * netdev, the NUMA node is on the PCI function above the virtio device
 * (-1 in the VM; 1 here so the walk is seen).  rxe1 has no "parent"
 * (as siw): the GID table's ndevs/0 names it, whose device has numa_node.
 */
static void test_dp_pool__discover_virtual(void **state)
{
	char tmpl[] = "/tmp/pv-dp-virt-XXXXXX", cmd[256];
	struct dp_kdev v[4];
	const char *b = mkdtemp(tmpl);

	(void)state;
	assert_non_null(b);
	put(b, "devices/virtual/infiniband/rxe0/parent", "eth0\n");
	put(b, "devices/virtual/infiniband/rxe0/ports/1/state", "4: ACTIVE\n");
	put(b, "devices/virtual/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	put(b, "devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	put(b, "devices/virtual/infiniband/rxe1/ports/1/state", "1: DOWN\n");
	put(b, "devices/virtual/infiniband/rxe1/ports/1/gid_attrs/ndevs/0", "ens1\n");
	put(b, "devices/virtual/infiniband_verbs/uverbs0/ibdev", "rxe0\n");
	put(b, "devices/pci0000:00/0000:00:04.0/numa_node", "1\n");
	put(b, "devices/pci0000:00/0000:00:04.0/virtio2/net/eth0/mtu", "1500\n");
	put(b, "devices/pci0000:00/0000:00:05.0/numa_node", "0\n");
	put(b, "devices/pci0000:00/0000:00:05.0/net/ens1/mtu", "1500\n");
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/class/infiniband %s/class/infiniband_verbs %s/class/net", b, b, b);
	assert_int_equal(system(cmd), 0);
	link_to(b, "../../devices/virtual/infiniband/rxe0", "class/infiniband/rxe0");
	link_to(b, "../../devices/virtual/infiniband/rxe1", "class/infiniband/rxe1");
	link_to(b, "../../devices/virtual/infiniband_verbs/uverbs0",
		"class/infiniband_verbs/uverbs0");
	link_to(b, "../../devices/pci0000:00/0000:00:04.0/virtio2/net/eth0",
		"class/net/eth0");
	link_to(b, "../../../virtio2",
		"devices/pci0000:00/0000:00:04.0/virtio2/net/eth0/device");
	link_to(b, "../../devices/pci0000:00/0000:00:05.0/net/ens1",
		"class/net/ens1");
	link_to(b, "../../../0000:00:05.0",
		"devices/pci0000:00/0000:00:05.0/net/ens1/device");

	assert_int_equal(dp_discover_scan(b, v, 4), 2);
	assert_string_equal(v[0].name, "rxe0");
	assert_string_equal(v[0].netdev, "eth0");
	assert_int_equal(v[0].numa, 1);
	assert_string_equal(v[0].pci_addr, "");
	assert_string_equal(v[0].driver, "");
	assert_string_equal(v[0].link_layer, "Ethernet");
	assert_int_equal(v[0].port_active, 1);
	assert_int_equal(v[0].uverbs, 0);
	assert_int_equal(v[0].umad, -1);
	assert_string_equal(v[1].netdev, "ens1");
	assert_int_equal(v[1].numa, 0);
	assert_int_equal(v[1].port_active, 0);
	assert_int_equal(v[1].uverbs, -1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", b);
	assert_int_equal(system(cmd), 0);
}

static void test_dp_pool__selectors(void **state)
{
	struct dp_selectors sel;
	const struct dp_kdev *d = by_name("mlx5_0");

	(void)state;
	memset(&sel, 0, sizeof(sel));
	assert_true(dp_pool_match(&sel, d));	/* empty matches all */
	sel.vendors.n = 1;
	strcpy(sel.vendors.v[0], "0x15B3");
	assert_true(dp_pool_match(&sel, d));
	assert_false(dp_pool_match(&sel, by_name("bnxt_re0")));
	sel.link_types.n = 1;
	strcpy(sel.link_types.v[0], "ether");
	assert_true(dp_pool_match(&sel, d));
	strcpy(sel.link_types.v[0], "infiniband");
	assert_false(dp_pool_match(&sel, d));
	memset(&sel, 0, sizeof(sel));
	sel.if_names.n = 1;
	strcpy(sel.if_names.v[0], "ens1f0np0");
	assert_true(dp_pool_match(&sel, d));
	assert_false(dp_pool_match(&sel, by_name("mlx5_1")));
	memset(&sel, 0, sizeof(sel));
	sel.device_ids.n = 1;
	strcpy(sel.device_ids.v[0], "101d");
	sel.drivers.n = 1;
	strcpy(sel.drivers.v[0], "mlx5_core");
	assert_false(dp_pool_match(&sel, d));
	assert_true(dp_pool_match(&sel, by_name("mlx5_3")));
	memset(&sel, 0, sizeof(sel));
	sel.rdma_devices.n = 2;
	strcpy(sel.rdma_devices.v[0], "mlx5_1");
	strcpy(sel.rdma_devices.v[1], "bnxt_re0");
	assert_false(dp_pool_match(&sel, d));
	assert_true(dp_pool_match(&sel, by_name("bnxt_re0")));
}

static struct dp_pool_config mlx_cfg(enum dp_share_mode mode, unsigned slots)
{
	struct dp_pool_config c;

	memset(&c, 0, sizeof(c));
	strcpy(c.resource_name, "t.io/mlx");
	c.kind = DP_POOL_KERNEL;
	c.mode = mode;
	c.slots = slots;
	c.sel.vendors.n = 1;
	strcpy(c.sel.vendors.v[0], "15b3");
	return c;
}

static void test_dp_pool__exclusive_and_health(void **state)
{
	struct dp_pool_config c = mlx_cfg(DP_MODE_EXCLUSIVE, 1);
	struct dp_pool p;
	struct dp_kdev shrunk[DP_MAX_KDEVS];
	int n = 0;

	(void)state;
	dp_pool_init(&p, &c);
	assert_int_equal(dp_pool_update(&p, scan, nscan, true), 1);
	assert_int_equal(p.ndev, 4);
	assert_string_equal(p.devs[0].id, "mlx5_0");
	assert_int_equal(p.devs[0].numa, 0);
	assert_int_equal(p.devs[3].numa, 1);
	assert_true(p.devs[3].healthy);
	/* Same scan: no change, no new generation. */
	assert_int_equal(dp_pool_update(&p, scan, nscan, true), 0);
	assert_int_equal(p.gen, 1);
	/* mlx5_1 removed, mlx5_3's port down: both listed Unhealthy. */
	for (int i = 0; i < nscan; i++) {
		if (strcmp(scan[i].name, "mlx5_1") == 0)
			continue;
		shrunk[n] = scan[i];
		if (strcmp(scan[i].name, "mlx5_3") == 0)
			shrunk[n].port_active = 0;
		n++;
	}
	assert_int_equal(dp_pool_update(&p, shrunk, n, true), 1);
	assert_int_equal(p.ndev, 4);
	assert_false(dp_pool_find(&p, "mlx5_1")->healthy);
	assert_false(dp_pool_find(&p, "mlx5_3")->healthy);
	assert_true(dp_pool_find(&p, "mlx5_0")->healthy);
	/* Back again. */
	assert_int_equal(dp_pool_update(&p, scan, nscan, true), 1);
	assert_true(dp_pool_find(&p, "mlx5_1")->healthy);
	assert_int_equal(p.gen, 3);
	dp_pool_fini(&p);
}

static void test_dp_pool__shared_slots_and_soft(void **state)
{
	struct dp_pool_config c = mlx_cfg(DP_MODE_SHARED, 3), s;
	struct dp_pool p;
	int h, u;

	(void)state;
	dp_pool_init(&p, &c);
	dp_pool_update(&p, scan, nscan, true);
	assert_int_equal(p.ndev, 12);
	assert_string_equal(p.devs[0].id, "mlx5_0-0");
	assert_string_equal(p.devs[5].id, "mlx5_1-2");
	assert_int_equal(p.devs[5].slot, 2);
	dp_pool_fini(&p);

	memset(&s, 0, sizeof(s));
	s.kind = DP_POOL_SOFT;
	s.slots = 3;
	dp_pool_init(&p, &s);
	dp_pool_update(&p, NULL, 0, false);
	dp_pool_count(&p, &h, &u);
	assert_int_equal(h, 0);
	assert_int_equal(u, 3);
	assert_string_equal(p.devs[2].id, "soft-2");
	assert_int_equal(p.devs[2].numa, -1);
	assert_int_equal(dp_pool_update(&p, NULL, 0, true), 1);
	dp_pool_count(&p, &h, &u);
	assert_int_equal(h, 3);
	dp_pool_fini(&p);
}

static void test_dp_pool__preferred_numa(void **state)
{
	struct dp_pool_config c = mlx_cfg(DP_MODE_EXCLUSIVE, 1);
	const char *avail[] = { "mlx5_0", "mlx5_2", "mlx5_3", "mlx5_1" };
	const char *one0[] = { "mlx5_0", "mlx5_2", "mlx5_3" };
	const char *must2[] = { "mlx5_2" };
	const char *bad[] = { "mlx5_9" };
	const char *out[8];
	struct dp_pool p;

	(void)state;
	dp_pool_init(&p, &c);
	dp_pool_update(&p, scan, nscan, true);
	/* Two from one node: node 0 wins the tie (lower node). */
	assert_int_equal(dp_pool_preferred(&p, avail, 4, NULL, 0, 2, out), 2);
	assert_string_equal(out[0], "mlx5_0");
	assert_string_equal(out[1], "mlx5_1");
	/* Must-include on node 1 pulls the pick there. */
	assert_int_equal(dp_pool_preferred(&p, avail, 4, must2, 1, 2, out), 2);
	assert_string_equal(out[0], "mlx5_2");
	assert_string_equal(out[1], "mlx5_3");
	/* Node 1 has more free: choose it over node 0's single device. */
	assert_int_equal(dp_pool_preferred(&p, one0, 3, NULL, 0, 2, out), 2);
	assert_string_equal(out[0], "mlx5_2");
	assert_string_equal(out[1], "mlx5_3");
	/* Three: fill one node, then spill. */
	assert_int_equal(dp_pool_preferred(&p, avail, 4, must2, 1, 3, out), 3);
	assert_string_equal(out[1], "mlx5_3");
	assert_string_equal(out[2], "mlx5_0");
	/* More than available: as many as there are. */
	assert_int_equal(dp_pool_preferred(&p, avail, 4, NULL, 0, 6, out), 4);
	assert_int_equal(dp_pool_preferred(&p, avail, 4, bad, 1, 2, out), -EINVAL);
	assert_int_equal(dp_pool_preferred(&p, avail, 4, must2, 1, 0, out), -EINVAL);
	dp_pool_fini(&p);
}

static void test_dp_pool__preferred_spreads_slots(void **state)
{
	struct dp_pool_config c = mlx_cfg(DP_MODE_SHARED, 2);
	const char *avail[] = { "mlx5_2-0", "mlx5_2-1", "mlx5_3-0", "mlx5_3-1",
				"mlx5_0-1" };
	const char *out[4];
	struct dp_pool p;

	(void)state;
	dp_pool_init(&p, &c);
	dp_pool_update(&p, scan, nscan, true);
	assert_int_equal(dp_pool_preferred(&p, avail, 5, NULL, 0, 2, out), 2);
	assert_string_equal(out[0], "mlx5_2-0");
	assert_string_equal(out[1], "mlx5_3-0");
	dp_pool_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dp_pool__discover_fields),
		cmocka_unit_test(test_dp_pool__discover_missing_root),
		cmocka_unit_test(test_dp_pool__discover_virtual),
		cmocka_unit_test(test_dp_pool__selectors),
		cmocka_unit_test(test_dp_pool__exclusive_and_health),
		cmocka_unit_test(test_dp_pool__shared_slots_and_soft),
		cmocka_unit_test(test_dp_pool__preferred_numa),
		cmocka_unit_test(test_dp_pool__preferred_spreads_slots),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
