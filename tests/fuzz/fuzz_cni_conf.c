/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the CNI plugin's parsing of what the runtime hands it
 * on stdin (network configuration with prevResult, CNI 0.3.0 to 1.1.0),
 * the conversions and lookups ADD and CHECK run on prevResult, and the
 * state records the plugin reads back from its state directory.  The
 * configuration is parsed from an exact-length copy (no NUL after it), as
 * the plugin reads stdin, so a read past the end is caught by ASan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni-plugin/cni_conf.h"
#include "cni-plugin/cni_result.h"
#include "cni-plugin/cni_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_prev(const cJSON *prev)
{
	struct cni_ip ips[8];
	int iface;

	for (int v = 0; v < CNI_V_COUNT; v++)
		cJSON_Delete(cni_result_convert(prev, (enum cni_ver)v));
	iface = cni_result_find_iface(prev, "eth0", NULL);
	if (iface < 0)
		iface = cni_result_find_iface(prev, "eth0", "/var/run/netns/x");
	cni_result_ips(prev, iface < 0 ? 0 : iface, 1, ips, 8);
	cni_result_ips(prev, iface < 0 ? 0 : iface, 0, ips, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *exact = malloc(size ? size : 1);
	char *text = malloc(size + 1);
	struct cni_conf conf;
	struct cni_err err = { 0 };
	struct cni_state st;
	struct cni_ip ip;
	char ver[32];

	if (!exact || !text)
		abort();
	memcpy(exact, data, size);
	memcpy(text, data, size);
	text[size] = '\0';

	cni_conf_peek_version(exact, size, ver, sizeof(ver));
	memset(&conf, 0, sizeof(conf));
	if (cni_conf_parse(&conf, exact, size, &err) == 0) {
		cni_conf_defaults(&conf, "eth0", NULL);
		cni_conf_defaults(&conf, "net1", "/run/podverbs/e.sock");
		if (conf.prev_result)
			walk_prev(conf.prev_result);
	}
	/* The plugin frees the document whatever the verdict. */
	cni_conf_free(&conf);
	memset(&st, 0, sizeof(st));
	cni_state_from_json(text, &st);
	if (size < 64) {
		cni_ip_parse(text, &ip);
		cni_version_parse(text);
	}
	free(exact);
	free(text);
	return 0;
}
