/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine's device state file (eng_state.h): the parser
 * fed hostile text (garbage, truncation, wrong types, bad names and
 * paths, duplicates, too many entries, a huge file), the round trip of
 * what the engine writes, and devices registered with a kept id and GUID
 * (no namespaces, no root).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_idtab.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_state.h"

#define ENTRY(id, name, ifname, ino)					\
	"{\"id\":" #id ",\"name\":\"" name "\",\"ifname\":\"" ifname	\
	"\",\"netns\":\"/var/run/netns/p" #ino "\",\"netnsDev\":4,"	\
	"\"netnsIno\":" #ino ",\"pkey\":65535,\"flags\":0,"		\
	"\"guid\":\"0x0211223344556677\"}"

static struct eng_state_doc doc;
static unsigned nwhy;
static long last_index;
static char last_why[160];

static void on_reject(void *arg, long index, const char *why)
{
	(void)arg;
	nwhy++;
	last_index = index;
	snprintf(last_why, sizeof(last_why), "%s", why);
}

static int parse(const char *text)
{
	nwhy = 0;
	last_index = -2;
	last_why[0] = '\0';
	return eng_state_parse(text, strlen(text), &doc, on_reject, NULL);
}

static void test_eng_state__valid_file_parses(void **state)
{
	(void)state;
	assert_int_equal(parse("{\"version\":1,\"nextId\":7,\"devices\":["
			       ENTRY(3, "rdma0", "eth0", 100) ","
			       ENTRY(5, "rdma0", "eth0", 101) "]}"), 0);
	assert_int_equal(doc.count, 2);
	assert_int_equal(doc.rejected, 0);
	assert_int_equal(doc.next_id, 7);
	assert_int_equal(doc.dev[0].id, 3);
	assert_string_equal(doc.dev[1].netns_path, "/var/run/netns/p101");
	assert_int_equal(doc.dev[1].ns.ino, 101);
	assert_int_equal(doc.dev[0].pkey, 0xffff);
	assert_true(doc.dev[0].guid == 0x0211223344556677ull);
	assert_int_equal(nwhy, 0);
}

static void test_eng_state__garbage_and_truncation_reject_the_file(void **state)
{
	static const char *const bad[] = {
		"", "\x7f" "ELF\x02\x01", "{", "[]", "null", "42",
		"{\"version\":1,\"devices\":[" ENTRY(1, "a", "eth0", 9),
		"{\"version\":1,\"devices\":[{\"id\":1,\"na",
		"{\"version\":2,\"devices\":[]}",
		"{\"version\":\"1\",\"devices\":[]}",
		"{\"devices\":[]}",
		"{\"version\":1,\"devices\":{}}",
		"{\"version\":1}",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i]), -EBADMSG);
		assert_int_equal(doc.count, 0);
		assert_int_equal(last_index, -1);
		assert_true(last_why[0] != '\0');
	}
	/* Embedded NUL: the length counts, not the terminator. */
	assert_int_equal(eng_state_parse("{\"version\":1,\"devices\":[]}\0x",
					 28, &doc, on_reject, NULL), -EBADMSG);
}

static void test_eng_state__bad_entries_rejected_one_by_one(void **state)
{
	static const char *const bad[] = {
		"7", "[]", "{}",
		"{\"id\":0,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":70000,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1.5,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":-1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\\nb\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"../../x\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0eth0eth0eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"relative/ns\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"/var/run/netns/../../etc/shadow\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"/proc/1/ns/net\",\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":32768,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65536,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x0\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x11112222333344445\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"12\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":-1,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":7,\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\",\"gids\":[\"00\"]}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\",\"gids\":[\"0000000000000000000000000000000g\"]}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\",\"gids\":\"x\"}",
		"{\"id\":1,\"name\":\"a\",\"ifname\":\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\",\"gids\":[\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\",\"00000000000000000000000000000000\"]}",
	};
	char text[2048];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* Between two good entries, which both survive. */
		snprintf(text, sizeof(text), "{\"version\":1,\"devices\":["
			 ENTRY(2, "x", "eth0", 50) ",%s,"
			 ENTRY(3, "y", "eth0", 51) "]}", bad[i]);
		assert_int_equal(parse(text), 0);
		assert_int_equal(doc.rejected, 1);
		assert_int_equal(doc.count, 2);
		assert_int_equal(doc.dev[0].id, 2);
		assert_int_equal(doc.dev[1].id, 3);
		assert_int_equal(nwhy, 1);
		assert_int_equal(last_index, 1);
	}
}

