/* The job's own /proc view (see procview.h). The daemon formats the files;
 * the job's init only writes them out and binds them, with plain syscalls.
 *
 * Why bind-mounted files and not a filtering file system (LXCFS): a FUSE
 * daemon would be one more root process on every job's reads; a snapshot
 * costs nothing at run time and is enough for what programs read these files
 * for (how many CPUs, how much memory, at start). */
#include "sandboxd/jail/procview.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandboxd/jail/fdio.h"
#include "sandboxd/jail/jail.h"

/* --- daemon side: formatting ------------------------------------------- */

/* Appends to buf (capacity cap, length *len); -1 when it does not fit. */
__attribute__((format(printf, 4, 5))) static int put(char *buf, size_t cap, size_t *len,
						     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap - *len)
		return -1;
	*len += (size_t)n;
	return 0;
}

/* The first `cap - 1` bytes of a host file, NUL-terminated (empty when it
 * cannot be read: the view then falls back to fields of its own). */
static void read_host(const char *path, char *buf, size_t cap)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* The value of "key" in a host file of "key<blanks>: value" or "key value"
 * lines, copied to out up to the end of its line; "" when absent. Read line
 * by line: /proc/stat's "intr" line, before btime, runs to tens of KiB on
 * machines with many interrupts. */
static void host_field(const char *path, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key), lcap = 0;
	char *line = NULL;
	out[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &lcap, f) > 0) {
		if (strncmp(line, key, kl) != 0 || (line[kl] != ' ' && line[kl] != ':'))
			continue;
		const char *v = line + kl + strspn(line + kl, ": \t");
		snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
		break;
	}
	free(line);
	fclose(f);
}

/* What the view takes from the host: btime, Hugepagesize, the first
 * cpuinfo block (numbering and topology are rewritten per job) and how many
 * CPUs are online, which caps a job's `cpus`. They do not change while the
 * host runs but for the block's "cpu MHz", which the view shows as it was
 * when the daemon read it, and the online count, which only taking CPUs
 * off or on line changes (a job's view then keeps the count of the
 * daemon's start, as its limit keeps the profile's); read once per process
 * (the daemon's workers share it), they cost every job 0.1 ms of /proc
 * and /sys reads. */
static struct {
	char btime[32], huge[32], first[8192];
	long online;
} g_host;
static pthread_once_t g_host_once = PTHREAD_ONCE_INIT;

static void host_read(void)
{
	static char host[16384]; /* only the host's first block is used */
	g_host.online = sysconf(_SC_NPROCESSORS_ONLN);
	host_field("/proc/stat", "btime", g_host.btime, sizeof g_host.btime);
	host_field("/proc/meminfo", "Hugepagesize", g_host.huge, sizeof g_host.huge);
	read_host("/proc/cpuinfo", host, sizeof host);
	const char *end = strstr(host, "\n\n");
	size_t fl = end ? (size_t)(end - host) + 1 : strlen(host);
	char *first = g_host.first;
	size_t cap = sizeof g_host.first;
	snprintf(first, cap, "%.*s", (int)(fl < cap ? fl : cap - 1), host);
	if (strncmp(first, "processor", 9) != 0) /* unknown layout: the minimum */
		snprintf(first, cap, "processor\t: 0\n");
}

/* Only MemTotal/MemFree/MemAvailable/CommitLimit carry the job's limit; the
 * rest are the zeros of a machine nothing runs on yet, so tools that add
 * fields up (psutil's virtual_memory) get consistent numbers. */
