/* Checked once at start, after the stale jobs of a crashed instance were
 * killed with their cgroups (so a restart is not refused because of them). */
#include "sandboxd/server/uidrange.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/errfmt.h"
#include "common/log.h"

static int range_err(char *err, size_t errlen, uid_t base, unsigned n, const char *what)
{
	return errfmt(err, errlen,
		      "--uid-base %u: the job uids [%u, %u] (three per worker slot) %s; give a "
		      "--uid-base whose range holds no account, group or process",
		      (unsigned)base, (unsigned)base, (unsigned)base + n - 1, what);
}

static int check_accounts(uid_t base, unsigned n, char *err, size_t errlen)
{
	char buf[4096], what[512];
	for (unsigned i = 0; i < n; i++) {
		uid_t id = base + i;
		struct passwd pw, *pf = NULL;
		struct group gr, *gf = NULL;
		if (getpwuid_r(id, &pw, buf, sizeof buf, &pf) == 0 && pf) {
			snprintf(what, sizeof what, "include uid %u of the account \"%.64s\"",
				 (unsigned)id, pw.pw_name);
			return range_err(err, errlen, base, n, what);
		}
		/* Jobs run with gid = uid. */
		if (getgrgid_r((gid_t)id, &gr, buf, sizeof buf, &gf) == 0 && gf) {
			snprintf(what, sizeof what, "include gid %u of the group \"%.64s\"",
				 (unsigned)id, gr.gr_name);
			return range_err(err, errlen, base, n, what);
		}
	}
	return 0;
}

/* The first process found with any uid in the range (0: none). */
static pid_t find_process(uid_t base, unsigned n, unsigned long *uid_out)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	pid_t found = 0;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		char *end, path[64], buf[4096];
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/status", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* gone meanwhile */
		ssize_t len = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		/* A zombie (a killed daemon's fork server init, not yet reaped by
		 * whoever adopted it) runs nothing and takes no signal. */
		if (strstr(buf, "\nState:\tZ"))
			continue;
		const char *u = strstr(buf, "\nUid:");
		unsigned long id[4];
		if (!u || sscanf(u + 5, "%lu %lu %lu %lu", &id[0], &id[1], &id[2], &id[3]) != 4)
			continue;
		for (int k = 0; k < 4 && !found; k++)
			if (id[k] >= base && id[k] - base < n) {
				found = (pid_t)pid;
				*uid_out = id[k];
			}
	}
	closedir(d);
	return found;
}

int uidrange_check(uid_t base, unsigned n, int wait_ms, char *err, size_t errlen)
{
	if (check_accounts(base, n, err, errlen) < 0)
		return -1;
	uint64_t deadline = clock_mono_ms() + (uint64_t)wait_ms;
	for (;;) {
		unsigned long uid = 0;
		pid_t pid = find_process(base, n, &uid);
		if (pid < 0)
			return errfmt_errno(err, errlen, errno, "--uid-base: cannot scan /proc");
		if (pid == 0)
			return 0;
		if (clock_mono_ms() >= deadline) {
			char what[512], comm[64] = "?", path[64];
			snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
			FILE *f = fopen(path, "re");
			if (f && fgets(comm, sizeof comm, f))
				comm[strcspn(comm, "\n")] = '\0';
			for (char *c = comm; *c; c++) /* a name anyone can choose */
				*c = (*c < 0x20 || *c > 0x7e) ? '?' : *c;
			if (f)
				fclose(f);
			snprintf(
			    what, sizeof what,
			    "include uid %lu of a running process (pid %d, %.32s), which would "
			    "share the jobs' process count and signals",
			    uid, (int)pid, comm);
			return range_err(err, errlen, base, n, what);
		}
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
}
