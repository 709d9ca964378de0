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

static void test_soft_maps__vmflags_tell_special_mappings(void **s)
{
	assert_true(soft_vmflags_ok("VmFlags: rd wr mr mw me ac sd \n"));
	assert_true(soft_vmflags_ok("VmFlags: rd wr mr mw me dw ac sd"));
	assert_false(soft_vmflags_ok("VmFlags: rd wr mr mw me de ht sd\n"));
	assert_false(soft_vmflags_ok("VmFlags: rd wr sh mr mw me io pf\n"));
	assert_false(soft_vmflags_ok("VmFlags: rd wr mr mw me gd ac\n"));
	assert_false(soft_vmflags_ok("VmFlags: rd wr mr mw me ac um\n"));
	assert_false(soft_vmflags_ok("Rss:  4 kB\n"));
}

#define FVMA(s, e, p, ino, pth, ok) \
	{ .start = (s), .end = (e), .perms = p, .inode = (ino), \
	  .path = pth, .flags_ok = (ok) }

/* A program's .data (private file mapping), the .bss after it in an
 * anonymous mapping, then the heap: one span to convert.  What stays
 * refused: shared or read-only file mappings, private hugetlb, device
 * files, and a file mapping whose VmFlags were not read or are bad. */
static void test_soft_maps__private_file_mappings_convert(void **s)
{
	const struct soft_vma v[] = {
		FVMA(0x1000, 0x3000, "r--p", 31, "/usr/bin/rdma_server", true),
		FVMA(0x3000, 0x4000, "rw-p", 31, "/usr/bin/rdma_server", true),
		FVMA(0x4000, 0x6000, "rw-p", 0, "", false),
		FVMA(0x6000, 0x8000, "rw-p", 0, "[heap]", false),
		FVMA(0x8000, 0x9000, "rw-s", 32, "/tmp/shared-file", true),
		FVMA(0x9000, 0xa000, "rw-p", 33, "/anon_hugepage (deleted)",
		     true),
		FVMA(0xa000, 0xb000, "rw-p", 34, "/dev/fb0", true),
		FVMA(0xb000, 0xc000, "rw-p", 35, "/tmp/private-file", false),
		FVMA(0xc000, 0xd000, "rw-p", 36, "/tmp/private-file", true),
	};
	uint64_t ino = 0, off = 0;

	assert_int_equal(soft_span_classify(v, 9, 0x3000, 0x4000, &ino, &off),
			 SOFT_SPAN_CONVERT);
	assert_int_equal(soft_span_classify(v, 9, 0x3000, 0x8000, &ino, &off),
			 SOFT_SPAN_CONVERT);
	assert_int_equal(soft_span_classify(v, 9, 0xc000, 0xd000, &ino, &off),
			 SOFT_SPAN_CONVERT);
	/* .rodata before .data is read-only. */
	assert_int_equal(soft_span_classify(v, 9, 0x2000, 0x4000, &ino, &off),
			 SOFT_SPAN_FALLBACK);
	for (uintptr_t a = 0x8000; a < 0xc000; a += 0x1000)
		assert_int_equal(soft_span_classify(v, 9, a, a + 0x1000, &ino,
						    &off), SOFT_SPAN_FALLBACK);
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

/* soft_span_mixed: pages of one memfd of ours at their own addresses
 * as offsets, and private memory, in any order, make a span the private
 * pieces can join; two memfds, other offsets, other kinds or a hole do
 * not, nor does a span that is all one kind (soft_span_classify's). */
static void test_soft_maps__mixed_span_joins_our_memfd(void **s)
{
	const struct soft_vma v[] = {
		VMA(0x10000, 0x12000, "rw-p", 0, 0, ""),
		VMA(0x12000, 0x14000, "rw-s", 0x12000, 4242,
		    "/memfd:podverbs-mr (deleted)"),
		VMA(0x14000, 0x15000, "rw-p", 0, 0, "[heap]"),
		VMA(0x15000, 0x16000, "rw-s", 0x15000, 4343,
		    "/memfd:podverbs-mr (deleted)"),
		VMA(0x16000, 0x17000, "r--p", 0, 0, ""),
		VMA(0x17000, 0x18000, "rw-s", 0x0, 4444,
		    "/memfd:podverbs-mr (deleted)"),
		VMA(0x18000, 0x19000, "rw-p", 0, 0, ""),
	};
	uint64_t ino = 0;

	/* Before, after, around: 4242 at its addresses. */
	assert_true(soft_span_mixed(v, 7, 0x11000, 0x13000, &ino));
	assert_int_equal(ino, 4242);
	ino = 0;
	assert_true(soft_span_mixed(v, 7, 0x13000, 0x15000, &ino));
	assert_int_equal(ino, 4242);
	assert_true(soft_span_mixed(v, 7, 0x10000, 0x15000, &ino));
	/* One kind only, two memfds, a read-only page, offsets that are
	 * not addresses, a hole at the end: no. */
	assert_false(soft_span_mixed(v, 7, 0x12000, 0x14000, &ino));
	assert_false(soft_span_mixed(v, 7, 0x10000, 0x12000, &ino));
	assert_false(soft_span_mixed(v, 7, 0x13000, 0x16000, &ino));
	assert_false(soft_span_mixed(&v[3], 2, 0x15000, 0x17000, &ino));
	assert_false(soft_span_mixed(&v[5], 2, 0x17000, 0x19000, &ino));
	assert_false(soft_span_mixed(v, 7, 0x18000, 0x1a000, &ino));
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
	soft_mr_share_get(p + 100, 2 * pg, &a);
	assert_true(a.fd >= 0);
	/* The pages sit in the memfd at their own addresses. */
	assert_int_equal(a.fd_offset, (uintptr_t)p + 100);
	assert_string_equal(p + 100, "before");
	/* The app's writes land in the memfd the engine maps. */
	strcpy(p + 200, "after");
	assert_int_equal(pread(a.fd, buf, 6, (off_t)(uintptr_t)p + 200), 6);
	assert_memory_equal(buf, "after", 6);
	/* A second MR inside the span reuses the memfd. */
	soft_mr_share_get(p + pg + 8, 16, &b);
	assert_int_equal(b.fd, a.fd);
	assert_int_equal(b.fd_offset, (uintptr_t)p + pg + 8);
	/* Widened past the converted span (a registration cache merging
	 * regions): the new page joins the memfd, contents kept, the first
	 * MR's pages where they were. */
	strcpy(p + 3 * pg + 5, "tail");
	soft_mr_share_get(p + pg, 3 * pg, &c);
	assert_int_equal(c.fd, a.fd);
	assert_int_equal(c.fd_offset, (uintptr_t)p + pg);
	assert_string_equal(p + 3 * pg + 5, "tail");
	assert_string_equal(p + 100, "before");
	strcpy(p + 3 * pg + 5, "grown");
	assert_int_equal(pread(a.fd, buf, 6, (off_t)(uintptr_t)p + 3 * pg + 5), 6);
	assert_memory_equal(buf, "grown", 6);
	soft_mr_share_put(c.ref);
	/* Widened before its start too (the next message's registration
	 * converted the page this one ends in); but a span over two memfds
	 * converted apart is refused. */
	{
		char *q = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct soft_mr_share d;

		assert_true(q != MAP_FAILED);
		strcpy(q + 9, "head");
		soft_mr_share_get(q + pg, pg, &c);
		assert_true(c.fd >= 0);
		soft_mr_share_get(q + 9, 2 * pg - 9, &d);
		assert_int_equal(d.fd, c.fd);
		assert_int_equal(d.fd_offset, (uintptr_t)q + 9);
		assert_string_equal(q + 9, "head");
		soft_mr_share_put(d.ref);
		soft_mr_share_get(q + 3 * pg, pg, &d);
		assert_true(d.fd >= 0 && d.fd != c.fd);
		soft_mr_share_put(d.ref);
		soft_mr_share_get(q, 4 * pg, &d);
		assert_int_equal(d.fd, -1);
		soft_mr_share_put(c.ref);
		munmap(q, 4 * pg);
	}
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

	soft_mr_share_get(local, sizeof(local), &m);
	assert_int_equal(m.fd, -1);
	/* No fallback any more: the caller fails and says why. */
	assert_non_null(strstr(m.why, "stack"));
	setenv("PODVERBS_MR_SHARE", "0", 1);
	soft_mr_share_get(h, 1 << 20, &m);
	assert_int_equal(m.fd, -1);
	assert_non_null(strstr(m.why, "PODVERBS_MR_SHARE=0"));
	unsetenv("PODVERBS_MR_SHARE");
	free(h);
}

/* A temporary file of npages pages of 'f' bytes; its fd. */
static int tmp_file(size_t npages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char tmpl[] = "/tmp/test_soft_maps.XXXXXX";
	char *buf = malloc(pg);
	int fd = mkstemp(tmpl);

	assert_true(fd >= 0 && buf);
	unlink(tmpl);
	memset(buf, 'f', pg);
	for (size_t i = 0; i < npages; i++)
		assert_int_equal(write(fd, buf, pg), (ssize_t)pg);
	free(buf);
	return fd;
}

/* Live: a MAP_PRIVATE rw file mapping converts (contents kept, the file
 * untouched by later writes); shared, read-only and past-EOF mappings,
 * and private hugetlb, are refused without harm. */
static void test_soft_maps__live_file_kinds(void **s)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int fd = tmp_file(2);
	struct soft_mr_share m;
	char *p, buf[4];

	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	p[0] = 'w';			/* one page COW'd, one still the file's */
	soft_mr_share_get(p + 8, 2 * pg - 16, &m);
	assert_true(m.fd >= 0);
	assert_int_equal(m.fd_offset, (uintptr_t)p + 8);
	assert_int_equal(p[0], 'w');
	assert_int_equal(p[pg + 5], 'f');
	p[pg + 5] = 'x';
	assert_int_equal(pread(m.fd, buf, 1, (off_t)(uintptr_t)p + pg + 5), 1);
	assert_int_equal(buf[0], 'x');
	assert_int_equal(pread(fd, buf, 1, (off_t)pg + 5), 1);
	assert_int_equal(buf[0], 'f');	/* private: never written back */
	soft_mr_share_put(m.ref);
	munmap(p, 2 * pg);

	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	soft_mr_share_get(p, pg, &m);
	assert_int_equal(m.fd, -1);
	munmap(p, pg);
	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	soft_mr_share_get(p, pg, &m);
	assert_int_equal(m.fd, -1);
	munmap(p, pg);
	/* Three pages over a two-page file: the copy faults (EFAULT, no
	 * SIGBUS) and nothing is remapped. */
	p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	soft_mr_share_get(p, 3 * pg, &m);
	assert_int_equal(m.fd, -1);
	assert_non_null(strstr(m.why, "failed"));
	assert_int_equal(p[0], 'f');
	munmap(p, 3 * pg);
	close(fd);
	/* Private hugetlb, where the machine has huge pages. */
	p = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p != MAP_FAILED) {
		p[0] = 1;
		soft_mr_share_get(p, 4096, &m);
		assert_int_equal(m.fd, -1);
		munmap(p, 2 << 20);
	}
}