static int format_meminfo(struct procview *pv, const struct jail_limits *lim)
{
	static const char *const zero[] = {
	    "Buffers:",	     "Cached:",		"SwapCached:",	 "Active:",	    "Inactive:",
	    "Active(anon):", "Inactive(anon):", "Active(file):", "Inactive(file):", "Unevictable:",
	    "Mlocked:",	     "SwapTotal:",	"SwapFree:",	 "Dirty:",	    "Writeback:",
	    "AnonPages:",    "Mapped:",		"Shmem:",	 "KReclaimable:",   "Slab:",
	    "SReclaimable:", "SUnreclaim:",	"KernelStack:",	 "PageTables:",	    NULL};
	unsigned long long kb =
	    (unsigned long long)(lim->memory_mb > 0 ? lim->memory_mb : 0) * 1024;
	size_t len = 0;
	char *b = pv->meminfo;
	size_t cap = sizeof pv->meminfo;
	if (put(b, cap, &len, "%-16s%8llu kB\n%-16s%8llu kB\n%-16s%8llu kB\n", "MemTotal:", kb,
		"MemFree:", kb, "MemAvailable:", kb) < 0)
		return -1;
	for (int i = 0; zero[i]; i++)
		if (put(b, cap, &len, "%-16s%8d kB\n", zero[i], 0) < 0)
			return -1;
	unsigned long hp = strtoul(g_host.huge, NULL, 10);
	return put(b, cap, &len,
		   "%-16s%8llu kB\n%-16s%8d kB\nHugePages_Total:   %5d\nHugePages_Free:    %5d\n"
		   "HugePages_Rsvd:    %5d\nHugePages_Surp:    %5d\n%-16s%8lu kB\n%-16s%8d kB\n",
		   "CommitLimit:", kb, "Committed_AS:", 0, 0, 0, 0, 0,
		   "Hugepagesize:", hp ? hp : 2048, "Hugetlb:", 0);
}

/* glibc 2.36's get_nprocs() and get_nprocs_conf() (os.cpu_count(), and so
 * multiprocessing) read /sys/devices/system/cpu/{online,possible}, absent in
 * the jail, then count the "cpuN" lines at the top of /proc/stat. btime
 * stays the host's, so a process's start time (psutil) comes out right;
 * /proc/uptime shows the same anyway. */
static int format_stat(struct procview *pv)
{
	const char *btime = g_host.btime;
	size_t len = 0;
	static const char zeros[] = " 0 0 0 0 0 0 0 0 0 0\n";
	if (put(pv->stat, sizeof pv->stat, &len, "cpu %s", zeros) < 0)
		return -1;
	for (int i = 0; i < pv->ncpus; i++)
		if (put(pv->stat, sizeof pv->stat, &len, "cpu%d%s", i, zeros) < 0)
			return -1;
	return put(pv->stat, sizeof pv->stat, &len,
		   "intr 0\nctxt 0\nbtime %s\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n"
		   "softirq 0 0 0 0 0 0 0 0 0 0 0\n",
		   btime[0] ? btime : "0");
}

/* One block per CPU of the view, each a copy of the host's first block with
 * the numbering and topology fields rewritten. Lines over `maxline` bytes
 * (x86 "flags" and "bugs") are dropped when full blocks would not fit. */
static int format_cpuinfo_blocks(struct procview *pv, const char *first, size_t maxline)
{
	size_t len = 0, cap = sizeof pv->cpuinfo;
	char *b = pv->cpuinfo;
	for (int i = 0; i < pv->ncpus; i++) {
		for (const char *l = first; *l;) {
			size_t ll = strcspn(l, "\n");
			size_t kl = strcspn(l, ":\t\n"), cl = strcspn(l, ":\n");
			int pre = (int)(l[cl] == ':' ? cl + 1 : cl); /* "key\t\t:" kept */
			const char *next = l + ll + (l[ll] == '\n');
#define KEY(k) (kl == sizeof(k) - 1 && strncmp(l, k, kl) == 0)
			int rc = 0;
			if (KEY("processor") || KEY("core id") || KEY("apicid") ||
			    KEY("initial apicid"))
				rc = put(b, cap, &len, "%.*s %d\n", pre, l, i);
			else if (KEY("siblings") || KEY("cpu cores"))
				rc = put(b, cap, &len, "%.*s %d\n", pre, l, pv->ncpus);
			else if (ll <= maxline)
				rc = put(b, cap, &len, "%.*s\n", (int)ll, l);
#undef KEY
			if (rc < 0)
				return -1;
			l = next;
		}
		if (put(b, cap, &len, "\n") < 0)
			return -1;
	}
	return 0;
}

static int format_cpuinfo(struct procview *pv)
{
	const char *first = g_host.first;
	if (format_cpuinfo_blocks(pv, first, sizeof g_host.first) == 0 ||
	    format_cpuinfo_blocks(pv, first, 200) == 0)
		return 0;
	return format_cpuinfo_blocks(pv, "processor\t: 0\n", 0);
}

