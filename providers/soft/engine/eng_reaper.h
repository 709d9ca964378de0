/* SPDX-License-Identifier: MIT */
/*
 * Disposing of fds a client handed us (or a client's own connection,
 * which can hold fds still queued in flight) off the loop thread.
 *
 * close() of a client-supplied fd can block as long as the client likes:
 * a TCP socket with SO_LINGER and an undrainable send queue waits in
 * close for l_linger seconds; a connection socket whose receive queue
 * holds such sockets (SCM_RIGHTS in flight) blocks the same way when it
 * goes.  So every such fd goes to one reaper thread, which closes it with
 * a per-thread timer armed: its signal (no SA_RESTART) ends a lingering
 * wait, and close releases the descriptor regardless (close(2)).  Sockets
 * also lose SO_LINGER first, so most closes never wait at all.
 */
#ifndef ENG_REAPER_H
#define ENG_REAPER_H

/* Starts the thread; call before the seccomp filter (it needs clone and
 * the filter is synced to it by TSYNC) and after any fork.  Every signal
 * stays blocked in it but its timer's.  Returns 0 or -errno. */
int eng_reaper_start(void);

/* Takes ownership of fd (a negative fd is ignored) and closes it on the
 * reaper; never blocks.  Without a reaper (unit tests, or it could not
 * start) closes it here after dropping SO_LINGER. */
void eng_fd_dispose(int fd);

/* Closes what is queued, each close bounded, and ends the thread; waits
 * at most about a second overall. */
void eng_reaper_stop(void);

/* fds waiting (for counters and tests). */
unsigned eng_reaper_backlog(void);

#endif /* ENG_REAPER_H */
