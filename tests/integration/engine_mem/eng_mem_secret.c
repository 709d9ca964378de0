/* SPDX-License-Identifier: MIT */
/*
 * The victim of tests/integration/engine_mr_attack.sh: a process that
 * keeps a secret at a fixed address, as another pod's process or a
 * setuid-root program would keep one somewhere.
 *
 *   eng-mem-secret FILE    maps a page at ENG_MEM_ADDR, reads FILE (the
 *                          secret; root-only when installed setuid) into
 *                          it, prints "ready PID", waits for a byte on
 *                          stdin, then prints "memory: CONTENTS" so the
 *                          test sees whether someone wrote into it
 *
 * Built as a test program only; the test makes a setuid copy of it in
 * its private temp folder.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/integration/engine_mem/eng_mem.h"

int main(int argc, char **argv)
{
	char *p, c;
	ssize_t n;
	int fd;

	if (argc != 2)
		return 2;
	p = mmap((void *)ENG_MEM_ADDR, ENG_MEM_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)ENG_MEM_ADDR) {
		printf("error: cannot map the secret page\n");
		return 1;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("error: cannot open the secret\n");
		return 1;
	}
	n = read(fd, p, ENG_MEM_SECRET_MAX);
	close(fd);
	if (n <= 0)
		return 1;
	p[n] = '\0';
	p[strcspn(p, "\n")] = '\0';
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	/* One byte (or EOF) means "look now": other processes of the test
	 * may hold the pipe's write end open. */
	if (read(0, &c, 1) < 0)
		return 1;
	printf("memory: %.*s\n", ENG_MEM_SECRET_MAX, p);
	return 0;
}
