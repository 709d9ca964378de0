/* SPDX-License-Identifier: MIT */
/* Unit tests of the IPC framing: round trips with fds, malformed headers,
 * truncated and oversized messages.  (The soft device's op tables:
 * tests/unit/soft_proto/.)  The ops used are the soft device's, numbers
 * the framing carries without reading. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"

static int pair[2];

static int setup(void **state)
{
	(void)state;
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair);
}

static int teardown(void **state)
{
	(void)state;
	close(pair[0]);
	close(pair[1]);
	return 0;
}

static void test_pv_ipc__round_trip_with_fd(void **state)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION, .client_id = 7 };
	char buf[PV_IPC_MAX_MSG];
	int fd = dup(0), got[PV_IPC_MAX_FDS], n = 0;
	struct stat a, b;

	(void)state;
	assert_int_equal(pv_ipc_send(pair[0], PV_OP_HELLO, 5, -EINVAL, &h,
				     sizeof(h), &fd, 1), 0);
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), got, &n),
			 sizeof(h));
	assert_int_equal(n, 1);
	fstat(fd, &a);
	fstat(got[0], &b);
	assert_int_equal(a.st_ino, b.st_ino);
	struct pv_msg_hdr *hdr = (struct pv_msg_hdr *)buf;
	assert_int_equal(hdr->op, PV_OP_HELLO);
	assert_int_equal(hdr->seq, 5);
	assert_int_equal(hdr->status, -EINVAL);
	assert_memory_equal(buf + sizeof(*hdr), &h, sizeof(h));
	close(fd);
	close(got[0]);
}

static void test_pv_ipc__bad_magic_rejected(void **state)
{
	struct pv_msg_hdr hdr = { .magic = 0xdeadbeef, .version = PV_IPC_VERSION };
	char buf[PV_IPC_MAX_MSG];

	(void)state;
	assert_int_equal(send(pair[0], &hdr, sizeof(hdr), 0), sizeof(hdr));
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), NULL, NULL),
			 -EPROTO);
}

static void test_pv_ipc__length_mismatch_rejected(void **state)
{
	struct pv_msg_hdr hdr = { .magic = PV_IPC_MAGIC,
				  .version = PV_IPC_VERSION, .len = 100 };
	char buf[PV_IPC_MAX_MSG];

	(void)state;
	/* claims 100 payload bytes, carries none */
	assert_int_equal(send(pair[0], &hdr, sizeof(hdr), 0), sizeof(hdr));
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), NULL, NULL),
			 -EPROTO);
	/* shorter than a header */
	assert_int_equal(send(pair[0], "abc", 3, 0), 3);
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), NULL, NULL),
			 -EPROTO);
}

static void test_pv_ipc__wrong_version_rejected(void **state)
{
	struct pv_msg_hdr hdr = { .magic = PV_IPC_MAGIC, .version = 99 };

	(void)state;
	assert_int_equal(pv_ipc_check_hdr(&hdr, sizeof(hdr)), -EPROTO);
	hdr.version = PV_IPC_VERSION;
	assert_int_equal(pv_ipc_check_hdr(&hdr, sizeof(hdr)), 0);
	hdr.len = PV_IPC_MAX_MSG;
	assert_int_equal(pv_ipc_check_hdr(&hdr, sizeof(hdr) + hdr.len), -EPROTO);
}

static void test_pv_ipc__truncated_buffer_rejected(void **state)
{
	char payload[256] = { 0 };
	char small[64];

	(void)state;
	assert_int_equal(pv_ipc_send(pair[0], PV_OP_DEV_LIST, 1, 0, payload,
				     sizeof(payload), NULL, 0), 0);
	assert_int_equal(pv_ipc_recv(pair[1], small, sizeof(small), NULL, NULL),
			 -EPROTO);
}

static void test_pv_ipc__eof_is_reset(void **state)
{
	char buf[64];

	(void)state;
	shutdown(pair[0], SHUT_WR);
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), NULL, NULL),
			 -ECONNRESET);
}