static void test_eng_state__duplicates_rejected(void **state)
{
	(void)state;
	/* Same id; same (namespace, ifname); same (namespace, name). */
	assert_int_equal(parse("{\"version\":1,\"devices\":["
			       ENTRY(2, "x", "eth0", 50) ","
			       ENTRY(2, "y", "eth1", 51) ","
			       ENTRY(3, "z", "eth0", 50) ","
			       ENTRY(4, "x", "eth1", 50) ","
			       ENTRY(5, "x", "eth0", 52) "]}"), 0);
	assert_int_equal(doc.count, 2);
	assert_int_equal(doc.rejected, 3);
	assert_int_equal(doc.dev[1].id, 5);
}

/* More entries than an engine may have devices, then a flood of bad
 * ones: bounded work, bounded log lines, the file's first entries kept. */
static void test_eng_state__too_many_entries(void **state)
{
	size_t cap = ENG_STATE_FILE_MAX, len;
	char *text = malloc(cap + 1);
	unsigned n = 0;

	(void)state;
	assert_non_null(text);
	len = (size_t)snprintf(text, cap, "{\"version\":1,\"devices\":[");
	for (unsigned i = 1; i <= ENG_STATE_DEVS_MAX + 10; i++, n++)
		len += (size_t)snprintf(text + len, cap - len,
			"%s{\"id\":%u,\"name\":\"d%u\",\"ifname\":\"eth0\","
			"\"netns\":\"/n/%u\",\"netnsDev\":4,\"netnsIno\":%u,"
			"\"pkey\":65535,\"flags\":0,\"guid\":\"0x1\"}",
			i > 1 ? "," : "", i, i, i, 1000 + i);
	while (len + 8 < cap - 16) {
		len += (size_t)snprintf(text + len, cap - len, ",{}");
		n++;
	}
	len += (size_t)snprintf(text + len, cap - len, "]}");
	nwhy = 0;
	assert_int_equal(eng_state_parse(text, len, &doc, on_reject, NULL), 0);
	assert_int_equal(doc.count, ENG_STATE_DEVS_MAX);
	assert_int_equal(doc.rejected, n - ENG_STATE_DEVS_MAX);
	assert_int_equal(nwhy, ENG_STATE_REJECTS_LOGGED + 1);	/* + summary */
	assert_int_equal(doc.dev[ENG_STATE_DEVS_MAX - 1].id, ENG_STATE_DEVS_MAX);
	free(text);
}

static void test_eng_state__huge_file_rejected(void **state)
{
	size_t len = ENG_STATE_FILE_MAX + 1;
	char *text = malloc(len);

	(void)state;
	assert_non_null(text);
	memset(text, ' ', len);
	assert_int_equal(eng_state_parse(text, len, &doc, on_reject, NULL),
			 -EBADMSG);
	free(text);
	/* Deep nesting is refused by cJSON's nesting limit, not the stack. */
	text = malloc(200001);
	assert_non_null(text);
	memset(text, '[', 200000);
	text[200000] = '\0';
	assert_int_equal(parse(text), -EBADMSG);
	free(text);
}

