/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the device plugin's configuration file (JSON: kubelet
 * paths, resource pools, selectors, metrics address), parsed as
 * dp_config_load does after reading the file, and the address splitter
 * its metrics listener uses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device-plugin/dp_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dp_config cfg;
	char *text = malloc(size + 1);
	char err[256], host[64];
	unsigned port;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	if (dp_config_parse(text, &cfg, err, sizeof(err)) == 0 &&
	    cfg.metrics_addr[0])
		dp_config_split_addr(cfg.metrics_addr, host, sizeof(host),
				     &port);
	dp_config_split_addr(text, host, sizeof(host), &port);
	free(text);
	return 0;
}
