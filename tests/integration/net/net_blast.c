/* SPDX-License-Identifier: MIT */
/*
 * UDP blaster and counter for the net tests and the micro-benchmark
 * (tests/integration/net_flood.sh, net_bench.sh):
 *
 *   net-blast send IP SIZE SECS BATCH [mix]
 *       sends SIZE-byte datagrams to IP:4791 with sendmmsg, BATCH at a
 *       time, for SECS seconds; "mix" cycles through garbage of every
 *       kind instead (empty, 8 bytes, 100, SIZE, 65000: runts, packets
 *       and oversized ones); "roce" sends RoCEv2-looking packets
 *       instead: a well-formed BTH (RC SEND ONLY to a random QPN, or UD
 *       SEND ONLY with a DETH to QP1 every fourth) and a wrong ICRC, which
 *       get past the parser.  Prints "sent N pkts/s P".
 *   net-blast recv IP SIZE SECS BATCH [gro]
 *       binds IP:4791, counts what recvmmsg brings (BATCH at a time; with
 *       gro, asks for UDP_GRO and counts the segments) for SECS seconds
 *       after the first datagram.  Prints "recv N pkts/s P trains T".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define BATCH_MAX 1024
#define SLOT 65536

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sock_to(const char *ip, struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(4791);
	if (inet_pton(AF_INET, ip, &a->sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		exit(2);
	}
	return socket(AF_INET, SOCK_DGRAM, 0);
}

/* Packet i of the "roce" kind into buf (size >= 28 bytes). */
static void roce_fill(unsigned char *buf, size_t size, unsigned long i)
{
	unsigned long r = i * 2654435761ul + 12345;
	int qp1 = i % 4 == 3;

	memset(buf, 0, 28);
	buf[0] = qp1 ? 0x64 : 0x04;		/* UD / RC SEND ONLY */
	buf[2] = buf[3] = 0xff;			/* P_Key 0xffff */
	if (qp1) {
		buf[7] = 1;
		buf[12] = 0x80;			/* DETH: the GSI Q_Key */
		buf[13] = 0x01;
		buf[19] = 1;
	} else {
		buf[5] = (unsigned char)(r >> 16);
		buf[6] = (unsigned char)(r >> 8);
		buf[7] = (unsigned char)r | 2;
	}
	buf[9] = (unsigned char)(r >> 24);	/* PSN */
	buf[11] = (unsigned char)i;
	memset(buf + size - 4, 0x5a, 4);	/* not the ICRC */
}

static int do_send(const char *ip, size_t size, double secs, int batch,
		   int mix)
{
	static struct mmsghdr mm[BATCH_MAX];
	static struct iovec iov[BATCH_MAX];
	static const size_t kinds[] = { 0, 8, 100, 0, 65000 };
	struct sockaddr_in a;
	int fd = sock_to(ip, &a);
	char *buf = calloc(1, SLOT);
	unsigned long n = 0, k = 0;
	double t0 = now(), t;

	if (fd < 0 || !buf || size > 65000 || (mix == 2 && size < 28))
		return 1;
	for (size_t i = 0; i < SLOT; i++)
		buf[i] = (char)(i * 131 + 7);
	if (mix == 2)
		buf = realloc(buf, (size_t)batch * SLOT);
	if (!buf)
		return 1;
	for (int i = 0; i < batch; i++) {
		iov[i] = (struct iovec){ buf, size };
		if (mix == 2) {
			iov[i].iov_base = buf + (size_t)i * SLOT;
			roce_fill(iov[i].iov_base, size, (unsigned long)i);
		}
		mm[i].msg_hdr = (struct msghdr){ .msg_name = &a,
			.msg_namelen = sizeof(a), .msg_iov = &iov[i],
			.msg_iovlen = 1 };
	}
	while ((t = now()) - t0 < secs) {
		int r;

		for (int i = 0; mix == 1 && i < batch; i++, k++)
			iov[i].iov_len = kinds[k % 5] ? kinds[k % 5] : size;
		for (int i = 0; mix == 2 && i < batch; i++, k++)
			roce_fill(iov[i].iov_base, size, k);
		r = sendmmsg(fd, mm, batch, 0);
		if (r > 0)
			n += r;
		else if (errno != ENOBUFS && errno != EAGAIN &&
			 errno != EMSGSIZE && errno != ECONNREFUSED)
			break;
	}
	printf("sent %lu pkts/s %.0f\n", n, n / (t - t0));
	return 0;
}

static int do_recv(const char *ip, double secs, int batch, int gro)
{
	static struct mmsghdr mm[BATCH_MAX];
	static struct iovec iov[BATCH_MAX];
	static char ctl[BATCH_MAX][64];
	struct sockaddr_in a;
	int fd = sock_to(ip, &a), one = 1, rcv = 8 << 20;
	char *buf = malloc((size_t)batch * SLOT);
	unsigned long n = 0, trains = 0;
	double t0 = 0, t = 0, start = now();

	if (fd < 0 || !buf ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("recv socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (gro && setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one)))
		perror("UDP_GRO");
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int r;

		for (int i = 0; i < batch; i++) {
			iov[i] = (struct iovec){ buf + (size_t)i * SLOT, SLOT };
			mm[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i],
				.msg_iovlen = 1, .msg_control = ctl[i],
				.msg_controllen = sizeof(ctl[i]) };
		}
		if (poll(&p, 1, 1000) <= 0 && (t0 || now() - start > secs + 5))
			break;
		r = recvmmsg(fd, mm, batch, MSG_DONTWAIT, NULL);
		if (r <= 0)
			continue;
		if (!t0)
			t0 = now();
		for (int i = 0; i < r; i++) {
			struct msghdr *h = &mm[i].msg_hdr;
			int seg = 0;

			for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c;
			     c = CMSG_NXTHDR(h, c))
				if (c->cmsg_level == IPPROTO_UDP &&
				    c->cmsg_type == UDP_GRO)
					memcpy(&seg, CMSG_DATA(c), sizeof(seg));
			if (seg > 0) {
				trains++;
				n += (mm[i].msg_len + seg - 1) / seg;
			} else {
				n++;
			}
		}
		if ((t = now()) - t0 >= secs)
			break;
	}
	printf("recv %lu pkts/s %.0f trains %lu\n", n,
	       t > t0 ? n / (t - t0) : 0.0, trains);
	return 0;
}

int main(int argc, char **argv)
{
	int batch;

	if (argc < 6) {
		fprintf(stderr, "usage: net-blast send|recv IP SIZE SECS "
			"BATCH [mix|roce|gro]\n");
		return 2;
	}
	batch = atoi(argv[5]);
	if (batch < 1 || batch > BATCH_MAX)
		return 2;
	if (strcmp(argv[1], "send") == 0)
		return do_send(argv[2], (size_t)atoi(argv[3]), atof(argv[4]),
			       batch, argc <= 6 ? 0 :
			       strcmp(argv[6], "mix") == 0 ? 1 :
			       strcmp(argv[6], "roce") == 0 ? 2 : 0);
	return do_recv(argv[2], atof(argv[4]), batch,
		       argc > 6 && strcmp(argv[6], "gro") == 0);
}
