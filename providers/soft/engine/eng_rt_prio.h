/* SPDX-License-Identifier: MIT */
/*
 * The engine's own scheduling (limit rt_priority, off by default): a
 * NIC's engine should not wait behind the pods it serves.  On a small
 * node applications that busy-poll memory (perftest's ib_write_lat waits
 * on the byte the peer's WRITE lands in, not on a CQ) hold a core
 * without yielding; an engine of the normal scheduler that yields
 * between spin passes gets its core back only a time slice later, its
 * contention backoff then suspends spinning (eng_dp_sched.c) and every
 * WQE costs a doorbell and a wake-up.  With rt_priority N the loop
 * thread runs SCHED_FIFO at N: it preempts applications when a doorbell
 * wakes it and while it spins (dp_spin_us after the last work, then it
 * sleeps as before), and the kernel's RT throttling
 * (sched_rt_runtime_us) still leaves the other tasks their share.
 * SCHED_RESET_ON_FORK: threads and processes it starts later (the fd
 * reaper, netns helpers) run in the normal scheduler.
 */
#ifndef ENG_RT_PRIO_H
#define ENG_RT_PRIO_H

/* Applies eng_lim.rt_priority to the calling thread (call it while the
 * engine still holds CAP_SYS_NICE, before eng_caps_drop).  0 when done
 * or not asked for; -errno when refused (the caller warns and goes on in
 * the normal scheduler). */
int eng_rt_prio_apply(void);

#endif