/* Live: this test program's own .data and .bss, as rdma_server's static
 * buffers are (page aligned here, so that neither starts in a page the
 * other's registration converted: a span over both memfds is refused). */
static char data_buf[3 * 65536] __attribute__((aligned(65536))) = "in .data";
static char bss_buf[3 * 65536] __attribute__((aligned(65536)));

static void test_soft_maps__live_static_buffers(void **s)
{
	struct soft_mr_share a, b;

	strcpy(bss_buf + 70000, "in .bss");
	soft_mr_share_get(data_buf, sizeof(data_buf), &a);
	assert_true(a.fd >= 0);
	assert_string_equal(data_buf, "in .data");
	soft_mr_share_get(bss_buf, sizeof(bss_buf), &b);
	assert_true(b.fd >= 0);
	assert_string_equal(bss_buf + 70000, "in .bss");
	bss_buf[70001] = 'N';
	{
		char c;

		assert_int_equal(pread(b.fd, &c, 1, (off_t)b.fd_offset + 70001),
				 1);
		assert_int_equal(c, 'N');
	}
	soft_mr_share_put(a.ref);
	soft_mr_share_put(b.ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_maps__parses_anonymous_and_file_lines),
		cmocka_unit_test(test_soft_maps__anonymous_span_converts),
		cmocka_unit_test(test_soft_maps__other_kinds_fall_back),
		cmocka_unit_test(test_soft_maps__vmflags_tell_special_mappings),
		cmocka_unit_test(test_soft_maps__private_file_mappings_convert),
		cmocka_unit_test(test_soft_maps__live_file_kinds),
		cmocka_unit_test(test_soft_maps__live_static_buffers),
		cmocka_unit_test(test_soft_maps__our_memfd_is_reused_with_offset),
		cmocka_unit_test(test_soft_maps__mixed_span_joins_our_memfd),
		cmocka_unit_test(test_soft_maps__live_conversion_keeps_contents),
		cmocka_unit_test(test_soft_maps__stack_and_disabled_fall_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
