/* SPDX-License-Identifier: MIT */
/*
 * The engine confines itself once it is set up (socket listening, detached,
 * signals and pidfile done) and before it serves its first client.
 *
 * A deny-list, not an allow-list: the engine is the node's RDMA NIC and
 * must keep working; its system calls come from glibc, libnl and the
 * kernel's choices (epoll, SCM_RIGHTS, memfd seals, setns in
 * short-lived threads, netlink, timers, ...) and vary with their
 * versions, so an allow-list that misses one rare path (an error branch,
 * a glibc fallback) would take every pod's RDMA down.  Instead it refuses
 * what a compromised engine would want and the engine never needs:
 * running programs, tracing (process_vm_* included: client memory is
 * reached only through memfds), mounts, new namespaces, modules, kexec,
 * bpf, keyrings, the clock, swap, raw I/O ports, handles that escape
 * mount namespaces, io_uring.  setns() is allowed for network namespaces only.
 * Refused calls fail with EPERM (never a kill: bad input must not crash
 * the daemon); the filter covers every thread (TSYNC) and sets
 * no_new_privs.  `podverbsd --no-seccomp` or PODVERBS_NO_SECCOMP=1 skips
 * it (debugging, strace).
 */
#ifndef ENG_SECCOMP_H
#define ENG_SECCOMP_H

/* Installs the filter on every thread of the process.  Returns the number
 * of system calls refused outright on this architecture (>= 0; argument
 * rules for setns/clone/clone3 come on top), or -errno. */
int eng_seccomp_apply(void);

#endif /* ENG_SECCOMP_H */
