/* SPDX-License-Identifier: MIT */
/*
 * Results on stdout (CNI spec, "Success", "Error", "Version"), and reading
 * the previous plugin's result.  Pure: builds and reads JSON, no I/O.
 */
#ifndef CNI_RESULT_H
#define CNI_RESULT_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "cni-plugin/cni_conf.h"
#include "cni-plugin/cni_err.h"

/* {"cniVersion": ..., "supportedVersions": [...]}; caller frees. */
char *cni_result_version(const char *requested);

/* {"cniVersion", "code", "msg"[, "details"]}; caller frees. */
char *cni_result_error(const char *version, const struct cni_err *err);

/*
 * ADD's result: prevResult passed on unchanged except for its cniVersion
 * (set to the requested one) and the per-IP "version" key, which results
 * before 1.0.0 have and later ones do not.  Returns a new document.
 */
cJSON *cni_result_convert(const cJSON *prev, enum cni_ver to);

/* Index of interface ifname in prev's "interfaces" that lives in a
 * sandbox (netns if given, else any); -ENOENT if none. */
int cni_result_find_iface(const cJSON *prev, const char *ifname,
			  const char *netns);

/* One IP address of prevResult, parsed. */
struct cni_ip {
	int     family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint8_t prefixlen;
};

/*
 * The addresses prev's "ips" assigns to interface index iface (entries
 * without "interface" count too when iface is the only sandbox interface;
 * pass allow_unbound).  Returns how many were stored (<= max) or -EINVAL
 * for a malformed address.
 */
int cni_result_ips(const cJSON *prev, int iface, int allow_unbound,
		   struct cni_ip *ret_ips, int max);

/* Pure: "10.0.0.2/24" or "fd00::2/64" → cni_ip. */
int cni_ip_parse(const char *cidr, struct cni_ip *ret_ip);

#endif /* CNI_RESULT_H */
