/* SPDX-License-Identifier: MIT */
/*
 * Reading /proc/self/maps and deciding how a registered span reaches the
 * engine (docs/ARCHITECTURE.md, "Memory").  Pure: the caller reads the file.
 *
 * Private read-write memory is moved onto a memfd: anonymous memory, and
 * private writable file mappings (a program's .data, MAP_PRIVATE|PROT_WRITE
 * file mappings).  A private mapping never writes back to its file, so
 * replacing it with a copy of its current contents on a memfd changes
 * nothing the application may rely on (POSIX leaves unspecified whether
 * later writes to the file show through the untouched pages).  A .bss that
 * continues in the anonymous mapping after .data is the same kind twice.
 * Refused: shared file mappings (their writes must reach the file),
 * read-only memory, the stack (it grows), hugetlb pages, device and
 * special mappings ([vdso], [vvar], VM_IO/PFN maps) and userfaultfd
 * ranges -- for file mappings told by smaps' VmFlags, which the caller
 * reads (soft_vma.flags_ok); none of them can be registered (the engine
 * reaches memory only through a memfd).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "providers/soft/provider/soft_dp.h"

int soft_vma_parse(const char *line, struct soft_vma *v)
{
	unsigned long long start, end, off, ino;
	char perms[8];
	int pos = 0;
	size_t len;

	memset(v, 0, sizeof(*v));
	if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu%n", &start, &end,
		   perms, &off, &ino, &pos) != 5 || pos == 0)
		return -EINVAL;
	if (strlen(perms) != 4 || end < start)
		return -EINVAL;
	v->start = (uintptr_t)start;
	v->end = (uintptr_t)end;
	v->offset = off;
	v->inode = ino;
	memcpy(v->perms, perms, 5);
	line += pos;
	while (*line == ' ' || *line == '\t')
		line++;
	len = strcspn(line, "\n");
	if (len >= sizeof(v->path))
		len = sizeof(v->path) - 1;
	memcpy(v->path, line, len);
	v->path[len] = '\0';
	return 0;
}

/* VmFlags two-letter codes (proc(5)) of mappings we must not replace:
 * hugetlb, VM_IO, pure PFN, mixed map, grows down, userfaultfd
 * missing/write-protect/minor tracking. */
bool soft_vmflags_ok(const char *line)
{
	static const char *const bad[] = { "ht", "io", "pf", "mm", "gd",
					   "um", "uw", "ui" };
	const char *p;

	if (strncmp(line, "VmFlags:", 8) != 0)
		return false;
	p = line + 8;
	for (;;) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t\n");
		if (!len)
			return true;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (len == 2 && memcmp(p, bad[i], 2) == 0)
				return false;
		p += len;
	}
}

static bool vma_convertible(const struct soft_vma *v)
{
	if (strcmp(v->perms, "rw-p") != 0)
		return false;
	if (v->inode != 0)
		/* A private file mapping; the path tells a few special
		 * files apart before the flags do. */
		return v->flags_ok && v->path[0] == '/' &&
		       strncmp(v->path, "/anon_hugepage", 14) != 0 &&
		       strncmp(v->path, "/dev/", 5) != 0 &&
		       strncmp(v->path, "/SYSV", 5) != 0;
	return v->path[0] == '\0' || strcmp(v->path, "[heap]") == 0 ||
	       strncmp(v->path, "[anon:", 6) == 0;
}

static bool vma_ours(const struct soft_vma *v)
{
	static const char prefix[] = "/memfd:" SOFT_MR_MEMFD_NAME;

	return strcmp(v->perms, "rw-s") == 0 &&
	       strncmp(v->path, prefix, sizeof(prefix) - 1) == 0;
}

enum soft_span_kind soft_span_classify(const struct soft_vma *v, size_t n,
				       uintptr_t start, uintptr_t end,
				       uint64_t *ret_inode, uint64_t *ret_off)
{
	enum soft_span_kind kind = SOFT_SPAN_FALLBACK;
	uintptr_t cur = start;
	uint64_t ino = 0, base_off = 0;

	if (start >= end)
		return SOFT_SPAN_FALLBACK;
	for (size_t i = 0; i < n && cur < end; i++) {
		enum soft_span_kind k;

		if (v[i].end <= cur)
			continue;
		if (v[i].start > cur)
			return SOFT_SPAN_FALLBACK;	/* a hole */
		if (vma_convertible(&v[i])) {
			k = SOFT_SPAN_CONVERT;
		} else if (vma_ours(&v[i])) {
			uint64_t off = v[i].offset + (cur - v[i].start);

			k = SOFT_SPAN_SHARED;
			if (kind == SOFT_SPAN_FALLBACK) {
				ino = v[i].inode;
				base_off = off;
			} else if (v[i].inode != ino ||
				   off != base_off + (cur - start)) {
				return SOFT_SPAN_FALLBACK;
			}
		} else {
			return SOFT_SPAN_FALLBACK;
		}
		if (kind != SOFT_SPAN_FALLBACK && k != kind)
			return SOFT_SPAN_FALLBACK;	/* mixed */
		kind = k;
		cur = v[i].end;
	}
	if (cur < end)
		return SOFT_SPAN_FALLBACK;
	if (kind == SOFT_SPAN_SHARED) {
		*ret_inode = ino;
		*ret_off = base_off;
	}
	return kind;
}

/* A span made of pages on one of our memfds, at their own addresses as
 * file offsets (soft_mr_share.c maps every converted page there), and of
 * private read-write memory not converted yet: a registration cache
 * widening a region (UCX's rcache), an MPI buffer reused for a larger
 * message, a message whose first or last page a neighbouring one's
 * registration converted.  Those pieces go onto that memfd at their own
 * offsets, and the span is one memfd again.  Spans on two memfds, or
 * with anything else in them, are not. */
bool soft_span_mixed(const struct soft_vma *v, size_t n, uintptr_t start,
		     uintptr_t end, uint64_t *ret_inode)
{
	bool ours = false, other = false;
	uintptr_t cur = start;
	uint64_t ino = 0;

	for (size_t i = 0; i < n && cur < end; i++) {
		if (v[i].end <= cur)
			continue;
		if (v[i].start > cur)
			return false;			/* a hole */
		if (vma_ours(&v[i])) {
			if (v[i].offset != v[i].start || (ours && v[i].inode != ino))
				return false;
			ino = v[i].inode;
			ours = true;
		} else if (vma_convertible(&v[i])) {
			other = true;
		} else {
			return false;
		}
		cur = v[i].end;
	}
	if (cur < end || !ours || !other)
		return false;
	*ret_inode = ino;
	return true;
}
