/* SPDX-License-Identifier: MIT */
/* podverbsd: arguments, signals, pidfile, daemonizing, then the loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_caps.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_metrics.h"
#include "providers/soft/engine/eng_reaper.h"
#include "providers/soft/engine/eng_rt_prio.h"
#include "providers/soft/engine/eng_seccomp.h"
#include "providers/soft/engine/eng_state.h"

#define ENG_NO_SECCOMP_ENV	"PODVERBS_NO_SECCOMP"

enum { ENG_NO_SECCOMP_BY_OPT = 1, ENG_NO_SECCOMP_BY_ENV = 2 };

struct opts {
	const char *socket;
	const char *admin_socket;	/* NULL: next to the pod socket's folder */
	char admin_buf[108];
	const char *pidfile;
	int foreground;
	int no_seccomp;
	const char *state_file;		/* NULL: the default for the socket */
	const char *metrics_listen;	/* NULL: no metrics endpoint */
	const char *metrics_token_file;	/* NULL: no bearer token asked */
	bool metrics_insecure;		/* non-loopback without a token */
	bool state_file_default;	/* not asked for: failing to use it
					 * is a warning, not an error */
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: podverbsd [options]\n"
"The podverbs engine: the software RoCEv2 device that verbs applications\n"
"in pods talk to over a unix socket.\n"
"\n"
"  -s, --socket PATH      listen here for pods (default $%s or %s)\n"
"  -a, --admin-socket PATH\n"
"                         serve admin requests (root only) here; its\n"
"                         folder is made root's, mode 0700, and must not\n"
"                         be inside the pod socket's folder (default:\n"
"                         <pod socket's folder>-admin/admin.sock, so\n"
"                         %s for the default socket)\n"
"  -f, --foreground       stay in the foreground (default: detach once\n"
"                         the socket is ready)\n"
"  -l, --log-level L      error, warn, info (default) or debug\n"
"  -p, --pidfile FILE     write the engine's pid to FILE\n"
"      --max-clients N    same as --limit max_clients=N\n"
"      --max-devices N    same as --limit max_devices=N\n"
"  -L, --limit NAME=VAL   set one limit (below; repeatable)\n"
"      --no-seccomp       do not confine the engine with its seccomp\n"
"                         filter (debugging; also PODVERBS_NO_SECCOMP=1).\n"
"                         By default, once set up, execve, ptrace, mount,\n"
"                         unshare, setns other than into a network\n"
"                         namespace, modules, bpf, keyrings and the like\n"
"                         fail with EPERM in every engine thread\n"
"      --state-file PATH  keep the device set in PATH and restore it at\n"
"                         start (\"\" for none).  Default for the engine\n"
"                         on %s:\n"
"                         %s; none on other sockets\n"
"      --metrics-listen ADDR:PORT\n"
"                         serve Prometheus metrics (text format 0.0.4)\n"
"                         at http://ADDR:PORT/metrics (\"[v6]:PORT\" for\n"
"                         IPv6, \":PORT\" for any IPv4 address; default:\n"
"                         off); limits metrics_* below bound it\n"
"      --metrics-token-file PATH\n"
"                         answer only requests with \"Authorization:\n"
"                         Bearer <token>\" (the file's content; re-read\n"
"                         when it changes); others get 401\n"
"      --metrics-insecure allow a non-loopback --metrics-listen without\n"
"                         a token (anyone reaching it reads every pod's\n"
"                         device names, pod names and counters)\n"
"  -h, --help             this text\n"
"\n"
"Limits (requests beyond them fail with ENOMEM or EINVAL):\n",
		PV_IPC_SOCKET_ENV, PV_IPC_DEFAULT_SOCKET,
		PV_IPC_DEFAULT_ADMIN_SOCKET, PV_IPC_DEFAULT_SOCKET,
		ENG_STATE_DEFAULT_PATH);
	eng_limits_help(out);
}

static int set_limit(const char *name, const char *val)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s=%s", name, val);
	return eng_limits_set(buf);
}

/* The admin socket: named, or derived from the pod socket; never in the
 * pod socket's folder (the device plugin mounts that into pods). */
