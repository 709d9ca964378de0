/* SPDX-License-Identifier: MIT */
/*
 * The state file's JSON (eng_state.h): pure, no I/O.  Parsing treats the
 * text as hostile: bounded length and entry count, every field typed and
 * range-checked, each entry accepted or refused on its own.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_state.h"

/* Largest integer a JSON number (a double) holds exactly. */
#define JSON_INT_MAX	9007199254740991.0

struct rejects {
	eng_state_reject_fn fn;
	void *arg;
	struct eng_state_doc *doc;
};

static void reject(struct rejects *r, long index, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reject(struct rejects *r, long index, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (index >= 0 && ++r->doc->rejected > ENG_STATE_REJECTS_LOGGED)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (r->fn)
		r->fn(r->arg, index, why);
}

/* Printable, no control characters, 1..cap-1 bytes. */
static bool name_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* As the kernel's dev_valid_name(): 1..15 bytes, not "." or "..", no
 * '/', ':' or white space. */
static bool ifname_ok(const char *s)
{
	size_t n = strnlen(s, PV_IFNAME_MAX);

	if (n == 0 || n >= PV_IFNAME_MAX || !strcmp(s, ".") ||
	    !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f ||
		    s[i] == '/' || s[i] == ':')
			return false;
	return true;
}

/* "" (the engine's namespace) or an absolute path without "." or ".."
 * components or control characters. */
static bool path_ok(const char *s)
{
	size_t n = strnlen(s, PV_PATH_MAX);

	if (n == 0)
		return true;
	if (n >= PV_PATH_MAX || s[0] != '/' || !name_ok(s, PV_PATH_MAX))
		return false;
	for (const char *p = s; (p = strchr(p, '/')) != NULL; p++) {
		size_t len = strcspn(p + 1, "/");

		if ((len == 1 && p[1] == '.') ||
		    (len == 2 && p[1] == '.' && p[2] == '.'))
			return false;
	}
	return true;
}

/* An integral JSON number in [lo, hi]. */
static bool get_uint(const cJSON *o, const char *key, double lo, double hi,
		     uint64_t *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	double d;

	if (!cJSON_IsNumber(v))
		return false;
	d = v->valuedouble;
	if (!isfinite(d) || d < lo || d > hi || d != floor(d))
		return false;
	*ret = (uint64_t)d;
	return true;
}

static bool get_str(const cJSON *o, const char *key, char *out, size_t cap)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v) || !v->valuestring ||
	    strlen(v->valuestring) >= cap)
		return false;
	memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
	return true;
}

