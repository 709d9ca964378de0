/* SPDX-License-Identifier: MIT */
/* Unit tests of Allocate responses (soft and kernel pools) through a
 * protobuf-c pack/unpack round trip, and of the CDI spec file. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "device-plugin/dp_alloc.h"

static struct dp_config cfg;
static struct dp_kdev scan[DP_MAX_KDEVS];
static int nscan;

static int setup(void **state)
{
	const char *pv = getenv("PV_ROOT");
	char err[256];

	(void)state;
	if (dp_config_parse("{\"engineSocket\":\"/run/pv/e.sock\","
			    "\"containerEngineDir\":\"/pv\",\"devDir\":\"/hd\","
			    "\"kernelPools\":[{\"resourceName\":\"t.io/mlx\","
			    "\"mode\":\"shared\",\"slotsPerDevice\":2,\"umad\":true,"
			    "\"selectors\":{\"vendors\":[\"15b3\"]}}]}",
			    &cfg, err, sizeof(err)))
		return -1;
	snprintf(err, sizeof(err), "%s/tests/fixtures/sysfs/mlx5-2numa",
		 pv ? pv : ".");
	nscan = dp_discover_scan(err, scan, DP_MAX_KDEVS);
	return nscan == 5 ? 0 : -1;
}

/* Packs and unpacks, so what is checked is what goes on the wire. */
static V1beta1__ContainerAllocateResponse *round_trip(
	const V1beta1__ContainerAllocateResponse *r)
{
	size_t len = v1beta1__container_allocate_response__get_packed_size(r);
	uint8_t *buf = malloc(len);
	V1beta1__ContainerAllocateResponse *out;

	assert_non_null(buf);
	v1beta1__container_allocate_response__pack(r, buf);
	out = v1beta1__container_allocate_response__unpack(NULL, len, buf);
	free(buf);
	assert_non_null(out);
	return out;
}

static void test_dp_alloc__soft(void **state)
{
	struct dp_pool p;
	struct dp_arena a = { 0 };
	V1beta1__ContainerAllocateResponse *r, *w;
	char *ids[] = { "soft-3" }, *bad[] = { "soft-64" }, err[256];

	(void)state;
	dp_pool_init(&p, &cfg.pools[0]);
	dp_pool_update(&p, NULL, 0, true);
	assert_int_equal(dp_alloc_container(&cfg, &p, ids, 1, &a, &r, err,
					    sizeof(err)), 0);
	w = round_trip(r);
	assert_int_equal(w->n_mounts, 1);
	assert_string_equal(w->mounts[0]->host_path, "/run/pv");
	assert_string_equal(w->mounts[0]->container_path, "/pv");
	assert_true(w->mounts[0]->read_only);
	assert_int_equal(w->n_envs, 1);
	assert_string_equal(w->envs[0]->key, "PODVERBS_ENGINE");
	assert_string_equal(w->envs[0]->value, "/pv/e.sock");
	/* The node UCX needs for the soft dev_name: the host's /dev/null. */
	assert_int_equal(w->n_devices, 1);
	assert_string_equal(w->devices[0]->host_path, "/dev/null");
	assert_string_equal(w->devices[0]->container_path,
			    "/dev/infiniband/podverbs");
	assert_string_equal(w->devices[0]->permissions, "rw");
	v1beta1__container_allocate_response__free_unpacked(w, NULL);
	assert_int_equal(dp_alloc_container(&cfg, &p, bad, 1, &a, &r, err,
					    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown device ID \"soft-64\""));
	assert_int_equal(dp_alloc_container(&cfg, &p, ids, 0, &a, &r, err,
					    sizeof(err)), -EINVAL);
	dp_arena_free(&a);
	dp_pool_fini(&p);
}

static void test_dp_alloc__kernel_shared_umad(void **state)
{
	struct dp_pool p;
	struct dp_arena a = { 0 };
	V1beta1__ContainerAllocateResponse *r, *w;
	char *ids[] = { "mlx5_3-1", "mlx5_3-0", "mlx5_0-0" }, err[256];
	cJSON *env;

	(void)state;
	dp_pool_init(&p, &cfg.pools[1]);
	dp_pool_update(&p, scan, nscan, true);
	assert_int_equal(dp_alloc_container(&cfg, &p, ids, 3, &a, &r, err,
					    sizeof(err)), 0);
	w = round_trip(r);
	/* One uverbs (+umad) per distinct device, rdma_cm once. */
	assert_int_equal(w->n_devices, 5);
	assert_string_equal(w->devices[0]->container_path, "/dev/infiniband/uverbs3");
	assert_string_equal(w->devices[0]->host_path, "/hd/uverbs3");
	assert_string_equal(w->devices[0]->permissions, "rw");
	assert_string_equal(w->devices[1]->container_path, "/dev/infiniband/umad3");
	assert_string_equal(w->devices[2]->container_path, "/dev/infiniband/uverbs0");
	assert_string_equal(w->devices[3]->container_path, "/dev/infiniband/umad0");
	assert_string_equal(w->devices[4]->container_path, "/dev/infiniband/rdma_cm");
	assert_int_equal(w->n_envs, 1);
	assert_string_equal(w->envs[0]->key, "PODVERBS_DEVICES_T_IO_MLX");
	env = cJSON_Parse(w->envs[0]->value);
	assert_int_equal(cJSON_GetArraySize(env), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(env, 0),
						"id")->valuestring, "mlx5_3-1");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(env, 2),
					     "numaNode")->valueint, 0);
	cJSON_Delete(env);
	assert_int_equal(w->n_cdi_devices, 0);	/* no cdiSpecDir */
	v1beta1__container_allocate_response__free_unpacked(w, NULL);
	dp_arena_free(&a);
	dp_pool_fini(&p);
}

static void test_dp_alloc__cdi(void **state)
{
	char dir[] = "/tmp/dp-cdi-XXXXXX", path[PATH_MAX], buf[8192];
	struct dp_arena a = { 0 };
	V1beta1__ContainerAllocateResponse *r;
	char *ids[] = { "mlx5_2-1" }, err[256];
	struct dp_pool p;
	cJSON *spec;
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	strcpy(cfg.cdi_dir, dir);
	dp_pool_init(&p, &cfg.pools[1]);
	dp_pool_update(&p, scan, nscan, true);
	assert_int_equal(dp_alloc_container(&cfg, &p, ids, 1, &a, &r, err,
					    sizeof(err)), 0);
	assert_int_equal(r->n_cdi_devices, 1);
	assert_string_equal(r->cdi_devices[0]->name, "t.io/mlx=mlx5_2-1");
	assert_int_equal(dp_alloc_write_cdi(&cfg, &p), 0);
	dp_alloc_cdi_path(&cfg, p.cfg, path, sizeof(path));
	assert_non_null(strstr(path, "/podverbs-mlx.json"));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	spec = cJSON_Parse(buf);
	assert_non_null(spec);
	assert_string_equal(cJSON_GetObjectItem(spec, "kind")->valuestring,
			    "t.io/mlx");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(spec, "devices")),
			 8);
	cJSON_Delete(spec);
	unlink(path);
	rmdir(dir);
	cfg.cdi_dir[0] = 0;
	dp_arena_free(&a);
	dp_pool_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dp_alloc__soft),
		cmocka_unit_test(test_dp_alloc__kernel_shared_umad),
		cmocka_unit_test(test_dp_alloc__cdi),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
