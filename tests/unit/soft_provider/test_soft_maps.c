/* SPDX-License-Identifier: MIT */
/*
 * /proc/self/maps parsing and the decision how a registered span reaches
 * the engine (soft_maps.c), plus a live conversion through the MR path
 * (soft_mr_share.c) on memory of this test process.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "providers/soft/provider/soft_provider.h"

static void test_soft_maps__parses_anonymous_and_file_lines(void **s)
{
	struct soft_vma v;

	assert_int_equal(soft_vma_parse("7f0000001000-7f0000003000 rw-p "
					 "00000000 00:00 0 \n", &v), 0);
	assert_int_equal(v.start, 0x7f0000001000ull);
	assert_int_equal(v.end, 0x7f0000003000ull);
	assert_string_equal(v.perms, "rw-p");
	assert_int_equal(v.inode, 0);
	assert_string_equal(v.path, "");
	assert_int_equal(soft_vma_parse("55d0c0000000-55d0c0021000 rw-p "
					 "00000000 00:00 0          [heap]\n",
					 &v), 0);
	assert_string_equal(v.path, "[heap]");
	assert_int_equal(soft_vma_parse("7f1200000000-7f1200010000 rw-s "
					 "00002000 00:01 4242       "
					 "/memfd:podverbs-mr (deleted)\n",
					 &v), 0);
	assert_int_equal(v.offset, 0x2000);
	assert_int_equal(v.inode, 4242);
	assert_string_equal(v.path, "/memfd:podverbs-mr (deleted)");
	assert_int_equal(soft_vma_parse("garbage\n", &v), -EINVAL);
}

#define VMA(s, e, p, off, ino, pth) \
	{ .start = (s), .end = (e), .perms = p, .offset = (off), \
	  .inode = (ino), .path = pth }

static void test_soft_maps__anonymous_span_converts(void **s)
{
	const struct soft_vma v[] = {
		VMA(0x1000, 0x3000, "rw-p", 0, 0, "[heap]"),
		VMA(0x3000, 0x8000, "rw-p", 0, 0, ""),
	};
	uint64_t ino = 0, off = 0;

	assert_int_equal(soft_span_classify(v, 2, 0x2000, 0x5000, &ino, &off),
			 SOFT_SPAN_CONVERT);
	/* A hole, or running past the end, falls back. */
	assert_int_equal(soft_span_classify(v, 2, 0x2000, 0x9000, &ino, &off),
			 SOFT_SPAN_FALLBACK);
	assert_int_equal(soft_span_classify(&v[1], 1, 0x2000, 0x4000, &ino,
					    &off), SOFT_SPAN_FALLBACK);
}

static void test_soft_maps__other_kinds_fall_back(void **s)
{
	const struct soft_vma v[] = {
		VMA(0x1000, 0x2000, "rw-p", 0, 0, "[stack]"),
		VMA(0x2000, 0x3000, "rw-p", 0x1000, 77, "/usr/lib/libc.so"),
		VMA(0x3000, 0x4000, "r--p", 0, 0, ""),
		VMA(0x4000, 0x5000, "rw-s", 0, 0, "/anon_hugepage (deleted)"),
		VMA(0x5000, 0x6000, "rw-s", 0, 99, "/memfd:other (deleted)"),
		VMA(0x6000, 0x7000, "rw-p", 0, 0, ""),
	};
	uint64_t ino, off;

	for (uintptr_t a = 0x1000; a < 0x6000; a += 0x1000)
		assert_int_equal(soft_span_classify(v, 6, a, a + 0x1000, &ino,
						    &off), SOFT_SPAN_FALLBACK);
	/* Mixed anonymous + something else. */
	assert_int_equal(soft_span_classify(v, 6, 0x5000, 0x7000, &ino, &off),
			 SOFT_SPAN_FALLBACK);
	assert_int_equal(soft_span_classify(v, 6, 0x6000, 0x7000, &ino, &off),
			 SOFT_SPAN_CONVERT);
}