/* "0x" and 1..16 hex digits, not zero. */
static bool get_guid(const cJSON *o, uint64_t *ret)
{
	char s[24], *end;

	if (!get_str(o, "guid", s, sizeof(s)) || strncmp(s, "0x", 2) ||
	    strlen(s) < 3 || strlen(s) > 18 ||
	    strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2))
		return false;
	errno = 0;
	*ret = strtoull(s + 2, &end, 16);
	return errno == 0 && *end == '\0' && *ret != 0;
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string of exactly 32 hex digits into out. */
static bool get_gid_hex(const cJSON *g, uint8_t out[16])
{
	if (!cJSON_IsString(g) || !g->valuestring ||
	    strlen(g->valuestring) != 32)
		return false;
	for (int i = 0; i < 16; i++) {
		int hi = hex_nibble(g->valuestring[2 * i]);
		int lo = hex_nibble(g->valuestring[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/* Optional "gids": up to PV_GID_TABLE_MAX strings of 32 hex digits. */
static bool get_gids(const cJSON *o, struct eng_state_dev *d)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "gids"), *g;

	if (!arr)
		return true;
	if (!cJSON_IsArray(arr))
		return false;
	cJSON_ArrayForEach(g, arr) {
		struct pv_ipc_gid_entry *e;

		if (d->gid_count >= PV_GID_TABLE_MAX)
			return false;
		e = &d->gid[d->gid_count++];
		if (!get_gid_hex(g, e->gid))
			return false;
		e->gid_type = PV_GID_TYPE_ROCE_V2;
	}
	return true;
}

/* Optional "claims": up to PV_GID_CLAIM_MAX distinct non-zero GIDs in
 * hex.  A claim takes a GID from another device, so a bad one refuses the
 * entry rather than being skipped. */
static bool get_claims(const cJSON *o, struct eng_state_dev *d)
{
	static const uint8_t zero[16];
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "claims"), *g;

	if (!arr)
		return true;
	if (!cJSON_IsArray(arr))
		return false;
	cJSON_ArrayForEach(g, arr) {
		uint8_t gid[16];

		if (d->claim_count >= PV_GID_CLAIM_MAX || !get_gid_hex(g, gid) ||
		    !memcmp(gid, zero, 16))
			return false;
		for (uint32_t i = 0; i < d->claim_count; i++)
			if (!memcmp(d->claim[i], gid, 16))
				return false;
		memcpy(d->claim[d->claim_count++], gid, 16);
	}
	return true;
}

/* Why entry o is unusable, or NULL with *d filled. */
static const char *entry_parse(const cJSON *o, struct eng_state_dev *d)
{
	uint64_t v;

	memset(d, 0, sizeof(*d));
	if (!cJSON_IsObject(o))
		return "not an object";
	if (!get_uint(o, "id", 1, 0xffff, &v))
		return "\"id\" missing or not in 1..65535";
	d->id = (uint32_t)v;
	if (!get_str(o, "name", d->name, sizeof(d->name)) ||
	    !name_ok(d->name, sizeof(d->name)))
		return "\"name\" missing, empty, too long or not printable";
	if (!get_str(o, "ifname", d->ifname, sizeof(d->ifname)) ||
	    !ifname_ok(d->ifname))
		return "\"ifname\" missing or not an interface name";
	if (!get_str(o, "netns", d->netns_path, sizeof(d->netns_path)) ||
	    !path_ok(d->netns_path))
		return "\"netns\" missing or not an absolute, plain path";
	if (!get_uint(o, "netnsDev", 0, JSON_INT_MAX, &d->ns.dev) ||
	    !get_uint(o, "netnsIno", 1, JSON_INT_MAX, &d->ns.ino))
		return "\"netnsDev\"/\"netnsIno\" missing or out of range";
	/* The low 15 bits name the partition; 0 is not one. */
	if (!get_uint(o, "pkey", 1, 0xffff, &v) || !(v & 0x7fff))
		return "\"pkey\" missing or not a valid P_Key";
	d->pkey = (uint16_t)v;
	if (!get_uint(o, "flags", 0, UINT32_MAX, &v))
		return "\"flags\" missing or out of range";
	d->flags = (uint32_t)v;
	if (!get_guid(o, &d->guid))
		return "\"guid\" missing or not \"0x\" and 1..16 hex digits";
	if (!get_gids(o, d))
		return "\"gids\" not a list of at most 16 GIDs in hex";
	if (!get_claims(o, d))
		return "\"claims\" not a list of at most 8 distinct, non-zero GIDs in hex";
	if ((cJSON_HasObjectItem(o, "podNamespace") &&
	     !get_str(o, "podNamespace", d->pod_ns, sizeof(d->pod_ns))) ||
	    (cJSON_HasObjectItem(o, "podName") &&
	     !get_str(o, "podName", d->pod_name, sizeof(d->pod_name))))
		return "\"podNamespace\"/\"podName\" not a string or too long";
	return NULL;
}

/* Why d clashes with an entry accepted before it, or NULL. */
static const char *entry_clash(const struct eng_state_doc *doc,
			       const struct eng_state_dev *d)
{
	for (uint32_t i = 0; i < doc->count; i++) {
		const struct eng_state_dev *x = &doc->dev[i];

		if (x->id == d->id)
			return "id used by an earlier entry";
		if (!netns_id_equal(&x->ns, &d->ns))
			continue;
		if (!strcmp(x->ifname, d->ifname))
			return "interface of that namespace used by an earlier entry";
		if (!strcmp(x->name, d->name))
			return "name used in that namespace by an earlier entry";
	}
	return NULL;
}

static void entries_parse(const cJSON *arr, struct eng_state_doc *doc,
			  struct rejects *r)
{
	long i = 0;
	const cJSON *o;

	cJSON_ArrayForEach(o, arr) {
		struct eng_state_dev d;
		const char *why = entry_parse(o, &d);

		if (!why && doc->count >= ENG_STATE_DEVS_MAX)
			why = "more entries than an engine can have devices";
		if (!why)
			why = entry_clash(doc, &d);
		if (why)
			reject(r, i, "%s", why);
		else
			doc->dev[doc->count++] = d;
		i++;
	}
}

int eng_state_parse(const char *text, size_t len, struct eng_state_doc *doc,
		    eng_state_reject_fn fn, void *arg)
{
	struct rejects r = { .fn = fn, .arg = arg, .doc = doc };
	const char *end = NULL;
	const cJSON *devs;
	cJSON *root;
	uint64_t v;
	int ret = -EBADMSG;

	memset(doc, 0, sizeof(*doc));
	if (len > ENG_STATE_FILE_MAX) {
		reject(&r, -1, "larger than %d bytes", ENG_STATE_FILE_MAX);
		return -EBADMSG;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!cJSON_IsObject(root)) {
		reject(&r, -1, root ? "not a JSON object" : "not valid JSON");
		goto out;
	}
	/* Only white space may follow: anything else is a corrupt file. */
	for (; end && end < text + len; end++)
		if (!strchr(" \t\r\n", *end) || !*end) {
			reject(&r, -1, "bytes after the JSON object");
			goto out;
		}
	if (!get_uint(root, "version", 0, JSON_INT_MAX, &v) ||
	    v != ENG_STATE_VERSION) {
		reject(&r, -1, "\"version\" is not %d", ENG_STATE_VERSION);
		goto out;
	}
	devs = cJSON_GetObjectItemCaseSensitive(root, "devices");
	if (!cJSON_IsArray(devs)) {
		reject(&r, -1, "\"devices\" is not an array");
		goto out;
	}
	/* Optional: a bad cursor only costs the order of new ids. */
	if (get_uint(root, "nextId", 1, 0xffff, &v))
		doc->next_id = (uint32_t)v;
	entries_parse(devs, doc, &r);
	if (doc->rejected > ENG_STATE_REJECTS_LOGGED && fn) {
		char why[80];

		snprintf(why, sizeof(why), "%" PRIu32 " more entries rejected",
			 doc->rejected - ENG_STATE_REJECTS_LOGGED);
		fn(arg, -1, why);
	}
	ret = 0;
out:
	cJSON_Delete(root);
	return ret;
}

static bool add_gid_hex(cJSON *arr, const uint8_t gid[16])
{
	char hex[33];

	for (int b = 0; b < 16; b++)
		snprintf(hex + 2 * b, 3, "%02x", gid[b]);
	return cJSON_AddItemToArray(arr, cJSON_CreateString(hex));
}

static bool add_gids(cJSON *o, const struct eng_state_dev *d)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "gids");

	if (!arr)
		return false;
	for (uint32_t i = 0; i < d->gid_count && i < PV_GID_TABLE_MAX; i++)
		if (!add_gid_hex(arr, d->gid[i].gid))
			return false;
	return true;
}