static int check_admin_socket(struct opts *o)
{
	const char *slash = strrchr(o->socket, '/');
	size_t dlen = slash ? (size_t)(slash - o->socket) : 0;

	if (!o->admin_socket) {
		if (pv_ipc_admin_path_for(o->socket, o->admin_buf,
					  sizeof(o->admin_buf)) < 0) {
			fprintf(stderr, "podverbsd: cannot place the admin "
				"socket next to %s: give --admin-socket\n",
				o->socket);
			return -1;
		}
		o->admin_socket = o->admin_buf;
	}
	if (!strcmp(o->admin_socket, o->socket) ||
	    (slash && !strncmp(o->admin_socket, o->socket, dlen + 1)) ||
	    (!slash && !strchr(o->admin_socket, '/'))) {
		fprintf(stderr, "podverbsd: the admin socket %s must not be "
			"in the pod socket's folder\n", o->admin_socket);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "max-clients", required_argument, NULL, 'C' },
		{ "max-devices", required_argument, NULL, 'D' },
		{ "limit", required_argument, NULL, 'L' },
		{ "no-seccomp", no_argument, NULL, 'S' },
		{ "state-file", required_argument, NULL, 'T' },
		{ "metrics-listen", required_argument, NULL, 'M' },
		{ "metrics-token-file", required_argument, NULL, 'K' },
		{ "metrics-insecure", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *env;
	int c, lvl;

	o->socket = pv_ipc_socket_path();
	env = getenv(ENG_NO_SECCOMP_ENV);
	if (env && !strcmp(env, "1"))
		o->no_seccomp = ENG_NO_SECCOMP_BY_ENV;
	while ((c = getopt_long(argc, argv, "s:a:fl:p:L:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 'a': o->admin_socket = optarg; break;
		case 'f': o->foreground = 1; break;
		case 'p': o->pidfile = optarg; break;
		case 'S': o->no_seccomp = ENG_NO_SECCOMP_BY_OPT; break;
		case 'T': o->state_file = optarg; break;
		case 'M': o->metrics_listen = optarg; break;
		case 'K': o->metrics_token_file = optarg; break;
		case 'I': o->metrics_insecure = true; break;
		case 'l':
			lvl = eng_log_parse_level(optarg);
			if (lvl < 0) {
				fprintf(stderr, "podverbsd: bad log level '%s'\n",
					optarg);
				return -1;
			}
			eng_log_level = lvl;
			break;
		case 'C': case 'D': case 'L':
			if ((c == 'L' ? eng_limits_set(optarg) :
			     set_limit(c == 'C' ? "max_clients" : "max_devices",
				       optarg)) < 0) {
				fprintf(stderr, "podverbsd: bad limit '%s' (see "
					"--help for names and ranges)\n", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	/* Only the node's engine has a default: engines on other sockets
	 * (tests, several "nodes" on one machine) must not share it. */
	if (!o->state_file && !strcmp(o->socket, PV_IPC_DEFAULT_SOCKET)) {
		o->state_file = ENG_STATE_DEFAULT_PATH;
		o->state_file_default = true;
	}
	if (o->state_file && o->state_file[0] && o->state_file[0] != '/') {
		fprintf(stderr, "podverbsd: --state-file needs an absolute "
			"path\n");
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "podverbsd: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return check_admin_socket(o);
}

static void sig_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct signalfd_siginfo si;

	if (read(p->fd, &si, sizeof(si)) != sizeof(si))
		return;
	eng_info("signal %u: shutting down", si.ssi_signo);
	e->stop = true;
}

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

/* Blocked from the start (a signal before the loop runs waits for it),
 * read through a signalfd made after detaching: epoll reports a signalfd
 * only for the process that registered it. */
static int block_signals(void)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	stop_signals(&set);
	return sigprocmask(SIG_BLOCK, &set, NULL) < 0 ? -errno : 0;
}

static int setup_signals(struct eng *e)
{
	sigset_t set;

	stop_signals(&set);
	e->sig.fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (e->sig.fd < 0)
		return -errno;
	e->sig.ready = sig_ready;
	return eng_poll_add(e, &e->sig);
}

/* Every client holds up to 2 + max_channel fds in the engine, every
 * device a few (its namespace, its netlink watch, its UDP sockets): use
 * all the descriptors the hard limit allows, and say so when that is
 * short of the device and client limits (an add or a connection past it
 * fails with EMFILE; the engine keeps serving the others). */
#define FDS_PER_DEV	4u
#define FDS_PER_CLIENT	3u
#define FDS_BASE	256u

static void raise_nofile(void)
{
	uint64_t want = FDS_BASE + FDS_PER_DEV * eng_lim.max_devices +
			FDS_PER_CLIENT * eng_lim.max_clients;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
		eng_warn("RLIMIT_NOFILE is %llu, short of the ~%llu fds "
			 "max_devices %llu and max_clients %llu may take "
			 "(raise the hard limit, e.g. LimitNOFILE=)",
			 (unsigned long long)rl.rlim_cur,
			 (unsigned long long)want,
			 (unsigned long long)eng_lim.max_devices,
			 (unsigned long long)eng_lim.max_clients);
}

/*
 * Set up, not yet serving: confine the engine (eng_seccomp.h).  A filter
 * that cannot be installed stops the engine rather than leaving it
 * silently unconfined; --no-seccomp is the explicit way to run without.
 */
static int confine(const struct opts *o)
{
	int n;

	if (o->no_seccomp) {
		eng_warn("seccomp: off (%s)",
			 o->no_seccomp == ENG_NO_SECCOMP_BY_OPT ? "--no-seccomp"
				: ENG_NO_SECCOMP_ENV "=1");
		return 0;
	}
	n = eng_seccomp_apply();
	if (n < 0) {
		eng_err("seccomp: cannot install the filter: %s (run with "
			"--no-seccomp to go without)", strerror(-n));
		return n;
	}
	eng_info("seccomp: on, %d system calls refused with EPERM in every "
		 "thread (plus setns other than CLONE_NEWNET, namespace "
		 "flags on clone, clone3)", n);
	return 0;
}

static int write_pidfile(const char *path)
{
	char buf[32];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, n) != n) {
		close(fd);
		return -EIO;
	}
	return close(fd) < 0 ? -errno : 0;
}

/*
 * Detaches once the socket is listening, so "podverbsd && client" works.
 * The parent waits on a pipe until the child says it is fully set up
 * (signals, pidfile): a caller that reads the pidfile right after we
 * return finds it.  Returns the write end for detach_ready(), or -errno.
 */
static int detach(void)
{
	int p[2];
	pid_t pid;
	int null;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid > 0) {
		char ok = 0;

		close(p[1]);
		/* EOF without a byte: the child failed before it was ready */
		while (read(p[0], &ok, 1) < 0 && errno == EINTR)
			;
		_exit(ok == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return p[1];
}

/* Tells the waiting parent the engine is ready; closes the pipe. */
static void detach_ready(int fd)
{
	const char ok = 1;

	if (fd < 0)
		return;
	if (write(fd, &ok, 1) != 1)
		eng_warn("detach: cannot notify the parent: %s", strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	static struct eng e;
	struct opts o = { 0 };
	int ret, ready_fd = -1;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	raise_nofile();
	ret = eng_init(&e);
	if (ret < 0) {
		eng_err("init: %s", strerror(-ret));
		return 1;
	}
	ret = block_signals();
	if (ret < 0) {
		eng_err("signals: %s", strerror(-ret));
		goto err_fini;
	}
	ret = eng_listen(&e, o.socket);
	if (ret < 0) {
		eng_err("cannot listen on %s: %s", o.socket,
			ret == -EADDRINUSE ? "another engine is running there" :
			strerror(-ret));
		goto err_fini;
	}
	/* Before detaching, so a state file in use fails the start. */
	ret = eng_state_open(&e, o.state_file);
	if (ret < 0 && o.state_file_default) {
		eng_warn("state file %s: %s; devices will not survive a "
			 "restart (--state-file to choose another)",
			 o.state_file, strerror(-ret));
	} else if (ret < 0) {
		eng_err("state file %s: %s", o.state_file, ret == -EBUSY ?
			"in use by another engine" : strerror(-ret));
		goto err_fini;
	}
	ret = eng_listen_admin(&e, o.admin_socket);
	if (ret < 0) {
		eng_err("cannot listen on the admin socket %s: %s",
			o.admin_socket, ret == -EADDRINUSE ?
			"another engine is running there" : ret == -EPERM ?
			"its folder is not a folder of ours" : strerror(-ret));
		goto err_fini;
	}
	if (o.metrics_listen &&
	    (ret = eng_metrics_listen(&e, o.metrics_listen,
				      o.metrics_token_file,
				      o.metrics_insecure)) < 0) {
		eng_err("cannot serve metrics on %s: %s", o.metrics_listen,
			ret == -EINVAL ? "not ADDR:PORT" : ret == -EACCES ?
			"not a loopback address and no --metrics-token-file "
			"(every pod reaching it would read all pods' device "
			"names, pod names and counters; --metrics-insecure "
			"to allow)" : ret == -EBADMSG ?
			"--metrics-token-file holds no valid token (1-512 "
			"bytes of A-Z a-z 0-9 -._~+/=)" : strerror(-ret));
		goto err_fini;
	}
	if (!o.foreground) {
		ready_fd = detach();
		if (ready_fd < 0) {
			ret = ready_fd;
			eng_err("fork: %s", strerror(-ret));
			goto err_fini;
		}
	}
	ret = setup_signals(&e);
	if (ret < 0) {
		eng_err("signals: %s", strerror(-ret));
		goto err_fini;
	}
	if (o.pidfile && (ret = write_pidfile(o.pidfile)) < 0)
		eng_warn("pidfile %s: %s", o.pidfile, strerror(-ret));
	/* After detaching, while CAP_SYS_NICE is still held. */
	ret = eng_rt_prio_apply();
	if (ret < 0)
		eng_warn("rt_priority %u: %s; the normal scheduler instead",
			 (unsigned)eng_lim.rt_priority, strerror(-ret));
	else if (eng_lim.rt_priority)
		eng_info("rt_priority: the loop runs SCHED_FIFO at %u",
			 (unsigned)eng_lim.rt_priority);
	/* Set up: keep only what serving needs, before any thread starts
	 * (each inherits its creator's sets). */
	ret = eng_caps_drop();
	if (ret < 0) {
		eng_err("capabilities: cannot drop: %s", strerror(-ret));
		goto err_unlink_pidfile;
	}
	eng_info("capabilities: only CAP_SYS_ADMIN kept (setns into pod "
		 "namespaces)%s", ret ? "; bounding set not narrowed (no "
		 "CAP_SETPCAP)" : ", bounding set included");
	/* After detaching (fork keeps only this thread), before seccomp. */
	ret = eng_reaper_start();
	if (ret < 0) {
		eng_err("fd reaper: %s", strerror(-ret));
		goto err_unlink_pidfile;
	}
	pv_ipc_set_fd_dropper(eng_fd_dispose);
	ret = confine(&o);
	if (ret < 0)
		goto err_unlink_pidfile;
	/* Confined, before the first client is served. */
	eng_state_restore(&e);
	detach_ready(ready_fd);
	eng_info("listening on %s, admin on %s (pid %d)", o.socket,
		 o.admin_socket, (int)getpid());
	ret = eng_run(&e);
	/* Not a deletion of the devices: the state stays for the next. */
	eng_state_close(&e);
	eng_fini(&e);
	eng_reaper_stop();
	if (o.pidfile)
		unlink(o.pidfile);
	eng_info("stopped");
	return ret < 0 ? 1 : 0;

err_unlink_pidfile:
	if (o.pidfile)
		unlink(o.pidfile);
err_fini:
	if (ready_fd >= 0)
		close(ready_fd);
	eng_state_close(&e);
	eng_fini(&e);
	eng_reaper_stop();
	return 1;
}
