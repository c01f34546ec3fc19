/* sandboxd-init: the job's init, a small static program the daemon's clone
 * child execs before any layer runs (jail.c, jail_exec_init), so the jail
 * holds no copy of the daemon's memory: no other job's code, tests, keys or
 * stdin. It starts as pid 1 of the job's fresh namespaces, root, with the
 * descriptors of jail_internal.h (JFD_*) and nothing else; it reads the
 * job's description from a sealed memfd and applies the layers
 * (jail_child.c). It takes no arguments and no environment. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sandboxd/jail/caps.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"

static _Noreturn void fail(const char *step)
{
	jail_report_error(JFD_STATUS, step);
	_exit(127);
}

/* The daemon's death must kill the job. PR_SET_PDEATHSIG set by the clone
 * child survives this exec (no set-uid, no file capabilities); it is set
 * again anyway, and the daemon's pidfd closes the window before that: a
 * daemon already gone shows as readable. getppid() cannot tell, it is 0 for
 * a PID namespace's init. */
static void keep_pdeathsig(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		fail("pdeathsig");
	struct pollfd p = {.fd = JFD_PARENT, .events = POLLIN};
	if (fcntl(JFD_PARENT, F_GETFD) >= 0 && poll(&p, 1, 0) != 0)
		_exit(1); /* gone (or the pidfd is unusable): never run unwatched */
}

/* The job's description: mapped read-only from the sealed memfd the daemon
 * wrote; the spec points into it until the payloads are forked. */
static void load_spec(struct jail_spec *s, void **map, size_t *len)
{
	const char *why = jail_wire_map(JFD_SPEC, s, map, len);
	if (why)
		fail(why);
}

int main(void)
{
	static struct jail_spec spec;
	const char *mode = getenv("SANDBOXD_INIT");
	if (mode && strcmp(mode, "reaper") == 0)
		reaper_main(); /* no sandboxd-reaper: a fork server started it */
	if (mode && strcmp(mode, "netns") == 0)
		zygote_net_main(); /* started by the daemon for a fork server */
	keep_pdeathsig();
	/* Root, and only the daemon may read this process. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		fail("init dumpable");
	/* Only what a payload places on purpose reaches its exec. */
	for (int fd = JFD_STATUS; fd < JFD_COUNT; fd++)
		if (fcntl(fd, F_GETFD) >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			fail("descriptor flags");
	/* Wait until the daemon has put us into the job's cgroup: what we
	 * allocate from here on is the job's (EOF: the daemon gave up). */
	char go;
	if (read(JFD_SYNC, &go, 1) != 1)
		_exit(1);
	void *blob;
	size_t blob_len;
	load_spec(&spec, &blob, &blob_len);
	/* A fork server's init waits a second time, for its id maps, and arms
	 * its death signal again after its uid changes (zygote.c). */
	if (!spec.zygote) {
		close(JFD_SYNC);
		close(JFD_PARENT);
	}
	/* A fork server gets its description too (zygote.c), as the template
	 * of its jobs' trees; a job's init has no more use for it. */
	if (!spec.zygote)
		close(JFD_SPEC);
	if (caps_init() < 0)
		fail("capability count");
	bool runner = spec.runner;
	struct jail_child c = {.spec = &spec,
			       .sync_rd = spec.zygote ? JFD_SYNC : -1,
			       .status_wr = JFD_STATUS,
			       .stdin_rd = JFD_STDIN,
			       .stdout_wr = JFD_STDOUT,
			       .stderr_wr = JFD_STDERR,
			       .notify_wr = JFD_NOTIFY,
			       .result_wr = runner ? JFD_RESULT : -1,
			       .key_rd = runner ? JFD_KEY : -1,
			       .spec_fd = -1,
			       .peer_sock = -1,
			       .blob = blob,
			       .blob_len = blob_len};
	if (runner && (fcntl(JFD_RESULT, F_GETFD) < 0 || fcntl(JFD_KEY, F_GETFD) < 0))
		fail("runner channels");
	if (spec.zygote)
		zygote_main(&c);
	jail_child_main(&c);
}