static void test_eng_state__format_round_trips(void **state)
{
	static struct eng_state_doc in, out;
	char *text;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.next_id = 9;
	in.count = 2;
	in.dev[0] = (struct eng_state_dev){
		.id = 8, .name = "rdma0", .ifname = "eth0",
		.netns_path = "/var/run/netns/cni-1", .ns = { 4, 4026532741u },
		.pkey = 0x8001, .flags = 0, .guid = 0xd4a15bfffe162adeull,
		.gid_count = 2 };
	in.dev[0].gid[0].gid[10] = in.dev[0].gid[0].gid[11] = 0xff;
	in.dev[0].gid[0].gid[12] = 10;
	in.dev[0].gid[0].gid[15] = 1;
	in.dev[0].gid[1].gid[0] = 0xfe;
	in.dev[0].gid[1].gid[1] = 0x80;
	in.dev[0].gid[1].gid[15] = 0x9c;
	in.dev[0].gid[0].gid_type = in.dev[0].gid[1].gid_type =
		PV_GID_TYPE_ROCE_V2;
	in.dev[1] = (struct eng_state_dev){
		.id = 1, .name = "pv\"0\\", .ifname = "lo", .netns_path = "",
		.ns = { 4, 4026531833u }, .pkey = 0xffff, .flags = 7,
		.guid = 0xffffffffffffffffull };
	/* Its attachment's claims come back too (eng_dev.claim[]). */
	in.dev[0].claim_count = 2;
	in.dev[0].claim[0][10] = in.dev[0].claim[0][11] = 0xff;
	in.dev[0].claim[0][12] = 10;
	in.dev[0].claim[0][15] = 1;
	in.dev[0].claim[1][0] = 0xfd;
	in.dev[0].claim[1][15] = 2;
	/* And the pod the CNI named (metrics labels). */
	strcpy(in.dev[0].pod_ns, "team-a");
	strcpy(in.dev[0].pod_name, "trainer-0 \"x\"");
	text = eng_state_format(&in);
	assert_non_null(text);
	assert_int_equal(eng_state_parse(text, strlen(text), &out, on_reject,
					 NULL), 0);
	free(text);
	assert_int_equal(out.count, 2);
	assert_int_equal(out.rejected, 0);
	assert_int_equal(out.next_id, 9);
	assert_memory_equal(&out.dev[0], &in.dev[0], sizeof(in.dev[0]));
	assert_memory_equal(&out.dev[1], &in.dev[1], sizeof(in.dev[1]));
}

#define CLAIMS_ENTRY(claims)						\
	"{\"version\":1,\"devices\":[{\"id\":1,\"name\":\"a\",\"ifname\":"	\
	"\"eth0\",\"netns\":\"\",\"netnsDev\":4,\"netnsIno\":5,\"pkey\":"	\
	"65535,\"flags\":0,\"guid\":\"0x1\",\"claims\":" claims "}]}"
#define G1 "\"00000000000000000000ffff0a500002\""

/* A claim takes a GID from another device: each malformed list refuses
 * its entry; a good one is read back. */
static void test_eng_state__claims_checked(void **state)
{
	static const char *const bad[] = {
		CLAIMS_ENTRY("\"x\""),
		CLAIMS_ENTRY("[\"00\"]"),
		CLAIMS_ENTRY("[1]"),
		CLAIMS_ENTRY("[\"0000000000000000000000000000000g\"]"),
		CLAIMS_ENTRY("[\"00000000000000000000000000000000\"]"),
		CLAIMS_ENTRY("[" G1 "," G1 "]"),
		CLAIMS_ENTRY("[\"01\",\"02\",\"03\",\"04\",\"05\",\"06\",\"07\",\"08\",\"09\"]"),
		CLAIMS_ENTRY("[\"00000000000000000000ffff0a500001\",\"00000000000000000000ffff0a500002\",\"00000000000000000000ffff0a500003\",\"00000000000000000000ffff0a500004\",\"00000000000000000000ffff0a500005\",\"00000000000000000000ffff0a500006\",\"00000000000000000000ffff0a500007\",\"00000000000000000000ffff0a500008\",\"00000000000000000000ffff0a500009\"]"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i]), 0);
		assert_int_equal(doc.count, 0);
		assert_int_equal(doc.rejected, 1);
		assert_non_null(strstr(last_why, "claims"));
	}
	assert_int_equal(parse(CLAIMS_ENTRY("[" G1 "]")), 0);
	assert_int_equal(doc.count, 1);
	assert_int_equal(doc.dev[0].claim_count, 1);
	assert_int_equal(doc.dev[0].claim[0][15], 2);
	assert_int_equal(doc.dev[0].claim[0][10], 0xff);
}

