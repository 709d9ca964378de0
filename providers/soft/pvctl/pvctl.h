/* SPDX-License-Identifier: MIT */
/*
 * pvctl: the operator's tool for the podverbs engine.  What the command
 * files share: the session with the engine (pvctl_session.c), the JSON
 * and text output helpers (pvctl_out.c) and the command table entry
 * (pvctl_main.c holds the table).
 *
 * Exit codes: 0 done, 1 the engine refused or failed the request, 2 bad
 * usage, 3 the engine could not be reached.
 */
#ifndef PVCTL_H
#define PVCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"

#define PVCTL_EXIT_FAIL		1
#define PVCTL_EXIT_USAGE	2
#define PVCTL_EXIT_UNREACH	3

/* Which of the engine's sockets a command talks to. */
enum pvctl_sock {
	PVCTL_SOCK_POD,		/* what pods use: any local user */
	PVCTL_SOCK_ADMIN,	/* root in the engine's namespace only */
};

struct pvctl {
	const char *socket;		/* the pod socket, named or default */
	const char *admin_socket;	/* the admin socket, resolved */
	char admin_buf[108];		/* sun_path's size */
	bool json;
	enum pvctl_sock sock;		/* the running command's socket */
	int fd;
	uint32_t seq;
	const char *what;	/* "dev add": prefix of error messages */
	char what_buf[32];
};

/* One command: NOUN [VERB] [ARGS].  run() gets argv from the last word
 * of the command on (argv[0] = "add" for "dev add"), parses its own
 * options and connects with pvctl_connect() once they are good. */
struct pvctl_cmd {
	const char *noun;
	const char *verb;	/* NULL: a one-word command */
	int (*run)(struct pvctl *c, int argc, char **argv);
	enum pvctl_sock sock;
	const char *synopsis;	/* after the command words */
	const char *help;	/* lines separated by \n */
};

/* pvctl_session.c */
int pvctl_fail(struct pvctl *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pvctl_fail_common(struct pvctl *c, int err);
int pvctl_connect(struct pvctl *c);
int pvctl_call(struct pvctl *c, uint16_t op, const void *req, uint32_t len,
	       void **ret_buf, uint32_t *ret_len);

/* pvctl_out.c */
void pvctl_gid_str(const uint8_t g[16], char out[40]);
const char *pvctl_port_state_str(uint8_t s);
const char *pvctl_ns_str(const char *path);
bool pvctl_json_strn(cJSON *o, const char *name, const char *s, size_t cap);
bool pvctl_json_u64(cJSON *o, const char *name, uint64_t v);
bool pvctl_json_array_strn(cJSON *a, const char *s, size_t cap);
int pvctl_json_print(struct pvctl *c, cJSON *doc, bool ok);

/* pvctl_dev.c: the device list, also used to resolve names. */
int pvctl_dev_list_get(struct pvctl *c, struct pv_ipc_adm_dev_list **ret);
int64_t pvctl_dev_resolve(const struct pv_ipc_adm_dev_list *l,
			  const char *arg, const char *ns_path);
int pvctl_dev_add(struct pvctl *c, int argc, char **argv);
int pvctl_dev_del(struct pvctl *c, int argc, char **argv);
int pvctl_dev_list(struct pvctl *c, int argc, char **argv);
/* pvctl_sysfs.c: `sysfs --netns PATH --out DIR`, and the writer of one
 * device's tree <root>/<name>/ (0 or -errno). */
int pvctl_sysfs(struct pvctl *c, int argc, char **argv);
int pvctl_sysfs_write(const char *root, const struct pv_ipc_adm_dev *d);

/* pvctl_obj.c */
int pvctl_obj_list(struct pvctl *c, int argc, char **argv);

/* pvctl_stats.c */
int pvctl_stats(struct pvctl *c, int argc, char **argv);

/* pvctl_dev.c: DEV (name or id) as its id; 0 or an exit code. */
int pvctl_dev_ref(struct pvctl *c, const char *dev, uint32_t *ret_id);

/* pvctl_mr.c */
int pvctl_mr(struct pvctl *c, int argc, char **argv);
/* pvctl_hwc.c */
int pvctl_stat_show(struct pvctl *c, int argc, char **argv);

/* pvctl_top.c */
int pvctl_top(struct pvctl *c, int argc, char **argv);

#endif