static void test_soft_maps__our_memfd_is_reused_with_offset(void **s)
{
	const struct soft_vma v[] = {
		VMA(0x10000, 0x12000, "rw-s", 0x0, 4242,
		    "/memfd:podverbs-mr (deleted)"),
		/* Split by an mprotect: same file, contiguous offsets. */
		VMA(0x12000, 0x14000, "rw-s", 0x2000, 4242,
		    "/memfd:podverbs-mr (deleted)"),
		VMA(0x14000, 0x15000, "rw-s", 0x9000, 4242,
		    "/memfd:podverbs-mr (deleted)"),
		VMA(0x15000, 0x16000, "rw-p", 0, 0, ""),
	};
	uint64_t ino = 0, off = 0;

	assert_int_equal(soft_span_classify(v, 4, 0x11000, 0x14000, &ino,
					    &off), SOFT_SPAN_SHARED);
	assert_int_equal(ino, 4242);
	assert_int_equal(off, 0x1000);
	/* Offsets that jump mean another part of the file: fall back. */
	assert_int_equal(soft_span_classify(v, 4, 0x13000, 0x15000, &ino,
					    &off), SOFT_SPAN_FALLBACK);
	/* Partly shared, partly not yet converted: fall back. */
	assert_int_equal(soft_span_classify(v, 4, 0x14000, 0x16000, &ino,
					    &off), SOFT_SPAN_FALLBACK);
}

/* The real thing on our own memory: contents survive, the same fd serves
 * a second MR in the span, a child does not inherit the pages. */
static void test_soft_maps__live_conversion_keeps_contents(void **s)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct soft_mr_share a, b, c;
	char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[16];
	pid_t pid;
	int st;

	assert_true(p != MAP_FAILED);
	strcpy(p + 100, "before");
	soft_mr_share_get(p + 100, 2 * pg, IBV_ACCESS_LOCAL_WRITE, &a);
	assert_true(a.fd >= 0);
	assert_int_equal(a.fd_offset, 100);
	assert_string_equal(p + 100, "before");
	/* The app's writes land in the memfd the engine maps. */
	strcpy(p + 200, "after");
	assert_int_equal(pread(a.fd, buf, 6, 200), 6);
	assert_memory_equal(buf, "after", 6);
	/* A second MR inside the span reuses the memfd. */
	soft_mr_share_get(p + pg + 8, 16, 0, &b);
	assert_int_equal(b.fd, a.fd);
	assert_int_equal(b.fd_offset, pg + 8);
	/* Overlapping the converted span and plain memory: no fd. */
	soft_mr_share_get(p + pg, 3 * pg, 0, &c);
	assert_int_equal(c.fd, -1);
	/* On-demand paging never converts. */
	soft_mr_share_get(p + 3 * pg, 8, IBV_ACCESS_ON_DEMAND, &c);
	assert_int_equal(c.fd, -1);
	pid = fork();
	if (pid == 0) {
		/* MADV_DONTFORK: the span is not mapped in the child. */
		_exit(msync(p, pg, MS_ASYNC) == -1 && errno == ENOMEM ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	soft_mr_share_put(a.ref);
	soft_mr_share_put(b.ref);
	munmap(p, 4 * pg);
}

static void test_soft_maps__stack_and_disabled_fall_back(void **s)
{
	char local[64];
	struct soft_mr_share m;
	void *h = malloc(1 << 20);

	soft_mr_share_get(local, sizeof(local), 0, &m);
	assert_int_equal(m.fd, -1);
	/* No fallback any more: the caller fails and says why. */
	assert_non_null(strstr(m.why, "stack"));
	setenv("PODVERBS_MR_SHARE", "0", 1);
	soft_mr_share_get(h, 1 << 20, 0, &m);
	assert_int_equal(m.fd, -1);
	assert_non_null(strstr(m.why, "PODVERBS_MR_SHARE=0"));
	unsetenv("PODVERBS_MR_SHARE");
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_maps__parses_anonymous_and_file_lines),
		cmocka_unit_test(test_soft_maps__anonymous_span_converts),
		cmocka_unit_test(test_soft_maps__other_kinds_fall_back),
		cmocka_unit_test(test_soft_maps__our_memfd_is_reused_with_offset),
		cmocka_unit_test(test_soft_maps__live_conversion_keeps_contents),
		cmocka_unit_test(test_soft_maps__stack_and_disabled_fall_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