static void test_eng_idtab__alloc_at_exact_index(void **state)
{
	struct eng_idtab t;
	int x;

	(void)state;
	eng_idtab_init(&t, 1, 0xffff);
	assert_int_equal(eng_idtab_alloc_at(&t, 300, &x), 0);
	assert_ptr_equal(eng_idtab_get(&t, 300), &x);
	assert_int_equal(eng_idtab_alloc_at(&t, 300, &x), -EEXIST);
	assert_int_equal(eng_idtab_alloc_at(&t, 0, &x), -EINVAL);
	assert_int_equal(eng_idtab_alloc_at(&t, 0x10000, &x), -EINVAL);
	assert_int_equal(eng_idtab_alloc_at(&t, 5, &x), 0);
	/* New ids continue after the highest kept one. */
	assert_int_equal(eng_idtab_alloc(&t, &x), 301);
	assert_int_equal(t.used, 3);
	eng_idtab_fini(&t);
}

static void fake_link(struct netns_link *l)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = 2;
	strcpy(l->name, "eth0");
	l->mtu = 1500;
	l->up = l->running = true;
	memcpy(l->mac, "\x02\x11\x22\x33\x44\x55", 6);
}

static void test_eng_state__register_keeps_id_and_guid(void **state)
{
	static struct eng e;
	static const struct netns_id ns = { 4, 4026530001u };
	struct eng_dev_keep keep = { .id = 42, .guid = 0x1122334455667788ull,
				     .ns = ns };
	struct netns_link l;
	struct eng_dev *d, *d2;

	(void)state;
	eng_log_level = ENG_LOG_ERR;
	assert_int_equal(eng_init(&e), 0);
	fake_link(&l);
	assert_int_equal(eng_dev_register_kept(&e, -1, &ns, "/n", "rdma0",
					       0x8001, &l, &keep, &d), 0);
	assert_int_equal(d->id, 42);
	assert_true(d->guid == keep.guid);
	assert_ptr_equal(eng_dev_by_id(&e, 42), d);
	/* The id taken: refused, not moved elsewhere. */
	strcpy(l.name, "eth1");
	assert_int_equal(eng_dev_register_kept(&e, -1, &ns, "/n", "rdma1",
					       0, &l, &keep, &d2), -EEXIST);
	/* Without keep: a new id, the GUID from the MAC. */
	assert_int_equal(eng_dev_register_kept(&e, -1, &ns, "/n", "rdma1",
					       0, &l, NULL, &d2), 0);
	assert_int_equal(d2->id, 43);
	assert_true(d2->guid != keep.guid);
	assert_int_equal(d->claim_count, 0);
	eng_fini(&e);
}

/* A restored device gets the claims the state file kept. */
static void test_eng_state__register_keeps_claims(void **state)
{
	static struct eng e;
	static const struct netns_id ns = { 4, 4026530002u };
	struct pv_ipc_adm_dev_claims cl = { .count = 2 };
	struct eng_dev_keep keep = { .id = 7, .guid = 0x55, .ns = ns,
				     .claims = &cl };
	struct netns_link l;
	struct eng_dev *d;

	(void)state;
	eng_log_level = ENG_LOG_ERR;
	cl.gid[0][15] = 1;
	cl.gid[1][15] = 2;
	assert_int_equal(eng_init(&e), 0);
	fake_link(&l);
	assert_int_equal(eng_dev_register_kept(&e, -1, &ns, "/n", "rdma0",
					       0, &l, &keep, &d), 0);
	assert_int_equal(d->claim_count, 2);
	assert_memory_equal(d->claim, cl.gid, 2 * 16);
	eng_fini(&e);
}

static const struct eng_state_dev *doc_dev(uint32_t id)
{
	for (uint32_t i = 0; i < doc.count; i++)
		if (doc.dev[i].id == id)
			return &doc.dev[i];
	return NULL;
}

/* The journal over the file: adds (one replacing the entry of its id, as
 * after a crash between compaction and truncation), a delete, a line of
 * garbage and a clashing add refused one by one, a torn last line
 * ignored; what the engine writes reads back the same. */
