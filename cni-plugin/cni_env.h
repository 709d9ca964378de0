/* SPDX-License-Identifier: MIT */
/*
 * The CNI_* environment (CNI spec, "Parameters").  Parsing is pure: the
 * caller passes a getenv-like lookup so unit tests need no environment.
 */
#ifndef CNI_ENV_H
#define CNI_ENV_H

#include <stddef.h>

#include "cni-plugin/cni_err.h"

enum cni_cmd {
	CNI_CMD_NONE = 0,
	CNI_CMD_ADD,
	CNI_CMD_DEL,
	CNI_CMD_CHECK,
	CNI_CMD_VERSION,
	CNI_CMD_GC,
	CNI_CMD_STATUS,
};

/* Limits we put on names that end up in state file names. */
#define CNI_CONTAINERID_MAX	160
#define CNI_IFNAME_MAX		16	/* IFNAMSIZ, incl. NUL */
#define CNI_NETNS_MAX		256

struct cni_env {
	enum cni_cmd cmd;
	const char *command;		/* as given */
	char containerid[CNI_CONTAINERID_MAX + 1];
	char netns[CNI_NETNS_MAX];	/* "" when not given */
	char ifname[CNI_IFNAME_MAX];
	const char *args;		/* CNI_ARGS, may be NULL */
	const char *path;		/* CNI_PATH, may be NULL */
};

typedef const char *(*cni_getenv_fn)(const char *name);

/* Reads and checks CNI_COMMAND only (VERSION needs nothing else). */
int cni_env_command(struct cni_env *env, cni_getenv_fn get,
		    struct cni_err *err);

/*
 * Reads and checks the variables env->cmd needs: a message names every
 * missing or invalid one (error code 4).  Call after cni_env_command.
 */
int cni_env_read(struct cni_env *env, cni_getenv_fn get, struct cni_err *err);

/* Pure checks, also used for GC attachment lists. */
int cni_containerid_valid(const char *id);
int cni_ifname_valid(const char *name);

const char *cni_cmd_name(enum cni_cmd cmd);

/* The value of key in CNI_ARGS ("K1=V1;K2=V2", args may be NULL) into
 * out: 1 found, 0 absent, -ENAMETOOLONG when it does not fit cap.
 * Pure. */
int cni_env_arg(const char *args, const char *key, char *out, size_t cap);

#endif /* CNI_ENV_H */
