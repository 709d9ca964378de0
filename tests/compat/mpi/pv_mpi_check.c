// SPDX-License-Identifier: MIT
/*
 * pv_mpi_check: a 2-rank MPI job that checks every byte it moves
 * (tests/compat/mpi_ucx.sh builds it with Debian's mpicc and runs it in two
 * pods, once over --mca pml ucx, once over ob1's tcp btl).
 *
 *   ping-pong   rank 0 sends a message, rank 1 checks it and answers with a
 *               different pattern, rank 0 checks that: several sizes, from
 *               eager messages to rendezvous ones (UCX switches protocols at
 *               a few KiB and again at tens of KiB; ob1 at its eager limit).
 *               Latency is half the round trip; bandwidth of the ping-pong
 *               counts both directions' bytes over the round trips.
 *   stream      rank 0 posts WINDOW non-blocking sends back to back, rank 1
 *               matching receives, then a 1-byte ack: one-way bandwidth.
 *   allreduce   int64 vectors whose sum, max and min are known in closed
 *               form, from one element to one that needs rendezvous.
 *
 * Every pattern depends on the size, the iteration and the sender, so a
 * message delivered to the wrong receive, stale or shifted fails the check.
 * Output, one result a line (mpi_ucx.sh parses it):
 *   pingpong SIZE ITERS lat_us=X bw_MBps=Y
 *   stream SIZE WINDOW bw_MBps=Y
 *   allreduce COUNT ok
 *   pv_mpi_check: OK
 * Any mismatch prints where and MPI_Abort()s (the job's exit status is not 0).
 * usage: pv_mpi_check [ITER_SCALE]   (iterations x ITER_SCALE/100; default 100)
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PV_WINDOW 16
#define PV_MAX_SIZE (1u << 22)

static int rank;

static void die(const char *what, size_t at, unsigned int got, unsigned int want)
{
	fprintf(stderr, "pv_mpi_check: rank %d: %s: byte %zu is 0x%02x, expected 0x%02x\n",
		rank, what, at, got, want);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

/* pattern: byte i of message (size, iter) from sender; never constant
 * across i, different for each sender and iteration. */
static unsigned char pattern(size_t i, size_t size, unsigned int iter, int sender)
{
	uint32_t x = (uint32_t)(i * 2654435761u) ^ (uint32_t)size ^ (iter * 40503u) ^
		     ((uint32_t)sender << 24);

	return (unsigned char)(x ^ (x >> 8) ^ (x >> 16));
}

static void fill(unsigned char *buf, size_t size, unsigned int iter, int sender)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern(i, size, iter, sender);
}

static void check(const char *what, const unsigned char *buf, size_t size,
		  unsigned int iter, int sender)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char want = pattern(i, size, iter, sender);

		if (buf[i] != want)
			die(what, i, buf[i], want);
	}
}

