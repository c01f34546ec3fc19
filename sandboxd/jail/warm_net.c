/* A fork server's pooled network namespace (warm_net.h).
 *
 * Made by a short-lived child of the daemon that joins the server's user
 * namespace (as host root it holds every capability there) and execs
 * sandboxd-init, which unshares a network namespace, which that user
 * namespace then owns, and brings lo up: a job of the
 * server can join it with the capabilities it has before it drops them,
 * and nothing outside the server's user namespace can. The daemon opens
 * the namespace and its counters through the child's /proc entry while
 * the child waits, then lets it go.
 *
 * Clean means each counter file reads as it did when the namespace was
 * made, except figures the kernel keeps for the whole host (sockstat's
 * orphan, alloc and mem). "sockets: used" counts every socket of the
 * namespace (unix, netlink, inet, packet; in flight in SCM_RIGHTS too),
 * TCP's tw its TIME_WAIT entries, and lo's packet counters any traffic at
 * all: a job that left a socket, a connection's end or any state that
 * takes a packet to make (routes cached, TCP metrics, peers) is caught,
 * and so is one that only moved a protocol counter (snmp, netstat). Two
 * kinds of IPv6 state take neither a socket nor a packet, and have files
 * of their own: flow labels (IPV6_FLOWLABEL_MGR), which outlive their
 * socket by up to a linger time the job chooses and carry a label and a
 * destination of its choosing, in ip6_flowlabel; and the per-CPU copy of a
 * route that a connect() looks up (it holds a reference to the route, in
 * ipv6_route, and counts in rt6_stats). The job has no capability in the
 * namespace: it can change no address, route, rule or sysctl. */
#include "sandboxd/jail/warm_net.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errfmt.h"
#include "sandboxd/jail/jail_internal.h"

#define NET_STACK (64 * 1024)
#define NET_FILE_MAX (64 * 1024) /* far above any of them; more is dirty */
#define NET_MAKE_MS 5000

/* netstat (TcpExt, IpExt) is not read: every figure there takes a packet,
 * which lo's counters in dev show. snmp has Ip's OutNoRoutes, which a
 * datagram to nowhere moves without one. The IPv6 ones are absent on a
 * kernel without IPv6 (open_made). ip6_flowlabel and ipv6_route have a
 * line per label or route: one read returns the first page of them, which
 * holds every line of a namespace as made, so any added or changed line
 * shows in it (as a longer or different text). */
static const char *const net_files[WARM_NET_FILES] = {
    "dev", "sockstat", "sockstat6", "snmp", "snmp6", "ip6_flowlabel", "ipv6_route", "rt6_stats"};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void warm_net_init(struct warm_net *n)
{
	memset(n, 0, sizeof *n);
	n->ns = -1;
	for (int i = 0; i < WARM_NET_FILES; i++)
		n->files[i] = -1;
}

void warm_net_drop(struct warm_net *n)
{
	close_fd(&n->ns);
	for (int i = 0; i < WARM_NET_FILES; i++) {
		close_fd(&n->files[i]);
		free(n->pristine[i]);
	}
	warm_net_init(n);
}

/* sockstat's figures that count the whole host's sockets: the number after
 * each of these words is cut out (in place); the new length. */
static size_t mask_global(char *s, size_t len)
{
	static const char *const keys[] = {" orphan ", " alloc ", " mem "};
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		bool hit = false;
		for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !hit; k++) {
			size_t kl = strlen(keys[k]);
			if (i + kl <= len && memcmp(s + i, keys[k], kl) == 0) {
				memmove(s + o, s + i, kl);
				o += kl;
				i += kl;
				while (i < len && s[i] >= '0' && s[i] <= '9')
					i++;
				hit = true;
			}
		}
		if (!hit)
			s[o++] = s[i++];
	}
	return o;
}

/* File i as it reads now, masked; its length, or -1 (unreadable, or too
 * long to be as made). buf holds NET_FILE_MAX bytes. One read: the
 * counter files are made whole for a read that has room for them
 * (single_open); dev has a line per device, which no job can add; the
 * label and route lists are compared by their first page (above). A
 * second read would make it all again. */
static ssize_t read_file(int i, int fd, char *buf)
{
	ssize_t r;
	while ((r = pread(fd, buf, NET_FILE_MAX, 0)) < 0 && errno == EINTR)
		;
	if (r <= 0 || r == NET_FILE_MAX)
		return -1;
	size_t len = (size_t)r;
	if (strcmp(net_files[i], "sockstat") == 0)
		len = mask_global(buf, len);
	return (ssize_t)len;
}

struct maker {
	int userns, ready_w, go_r;
};

/* The daemon's clone child: into the server's user namespace, then exec
 * sandboxd-init as the namespace's maker (zygote_net_main), with the
 * ready pipe as fd 3 and the go pipe as fd 4. The daemon links no layer:
 * lo is brought up by the init, as for every job. */
