/* SPDX-License-Identifier: MIT */
/*
 * Containment (issue 8, finding 8): once set up (sockets bound, folders
 * made, limits raised), the engine keeps only CAP_SYS_ADMIN, for setns()
 * into pod network namespaces (device add, the link watch, and the per-pod
 * UDP sockets of the coming wire).  Everything else goes from the
 * effective, permitted, inheritable and ambient sets and, where
 * CAP_SETPCAP allows, from the bounding set.
 *
 * Not kept, on purpose: CAP_SYS_PTRACE (clients prove their namespace
 * with an fd now; nothing reads /proc/<pid> of a client), CAP_NET_ADMIN
 * and CAP_NET_RAW (RoCEv2 is UDP to port 4791: an ordinary socket, made
 * after setns, needs neither; SO_BINDTODEVICE is unprivileged since
 * Linux 5.7), CAP_DAC_OVERRIDE (namespace bind mounts are nsfs files,
 * mode 0444).
 */
#ifndef ENG_CAPS_H
#define ENG_CAPS_H

#include <stdint.h>

/* The capability numbers the engine keeps, as a mask. */
uint64_t eng_caps_kept(void);

/* Drops every other capability from this thread (call before any other
 * thread starts: threads inherit it).  Returns how many bounding-set
 * entries could not be dropped (no CAP_SETPCAP), or -errno when the
 * capability sets could not be narrowed. */
int eng_caps_drop(void);

#endif /* ENG_CAPS_H */
