/* SPDX-License-Identifier: MIT */
/* Unit tests of the soft device's character device: created with /dev/null's
 * numbers and mode 0666 whatever the umask, idempotent, and never replacing
 * something else at its path.  mknod needs CAP_MKNOD: without it the
 * creating cases skip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/pv_devnode.h"

static char dir[64];
static char sub[96];
static char node[160];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pv-devnode-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(sub, sizeof(sub), "%s/infiniband", dir);
	snprintf(node, sizeof(node), "%s/%s", sub, PV_DEVNODE_NAME);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(node);
	rmdir(sub);
	rmdir(dir);
	return 0;
}

static void test_pv_devnode__creates_null_twin(void **state)
{
	struct stat st;
	mode_t old = umask(077);
	int ret = pv_devnode_ensure(sub);

	umask(old);
	(void)state;
	if (ret == -EPERM)
		skip();		/* no CAP_MKNOD here */
	assert_int_equal(ret, 0);
	assert_int_equal(stat(node, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);
	assert_int_equal(st.st_mode & 07777, 0666);
	assert_int_equal(pv_devnode_check(node), 0);
	/* What UCX does with it, and what a pod can do through it: nothing. */
	int fd = open(node, O_RDWR);

	assert_true(fd >= 0);
	char b[4];

	assert_int_equal(write(fd, "abc", 3), 3);
	assert_int_equal(read(fd, b, sizeof(b)), 0);
	close(fd);
	/* Again: idempotent. */
	assert_int_equal(pv_devnode_ensure(sub), 0);
}

static void test_pv_devnode__leaves_other_file(void **state)
{
	int fd;

	(void)state;
	assert_int_equal(mkdir(sub, 0755), 0);
	fd = open(node, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pv_devnode_check(node), -EEXIST);
	assert_int_equal(pv_devnode_ensure(sub), -EEXIST);
	struct stat st;

	assert_int_equal(stat(node, &st), 0);
	assert_true(S_ISREG(st.st_mode));	/* untouched */
}

static void test_pv_devnode__absent_and_long(void **state)
{
	char lng[5000];

	(void)state;
	assert_int_equal(pv_devnode_check(node), -ENOENT);
	memset(lng, 'a', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = 0;
	assert_int_equal(pv_devnode_ensure(lng), -ENAMETOOLONG);
	assert_string_equal(PV_DEVNODE_PATH, "/dev/infiniband/podverbs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_pv_devnode__creates_null_twin, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_pv_devnode__leaves_other_file, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_pv_devnode__absent_and_long, setup, teardown),
	};

	return cmocka_run_group_tests_name("pv_devnode", tests, NULL, NULL);
}
