/* SPDX-License-Identifier: MIT */
/*
 * pv-impair: a link impairer for tests.  Forwards every frame between two
 * interfaces of a "wire" namespace (AF_PACKET) and applies, per direction,
 * loss, reordering, duplication, corruption and delay at given rates,
 * repeatably from a seed.  Our stand-in for sch_netem, which the test
 * machines' kernel does not have (docs: tests/README.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "tests/tools/pv-impair/pvi_io.h"
#include "tests/tools/pv-impair/pvi_path.h"
#include "tests/tools/pv-impair/pvi_report.h"
#include "tests/tools/pv-impair/pvi_spec.h"

static const char usage_text[] =
"usage: pv-impair [OPTIONS] IF_A IF_B [KEY=VALUE...]\n"
"Forwards Ethernet frames both ways between interfaces IF_A and IF_B\n"
"(AF_PACKET, promiscuous) and impairs them.  KEY=VALUE applies to both\n"
"directions; prefix the key with ab. (A->B only) or ba. (B->A only):\n"
"  loss=PCT       drop PCT %% of frames (fractions allowed: 0.1)\n"
"  reorder=PCT    hold PCT %% of frames back: each goes out after\n"
"  hold=N         N later frames (default 3, 1..64), or after\n"
"  holdus=US      US microseconds if traffic stops (default 2000)\n"
"  dup=PCT        send PCT %% of frames twice\n"
"  corrupt=PCT    flip one random bit in the UDP/TCP payload of PCT %% of\n"
"                 frames (headers intact: checksums and ICRC catch it;\n"
"                 frames without such a payload are counted corrupt_skip)\n"
"  delay=US       every frame waits US microseconds (0..1000000)\n"
"Faults apply in this order: loss, corrupt, dup, reorder.\n"
"\n"
"  -s, --seed N     random seed (default 1): same seed and same frames,\n"
"                   same faults\n"
"  -o, --stats FILE write the counters to FILE (replaced atomically) at\n"
"                   start, on SIGUSR1 and at exit; default stdout\n"
"  -q, --queue N    frames the delay queue holds (default 4096); beyond\n"
"                   it frames are dropped (qdrop)\n"
"  -h, --help       this text\n"
"\n"
"Counters, one line per direction (ab: in on IF_A, out on IF_B):\n"
"  pv-impair ab rx=N rx_bytes=N tx=N tx_bytes=N drop=N reorder=N dup=N\n"
"  corrupt=N corrupt_skip=N trunc=N txerr=N qdrop=N kdrop=N\n"
"tx counts duplicates; kdrop counts frames the kernel dropped because\n"
"pv-impair did not keep up (its receive queue was full); trunc counts frames larger than the interfaces'\n"
"MTU (disable GSO/TSO on the senders: ethtool -K IF tso off gso off tx off).\n"
"SIGTERM or SIGINT: write the counters and exit 0.\n"
"Exit status: 0 ok, 1 runtime error, 2 usage.\n";

struct pvi_opts {
	uint64_t seed;
	const char *stats;
	uint32_t queue;
	const char *ifname[PVI_NDIR];
	struct pvi_dir_cfg cfg[PVI_NDIR];
};

static int parse_opts(int argc, char **argv, struct pvi_opts *o)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "stats", required_argument, NULL, 'o' },
		{ "queue", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct pvi_opts){ .seed = 1, .queue = 4096 };
	pvi_spec_defaults(o->cfg);
	while ((c = getopt_long(argc, argv, "s:o:q:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg)
				goto bad;
			break;
		case 'o':
			o->stats = optarg;
			break;
		case 'q':
			errno = 0;
			o->queue = (uint32_t)strtoul(optarg, &end, 0);
			if (errno || *end || o->queue < 1 || o->queue > (1u << 20))
				goto bad;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (argc - optind < 2)
		goto bad;
	o->ifname[PVI_AB] = argv[optind++];
	o->ifname[PVI_BA] = argv[optind++];
	for (; optind < argc; optind++) {
		if (pvi_spec_apply(o->cfg, argv[optind]) < 0) {
			fprintf(stderr, "pv-impair: bad impairment '%s'\n",
				argv[optind]);
			return -EINVAL;
		}
	}
	return 0;
bad:
	fputs(usage_text, stderr);
	return -EINVAL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *const dir_name[PVI_NDIR] = { "ab", "ba" };

static void report(const struct pvi_opts *o,
		   const struct pvi_port port[PVI_NDIR],
		   struct pvi_path path[PVI_NDIR])
{
	char line[PVI_NDIR][512], tmp[4096];
	FILE *f = stdout;

	for (int d = 0; d < PVI_NDIR; d++) {
		pvi_io_kernel_drops(&port[d], &path[d]);
		if (pvi_report_line(line[d], sizeof(line[d]), dir_name[d],
				    &path[d].st) < 0)
			line[d][0] = 0;
	}
	if (o->stats) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", o->stats);
		f = fopen(tmp, "we");
		if (!f) {
			perror("pv-impair: stats file");
			return;
		}
	}
	fputs(line[PVI_AB], f);
	fputs(line[PVI_BA], f);
	fflush(f);
	if (o->stats) {
		fclose(f);
		if (rename(tmp, o->stats) < 0)
			perror("pv-impair: stats file");
	}
}

/* Pending signals: -1 to stop, 1 to report, 0 none. */
static int read_signals(int sfd)
{
	struct signalfd_siginfo si;
	int what = 0;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGUSR1 && what == 0)
			what = 1;
		else if (si.ssi_signo != SIGUSR1)
			what = -1;
	}
	return what;
}