int procview_prepare(struct procview *pv, const struct jail_limits *lim)
{
	if (pthread_once(&g_host_once, host_read) != 0)
		return -1;
	long host = g_host.online;
	long n = lim->cpus > 0 ? lim->cpus : 1;
	if (host > 0 && n > host)
		n = host;
	if (n > PROCVIEW_MAX_CPUS)
		n = PROCVIEW_MAX_CPUS;
	memset(pv, 0, sizeof *pv);
	pv->ncpus = (int)n;
	snprintf(pv->loadavg, sizeof pv->loadavg, "0.00 0.00 0.00 1/1 1\n");
	if (format_meminfo(pv, lim) < 0 || format_stat(pv) < 0 || format_cpuinfo(pv) < 0)
		return -1;
	return 0;
}

/* --- the job's init: binding --------------------------------------------- */

/* Staging: a small tmpfs of its own, mounted on a directory the caller
 * names outside the job's root (so nothing of it lands there) and detaches
 * once the tree is built. Its source name is what mountinfo shows for
 * every bind below. */
#define PV_SOURCE "procview"
/* The staging tmpfs is mounted twice: the stage, writable, through which
 * procview_fill writes the job's texts once it has them, and stage/ro
 * (PV_RO_NAME), a read-only bind of it, from which every target is bound.
 * A bind shares the file's inode, so what procview_fill writes shows at
 * once in the bound proc files, whose mounts are read-only from the
 * start. */
#define PV_RO_NAME "ro"

/* Entries a Python program has no need for: OCI runtime-spec's default
 * masked paths, plus the host-wide files that tell of the host's hardware,
 * other tenants' activity or the kernel's layout. Missing ones (kernel
 * config, build options, older or newer kernels) are skipped. Files get an
 * empty file, directories (named with a trailing slash) an empty directory,
 * both read-only. */
static const char *const pv_masked[] = {"proc/cmdline",
					"proc/config.gz",
					"proc/kcore",
					"proc/keys",
					"proc/key-users",
					"proc/timer_list",
					"proc/timer_stats",
					"proc/sched_debug",
					"proc/latency_stats",
					"proc/schedstat",
					"proc/acpi/",
					"proc/asound/",
					"proc/scsi/",
					"proc/driver/",
					"proc/pressure/",
					"proc/zoneinfo",
					"proc/buddyinfo",
					"proc/pagetypeinfo",
					"proc/vmstat",
					"proc/vmallocinfo",
					"proc/slabinfo",
					"proc/interrupts",
					"proc/softirqs",
					"proc/diskstats",
					"proc/partitions",
					"proc/swaps",
					"proc/locks",
					"proc/kallsyms",
					"proc/modules",
					"proc/kmsg",
					"proc/kpagecount",
					"proc/kpageflags",
					"proc/kpagecgroup",
					"proc/iomem",
					"proc/ioports",
					"proc/mtrr",
					"proc/consoles",
					"proc/sys/kernel/random/boot_id",
					NULL};

