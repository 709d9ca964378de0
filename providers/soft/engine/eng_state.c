/* SPDX-License-Identifier: MIT */
/*
 * The device state file's I/O (eng_state.h): the lock, the journal, the
 * atomic write, and restoring devices at start-up.  Runs on the loop thread: a save
 * follows only an administrator's request (root in the host namespace),
 * never anything a pod controls, and the default folder is on tmpfs,
 * where fsync costs nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_state.h"
#include "providers/soft/engine/eng_stats.h"

struct eng_state {
	char path[PATH_MAX];
	char tmp[PATH_MAX];		/* PATH.tmp: ours while we hold the lock */
	char dir[PATH_MAX];
	char journal[PATH_MAX];		/* PATH.journal: changes since */
	int lock_fd;
	int journal_fd;			/* O_APPEND; -1 until opened */
	uint32_t journal_lines;
	uint32_t file_devs;		/* devices in the file when written */
};

/* mkdir -p of dir; what is made is 0700 (the state names every pod's
 * namespace: for the engine's eyes only). */
static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int take_lock(struct eng_state *st)
{
	char lock[PATH_MAX + 8];

	snprintf(lock, sizeof(lock), "%s.lock", st->path);
	st->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			   0600);
	if (st->lock_fd < 0)
		return -errno;
	if (flock(st->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(st->lock_fd);
		st->lock_fd = -1;
		return err;
	}
	return 0;
}

static void dev_entry(const struct eng_dev *d, struct eng_state_dev *o);
static int write_all(int fd, const char *p, size_t len);