/* Written only when there are some: files without claims stay as they
 * were. */
static bool add_claims(cJSON *o, const struct eng_state_dev *d)
{
	cJSON *arr;

	if (!d->claim_count)
		return true;
	arr = cJSON_AddArrayToObject(o, "claims");
	if (!arr)
		return false;
	for (uint32_t i = 0; i < d->claim_count && i < PV_GID_CLAIM_MAX; i++)
		if (!add_gid_hex(arr, d->claim[i]))
			return false;
	return true;
}

static bool add_entry(cJSON *arr, const struct eng_state_dev *d)
{
	cJSON *o = cJSON_CreateObject();
	char guid[24];

	if (!o || !(cJSON_IsArray(arr) ? cJSON_AddItemToArray(arr, o) :
		    cJSON_AddItemToObject(arr, "add", o)))
		return false;
	snprintf(guid, sizeof(guid), "0x%016" PRIx64, d->guid);
	return add_gids(o, d) && add_claims(o, d) &&
	       cJSON_AddNumberToObject(o, "id", d->id) &&
	       cJSON_AddStringToObject(o, "name", d->name) &&
	       cJSON_AddStringToObject(o, "ifname", d->ifname) &&
	       cJSON_AddStringToObject(o, "netns", d->netns_path) &&
	       cJSON_AddNumberToObject(o, "netnsDev", (double)d->ns.dev) &&
	       cJSON_AddNumberToObject(o, "netnsIno", (double)d->ns.ino) &&
	       cJSON_AddNumberToObject(o, "pkey", d->pkey) &&
	       cJSON_AddNumberToObject(o, "flags", d->flags) &&
	       cJSON_AddStringToObject(o, "guid", guid) &&
	       (!d->pod_name[0] ||
		(cJSON_AddStringToObject(o, "podNamespace", d->pod_ns) &&
		 cJSON_AddStringToObject(o, "podName", d->pod_name)));
}