static int signals_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* Waits for frames, a signal or the next held/delayed frame. */
static void wait_events(struct pvi_port port[PVI_NDIR],
			struct pvi_path path[PVI_NDIR], int sfd)
{
	struct pollfd pfd[3] = {
		{ .fd = port[0].fd, .events = POLLIN },
		{ .fd = port[1].fd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	uint64_t due = pvi_path_next_due(&path[0]), now;
	struct timespec ts, *tsp = NULL;

	if (pvi_path_next_due(&path[1]) < due)
		due = pvi_path_next_due(&path[1]);
	if (due != UINT64_MAX) {
		now = now_ns();
		due = due > now ? due - now : 0;
		ts.tv_sec = (time_t)(due / 1000000000u);
		ts.tv_nsec = (long)(due % 1000000000u);
		tsp = &ts;
	}
	(void)ppoll(pfd, 3, tsp, NULL);
}

static int forward(const struct pvi_opts *o, struct pvi_port port[PVI_NDIR],
		   struct pvi_path path[PVI_NDIR], int sfd)
{
	unsigned busy = 0;

	for (;;) {
		int got = 0, what;

		for (int d = 0; d < PVI_NDIR; d++) {
			uint64_t t = now_ns();
			int n = pvi_io_recv(&port[d], &path[d], t);

			if (n < 0) {
				fprintf(stderr, "pv-impair: receive on %s: %s\n",
					port[d].name, strerror(-n));
				return -1;
			}
			got += n;
			pvi_path_tick(&path[d], t);
			pvi_io_send(&port[d ^ 1], &path[d]);
		}
		/* Under load the loop never sleeps: look at signals now and
		 * then without a system call per batch. */
		if (got && ++busy % 64)
			continue;
		what = read_signals(sfd);
		if (what < 0)
			return 0;
		if (what > 0)
			report(o, port, path);
		if (!got)
			wait_events(port, path, sfd);
	}
}

int main(int argc, char **argv)
{
	struct pvi_port port[PVI_NDIR];
	struct pvi_path path[PVI_NDIR];
	struct pvi_opts o;
	int sfd, ret, d, mtu;

	if (parse_opts(argc, argv, &o) < 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sfd = signals_open();
	if (sfd < 0) {
		perror("pv-impair: signalfd");
		return 1;
	}
	for (d = 0; d < PVI_NDIR; d++) {
		ret = pvi_io_open(&port[d], o.ifname[d]);
		if (ret < 0) {
			fprintf(stderr, "pv-impair: %s: %s\n", o.ifname[d],
				strerror(-ret));
			return 1;
		}
	}
	mtu = port[0].mtu > port[1].mtu ? port[0].mtu : port[1].mtu;
	for (d = 0; d < PVI_NDIR; d++) {
		/* Ethernet header and two VLAN tags beyond the MTU. */
		ret = pvi_path_new(&path[d], &o.cfg[d],
				   o.seed ^ (0x5851f42d4c957f2dull * (d + 1)),
				   (size_t)mtu + 14 + 8, PVI_BATCH, o.queue);
		if (ret < 0) {
			fprintf(stderr, "pv-impair: %s\n", strerror(-ret));
			return 1;
		}
	}
	report(&o, port, path);
	fprintf(stderr, "pv-impair: forwarding %s <-> %s (mtu %d, seed %" PRIu64 ")\n",
		o.ifname[0], o.ifname[1], mtu, o.seed);
	ret = forward(&o, port, path, sfd);
	report(&o, port, path);
	for (d = 0; d < PVI_NDIR; d++) {
		pvi_path_free(&path[d]);
		pvi_io_close(&port[d]);
	}
	close(sfd);
	return ret < 0 ? 1 : 0;
}
