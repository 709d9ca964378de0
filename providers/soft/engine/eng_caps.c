/* SPDX-License-Identifier: MIT */
/* Dropping capabilities after set-up (eng_caps.h). */
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "providers/soft/engine/eng_caps.h"

uint64_t eng_caps_kept(void)
{
	return 1ull << CAP_SYS_ADMIN;
}

/* The highest capability this kernel knows (it may know more than our
 * headers). */
static int last_cap(void)
{
	int c = CAP_LAST_CAP;

	while (c < 63 && prctl(PR_CAPBSET_READ, c + 1, 0, 0, 0) >= 0)
		c++;
	return c;
}

int eng_caps_drop(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	uint64_t keep = eng_caps_kept();
	int left = 0, top = last_cap();

	/* The bounding set first: dropping from it needs CAP_SETPCAP,
	 * which goes with the rest below. */
	for (int c = 0; c <= top; c++) {
		if (keep & (1ull << c))
			continue;
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) != 1)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			left++;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));

		data[i].effective &= k;
		data[i].permitted &= k;
		data[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return left;
}