static int pv_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0)
		return -1;
	/* Readable by the job whatever the daemon's umask. */
	if (fchmod(fd, 0444) < 0) {
		close(fd);
		return -1;
	}
	if (fdio_write_all(fd, text, strlen(text)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Binds src over tgt; a target this kernel lacks is skipped (the source
 * is ours and exists, so ENOENT is the target's). The bind takes the
 * source mount's flags: the staging tree's read-only bind (stage/ro), so
 * no second, remounting call per target. */
static int pv_bind(const char *src, const char *tgt)
{
	return mount(src, tgt, NULL, MS_BIND, NULL) == 0 || errno == ENOENT ? 0 : -1;
}

/* The view's own files, by their names in the staging tmpfs. */
static const char *const pv_own[][2] = {{"meminfo", "proc/meminfo"},
					{"stat", "proc/stat"},
					{"cpuinfo", "proc/cpuinfo"},
					{"loadavg", "proc/loadavg"}};
#define PV_OWN (sizeof pv_own / sizeof pv_own[0])

/* dir/name into out (PATH_MAX); -1 with ENAMETOOLONG. */
static int pv_path(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
	if (n < 0 || n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Binds the empty file (`file`) over tgt, or the empty directory (`dir`)
 * when tgt ends in a slash; a target this kernel lacks is skipped. No stat
 * first: ENOENT says it is missing, so each entry costs one lookup in
 * procfs instead of two (about 40 fewer system calls in every job's tree).
 * The slash matters: a bind the kernel refuses for its type (ENOTDIR) after
 * cloning the source is unmounted again, and that unmount waits for an RCU
 * grace period, while "dir/" over a file fails in the lookup, before any
 * clone. An entry whose type a kernel changed still gets the other kind. */
static int pv_mask_one(const char *file, const char *dir, const char *tgt)
{
	size_t n = strlen(tgt);
	bool is_dir = n > 0 && tgt[n - 1] == '/';
	if (pv_bind(is_dir ? dir : file, tgt) == 0)
		return 0;
	if (errno != ENOTDIR)
		return -1;
	/* The other kind: "x" for a directory that is a file here, "x/" for
	 * a file that is a directory. */
	char other[64];
	int k = snprintf(other, sizeof other, "%.*s%s", (int)(is_dir ? n - 1 : n), tgt,
			 is_dir ? "" : "/");
	if (k < 0 || (size_t)k >= sizeof other) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return pv_bind(is_dir ? file : dir, other);
}

/* The own files, open for writing from procview_mask, when the staging
 * tmpfs is still mounted, to procview_fill, after it was detached: the
 * texts come without a mount or an unmount on the job's path. */
static int g_own_fd[PV_OWN] = {-1, -1, -1, -1};

static int pv_close_own(void)
{
	int rc = 0;
	for (size_t i = 0; i < PV_OWN; i++)
		if (g_own_fd[i] >= 0) {
			if (close(g_own_fd[i]) < 0)
				rc = -1;
			g_own_fd[i] = -1;
		}
	return rc;
}

int procview_mask(const char *stage)
{
	char src[PATH_MAX], ro[PATH_MAX], empty[PATH_MAX], emptydir[PATH_MAX];
	if (pv_path(ro, stage, PV_RO_NAME) < 0 || pv_path(empty, ro, "empty") < 0 ||
	    pv_path(emptydir, ro, "emptydir") < 0 ||
	    mount(PV_SOURCE, stage, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=256k,nr_inodes=16,mode=0755") < 0)
		return -1;
	if (pv_path(src, stage, "empty") < 0 || pv_write(src, "") < 0 ||
	    pv_path(src, stage, "emptydir") < 0 || mkdir(src, 0555) < 0 || chmod(src, 0555) < 0 ||
	    mkdir(ro, 0500) < 0)
		return -1;
	/* Writable by their owner until procview_fill has written them: a
	 * root without CAP_DAC_OVERRIDE (a daemon under a unit that drops it)
	 * could not open a 0444 file for writing. */
	pv_close_own();
	for (size_t i = 0; i < PV_OWN; i++) {
		if (pv_path(src, stage, pv_own[i][0]) < 0)
			return -1;
		g_own_fd[i] = open(src, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (g_own_fd[i] < 0)
			return -1;
	}
	if (mount(stage, ro, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, ro, NULL,
		  MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -1;
	for (size_t i = 0; i < PV_OWN; i++)
		if (pv_path(src, ro, pv_own[i][0]) < 0 || pv_bind(src, pv_own[i][1]) < 0)
			return -1;
	for (int i = 0; pv_masked[i]; i++)
		if (pv_mask_one(empty, emptydir, pv_masked[i]) < 0)
			return -1;
	/* The binds keep the staging tmpfs alive, and the descriptors its own
	 * files; its mounts stay until the caller detaches the stage with
	 * whatever else it detaches (mounts_prepare: with the old root), since
	 * every unmount waits for an RCU grace period. */
	return 0;
}

int procview_fill(const struct procview *pv)
{
	const char *text[PV_OWN] = {pv->meminfo, pv->stat, pv->cpuinfo, pv->loadavg};
	int rc = 0;
	for (size_t i = 0; i < PV_OWN; i++) {
		/* Readable by the job whatever the daemon's umask, and by
		 * nobody writable; the last writable handle closes here. */
		if (g_own_fd[i] < 0 || fdio_write_all(g_own_fd[i], text[i], strlen(text[i])) < 0 ||
		    fchmod(g_own_fd[i], 0444) < 0)
			rc = -1;
	}
	if (pv_close_own() < 0)
		rc = -1;
	return rc;
}

int procview_apply(const struct procview *pv, const char *stage)
{
	return procview_mask(stage) < 0 ? -1 : procview_fill(pv);
}
