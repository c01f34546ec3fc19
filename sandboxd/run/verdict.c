/* One verdict for a finished run, and which limit fired: the first cause
 * wins, and a limit or a violation is only ever named from evidence the job
 * cannot fake (the daemon's own kill, the cgroup's counters, the kernel's
 * count of the CPU used, a seccomp notification). A signal is no evidence:
 * the job can send itself any (kill, a timer, F_SETSIG) or lower its own
 * RLIMIT_CPU or RLIMIT_FSIZE to have the kernel send one (SECURITY.md). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sandboxd/run/run_priv.h"

/* The job's CPU time by the kernel's count: the cgroup's (all processes)
 * or the payload's rusage as its init reaped it, whichever is larger. */
static uint64_t verdict_cpu_ms(const struct run_facts *f)
{
	uint64_t ru = run_rusage_cpu_ms(&f->r.ru);
	uint64_t cg = f->have_stats ? f->st.cpu_ns / 1000000u : 0;
	return cg > ru ? cg : ru;
}

/* The run-level verdict: evidence from the jail and the cgroup only. */
static enum proto_verdict verdict_of(const struct run_facts *f, enum proto_limit_hit *hit,
				     char *msg, size_t msglen)
{
	const struct jail_result *r = &f->r;
	const struct cg_stats *st = &f->st;
	bool have_stats = f->have_stats;
	int sig = r->have_status && WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	bool exited0 = r->have_status && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
	*hit = r->hit == JAIL_HIT_CPU	   ? HIT_CPU
	       : r->hit == JAIL_HIT_WALL   ? HIT_WALL
	       : r->hit == JAIL_HIT_OUTPUT ? HIT_OUTPUT
	       : r->hit == JAIL_HIT_MEMORY ? HIT_MEMORY
					   : HIT_NONE;
	msg[0] = '\0';
	if (f->error[0]) {
		snprintf(msg, msglen, "%s", f->error);
		return V_ERROR;
	}
	/* A limit the daemon enforced itself is the first cause: it killed the job. */
	if (*hit == HIT_CPU || *hit == HIT_WALL) {
		snprintf(msg, msglen, "%s time limit exceeded", *hit == HIT_CPU ? "CPU" : "wall");
		return V_TIMEOUT;
	}
	if (*hit == HIT_OUTPUT) {
		snprintf(msg, msglen, "output limit exceeded");
		return V_OUTPUT_LIMIT;
	}
	if (*hit == HIT_MEMORY) {
		snprintf(msg, msglen, "memory limit exceeded (pages and socket buffers)");
		return V_MEMORY_LIMIT;
	}
	if (r->violation_nr >= 0) {
		char name[64];
		scmp_syscall_name_arch(r->violation_arch, r->violation_nr, name, sizeof name);
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
	/* RLIMIT_CPU (the backstop, a second past cpu_ms) sends SIGXCPU, then
	 * SIGKILL: a CPU limit only when the kernel's count reached it. */
	uint64_t cpu_ms = verdict_cpu_ms(f);
	if ((sig == SIGXCPU || sig == SIGKILL) && cpu_ms >= (uint64_t)r->cpu_limit_ms) {
		*hit = HIT_CPU;
		snprintf(msg, msglen, "CPU time limit exceeded (RLIMIT_CPU)");
		return V_TIMEOUT;
	}
	if (have_stats && st->pids_max_hit > 0 && !exited0)
		*hit = HIT_PIDS;
	if (exited0)
		return V_PASS;
	if (sig == SIGXCPU)
		snprintf(
		    msg, msglen,
		    "killed by signal %d (SIGXCPU) at %" PRIu64 " ms of CPU, below the %ld ms "
		    "limit: a signal the job sent or an RLIMIT_CPU it lowered, not a CPU timeout",
		    sig, cpu_ms, r->cpu_limit_ms);
	else if (sig == SIGSYS || sig == SIGXFSZ)
		snprintf(msg, msglen, "killed by signal %d (%s)", sig,
			 sig == SIGSYS ? "SIGSYS, but the seccomp notifier saw no forbidden "
					 "syscall: not a violation"
				       : "SIGXFSZ: RLIMIT_FSIZE, which the job can lower itself, "
					 "or its own signal; no limit is named");
	else if (sig)
		snprintf(msg, msglen, "killed by signal %d (%s)%s", sig,
			 sigdescr_np(sig) ? sigdescr_np(sig) : "unnamed signal",
			 *hit == HIT_PIDS ? "; the pids limit refused forks" : "");
	else
		snprintf(msg, msglen, "exited with status %d%s", WEXITSTATUS(r->status),
			 *hit == HIT_PIDS ? "; the pids limit refused forks" : "");
	return V_RUNTIME_ERROR;
}

void verdict_run(const struct run_facts *f, struct run_verdict *out)
{
	out->v = verdict_of(f, &out->hit, out->msg, sizeof out->msg);
}

static bool verdict_is_limit(enum proto_verdict v)
{
	return v == V_TIMEOUT || v == V_MEMORY_LIMIT || v == V_OUTPUT_LIMIT || v == V_VIOLATION;
}

/* "3 of 5 tests did not pass: ..." for a plain failure. */
static void verdict_fail_message(const struct fb_run *fb, char *msg, size_t len)
{
	size_t n[OUT_COUNT] = {0};
	for (size_t i = 0; i < fb->ntests; i++)
		if (fb->tests[i].outcome >= 0)
			n[fb->tests[i].outcome]++;
	snprintf(msg, len, "%zu of %zu tests did not pass: %zu failed, %zu errors, %zu timeouts",
		 n[OUT_FAILED] + n[OUT_ERROR] + n[OUT_TIMEOUT], fb->ntests, n[OUT_FAILED],
		 n[OUT_ERROR], n[OUT_TIMEOUT]);
}

/* A limit is named only with a limit verdict. */
static void verdict_set(struct run_verdict *out, enum proto_verdict v, enum proto_limit_hit hit)
{
	out->v = v;
	out->hit = verdict_is_limit(v) ? hit : HIT_NONE;
}

enum proto_verdict verdict_records(struct fb_run *fb, enum proto_verdict run_v, bool watchdog,
				   char *msg, size_t len)
{
	switch (fb_settle(fb, run_v, watchdog)) {
	case FB_JOB_LIMIT:
		return run_v; /* finished tests keep their outcomes; msg is the limit's */
	case FB_NOTHING:
		if (run_v != V_ERROR || !msg[0])
			snprintf(msg, len, "the test runner reported nothing");
		return V_ERROR;
	case FB_COMPILE_ERROR:
		return V_COMPILE_ERROR;
	case FB_HARNESS_ERROR:
		snprintf(msg, len, "%s", fb->harness_error);
		return V_ERROR;
	case FB_MODULE_ERROR:
		snprintf(msg, len, "%s", fb->module_message ? fb->module_message : "");
		return V_RUNTIME_ERROR;
	case FB_NO_TESTS:
		snprintf(msg, len, "no tests found");
		return V_ERROR;
	case FB_WATCHDOG:
		snprintf(msg, len, "a test ran past test_timeout_ms; the job was stopped");
		return V_FAIL;
	case FB_SOME_BAD:
		return V_FAIL;
	case FB_NONE_PASSED:
		snprintf(msg, len, "no test passed");
		return V_FAIL;
	case FB_UNFINISHED:
		snprintf(msg, len, "the process ended before the runner finished");
		return V_RUNTIME_ERROR;
	case FB_ALL_PASSED:
		break;
	}
	return V_PASS;
}

void verdict_tests(struct fb_run *fb, const struct run_verdict *run, bool watchdog,
		   struct run_verdict *out)
{
	char msg[sizeof out->msg];
	snprintf(msg, sizeof msg, "%s", run->msg);
	enum proto_verdict v = verdict_records(fb, run->v, watchdog, msg, sizeof msg);
	/* For a plain failure the run's own message (e.g. its exit status) is
	 * beside the point: say what failed. */
	if (v == V_FAIL && !watchdog)
		verdict_fail_message(fb, msg, sizeof msg);
	if (v == V_PASS || v == V_COMPILE_ERROR)
		msg[0] = '\0';
	memcpy(out->msg, msg, sizeof msg);
	verdict_set(out, v, run->hit);
}

void verdict_fold_case(struct run_verdict *acc, const struct run_verdict *rv, bool bad, size_t i)
{
	/* A violation outranks everything; otherwise the first limit seen. */
	if ((rv->v == V_VIOLATION && acc->v != V_VIOLATION) ||
	    ((verdict_is_limit(rv->v) || rv->v == V_ERROR) && !verdict_is_limit(acc->v) &&
	     acc->v != V_ERROR)) {
		verdict_set(acc, rv->v, rv->hit);
		snprintf(acc->msg, sizeof acc->msg, "case %zu: %.200s", i + 1, rv->msg);
	} else if (bad && acc->v == V_PASS) {
		acc->v = V_FAIL;
	}
}

void verdict_case_limit(struct run_verdict *rv, const struct proto_limits *lim, bool cpu_is_request,
			bool wall_is_request)
{
	if (rv->v != V_TIMEOUT || (rv->hit != HIT_CPU && rv->hit != HIT_WALL))
		return;
	bool cpu = rv->hit == HIT_CPU;
	if (cpu ? cpu_is_request : wall_is_request) {
		snprintf(rv->msg, sizeof rv->msg,
			 "%s time limit of the whole request exceeded (%s %ld, all runs together)",
			 cpu ? "CPU" : "wall", cpu ? L_CPU_MS : L_WALL_MS,
			 cpu ? lim->cpu_ms : lim->wall_ms);
		return;
	}
	rv->hit = cpu ? HIT_CASE_CPU : HIT_CASE_WALL;
	snprintf(rv->msg, sizeof rv->msg, "%s time limit of the case exceeded (%s %ld)",
		 cpu ? "CPU" : "wall", cpu ? L_CASE_CPU_MS : L_CASE_WALL_MS,
		 cpu ? lim->case_cpu_ms : lim->case_wall_ms);
}

void verdict_budget_spent(struct run_verdict *acc, const struct proto_limits *lim, bool cpu,
			  size_t i)
{
	struct run_verdict rv = {.v = V_TIMEOUT, .hit = cpu ? HIT_CPU : HIT_WALL};
	snprintf(rv.msg, sizeof rv.msg,
		 "%s time limit of the whole request exceeded (%s %ld, all runs together) "
		 "before it started",
		 cpu ? "CPU" : "wall", cpu ? L_CPU_MS : L_WALL_MS,
		 cpu ? lim->cpu_ms : lim->wall_ms);
	verdict_fold_case(acc, &rv, true, i);
}

void verdict_cases_done(struct run_verdict *acc, const struct fb_run *fb)
{
	size_t not_run = 0;
	for (size_t i = 0; i < fb->ntests; i++)
		not_run += fb->tests[i].outcome == OUT_SKIPPED;
	if (acc->v == V_FAIL)
		verdict_fail_message(fb, acc->msg, sizeof acc->msg);
	size_t len = strlen(acc->msg);
	if (not_run && acc->v != V_PASS)
		snprintf(acc->msg + len, sizeof acc->msg - len, "; %zu not run", not_run);
}
