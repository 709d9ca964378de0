/* SPDX-License-Identifier: MIT */
/*
 * Registration shares the pages with the engine (docs/ARCHITECTURE.md, "Memory").
 *
 * A region lying in private read-write memory -- anonymous, or a private
 * file mapping such as a program's .data and the .bss after it (which
 * kinds: soft_maps.c) -- is moved onto a memfd: the page-aligned span is
 * copied into a new memfd, at its own address as the file offset (below),
 * which is then
 * mapped MAP_SHARED|MAP_FIXED over the very same addresses, so the
 * application's pointers and contents stay valid while the engine maps
 * the same pages from the fd that MR_REG passes.  The span is marked
 * MADV_DONTFORK: a child must not share (and scribble on) the parent's
 * registered pages, which is what ibv_fork_init(3) promises too.
 *
 * Caveats, by design: the copy and the remap are not atomic, so another
 * thread writing to the span during ibv_reg_mr may lose that write (as
 * with rdma-core, registering memory others are writing is the app's
 * race); the pages stay memfd-backed after ibv_dereg_mr (harmless); the
 * unused tail of a rounded page is shared along with the region.  The
 * copy reads the app's pages by pwrite(2) from them, so a private file
 * mapping that runs past its file's end fails with EFAULT (the caller sees
 * "moving the pages ... failed") instead of raising SIGBUS in the app, and
 * nothing is remapped.
 *
 * Registry: converted spans, keyed by the memfd's inode.  A later MR in a
 * span already on one of our memfds reuses it (the mapping is re-checked
 * in /proc/self/maps every time, so a span the app unmapped meanwhile is
 * never trusted); an entry no MR uses whose mapping is gone is closed.
 *
 * The engine reaches memory only through a memfd (issue 8, finding 2:
 * reaching it by pid followed the pid, not the process), so a region we
 * cannot share -- a shared file mapping, the stack, hugetlb or special
 * mappings, read-only memory, a span on two memfds of ours -- cannot be
 * registered: ibv_reg_mr fails with EOPNOTSUPP, and
 * PODVERBS_DEBUG=1 prints which kind it was.  PODVERBS_MR_SHARE=0 tells
 * the provider never to move an application's pages: only regions
 * already on one of our memfds register (for applications that must keep
 * their private mappings; every other ibv_reg_mr fails, visibly).
 *
 * The engine also refuses a range with holes (its first write would
 * allocate those pages in the engine's memory cgroup, not the pod's): a
 * conversion writes every page, and a span converted earlier is
 * populated again (MADV_POPULATE_WRITE) in case the app punched it.
 *
 * An on-demand MR (IBV_ACCESS_ON_DEMAND) shares its pages exactly so:
 * they are never pinned here either, only shared (soft_odp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "providers/soft/provider/soft_provider.h"

struct share_ent {
	struct share_ent *next;
	uint64_t inode;
	int fd;
	unsigned int refs;		/* MRs using it */
	bool seen;			/* mapping present in the last scan */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct share_ent *reg_head;

static bool share_enabled(void)
{
	const char *e = getenv("PODVERBS_MR_SHARE");

	return !(e && strcmp(e, "0") == 0);
}

static struct share_ent *reg_find(uint64_t inode)
{
	for (struct share_ent *e = reg_head; e; e = e->next)
		if (e->inode == inode)
			return e;
	return NULL;
}

static int vma_push(struct soft_vma **v, size_t *n, size_t *cap,
		    const struct soft_vma *cur)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct soft_vma *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *cur;
	return 0;
}

/* Reads the VMAs overlapping [start, end) (sorted, as the kernel lists
 * them) and marks registry entries whose memfd is still mapped. */
static int read_maps(uintptr_t start, uintptr_t end, struct soft_vma **ret_v,
		     size_t *ret_n)
{
	struct soft_vma *v = NULL, cur;
	size_t n = 0, cap = 0, lcap = 0;
	char *line = NULL;
	int rc = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	for (struct share_ent *e = reg_head; e; e = e->next)
		e->seen = false;
	while (rc == 0 && getline(&line, &lcap, f) > 0) {
		struct share_ent *e;

		if (soft_vma_parse(line, &cur) < 0)
			continue;
		e = cur.inode ? reg_find(cur.inode) : NULL;
		if (e)
			e->seen = true;
		if (cur.end <= start || cur.start >= end)
			continue;
		rc = vma_push(&v, &n, &cap, &cur);
	}
	free(line);
	fclose(f);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*ret_v = v;
	*ret_n = n;
	return 0;
}

