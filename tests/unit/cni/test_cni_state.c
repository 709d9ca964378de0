/* SPDX-License-Identifier: MIT */
/* Unit tests of attachment state records and files, GC lists, and finding
 * an attachment's device in an engine listing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cni-plugin/cni_claim.h"
#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_engine.h"
#include "cni-plugin/cni_state.h"

static char dir[64];

static int setup(void **state)
{
	strcpy(dir, "/tmp/cni-state-test.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void sample(struct cni_state *st, const char *cid)
{
	memset(st, 0, sizeof(*st));
	strcpy(st->network, "rdmanet");
	strcpy(st->containerid, cid);
	strcpy(st->ifname, "eth0");
	strcpy(st->netns, "/run/netns/p1");
	st->phase = CNI_PHASE_READY;
	strcpy(st->engine_socket, "/run/podverbs/engine.sock");
	strcpy(st->device_name, "pv_eth0");
	st->dev_id = 7;
	st->pkey = 0x8001;
	st->netns_dev = 4;
	st->netns_ino = 4026532481u;
}

static void test_cni_state__json_round_trip(void **state)
{
	struct cni_state a, b;
	char *text;

	sample(&a, "c1");
	a.mode = CNI_MODE_KERNEL;
	strcpy(a.kernel_device, "mlx5_0");
	a.kernel_index = 3;
	a.moved = 1;
	text = cni_state_to_json(&a);
	assert_non_null(text);
	assert_int_equal(cni_state_from_json(text, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	free(text);
	/* Records of older plugins have no namespace identity. */
	text = cni_state_to_json(&a);
	assert_non_null(strstr(text, "\"netnsIno\""));
	strstr(text, "\"netnsIno\"")[1] = 'x';
	strstr(text, "\"netnsDev\"")[1] = 'x';
	assert_int_equal(cni_state_from_json(text, &b), 0);
	assert_int_equal(b.netns_ino, 0);
	assert_int_equal(b.netns_dev, 0);
	free(text);
	assert_int_equal(cni_state_from_json("{\"network\":1}", &b), -EBADMSG);
	assert_int_equal(cni_state_from_json("not json", &b), -EBADMSG);
}

static void test_cni_state__key(void **state)
{
	char key[CNI_STATE_KEY_MAX], tiny[8];

	assert_int_equal(cni_state_key("net", "cid", "eth0", key, sizeof(key)), 0);
	assert_string_equal(key, "net@cid@eth0");
	assert_int_equal(cni_state_key("net", "cid", "eth0", tiny, sizeof(tiny)),
			 -ENAMETOOLONG);
}