/* pingpong: ITERS checked round trips of SIZE bytes; rank 0 reports. */
static void pingpong(unsigned char *buf, size_t size, unsigned int iters)
{
	int peer = 1 - rank;
	double t0 = 0, t = 0;

	for (unsigned int it = 0; it < iters + 1; it++) {
		/* Round 0 is a warm-up (connection, registration), not timed. */
		if (it == 1) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			fill(buf, size, it, 0);
			MPI_Send(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			memset(buf, 0, size);
			MPI_Recv(buf, (int)size, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			check("pong", buf, size, it, 1);
		} else {
			memset(buf, 0, size);
			MPI_Recv(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			check("ping", buf, size, it, 0);
			fill(buf, size, it, 1);
			MPI_Send(buf, (int)size, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
		}
	}
	t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("pingpong %zu %u lat_us=%.2f bw_MBps=%.2f\n", size, iters,
		       t / iters / 2 * 1e6, 2.0 * (double)size * iters / t / 1e6);
}

/* stream: ROUNDS rounds of PV_WINDOW back-to-back SIZE-byte sends 0 -> 1,
 * each round acked; every message checked. */
static void stream(unsigned char *bufs, size_t size, unsigned int rounds)
{
	MPI_Request req[PV_WINDOW];
	double t0 = 0, t;
	char ack = 0;

	for (unsigned int r = 0; r < rounds + 1; r++) {
		if (r == 1) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		for (unsigned int w = 0; w < PV_WINDOW; w++) {
			unsigned char *b = bufs + (size_t)w * size;

			if (rank == 0) {
				fill(b, size, r * PV_WINDOW + w, 0);
				MPI_Isend(b, (int)size, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[w]);
			} else {
				memset(b, 0, size);
				MPI_Irecv(b, (int)size, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &req[w]);
			}
		}
		MPI_Waitall(PV_WINDOW, req, MPI_STATUSES_IGNORE);
		if (rank == 1) {
			for (unsigned int w = 0; w < PV_WINDOW; w++)
				check("stream", bufs + (size_t)w * size, size,
				      r * PV_WINDOW + w, 0);
			MPI_Send(&ack, 1, MPI_CHAR, 0, 4, MPI_COMM_WORLD);
		} else {
			MPI_Recv(&ack, 1, MPI_CHAR, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	}
	t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("stream %zu %d bw_MBps=%.2f\n", size, PV_WINDOW,
		       (double)size * PV_WINDOW * rounds / t / 1e6);
}

/* allreduce: SUM, MAX and MIN of COUNT int64s, element i of rank r being
 * (r + 1) * 1000003 + i * (r ? -7 : 5): results known in closed form. */
static void allreduce(int64_t *in, int64_t *out, int count, int nranks)
{
	static const MPI_Op ops[] = { MPI_SUM, MPI_MAX, MPI_MIN };
	static const char *names[] = { "sum", "max", "min" };

	for (int i = 0; i < count; i++)
		in[i] = (int64_t)(rank + 1) * 1000003 + (int64_t)i * (rank ? -7 : 5);
	for (unsigned int o = 0; o < 3; o++) {
		memset(out, 0, (size_t)count * sizeof(*out));
		MPI_Allreduce(in, out, count, MPI_INT64_T, ops[o], MPI_COMM_WORLD);
		for (int i = 0; i < count; i++) {
			int64_t v0 = 1000003 + (int64_t)i * 5;
			int64_t v1 = 2 * 1000003 - (int64_t)i * 7;
			int64_t want = o == 0 ? v0 + v1 : o == 1 ? (v0 > v1 ? v0 : v1) :
				       (v0 < v1 ? v0 : v1);

			if (nranks == 2 && out[i] == want)
				continue;
			fprintf(stderr, "pv_mpi_check: rank %d: allreduce %s count %d: "
				"element %d is %" PRId64 ", expected %" PRId64 "\n",
				rank, names[o], count, i, out[i], want);
			fflush(stderr);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
	}
	if (rank == 0)
		printf("allreduce %d ok\n", count);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 8, 64, 1024, 8192, 65536, 1u << 20, PV_MAX_SIZE };
	static const int counts[] = { 1, 1000, 1 << 18 };
	unsigned int scale = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 10) : 100;
	unsigned char *buf, *bufs;
	int64_t *in, *out;
	int nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks != 2) {
		if (rank == 0)
			fprintf(stderr, "pv_mpi_check: needs 2 ranks, has %d\n", nranks);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (scale == 0)
		scale = 1;
	buf = malloc(PV_MAX_SIZE);
	bufs = malloc((size_t)PV_WINDOW << 20);
	in = malloc(((size_t)1 << 18) * sizeof(*in));
	out = malloc(((size_t)1 << 18) * sizeof(*out));
	if (!buf || !bufs || !in || !out) {
		fprintf(stderr, "pv_mpi_check: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		/* Fewer round trips as messages grow: each script stays short. */
		unsigned int iters = sizes[s] <= 8192 ? 1000 : sizes[s] <= 65536 ? 200 : 20;

		iters = iters * scale / 100;
		pingpong(buf, sizes[s], iters ? iters : 1);
	}
	stream(bufs, 65536, 50 * scale / 100 ? 50 * scale / 100 : 1);
	stream(bufs, 1u << 20, 5 * scale / 100 ? 5 * scale / 100 : 1);
	for (unsigned int c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		allreduce(in, out, counts[c], nranks);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("pv_mpi_check: OK\n");
	free(out);
	free(in);
	free(bufs);
	free(buf);
	MPI_Finalize();
	return 0;
}