char *eng_state_format(const struct eng_state_doc *doc)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *text = NULL;

	if (!root)
		return NULL;
	if (!cJSON_AddNumberToObject(root, "version", ENG_STATE_VERSION) ||
	    (doc->next_id &&
	     !cJSON_AddNumberToObject(root, "nextId", doc->next_id)))
		goto out;
	arr = cJSON_AddArrayToObject(root, "devices");
	if (!arr)
		goto out;
	for (uint32_t i = 0; i < doc->count; i++)
		if (!add_entry(arr, &doc->dev[i]))
			goto out;
	text = cJSON_Print(root);
out:
	cJSON_Delete(root);
	return text;
}

char *eng_state_format_line(const struct eng_state_dev *added,
			    uint32_t removed_id, uint32_t next_id)
{
	cJSON *root = cJSON_CreateObject();
	char *text = NULL, *line = NULL;
	size_t len;

	if (!root)
		return NULL;
	if (added ? !add_entry(root, added) :
	    !cJSON_AddNumberToObject(root, "del", removed_id))
		goto out;
	if (next_id && !cJSON_AddNumberToObject(root, "nextId", next_id))
		goto out;
	text = cJSON_PrintUnformatted(root);
	if (!text)
		goto out;
	len = strlen(text);
	line = malloc(len + 2);
	if (line) {
		memcpy(line, text, len);
		line[len] = '\n';
		line[len + 1] = '\0';
	}
out:
	free(text);
	cJSON_Delete(root);
	return line;
}

/* Drops the entry of id, into *old when there was one. */
static bool doc_drop(struct eng_state_doc *doc, uint32_t id,
		     struct eng_state_dev *old)
{
	for (uint32_t i = 0; i < doc->count; i++)
		if (doc->dev[i].id == id) {
			if (old)
				*old = doc->dev[i];
			doc->dev[i] = doc->dev[--doc->count];
			return true;
		}
	return false;
}

/* Why line o is unusable, or NULL with doc changed. */
static const char *line_apply(const cJSON *o, struct eng_state_doc *doc)
{
	struct eng_state_dev d, old;
	bool had;
	const char *why;
	uint64_t v;

	if (!cJSON_IsObject(o))
		return "not a JSON object";
	if (get_uint(o, "nextId", 1, 0xffff, &v))
		doc->next_id = (uint32_t)v;
	if (cJSON_HasObjectItem(o, "del")) {
		if (!get_uint(o, "del", 1, 0xffff, &v))
			return "\"del\" not in 1..65535";
		doc_drop(doc, (uint32_t)v, NULL);
		return NULL;
	}
	why = entry_parse(cJSON_GetObjectItemCaseSensitive(o, "add"), &d);
	if (why)
		return why;
	/* Replayed over a compaction that already holds it: the same id
	 * is the same device.  A refused line leaves the old entry. */
	had = doc_drop(doc, d.id, &old);
	why = entry_clash(doc, &d);
	if (!why && doc->count >= ENG_STATE_DEVS_MAX)
		why = "more entries than an engine can have devices";
	if (!why)
		doc->dev[doc->count++] = d;
	else if (had)
		doc->dev[doc->count++] = old;
	return why;
}

int eng_state_journal_apply(const char *text, size_t len,
			    struct eng_state_doc *doc,
			    eng_state_reject_fn fn, void *arg)
{
	struct rejects r = { .fn = fn, .arg = arg, .doc = doc };
	const char *p = text, *end = text + len;
	uint32_t before = doc->rejected;
	long i = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		cJSON *o;
		const char *why;

		/* A last line without its newline is a write cut short by a
		 * crash: its change was never acknowledged. */
		if (!nl)
			break;
		o = cJSON_ParseWithLength(p, (size_t)(nl - p));
		why = o ? line_apply(o, doc) : "not valid JSON";
		if (why)
			reject(&r, i, "%s", why);
		cJSON_Delete(o);
		p = nl + 1;
		i++;
	}
	return (int)(doc->rejected - before);
}