static int journal_open(struct eng_state *st)
{
	if (st->journal_fd >= 0)
		return 0;
	/* Never blocks on a FIFO someone put there. */
	st->journal_fd = open(st->journal, O_WRONLY | O_APPEND | O_CREAT |
			      O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	return st->journal_fd < 0 ? -errno : 0;
}

/* One line for the change, on disk before the request is answered. */
static int journal_append(struct eng *e, const struct eng_dev *added,
			  uint32_t removed_id)
{
	struct eng_state *st = e->state;
	struct eng_state_dev *entry = NULL;
	char *line = NULL;
	int ret = -ENOMEM;

	if (added) {
		entry = malloc(sizeof(*entry));
		if (!entry)
			goto out;
		dev_entry(added, entry);
	}
	line = eng_state_format_line(entry, removed_id,
				     e->devs.next <= e->devs.max ?
				     e->devs.next : 0);
	if (!line)
		goto out;
	ret = journal_open(st);
	if (ret == 0)
		ret = write_all(st->journal_fd, line, strlen(line));
	if (ret == 0 && fdatasync(st->journal_fd) < 0)
		ret = -errno;
out:
	free(line);
	free(entry);
	if (ret < 0)
		return ret;
	st->journal_lines++;
	eng_stat_inc(state_journal_appends);
	return 0;
}

/* Appends the change; writes the file whole instead when the journal
 * would hold more lines than the file holds devices (or cannot be
 * written): a compaction writing n devices follows ~n changes, O(1) per
 * change amortized. */
static void devs_changed(struct eng *e, const struct eng_dev *added,
			 uint32_t removed_id)
{
	int ret;

	if (e->state->journal_lines < e->state->file_devs) {
		ret = journal_append(e, added, removed_id);
		if (ret == 0)
			return;
		eng_warn("state %s: cannot append to %s: %s; writing the file "
			 "whole", e->state->path, e->state->journal,
			 strerror(-ret));
	}
	eng_state_save(e);
}

int eng_state_open(struct eng *e, const char *path)
{
	struct eng_state *st;
	char *slash;
	int ret;

	if (!path || !path[0])
		return 0;
	if (path[0] != '/')
		return -EINVAL;
	if (strlen(path) + sizeof(".lock") > sizeof(st->path))
		return -ENAMETOOLONG;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	snprintf(st->path, sizeof(st->path), "%s", path);
	snprintf(st->tmp, sizeof(st->tmp), "%s.tmp", path);
	snprintf(st->journal, sizeof(st->journal), "%s.journal", path);
	st->journal_fd = -1;
	snprintf(st->dir, sizeof(st->dir), "%s", path);
	slash = strrchr(st->dir, '/');
	*(slash == st->dir ? slash + 1 : slash) = '\0';
	ret = make_dirs(st->dir);
	if (ret == 0)
		ret = take_lock(st);
	if (ret < 0) {
		free(st);
		return ret;
	}
	e->state = st;
	e->devs_changed = devs_changed;
	return 0;
}

void eng_state_close(struct eng *e)
{
	if (!e->state)
		return;
	if (e->state->journal_fd >= 0)
		close(e->state->journal_fd);
	if (e->state->lock_fd >= 0)
		close(e->state->lock_fd);
	free(e->state);
	e->state = NULL;
	e->devs_changed = NULL;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Temp file, fsync, rename, fsync of the folder: after a crash the path
 * holds the old state or the new one. */
static int write_atomic(const struct eng_state *st, const char *text)
{
	int fd, ret;

	fd = open(st->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		  O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	ret = fchmod(fd, 0600) < 0 ? -errno : 0;
	if (ret == 0)
		ret = write_all(fd, text, strlen(text));
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(st->tmp, st->path) < 0)
		ret = -errno;
	if (ret < 0) {
		unlink(st->tmp);
		return ret;
	}
	fd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static void dev_entry(const struct eng_dev *d, struct eng_state_dev *o)
{
	memset(o, 0, sizeof(*o));
	o->id = d->id;
	memcpy(o->name, d->name, sizeof(o->name));
	memcpy(o->ifname, d->ifname, sizeof(o->ifname));
	memcpy(o->netns_path, d->netns_path, sizeof(o->netns_path));
	o->ns = d->ns;
	o->pkey = d->pkey;
	o->flags = d->flags;
	o->guid = d->guid;
	memcpy(o->pod_ns, d->pod_ns, sizeof(o->pod_ns));
	memcpy(o->pod_name, d->pod_name, sizeof(o->pod_name));
	o->gid_count = d->gid_count < PV_GID_TABLE_MAX ? d->gid_count
						       : PV_GID_TABLE_MAX;
	for (uint32_t i = 0; i < o->gid_count; i++) {
		memcpy(o->gid[i].gid, d->gid[i].gid, 16);
		o->gid[i].gid_type = d->gid[i].gid_type;
	}
	o->claim_count = d->claim_count < PV_GID_CLAIM_MAX ? d->claim_count
							   : PV_GID_CLAIM_MAX;
	memcpy(o->claim, d->claim, (size_t)o->claim_count * 16);
}

int eng_state_save(struct eng *e)
{
	struct eng_state_doc *doc;
	char *text = NULL;
	int ret = -ENOMEM;

	if (!e->state)
		return 0;
	doc = calloc(1, sizeof(*doc));
	if (!doc)
		goto out;
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		const struct eng_dev *d = e->devs.slot[i];

		if (d && doc->count < ENG_STATE_DEVS_MAX)
			dev_entry(d, &doc->dev[doc->count++]);
	}
	doc->next_id = e->devs.next <= e->devs.max ? e->devs.next : 0;
	text = eng_state_format(doc);
	if (text)
		ret = write_atomic(e->state, text);
	/* The file holds every change: the journal starts again (a crash
	 * before this replays lines the file has, which is harmless). */
	if (ret == 0)
		ret = journal_open(e->state);
	if (ret == 0 && (ftruncate(e->state->journal_fd, 0) < 0 ||
			 fdatasync(e->state->journal_fd) < 0))
		ret = -errno;
	if (ret == 0) {
		e->state->journal_lines = 0;
		e->state->file_devs = doc->count;
	}
out:
	free(text);
	free(doc);
	if (ret < 0) {
		eng_stat_inc(state_save_errors);
		eng_err("state %s: cannot write: %s (devices added since will "
			"not survive an engine restart until a write succeeds)",
			e->state->path, strerror(-ret));
		return ret;
	}
	eng_stat_inc(state_saves);
	return 0;
}

/*
 * The file's text, read only if it is a regular file of ours that no one
 * else can write and not too large; NULL with *why otherwise.  -ENOENT:
 * there is none.
 */
static int read_file(const char *path, char **ret_text, size_t *ret_len,
		     const char **why)
{
	struct stat sb;
	char *buf;
	size_t len = 0;
	int fd, ret = -EBADMSG;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
		  O_NOCTTY);
	if (fd < 0) {
		int err = errno;

		*why = err == ELOOP ? "a symbolic link" : strerror(err);
		return err == ENOENT ? -ENOENT : -EBADMSG;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		*why = "not a regular file";
		goto out_close;
	}
	if (sb.st_uid != geteuid() || (sb.st_mode & 022)) {
		*why = "owned by another user or writable by others";
		goto out_close;
	}
	buf = malloc(ENG_STATE_FILE_MAX + 1);
	if (!buf) {
		*why = "out of memory";
		goto out_close;
	}
	/* One byte more than allowed tells a file that grew past it. */
	while (len <= ENG_STATE_FILE_MAX) {
		ssize_t n = read(fd, buf + len, ENG_STATE_FILE_MAX + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (len > ENG_STATE_FILE_MAX) {
		free(buf);
		*why = "larger than the limit";
		goto out_close;
	}
	*ret_text = buf;
	*ret_len = len;
	ret = 0;
out_close:
	close(fd);
	return ret;
}

struct restore_ctx {
	struct eng *e;
	const char *path;
};

static void log_reject(void *arg, long index, const char *why)
{
	const struct restore_ctx *rc = arg;

	if (index < 0)
		eng_warn("state %s: %s", rc->path, why);
	else
		eng_warn("state %s: entry %ld rejected: %s", rc->path, index,
			 why);
}

/* The namespace at d's path is still the one the device was made in. */
static const char *ns_check(const struct eng_state_dev *d)
{
	const char *p = d->netns_path[0] ? d->netns_path : "/proc/self/ns/net";
	struct stat sb;

	if (stat(p, &sb) < 0)
		return errno == ENOENT || errno == ESRCH ? "namespace gone" :
		       "namespace unreadable";
	/* Never open a FIFO or a device a file names (open could block). */
	if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_dev != d->ns.dev ||
	    (uint64_t)sb.st_ino != d->ns.ino)
		return "the path is another namespace now";
	return NULL;
}

enum restored { RESTORED, DROPPED, REJECTED };

static enum restored restore_one(struct eng *e, const char *path,
				 const struct eng_state_dev *d)
{
	struct pv_ipc_adm_dev_add req;
	struct pv_ipc_adm_dev_claims claims = { .count = d->claim_count };
	struct eng_dev_keep keep = { .id = d->id, .guid = d->guid, .ns = d->ns,
				     .claims = &claims };
	const char *label = d->netns_path[0] ? d->netns_path :
			    "the engine's namespace";
	const char *why = ns_check(d);
	struct eng_dev *dev;
	int ret;

	if (why) {
		eng_info("state %s: device %s (%u) on %s in %s dropped: %s",
			 path, d->name, d->id, d->ifname, label, why);
		return DROPPED;
	}
	memset(&req, 0, sizeof(req));
	memcpy(req.netns_path, d->netns_path, sizeof(req.netns_path));
	memcpy(req.ifname, d->ifname, sizeof(req.ifname));
	memcpy(req.name, d->name, sizeof(req.name));
	req.pkey = d->pkey;
	req.flags = d->flags;
	memcpy(claims.gid, d->claim, (size_t)claims.count * 16);
	ret = eng_dev_add_kept(e, &req, &keep, &dev);
	if (ret == 0) {
		memcpy(dev->pod_ns, d->pod_ns, sizeof(dev->pod_ns));
		memcpy(dev->pod_name, d->pod_name, sizeof(dev->pod_name));
		dev->recorded = true;
		eng_info("state %s: device %s (%u) restored on %s in %s",
			 path, dev->name, dev->id, dev->ifname, label);
		return RESTORED;
	}
	if (ret == -ENODEV || ret == -ENOENT || ret == -ESTALE) {
		eng_info("state %s: device %s (%u) on %s in %s dropped: %s",
			 path, d->name, d->id, d->ifname, label,
			 ret == -ESTALE ? "the path is another namespace now" :
			 ret == -ENODEV ? "interface gone" : "namespace gone");
		return DROPPED;
	}
	eng_warn("state %s: device %s (%u) on %s in %s rejected: %s", path,
		 d->name, d->id, d->ifname, label,
		 ret == -EEXIST ? "name or interface taken" : strerror(-ret));
	return REJECTED;
}

/* Sets the file aside (PATH.rejected) for a look, instead of
 * overwriting it with the empty state. */
static void set_aside(const struct eng_state *st)
{
	char aside[PATH_MAX + 16];

	snprintf(aside, sizeof(aside), "%s.rejected", st->path);
	if (rename(st->path, aside) == 0)
		eng_warn("state %s: kept as %s", st->path, aside);
}

/* The changes since the file was written, over it.  A journal that
 * cannot be read is set aside: what the file holds is restored. */
static void replay_journal(struct eng *e, struct eng_state_doc *doc,
			   struct restore_ctx *rc)
{
	struct restore_ctx jrc = { .e = e, .path = e->state->journal };
	const char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	int ret, bad;

	ret = read_file(e->state->journal, &text, &len, &why);
	if (ret == -ENOENT)
		return;
	if (ret < 0) {
		char aside[PATH_MAX + 16];

		eng_warn("state %s: %s; its changes are lost",
			 e->state->journal, why ? why : "unreadable");
		eng_stat_inc(state_files_rejected);
		snprintf(aside, sizeof(aside), "%s.rejected",
			 e->state->journal);
		rename(e->state->journal, aside);
		return;
	}
	bad = eng_state_journal_apply(text, len, doc, log_reject, &jrc);
	eng_info("state %s: %zu bytes replayed, %d lines rejected",
		 e->state->journal, len, bad);
	free(text);
	(void)rc;
}

static void restore_doc(struct eng *e, const struct eng_state_doc *doc,
			unsigned n[3])
{
	/* 128 KiB at ENG_STATE_DEVS_MAX: off the stack.  Without it the
	 * devices come back in file order, first come first owns. */
	struct eng_gid_holder *held = calloc(doc->count ? doc->count : 1,
					     sizeof(*held));

	/* Every GID stays its old owner's until all devices are back; then
	 * those that were left without one get another look. */
	for (uint32_t i = 0; held && i < doc->count; i++)
		held[i] = (struct eng_gid_holder){ .dev_id = doc->dev[i].id,
			.count = doc->dev[i].gid_count, .gid = doc->dev[i].gid,
			.nclaims = doc->dev[i].claim_count,
			.claims = (const uint8_t (*)[16])doc->dev[i].claim };
	e->gid_reserved = held;
	e->ngid_reserved = held ? doc->count : 0;
	for (uint32_t i = 0; i < doc->count; i++)
		n[restore_one(e, e->state->path, &doc->dev[i])]++;
	e->gid_reserved = NULL;
	e->ngid_reserved = 0;
	free(held);
	eng_dev_gids_recheck(e);
	/* Ids handed out before the restart stay unused a while longer. */
	if (doc->next_id > e->devs.next && doc->next_id <= e->devs.max)
		e->devs.next = doc->next_id;
}

int eng_state_restore(struct eng *e)
{
	struct eng_state_doc *doc = NULL;
	struct restore_ctx rc = { .e = e };
	unsigned n[3] = { 0, 0, 0 };
	const char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (!e->state)
		return 0;
	rc.path = e->state->path;
	ret = read_file(rc.path, &text, &len, &why);
	if (ret == -ENOENT) {
		eng_info("state %s: none yet, no devices to restore", rc.path);
		goto out_save;
	}
	doc = malloc(sizeof(*doc));
	if (ret == 0 && doc)
		ret = eng_state_parse(text, len, doc, log_reject, &rc);
	else if (ret == 0)
		why = "out of memory";
	if (ret < 0 || !doc) {
		if (why)
			eng_warn("state %s: %s", rc.path, why);
		eng_err("state %s: rejected as a whole; starting with no "
			"devices", rc.path);
		eng_stat_inc(state_files_rejected);
		set_aside(e->state);
		goto out_save;
	}
	replay_journal(e, doc, &rc);
	n[REJECTED] = doc->rejected;
	restore_doc(e, doc, n);
	eng_stat_add(state_entries_restored, n[RESTORED]);
	eng_stat_add(state_entries_dropped, n[DROPPED]);
	eng_stat_add(state_entries_rejected, n[REJECTED]);
	eng_info("state %s: %u devices restored, %u dropped, %u rejected",
		 rc.path, n[RESTORED], n[DROPPED], n[REJECTED]);
out_save:
	free(text);
	free(doc);
	eng_state_save(e);
	return (int)n[RESTORED];
}
