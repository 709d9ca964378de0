/* SPDX-License-Identifier: MIT */
/*
 * Linked into the sanitizer build (make SAN=1) of the programs that confine
 * themselves with seccomp: podverbsd, the CNI plugin, the device plugin.
 *
 * LeakSanitizer's check at exit stops the process's threads from a helper
 * that ptrace()s them; our filters refuse ptrace, so the check either dies
 * with "LeakSanitizer has encountered a fatal error" (the engine) or spins
 * in sched_yield() waiting for a tracer that never attaches (the CNI
 * plugin, for as long as the test's timeout).  LSan asks this hook before
 * checking: once a filter is on, skip the leak check.  ASan and UBSan
 * reports are unaffected (they need only open and write).
 *
 * The filter is read from /proc/self/status with open/read, which every
 * filter allows; prctl(PR_GET_SECCOMP) would be refused by the CNI
 * plugin's allow-list and trip tests/integration/cni_seccomp.sh.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

__attribute__((visibility("default"))) int __lsan_is_turned_off(void);

__attribute__((visibility("default"))) int __lsan_is_turned_off(void)
{
	char buf[4096];
	ssize_t n = 0, got;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	const char *p;

	if (fd < 0)
		return 1;	/* can't tell: don't risk the hang */
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       (got = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += got;
	close(fd);
	buf[n] = '\0';
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return 0;	/* kernel without seccomp */
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p != '0';
}
