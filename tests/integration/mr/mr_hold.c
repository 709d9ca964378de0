/* SPDX-License-Identifier: MIT */
/*
 * mr-hold (tests/integration/mr_report.sh): registers MRs in one
 * anonymous mapping, then holds them until its stdin closes and exits
 * without deregistering, so the engine reports what it left.
 *
 *   mr-hold DEV [--dereg N] OFF:LEN...
 *
 * OFF and LEN are bytes from the mapping's (page-aligned) start; the last
 * N MRs are deregistered again before "ready", so peaks exceed what is
 * held.  Prints "mr OFF LEN lkey 0x..." per MR, then "ready".  Exit 0, or
 * 1 with the failing verb on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MAP_BYTES (64u << 12)
#define MRS_MAX 16

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; l && l[i]; i++)
		if (strcmp(ibv_get_device_name(l[i]), name) == 0)
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

/* Static: still reachable at exit, which LeakSanitizer accepts (the
 * objects are left to the engine on purpose). */
static struct ibv_mr *mrs[MRS_MAX];
static struct ibv_context *ctx;
static struct ibv_pd *pd;

int main(int argc, char **argv)
{
	int first = 2, n = 0, dereg = 0;
	char *base, c;

	if (argc > 3 && strcmp(argv[2], "--dereg") == 0) {
		dereg = atoi(argv[3]);
		first = 4;
	}
	if (argc <= first || argc - first > MRS_MAX || dereg > argc - first) {
		fprintf(stderr, "usage: mr-hold DEV [--dereg N] OFF:LEN...\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	base = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pd || base == MAP_FAILED) {
		perror("open/alloc_pd/mmap");
		return 1;
	}
	memset(base, 0x5a, MAP_BYTES);
	for (int i = first; i < argc; i++) {
		unsigned long off, len;

		if (sscanf(argv[i], "%lu:%lu", &off, &len) != 2 ||
		    off + len > MAP_BYTES || !len) {
			fprintf(stderr, "bad OFF:LEN %s\n", argv[i]);
			return 2;
		}
		mrs[n] = ibv_reg_mr(pd, base + off, len, IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[n]) {
			fprintf(stderr, "ibv_reg_mr %s: %s\n", argv[i],
				strerror(errno));
			return 1;
		}
		printf("mr %lu %lu lkey 0x%08x\n", off, len, mrs[n]->lkey);
		n++;
	}
	while (dereg-- > 0)
		if (ibv_dereg_mr(mrs[--n])) {
			perror("ibv_dereg_mr");
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	/* Held until stdin closes; then out without deregistering. */
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
