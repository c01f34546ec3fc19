/* The job's CPU bandwidth cap: without it a job with 1024 threads takes
 * every CPU of the host until its cpu_ms runs out (in a tenth of the wall
 * time). CFS bandwidth control gives the job `cpus` CPUs' worth of time per
 * period and throttles it for the rest of the period. */
#include <errno.h>
#include <stdio.h>

#include "sandboxd/jail/cgroup_internal.h"

#define CG_CPU_PERIOD_US 100000ull /* the kernel's default period */
#define CG_CPU_MAX 1000000ull	   /* more CPUs than that: no cap */
/* The least and the default CPU weights of a cgroup: v2 cpu.weight, v1
 * cpu.shares. */
#define CG_WEIGHT_V2_LOW "1"
#define CG_WEIGHT_V2 "100"
#define CG_WEIGHT_V1_LOW "2"
#define CG_WEIGHT_V1 "1024"

/* Where the job's CPU weight is written: v2 only with the cpu controller. */
static int cg_cpu_weight(const struct cg_job *j, bool low)
{
	const struct cg_root *r = j->root;
	if (r->version == CG_V2 && r->cpu_cap)
		return cg_write(j->v2, "cpu.weight", low ? CG_WEIGHT_V2_LOW : CG_WEIGHT_V2, NULL,
				0);
	if (r->version == CG_V1 && j->v1_cpu[0])
		return cg_write(j->v1_cpu, "cpu.shares", low ? CG_WEIGHT_V1_LOW : CG_WEIGHT_V1,
				NULL, 0);
	return -1;
}

void cg_job_background(struct cg_job *j)
{
	j->low_weight = cg_cpu_weight(j, true) == 0;
}

int cg_cpu_foreground(struct cg_job *j, char *err, size_t errlen)
{
	if (!j->low_weight)
		return 0;
	if (cg_cpu_weight(j, false) < 0)
		return cg_err(err, errlen, errno, "cgroup %s: the normal CPU weight", j->name);
	j->low_weight = false;
	return 0;
}

void cg_cpu_detect(struct cg_root *r)
{
	char buf[CG_SMALL];
	r->cpu_cap = false;
	if (r->version == CG_V2)
		/* The job cgroups have cpu.max when the jobs dir hands on cpu
		 * (cg_setup enables it only where the parent offers it). A fake
		 * tree keeps what was written ("+cpu"), a real one "cpu". */
		r->cpu_cap = cg_read(r->v2_jobs, "cgroup.subtree_control", buf, sizeof buf) >= 0 &&
			     (cg_has_token(buf, "cpu") || cg_has_token(buf, "+cpu"));
	else if (r->version == CG_V1)
		r->cpu_cap = r->v1_cpu[0] && cg_exists(r->v1_cpu, "cpu.cfs_quota_us");
}

int cg_cpu_cap(const struct cg_root *r, struct cg_job *j, uint64_t cpus, char *err, size_t errlen)
{
	char quota[48], period[24];
	if (!r->cpu_cap || cpus == 0 || cpus > CG_CPU_MAX)
		return 0;
	snprintf(quota, sizeof quota, "%llu", (unsigned long long)(cpus * CG_CPU_PERIOD_US));
	snprintf(period, sizeof period, "%llu", CG_CPU_PERIOD_US);
	if (r->version == CG_V2) {
		char both[72];
		snprintf(both, sizeof both, "%s %s", quota, period);
		return cg_write(j->v2, "cpu.max", both, err, errlen);
	}
	/* The period first: the kernel checks the quota against it. */
	if (cg_write(j->v1_cpu, "cpu.cfs_period_us", period, err, errlen) < 0)
		return -1;
	/* v1 refuses (EINVAL) a quota above an ancestor's: the smaller cap
	 * the daemon itself runs under then bounds the job already. */
	if (cg_write(j->v1_cpu, "cpu.cfs_quota_us", quota, NULL, 0) < 0 && errno != EINVAL)
		return cg_err(err, errlen, errno, "write %s/cpu.cfs_quota_us", j->v1_cpu);
	return 0;
}
