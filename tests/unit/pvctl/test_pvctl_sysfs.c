/* SPDX-License-Identifier: MIT */
/* Unit tests of pvctl's per-pod sysfs tree: the files UCX and tools read,
 * in the kernel's formats, and names that would leave the tree refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "providers/soft/pvctl/pvctl.h"

static char root[64];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pv-sysfs-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void expect_file(const char *rel, const char *want)
{
	char path[256], buf[128] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, want);
}

static void fill(struct pv_ipc_adm_dev *d)
{
	static const uint8_t guid[8] = { 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
					 0x44, 0x55 };
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 78, 0, 1 };
	static const uint8_t ll[16] = { 0xfe, 0x80, [8] = 0x00, [14] = 0xab,
					[15] = 0xcd };

	memset(d, 0, sizeof(*d));
	strcpy(d->info.name, "rdma0");
	strcpy(d->info.ifname, "eth0");
	memcpy(&d->info.node_guid, guid, 8);
	d->info.port_state = 4;
	d->gid_count = 2;
	memcpy(d->gid[0].gid, v4, 16);
	d->gid[0].gid_type = PV_GID_TYPE_ROCE_V2;
	memcpy(d->gid[1].gid, ll, 16);
	d->gid[1].gid_type = PV_GID_TYPE_ROCE_V2;
}

static void test_pvctl_sysfs__kernel_formats(void **state)
{
	struct pv_ipc_adm_dev d;
	struct stat st;
	char path[256];

	(void)state;
	fill(&d);
	assert_int_equal(pvctl_sysfs_write(root, &d), 0);
	expect_file("rdma0/node_guid", "0211:22ff:fe33:4455\n");
	expect_file("rdma0/node_type", "1: CA\n");
	expect_file("rdma0/ports/1/state", "4: ACTIVE\n");
	expect_file("rdma0/ports/1/link_layer", "Ethernet\n");
	expect_file("rdma0/ports/1/gids/0",
		    "0000:0000:0000:0000:0000:ffff:0a4e:0001\n");
	expect_file("rdma0/ports/1/gids/1",
		    "fe80:0000:0000:0000:0000:0000:0000:abcd\n");
	/* What UCX 1.13 compares ("RoCE v2" by its first 7 bytes). */
	expect_file("rdma0/ports/1/gid_attrs/types/0", "RoCE v2\n");
	expect_file("rdma0/ports/1/gid_attrs/types/1", "RoCE v2\n");
	expect_file("rdma0/ports/1/gid_attrs/ndevs/1", "eth0\n");
	snprintf(path, sizeof(path), "%s/rdma0/device/net/eth0", root);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/rdma0/ports/1/gids/2", root);
	assert_int_equal(stat(path, &st), -1);	/* only the table's entries */
	/* Again over the same tree, with a port gone down and a GID gone:
	 * rewritten, and the old entry 1 removed. */
	d.info.port_state = 1;
	d.gid_count = 1;
	assert_int_equal(pvctl_sysfs_write(root, &d), 0);
	expect_file("rdma0/ports/1/state", "1: DOWN\n");
	expect_file("rdma0/ports/1/gids/0",
		    "0000:0000:0000:0000:0000:ffff:0a4e:0001\n");
	const char *gone[] = { "gids/1", "gid_attrs/types/1",
			       "gid_attrs/ndevs/1" };

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/rdma0/ports/1/%s", root,
			 gone[i]);
		assert_int_equal(stat(path, &st), -1);
	}
}

static void test_pvctl_sysfs__names_stay_inside(void **state)
{
	static const char *const bad[] = { "..", ".", "a/b", "" };
	struct pv_ipc_adm_dev d;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fill(&d);
		strcpy(d.info.name, bad[i]);
		assert_int_equal(pvctl_sysfs_write(root, &d), -EINVAL);
		fill(&d);
		if (!bad[i][0])
			continue;	/* no interface is allowed */
		strcpy(d.info.ifname, bad[i]);
		assert_int_equal(pvctl_sysfs_write(root, &d), -EINVAL);
	}
	/* Unterminated names are bounded by their fields. */
	fill(&d);
	memset(d.info.name, 'x', sizeof(d.info.name));
	assert_int_equal(pvctl_sysfs_write(root, &d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_pvctl_sysfs__kernel_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_pvctl_sysfs__names_stay_inside, setup, teardown),
	};

	return cmocka_run_group_tests_name("pvctl_sysfs", tests, NULL, NULL);
}
