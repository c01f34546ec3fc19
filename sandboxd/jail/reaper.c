/* The reaper of each job forked from a fork server (docs/architecture.md,
 * "The reaper, exec'd ahead"). It is its own small program, sandboxd-reaper
 * (sandboxd/init/reaper_main.c), built against musl: an exec of a static
 * glibc program asks the CPU for its features and caches with dozens of
 * cpuid instructions, each a trap to the hypervisor on a virtual machine
 * (about 0.36 ms of CPU per exec and exit on the 2-core machine, 0.13 ms
 * with musl), and a fork server execs one per job. sandboxd-init links it
 * too, and runs it with SANDBOXD_INIT=reaper where the daemon found no
 * sandboxd-reaper.
 * It uses only caps.c, warm_msg.c and jail_msg.c besides libc. */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandboxd/jail/caps.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/warm_msg.h"

/* pid 1 of one job's PID namespace, exec'd by the job's first process
 * right after it forked the job ahead (warm_fork.c), before the job came:
 * from then on it shares nothing with the server. It waits for the job's
 * descriptors on the daemon's channel (fd 3) and hands them on to the job
 * (fd 4); then, like a cold job's init, it reaps everything, and when the
 * job (pid 2) ends, reports its wait status on the status pipe (kept as
 * fd 3) and exits, which makes the kernel kill whatever is left. Once the
 * job has its descriptors this process holds nothing else: no other
 * descriptor (the job runs none of its code before the channel to it is
 * closed), no capability, and it is not dumpable. */
_Noreturn void reaper_main(void)
{
	enum { JOB = 2 };
	const char *failed = NULL;
	/* The kernel names a process after the file it runs: a cold job's
	 * pid 1 is "sandboxd-init" in /proc/1/comm and /proc/1/status, which
	 * the job can read, and so is a warm job's. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0 || prctl(PR_SET_NAME, "sandboxd-init") < 0 ||
	    caps_init() < 0 || caps_drop_bounding() < 0 || caps_drop_all() < 0)
		failed = "reaper";
	if (warm_msg_await(REAPER_CH) == 0)
		_exit(REAPER_STOP); /* the daemon dropped this pid 1 */
	int fds[WJ_COUNT];
	int n = warm_msg_recv(REAPER_CH, WARM_JOB, fds, WJ_COUNT);
	if (n != WJ_COUNT_PLAIN && n != WJ_COUNT)
		_exit(REAPER_FAILED);
	/* The status pipe in the channel's place; the job's copy of each
	 * descriptor is its own. A failed hand-over leaves the job without
	 * them: it ends, never having run (warm_fork.c, job_wait). */
	if (dup2(fds[WJ_STATUS], REAPER_CH) < 0)
		_exit(REAPER_FAILED);
	if (failed) {
		jail_report_error(REAPER_CH, failed);
		_exit(REAPER_FAILED);
	}
	if (warm_msg_send(REAPER_BC, WARM_JOB, fds, n) < 0) {
		jail_report_error(REAPER_CH, "handing the job on");
		_exit(REAPER_FAILED);
	}
	/* Received descriptors took the lowest free numbers (0 to 2 among
	 * them): all go but the status pipe. */
	if (syscall(SYS_close_range, 0, REAPER_CH - 1, 0) < 0 ||
	    syscall(SYS_close_range, REAPER_BC, ~0U, 0) < 0) {
		jail_report_error(REAPER_CH, "reaper descriptors");
		_exit(REAPER_FAILED);
	}
	jail_msg_reap(REAPER_CH, JOB, "reaper lost the job");
}