static int maker_main(void *arg)
{
	const struct maker *m = arg;
	static const char *const argv[] = {"sandboxd-init", NULL};
	static const char *const envp[] = {"SANDBOXD_INIT=netns", NULL};
	char b = NETNS_JOIN_USERNS;
	/* All three above 5 first: any may be 3, 4 or 5 now. The init runs
	 * from its descriptor, kept as 5 (close-on-exec: an ELF runs from
	 * one). */
	int rw = fcntl(m->ready_w, F_DUPFD, 10), gr = fcntl(m->go_r, F_DUPFD, 10);
	int in = fcntl(jail_init_fd(), F_DUPFD, 10);
	/* As the server's root (host root is unmapped there, and an unmapped
	 * uid keeps no capability across the exec). */
	if (rw < 0 || gr < 0 || in < 0 || setns(m->userns, CLONE_NEWUSER) < 0 ||
	    setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || dup2(rw, 3) < 0 || dup2(gr, 4) < 0 ||
	    dup3(in, 5, O_CLOEXEC) < 0 || syscall(SYS_close_range, 6, ~0U, 0) < 0)
		goto fail;
	m = NULL; /* its descriptors are gone: failures go to fd 3 */
	syscall(SYS_execveat, 5, "", argv, envp, AT_EMPTY_PATH);
fail:;
	int e = errno, fd = m ? m->ready_w : 3;
	if (write(fd, &b, 1) == 1)
		(void)!write(fd, &e, sizeof e);
	_exit(127);
}

/* Opens the child's namespace and counter files (absent ones, such as
 * IPv6's without IPv6, stay -1 for good) and reads them as made. */
static int open_made(struct warm_net *n, pid_t pid, char *err, size_t errlen)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
	n->ns = open(path, O_RDONLY | O_CLOEXEC);
	if (n->ns < 0)
		return errfmt(err, errlen, "opening %s: %s", path, errfmt_desc(errno));
	char *buf = malloc(NET_FILE_MAX);
	if (!buf)
		return errfmt(err, errlen, "%s", errfmt_desc(ENOMEM));
	int rc = 0;
	for (int i = 0; i < WARM_NET_FILES && rc == 0; i++) {
		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)pid, net_files[i]);
		n->files[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (n->files[i] < 0 && errno == ENOENT)
			continue;
		ssize_t len = n->files[i] < 0 ? -1 : read_file(i, n->files[i], buf);
		if (len < 0 || !(n->pristine[i] = malloc((size_t)len + 1))) {
			rc = errfmt(err, errlen, "reading %s: %s", path, errfmt_desc(errno));
			break;
		}
		memcpy(n->pristine[i], buf, (size_t)len);
		n->len[i] = (size_t)len;
	}
	free(buf);
	return rc;
}

int warm_net_make(struct warm_net *n, pid_t userns_of, char *err, size_t errlen)
{
	warm_net_init(n);
	int ready[2] = {-1, -1}, go[2] = {-1, -1}, rc = -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)userns_of);
	struct maker m = {.userns = open(path, O_RDONLY | O_CLOEXEC)};
	char *stack = NULL;
	pid_t pid = -1;
	if (m.userns < 0 || pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0 ||
	    !(stack = malloc(NET_STACK))) {
		errfmt(err, errlen, "pooled network namespace: %s", errfmt_desc(errno));
		goto out;
	}
	m.ready_w = ready[1];
	m.go_r = go[0];
	/* Not CLONE_VM: the daemon has other threads (the child touches no
	 * lock of theirs either way: syscalls only, then the exec). */
	pid = clone(maker_main, stack + NET_STACK, SIGCHLD, &m);
	if (pid < 0) {
		errfmt(err, errlen, "pooled network namespace: clone: %s", errfmt_desc(errno));
		goto out;
	}
	close_fd(&ready[1]);
	struct pollfd p = {.fd = ready[0], .events = POLLIN};
	char b = NETNS_JOIN_USERNS;
	int e = 0, pr;
	while ((pr = poll(&p, 1, NET_MAKE_MS)) < 0 && errno == EINTR)
		;
	if (pr <= 0 || read(ready[0], &b, 1) != 1) {
		errfmt(err, errlen, "pooled network namespace: its maker did not answer");
	} else if (b != NETNS_READY) {
		if (read(ready[0], &e, sizeof e) != (ssize_t)sizeof e)
			e = EPROTO;
		errfmt(err, errlen, "pooled network namespace: %s: %s",
		       b == NETNS_JOIN_USERNS ? "joining the server's user namespace"
		       : b == NETNS_UNSHARE   ? "unshare"
					      : "bringing lo up",
		       errfmt_desc(e));
	} else {
		rc = open_made(n, pid, err, errlen);
	}
out:
	close_fd(&go[1]); /* the child ends */
	if (pid > 0) {
		if (rc < 0)
			kill(pid, SIGKILL);
		while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
			;
	}
	free(stack);
	close_fd(&m.userns);
	close_fd(&ready[0]);
	close_fd(&ready[1]);
	close_fd(&go[0]);
	if (rc < 0)
		warm_net_drop(n);
	return rc;
}

bool warm_net_clean(const struct warm_net *n)
{
	if (n->ns < 0)
		return false;
	char *buf = malloc(NET_FILE_MAX);
	bool clean = buf != NULL;
	for (int i = 0; i < WARM_NET_FILES && clean; i++) {
		if (n->files[i] < 0)
			continue;
		ssize_t len = read_file(i, n->files[i], buf);
		clean = len == (ssize_t)n->len[i] && memcmp(buf, n->pristine[i], n->len[i]) == 0;
	}
	free(buf);
	return clean;
}

void warm_net_settle(struct warm_net *n)
{
	if (n->lent && !warm_net_clean(n))
		warm_net_drop(n);
	n->lent = false;
}