static void reg_prune(void)
{
	struct share_ent **pp = &reg_head;

	while (*pp) {
		struct share_ent *e = *pp;

		if (!e->refs && !e->seen) {
			*pp = e->next;
			close(e->fd);
			free(e);
		} else {
			pp = &e->next;
		}
	}
}

/* Every page goes into its memfd at its own address as the file offset
 * (the memfd is sparse: pages never written are holes, and cost
 * nothing), so a span that is partly on one of our memfds and partly in
 * private memory not converted yet (UCX's registration cache widening a
 * region; an MPI buffer reused for a larger message; a message whose
 * first or last page a neighbouring message's registration converted)
 * becomes one memfd again by moving just the unconverted pieces onto the
 * same memfd, at their own offsets (fill_mixed()): the earlier MRs'
 * pages stay where they are.  Memfds are not sealed against growing for
 * that: the engine needs only F_SEAL_SHRINK (it seals it itself), and
 * growing one's own memfd costs only one's own memory.  A span on two
 * of our memfds (two regions converted apart, registered together
 * later) is still refused rather than converted again: moving the whole
 * span onto a new memfd would leave the earlier MRs' engine mappings on
 * the old pages, silently stale, and one MR_REG carries one fd.  It needs
 * MRs made of several (fd, offset, length) pieces.  Nor is a conversion
 * widened to the whole .data/.bss ahead of time: the anonymous mapping
 * after a file mapping need not be its .bss (any anonymous mmap the kernel
 * placed there merges with it), and every converted page is MADV_DONTFORK,
 * which must stay limited to what the application registered. */

/* Fills flags_ok of the private file mappings among v[0..n) from
 * /proc/self/smaps' VmFlags (maps does not show hugetlb or VM_IO). */
