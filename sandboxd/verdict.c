/* One verdict for a finished run, and which limit fired: the first cause
 * wins, and a limit is only ever named from evidence (the daemon's own kill,
 * the cgroup's OOM counter, a seccomp notification, RLIMIT signals). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "worker.h"

enum proto_verdict worker_verdict(const struct jail_result *r, const struct cg_stats *st,
				  bool have_stats, enum proto_limit_hit *hit, char *msg,
				  size_t msglen)
{
	int sig = r->have_status && WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	bool exited0 = r->have_status && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
	*hit = r->hit;
	msg[0] = '\0';
	/* A limit the daemon enforced itself is the first cause: it killed the job. */
	if (r->hit == HIT_CPU || r->hit == HIT_WALL) {
		snprintf(msg, msglen, "%s time limit exceeded", r->hit == HIT_CPU ? "CPU" : "wall");
		return V_TIMEOUT;
	}
	if (r->hit == HIT_OUTPUT) {
		snprintf(msg, msglen, "output limit exceeded");
		return V_OUTPUT_LIMIT;
	}
	if (r->violation_nr >= 0) {
		char name[64];
		scmp_syscall_name(r->violation_nr, name, sizeof name);
		snprintf(msg, msglen, "forbidden syscall %s", name);
		return V_VIOLATION;
	}
	/* Any OOM kill in the job is the limit firing, even when the main
	 * process survived it (a killed child, a worker pool): the run did not
	 * get the memory it needed. */
	if (have_stats && st->oom_kills > 0) {
		*hit = HIT_MEMORY;
		snprintf(msg, msglen, "memory limit exceeded (OOM kill)");
		return V_MEMORY_LIMIT;
	}
	if (r->error[0] && !r->have_status) {
		snprintf(msg, msglen, "%s", r->error);
		return V_ERROR;
	}
	if (!r->have_status) {
		snprintf(msg, msglen, "the job's init ended without reporting");
		return V_ERROR;
	}
	if (sig == SIGSYS) {
		snprintf(msg, msglen, "forbidden syscall (killed by SIGSYS)");
		return V_VIOLATION;
	}
	/* RLIMIT_CPU (the backstop) sends SIGXCPU, then SIGKILL at the hard limit. */
	uint64_t ru_cpu_ms = (uint64_t)(r->ru.ru_utime.tv_sec + r->ru.ru_stime.tv_sec) * 1000u +
			     (uint64_t)(r->ru.ru_utime.tv_usec + r->ru.ru_stime.tv_usec) / 1000u;
	if (sig == SIGXCPU || (sig == SIGKILL && ru_cpu_ms >= (uint64_t)r->cpu_limit_ms)) {
		*hit = HIT_CPU;
		snprintf(msg, msglen, "CPU time limit exceeded (RLIMIT_CPU)");
		return V_TIMEOUT;
	}
	if (sig == SIGXFSZ) {
		*hit = HIT_FILE_SIZE;
		snprintf(msg, msglen, "file size limit exceeded");
		return V_OUTPUT_LIMIT;
	}
	if (have_stats && st->pids_max_hit > 0 && !exited0)
		*hit = HIT_PIDS;
	if (exited0)
		return V_PASS;
	if (sig)
		snprintf(msg, msglen, "killed by signal %d (%s)%s", sig, strsignal(sig),
			 *hit == HIT_PIDS ? "; the pids limit refused forks" : "");
	else
		snprintf(msg, msglen, "exited with status %d%s", WEXITSTATUS(r->status),
			 *hit == HIT_PIDS ? "; the pids limit refused forks" : "");
	return V_RUNTIME_ERROR;
}