static void test_pv_ipc__oversized_send_refused(void **state)
{
	(void)state;
	assert_int_equal(pv_ipc_send(pair[0], PV_OP_HELLO, 1, 0, "", 
				     PV_IPC_MAX_MSG, NULL, 0), -EINVAL);
	assert_int_equal(pv_ipc_send(pair[0], PV_OP_HELLO, 1, 0, NULL, 0,
				     NULL, PV_IPC_MAX_FDS + 1), -EINVAL);
}

/* The admin socket beside, never inside, the pod socket's folder. */
static void test_pv_ipc__admin_path(void **state)
{
	char buf[108];

	assert_int_equal(pv_ipc_admin_path_for(PV_IPC_DEFAULT_SOCKET, buf,
					       sizeof(buf)), 0);
	assert_string_equal(buf, PV_IPC_DEFAULT_ADMIN_SOCKET);
	assert_int_equal(pv_ipc_admin_path_for("/tmp/x/e.sock", buf,
					       sizeof(buf)), 0);
	assert_string_equal(buf, "/tmp/x-admin/admin.sock");
	assert_int_equal(pv_ipc_admin_path_for("e.sock", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(pv_ipc_admin_path_for("/e.sock", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(pv_ipc_admin_path_for("/tmp/x/e.sock", buf, 8),
			 -ENAMETOOLONG);
}

static void test_pv_ipc__call_skips_stale_reply(void **state)
{
	struct pv_ipc_handle h = { .handle = 42 }, out = { 0 };
	uint32_t seq = 0, len = 0;
	char buf[PV_IPC_MAX_MSG];

	(void)state;
	/* a stale reply (seq 0) and the right one (seq 1) are queued first */
	assert_int_equal(pv_ipc_send(pair[1], PV_OP_PD_ALLOC, 0, 0, &out,
				     sizeof(out), NULL, 0), 0);
	assert_int_equal(pv_ipc_send(pair[1], PV_OP_PD_ALLOC, 1, 0, &h,
				     sizeof(h), NULL, 0), 0);
	assert_int_equal(pv_ipc_call(pair[0], &seq, PV_OP_PD_ALLOC, NULL, 0,
				     &out, sizeof(out), &len, NULL, NULL), 0);
	assert_int_equal(out.handle, 42);
	assert_int_equal(len, sizeof(out));
	/* the request itself arrived at the other end */
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), NULL, NULL), 0);
}

static void test_pv_ipc__call_passes_request_fds(void **state)
{
	char buf[PV_IPC_MAX_MSG];
	int fd = dup(1), got[PV_IPC_MAX_FDS], n = 0;
	uint32_t seq = 0;
	struct stat a, b;

	(void)state;
	/* the reply is queued first; the call still sends its request + fd */
	assert_int_equal(pv_ipc_send(pair[1], PV_OP_MR_REG, 1, -EACCES, NULL,
				     0, NULL, 0), 0);
	assert_int_equal(pv_ipc_call_fds(pair[0], &seq, PV_OP_MR_REG, "x", 1,
					 &fd, 1, NULL, 0, NULL, NULL, NULL),
			 -EACCES);
	assert_int_equal(pv_ipc_recv(pair[1], buf, sizeof(buf), got, &n), 1);
	assert_int_equal(n, 1);
	fstat(fd, &a);
	fstat(got[0], &b);
	assert_int_equal(a.st_ino, b.st_ino);
	close(fd);
	close(got[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pv_ipc__round_trip_with_fd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pv_ipc__bad_magic_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pv_ipc__length_mismatch_rejected, setup, teardown),
		cmocka_unit_test(test_pv_ipc__wrong_version_rejected),
		cmocka_unit_test_setup_teardown(test_pv_ipc__truncated_buffer_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pv_ipc__eof_is_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pv_ipc__oversized_send_refused, setup, teardown),
		cmocka_unit_test(test_pv_ipc__admin_path),
		cmocka_unit_test_setup_teardown(test_pv_ipc__call_skips_stale_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pv_ipc__call_passes_request_fds, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