static int read_flags(struct soft_vma *v, size_t n)
{
	struct soft_vma cur;
	size_t lcap = 0, i = n;
	char *line = NULL;
	bool need = false;
	FILE *f;

	for (size_t k = 0; k < n; k++)
		need |= v[k].inode != 0 && strcmp(v[k].perms, "rw-p") == 0;
	if (!need)
		return 0;
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -errno;
	while (getline(&line, &lcap, f) > 0) {
		if (strncmp(line, "VmFlags:", 8) == 0) {
			if (i < n)
				v[i].flags_ok = soft_vmflags_ok(line);
			i = n;
			continue;
		}
		if (soft_vma_parse(line, &cur) < 0)
			continue;
		/* A header line: is it one of ours (same start, same file)? */
		i = n;
		for (size_t k = 0; k < n; k++)
			if (v[k].start == cur.start && v[k].end == cur.end &&
			    v[k].inode == cur.inode)
				i = k;
	}
	free(line);
	fclose(f);
	return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define SOFT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOFT_ASAN 1
#endif
#endif

#ifdef SOFT_ASAN
/* The pages moved hold the program's other heap objects too, with the
 * sanitizer's redzones between them: reading them is what moving a page
 * means, so the sanitizer build makes the system call itself rather than
 * through pwrite's interceptor, which would report the redzones.  The
 * kernel still answers EFAULT for a page that cannot be read. */
static ssize_t page_pwrite(int fd, const char *src, size_t len, off_t at)
{
	return (ssize_t)syscall(SYS_pwrite64, fd, src, len, at);
}
#else
#define page_pwrite pwrite
#endif

/* Writes len bytes at src into fd from offset at. */
static int copy_in(int fd, const char *src, size_t len, uint64_t at)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = page_pwrite(fd, src + done, len - done,
					(off_t)(at + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* Moves [start, start + len) onto a new memfd, at file offset start;
 * returns its entry. */
static struct share_ent *convert(uintptr_t start, size_t len)
{
	struct share_ent *e = calloc(1, sizeof(*e));
	struct stat st;
	void *p;

	if (!e)
		return NULL;
	e->fd = memfd_create(SOFT_MR_MEMFD_NAME,
			     MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (e->fd < 0)
		goto err_free;
	/* Sealed against shrinking: the engine maps it and must never find
	 * its pages truncated under it (it refuses an unsealable fd).  Not
	 * against growing: extend() grows it over a widened span. */
	if (ftruncate(e->fd, (off_t)(start + len)) < 0 ||
	    fcntl(e->fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0 ||
	    fstat(e->fd, &st) < 0 ||
	    copy_in(e->fd, (const char *)start, len, start) < 0)
		goto err_close_fd;
	p = mmap((void *)start, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, e->fd, (off_t)start);
	if (p == MAP_FAILED)
		goto err_close_fd;
	madvise(p, len, MADV_DONTFORK);
	e->inode = st.st_ino;
	e->next = reg_head;
	reg_head = e;
	return e;

err_close_fd:
	close(e->fd);
err_free:
	free(e);
	return NULL;
}

/* Moves [start, end) (private memory) onto e's memfd at file offset
 * start, growing the file first when it ends before end.  A failure after
 * the growth leaves holes at the memfd's end, nothing else (the engine's
 * seal forbids shrinking it back). */
static int move_onto(struct share_ent *e, uintptr_t start, uintptr_t end)
{
	struct stat st;
	void *p;

	if (fstat(e->fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < end && ftruncate(e->fd, (off_t)end) < 0)
		return -errno;
	if (copy_in(e->fd, (const char *)start, end - start, start) < 0)
		return -EFAULT;
	p = mmap((void *)start, end - start, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, e->fd, (off_t)start);
	if (p == MAP_FAILED)
		return -errno;
	madvise(p, end - start, MADV_DONTFORK);
	return 0;
}

/* The span [start, end) that soft_span_classify() refused: its private
 * pieces moved onto the memfd of the rest when soft_span_mixed() says
 * they can be; that memfd's entry, or NULL. */
static struct share_ent *fill_mixed(const struct soft_vma *v, size_t n,
				    uintptr_t start, uintptr_t end)
{
	struct share_ent *e;
	uint64_t ino = 0;

	if (!share_enabled() || !soft_span_mixed(v, n, start, end, &ino))
		return NULL;
	e = reg_find(ino);
	if (!e)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uintptr_t s = v[i].start > start ? v[i].start : start;
		uintptr_t t = v[i].end < end ? v[i].end : end;

		if (s >= t || v[i].inode == ino)
			continue;
		if (move_onto(e, s, t) < 0)
			return NULL;
	}
	return e;
}

void soft_mr_share_get(void *addr, size_t length, struct soft_mr_share *out)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)addr, start, end;
	struct share_ent *e = NULL;
	struct soft_vma *v = NULL;
	uint64_t ino = 0, off = 0;
	size_t n = 0;

	out->fd = -1;
	out->fd_offset = 0;
	out->ref = NULL;
	out->why = "empty or wrapping region";
	if (!length || a + length < a || a + length > UINTPTR_MAX - (pg - 1))
		return;
	start = a & ~(pg - 1);
	end = (a + length + pg - 1) & ~(pg - 1);
	pthread_mutex_lock(&reg_lock);
	out->why = "cannot read /proc/self/maps";
	if (read_maps(start, end, &v, &n) < 0)
		goto out_unlock;
	out->why = "cannot read /proc/self/smaps";
	if (read_flags(v, n) < 0)
		goto out_unlock;
	switch (soft_span_classify(v, n, start, end, &ino, &off)) {
	case SOFT_SPAN_CONVERT:
		out->why = "PODVERBS_MR_SHARE=0: private memory is not "
			   "moved onto a memfd";
		if (!share_enabled())
			break;
		out->why = "moving the pages onto a memfd failed";
		e = convert(start, end - start);
		off = start;
		break;
	case SOFT_SPAN_SHARED:
		out->why = "shared memory not created by this library";
		e = reg_find(ino);
		/* A span the app punched (MADV_REMOVE) gets its pages back,
		 * charged to the app; EINVAL: a kernel before 5.14. */
		if (e && madvise((void *)start, end - start,
				 MADV_POPULATE_WRITE) < 0 && errno != EINVAL) {
			out->why = "cannot populate the shared pages";
			e = NULL;
		}
		break;
	default:
		out->why = "not private read-write memory (a shared file "
			   "mapping, the stack, hugetlb, a device mapping, "
			   "read-only, or on two memfds registered apart)";
		e = fill_mixed(v, n, start, end);
		off = start;
		break;
	}
	if (e) {
		out->why = NULL;
		e->refs++;
		out->fd = e->fd;
		out->fd_offset = off + (a - start);
		out->ref = e;
	}
	reg_prune();
out_unlock:
	pthread_mutex_unlock(&reg_lock);
	free(v);
}

void soft_mr_share_put(void *ref)
{
	struct share_ent *e = ref;

	if (!e)
		return;
	pthread_mutex_lock(&reg_lock);
	if (e->refs)
		e->refs--;
	pthread_mutex_unlock(&reg_lock);
}
