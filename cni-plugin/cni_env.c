/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cni-plugin/cni_env.h"

static const char *const cmd_names[] = {
	[CNI_CMD_ADD] = "ADD",
	[CNI_CMD_DEL] = "DEL",
	[CNI_CMD_CHECK] = "CHECK",
	[CNI_CMD_VERSION] = "VERSION",
	[CNI_CMD_GC] = "GC",
	[CNI_CMD_STATUS] = "STATUS",
};

const char *cni_cmd_name(enum cni_cmd cmd)
{
	if (cmd <= CNI_CMD_NONE || cmd > CNI_CMD_STATUS)
		return "?";
	return cmd_names[cmd];
}

int cni_env_command(struct cni_env *env, cni_getenv_fn get,
		    struct cni_err *err)
{
	const char *c = get("CNI_COMMAND");

	memset(env, 0, sizeof(*env));
	if (!c || !*c)
		return cni_fail(err, CNI_ERR_INVALID_ENV,
				"CNI_COMMAND is not set");
	env->command = c;
	for (int i = CNI_CMD_ADD; i <= CNI_CMD_STATUS; i++)
		if (strcmp(c, cmd_names[i]) == 0)
			env->cmd = i;
	if (env->cmd == CNI_CMD_NONE)
		return cni_fail(err, CNI_ERR_INVALID_ENV,
				"CNI_COMMAND \"%.64s\" is not one of ADD, DEL, CHECK, VERSION, GC, STATUS",
				c);
	return 0;
}

/* CNI spec: alphanumerics, then also '_', '.', '-'. */
int cni_containerid_valid(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > CNI_CONTAINERID_MAX || !isalnum((unsigned char)id[0]))
		return 0;
	for (size_t i = 1; i < n; i++) {
		unsigned char ch = id[i];

		if (!isalnum(ch) && ch != '_' && ch != '.' && ch != '-')
			return 0;
	}
	return 1;
}

/* The rules libcni applies (and the kernel's dev_valid_name). */
int cni_ifname_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= CNI_IFNAME_MAX || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = name[i];

		if (ch == '/' || ch == ':' || isspace(ch) || ch < 0x20)
			return 0;
	}
	return 1;
}

/* Appends ", NAME (why)" to the list of problems. */
static void note(char *buf, size_t cap, const char *name, const char *why)
{
	size_t len = strlen(buf);

	snprintf(buf + len, cap - len, "%s%s %s", len ? "; " : "", name, why);
}

static void read_netns(struct cni_env *env, const char *v, int required,
		       char *bad, size_t cap)
{
	if (!v || !*v) {
		if (required)
			note(bad, cap, "CNI_NETNS", "is not set");
		return;
	}
	if (strlen(v) >= sizeof(env->netns) || v[0] != '/')
		note(bad, cap, "CNI_NETNS", "must be an absolute path under 256 bytes");
	else
		strcpy(env->netns, v);
}

int cni_env_read(struct cni_env *env, cni_getenv_fn get, struct cni_err *err)
{
	int need_att = env->cmd == CNI_CMD_ADD || env->cmd == CNI_CMD_DEL ||
		       env->cmd == CNI_CMD_CHECK;
	const char *cid = get("CNI_CONTAINERID");
	const char *ifn = get("CNI_IFNAME");
	char bad[CNI_MSG_MAX] = "";

	env->args = get("CNI_ARGS");
	env->path = get("CNI_PATH");
	if (!need_att)
		return 0;
	if (!cid || !*cid)
		note(bad, sizeof(bad), "CNI_CONTAINERID", "is not set");
	else if (!cni_containerid_valid(cid))
		note(bad, sizeof(bad), "CNI_CONTAINERID",
		     "must be 1-160 of [A-Za-z0-9_.-] starting with a letter or digit");
	else
		strcpy(env->containerid, cid);
	/* DEL must work when the namespace is already gone (CNI spec). */
	read_netns(env, get("CNI_NETNS"), env->cmd != CNI_CMD_DEL,
		   bad, sizeof(bad));
	if (!ifn || !*ifn)
		note(bad, sizeof(bad), "CNI_IFNAME", "is not set");
	else if (!cni_ifname_valid(ifn))
		note(bad, sizeof(bad), "CNI_IFNAME",
		     "is not a valid interface name (1-15 bytes, no '/', ':' or spaces)");
	else
		strcpy(env->ifname, ifn);
	if (!env->path || !*env->path)
		note(bad, sizeof(bad), "CNI_PATH", "is not set");
	if (bad[0])
		return cni_fail(err, CNI_ERR_INVALID_ENV,
				"invalid environment for %s: %s",
				cni_cmd_name(env->cmd), bad);
	return 0;
}

int cni_env_arg(const char *args, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);

	for (const char *p = args; p && *p;) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > klen && p[klen] == '=' && !strncmp(p, key, klen)) {
			n -= klen + 1;
			if (n >= cap)
				return -ENAMETOOLONG;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return 1;
		}
		p = end ? end + 1 : p + n;
	}
	return 0;
}