static void test_eng_state__journal_replays(void **state)
{
	struct eng_state_dev add8 = {
		.id = 8, .name = "rdma8", .ifname = "eth8",
		.netns_path = "/var/run/netns/p108", .ns = { 4, 108 },
		.pkey = 0x8001, .guid = 0x1122, .gid_count = 1 };
	struct eng_state_dev clash = add8, again5 = add8, torn = add8;
	struct eng_state_dev keep8 = add8;
	char *l8, *ldel, *l5, *lclash, *ltorn, *lkeep, text[8192];
	int bad;

	(void)state;
	add8.gid[0].gid[15] = 9;
	add8.gid[0].gid_type = PV_GID_TYPE_ROCE_V2;
	clash.id = 9;			/* eth8 of that namespace again */
	again5.id = 5;
	strcpy(again5.name, "renamed");
	strcpy(again5.ifname, "eth5");
	again5.ns.ino = 101;
	torn.id = 10;
	strcpy(torn.ifname, "eth10");
	/* Device 8 again, on 5's interface: refused, and 8 stays. */
	strcpy(keep8.ifname, "eth5");
	keep8.ns.ino = 101;
	assert_int_equal(parse("{\"version\":1,\"nextId\":7,\"devices\":["
			       ENTRY(3, "rdma0", "eth0", 100) ","
			       ENTRY(5, "rdma0", "eth0", 101) "]}"), 0);
	l8 = eng_state_format_line(&add8, 0, 9);
	ldel = eng_state_format_line(NULL, 3, 9);
	l5 = eng_state_format_line(&again5, 0, 0);
	lclash = eng_state_format_line(&clash, 0, 10);
	ltorn = eng_state_format_line(&torn, 0, 11);
	lkeep = eng_state_format_line(&keep8, 0, 0);
	assert_non_null(lkeep);
	assert_non_null(l8);
	assert_non_null(ldel);
	assert_non_null(l5);
	assert_non_null(lclash);
	assert_non_null(ltorn);
	assert_int_equal(l8[strlen(l8) - 1], '\n');
	assert_null(memchr(l8, '\n', strlen(l8) - 1));
	ltorn[strlen(ltorn) - 1] = '\0';
	snprintf(text, sizeof(text), "%s%s%s%s{\"del\":\"x\"}\nnot json\n%s%s",
		 l8, ldel, l5, lkeep, lclash, ltorn);
	nwhy = 0;
	bad = eng_state_journal_apply(text, strlen(text), &doc, on_reject,
				      NULL);
	assert_int_equal(bad, 4);
	assert_int_equal(doc.rejected, 4);
	assert_int_equal(nwhy, 4);
	assert_int_equal(doc.count, 2);
	assert_null(doc_dev(3));
	assert_null(doc_dev(9));
	assert_null(doc_dev(10));
	assert_non_null(doc_dev(8));
	assert_memory_equal(doc_dev(8), &add8, sizeof(add8));
	assert_non_null(doc_dev(5));
	assert_string_equal(doc_dev(5)->name, "renamed");
	/* The refused line's cursor counts: it only orders new ids. */
	assert_int_equal(doc.next_id, 10);
	free(l8);
	free(ldel);
	free(l5);
	free(lclash);
	free(ltorn);
	free(lkeep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_state__valid_file_parses),
		cmocka_unit_test(test_eng_state__garbage_and_truncation_reject_the_file),
		cmocka_unit_test(test_eng_state__bad_entries_rejected_one_by_one),
		cmocka_unit_test(test_eng_state__duplicates_rejected),
		cmocka_unit_test(test_eng_state__too_many_entries),
		cmocka_unit_test(test_eng_state__huge_file_rejected),
		cmocka_unit_test(test_eng_state__format_round_trips),
		cmocka_unit_test(test_eng_state__journal_replays),
		cmocka_unit_test(test_eng_idtab__alloc_at_exact_index),
		cmocka_unit_test(test_eng_state__register_keeps_id_and_guid),
		cmocka_unit_test(test_eng_state__claims_checked),
		cmocka_unit_test(test_eng_state__register_keeps_claims),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