static int count_cb(const char *key, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

static void test_cni_state__files(void **state)
{
	char sub[128], path[192];
	struct cni_state a, b;
	struct stat sb;
	int lock, n = 0;

	snprintf(sub, sizeof(sub), "%s/deep/er", dir);
	sample(&a, "c1");
	lock = cni_state_lock(sub, "rdmanet@c1@eth0");
	assert_true(lock >= 0);
	assert_int_equal(cni_state_read(sub, "rdmanet@c1@eth0", &b), -ENOENT);
	assert_int_equal(cni_state_write(sub, "rdmanet@c1@eth0", &a), 0);
	assert_int_equal(cni_state_read(sub, "rdmanet@c1@eth0", &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	close(lock);

	lock = cni_state_lock(sub, "rdmanet@c2@eth0");
	assert_int_equal(cni_state_write(sub, "rdmanet@c2@eth0", &a), 0);
	close(lock);
	lock = cni_state_lock(sub, "other@c3@eth0");
	assert_int_equal(cni_state_write(sub, "other@c3@eth0", &a), 0);
	close(lock);
	assert_int_equal(cni_state_each(sub, "rdmanet", count_cb, &n), 0);
	assert_int_equal(n, 2);

	lock = cni_state_lock(sub, "rdmanet@c1@eth0");
	assert_int_equal(cni_state_remove(sub, "rdmanet@c1@eth0", lock), 0);
	snprintf(path, sizeof(path), "%s/rdmanet@c1@eth0.json", sub);
	assert_int_equal(stat(path, &sb), -1);
	snprintf(path, sizeof(path), "%s/rdmanet@c1@eth0.lock", sub);
	assert_int_equal(stat(path, &sb), -1);
	n = 0;
	assert_int_equal(cni_state_each(sub, "rdmanet", count_cb, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cni_state_each("/nonexistent/x", "rdmanet", count_cb, &n), 0);
}

/* A lock whose file was removed by its previous holder is not a lock. */
static void test_cni_state__lock_retries_after_remove(void **state)
{
	char path[192];
	int a, b, stale;

	a = cni_state_lock(dir, "n@c@e");
	assert_true(a >= 0);
	snprintf(path, sizeof(path), "%s/n@c@e.lock", dir);
	stale = open(path, O_RDWR | O_CLOEXEC);
	assert_true(stale >= 0);
	assert_int_equal(flock(stale, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(cni_state_remove(dir, "n@c@e", a), 0);
	/* The old inode is free now, but a new lock uses a new file. */
	assert_int_equal(flock(stale, LOCK_EX | LOCK_NB), 0);
	b = cni_state_lock(dir, "n@c@e");
	assert_true(b >= 0);
	close(stale);
	assert_int_equal(cni_state_remove(dir, "n@c@e", b), 0);
}

static void test_cni_gc__list(void **state)
{
	cJSON *l = cJSON_Parse("[{\"containerID\":\"c1\",\"ifname\":\"eth0\"},"
			       "{\"containerID\":\"c2\",\"ifname\":\"net1\"}]");
	cJSON *bad = cJSON_Parse("[{\"containerID\":\"c1\"}]");
	cJSON *empty = cJSON_Parse("[]");

	assert_true(cni_gc_list_valid(l));
	assert_true(cni_gc_list_valid(empty));
	assert_false(cni_gc_list_valid(bad));
	assert_false(cni_gc_list_valid(NULL));
	assert_true(cni_gc_is_valid(l, "c1", "eth0"));
	assert_true(cni_gc_is_valid(l, "c2", "net1"));
	assert_false(cni_gc_is_valid(l, "c1", "net1"));
	assert_false(cni_gc_is_valid(empty, "c1", "eth0"));
	cJSON_Delete(l);
	cJSON_Delete(bad);
	cJSON_Delete(empty);
}

static void test_cni_engine__find(void **state)
{
	struct pv_ipc_adm_dev_list *l = calloc(1, sizeof(*l) + 3 * sizeof(l->dev[0]));
	const struct pv_ipc_adm_dev *d;

	l->count = 3;
	for (int i = 0; i < 3; i++) {
		l->dev[i].info.dev_id = i + 1;
		strcpy(l->dev[i].info.name, "pv_eth0");
		strcpy(l->dev[i].info.ifname, "eth0");
		snprintf(l->dev[i].netns_path, sizeof(l->dev[i].netns_path),
			 "/run/netns/p%d", i);
	}
	d = cni_engine_find(l, 2, "pv_eth0", "eth0", "");
	assert_non_null(d);
	assert_int_equal(d->info.dev_id, 2);
	assert_null(cni_engine_find(l, 2, "pv_eth1", "eth0", ""));
	assert_null(cni_engine_find(l, 9, "pv_eth0", "eth0", ""));
	/* Without an id the namespace decides. */
	d = cni_engine_find(l, 0, "pv_eth0", "eth0", "/run/netns/p2");
	assert_non_null(d);
	assert_int_equal(d->info.dev_id, 3);
	assert_null(cni_engine_find(l, 0, "pv_eth0", "eth0", "/run/netns/p9"));
	free(l);
}

static void test_cni_engine__find_ns(void **state)
{
	struct pv_ipc_adm_dev_list *l = calloc(1, sizeof(*l) + 3 * sizeof(l->dev[0]));
	const struct pv_ipc_adm_dev *d;

	l->count = 3;
	for (int i = 0; i < 3; i++) {
		l->dev[i].info.dev_id = i + 1;
		strcpy(l->dev[i].info.name, i == 2 ? "other" : "pv_eth0");
		strcpy(l->dev[i].info.ifname, "eth0");
		l->dev[i].netns_dev = 4;
		l->dev[i].netns_ino = 100 + i;
	}
	d = cni_engine_find_ns(l, 4, 101, "eth0", "pv_eth0");
	assert_non_null(d);
	assert_int_equal(d->info.dev_id, 2);
	assert_null(cni_engine_find_ns(l, 5, 101, "eth0", "pv_eth0"));
	assert_null(cni_engine_find_ns(l, 4, 101, "eth1", "pv_eth0"));
	/* Another name on our interface is not ours, but is there. */
	assert_null(cni_engine_find_ns(l, 4, 102, "eth0", "pv_eth0"));
	d = cni_engine_find_ns(l, 4, 102, "eth0", NULL);
	assert_non_null(d);
	assert_int_equal(d->info.dev_id, 3);
	free(l);
}

static void test_cni_claim__take_and_drop(void **state)
{
	char owner[CNI_STATE_KEY_MAX], name[128], path[256];
	struct cni_state st;
	struct stat sb;

	sample(&st, "c1");
	assert_int_equal(cni_claim_name(&st, name, sizeof(name)), 0);
	assert_string_equal(name, "netns-4-4026532481@eth0.claim");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(cni_claim_name(&st, name, 8), -ENAMETOOLONG);

	assert_int_equal(cni_claim_is_ours(dir, &st, "n@c1@eth0"), 0);
	assert_int_equal(cni_claim_take(dir, &st, "n@c1@eth0", owner,
					sizeof(owner)), 0);
	assert_int_equal(cni_claim_is_ours(dir, &st, "n@c1@eth0"), 1);
	/* Taken again by its owner (an ADD that died): still its. */
	assert_int_equal(cni_claim_take(dir, &st, "n@c1@eth0", owner,
					sizeof(owner)), 1);
	/* Another attachment learns whose it is, and cannot drop it. */
	assert_int_equal(cni_claim_take(dir, &st, "m@c1@eth0", owner,
					sizeof(owner)), -EEXIST);
	assert_string_equal(owner, "n@c1@eth0");
	assert_int_equal(cni_claim_is_ours(dir, &st, "m@c1@eth0"), 0);
	cni_claim_drop(dir, &st, "m@c1@eth0");
	assert_int_equal(stat(path, &sb), 0);
	/* Replacing a stale one makes it the replacer's. */
	assert_int_equal(cni_claim_replace(dir, &st, "m@c1@eth0"), 0);
	assert_int_equal(cni_claim_is_ours(dir, &st, "m@c1@eth0"), 1);
	cni_claim_drop(dir, &st, "m@c1@eth0");
	assert_int_equal(stat(path, &sb), -1);
	/* No identity (a record of an older plugin): never ours. */
	st.netns_ino = 0;
	assert_int_equal(cni_claim_is_ours(dir, &st, "m@c1@eth0"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cni_state__json_round_trip),
		cmocka_unit_test(test_cni_state__key),
		cmocka_unit_test(test_cni_state__files),
		cmocka_unit_test(test_cni_state__lock_retries_after_remove),
		cmocka_unit_test(test_cni_gc__list),
		cmocka_unit_test(test_cni_engine__find),
		cmocka_unit_test(test_cni_engine__find_ns),
		cmocka_unit_test(test_cni_claim__take_and_drop),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
