/* Everything here runs in the job's init before any untrusted code exists,
 * but it runs as root: every mount is into the job's private namespace (made
 * MS_PRIVATE first, so nothing propagates back to the host), and every host
 * path that becomes visible is bound read-only, nosuid, nodev. All paths are
 * relative to the new root's directory so no string is built at run time. */
#include "sandboxd/jail/mounts.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <string.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandboxd/jail/fdio.h"
#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/procview.h"

/* Host /etc entries Python and common libraries read; missing ones are
 * skipped. The interpreter's versioned one (/etc/python3.11) comes from the
 * profile (profile.c). */
static const char *const etc_binds[] = {
    "/etc/ld.so.cache", "/etc/ld.so.conf",   "/etc/ld.so.conf.d",    "/etc/alternatives",
    "/etc/localtime",	"/etc/ssl",	     "/etc/ca-certificates", "/etc/mime.types",
    "/etc/python3",	"/etc/matplotlibrc", "/etc/nsswitch.conf",   NULL};
/* Merged-/usr links (or directories on older layouts). */
static const char *const top_links[] = {"/bin",	  "/sbin",   "/lib", "/lib32",
					"/lib64", "/libx32", NULL};
static const char *const dev_nodes[] = {"/dev/null",   "/dev/zero",    "/dev/full",
					"/dev/random", "/dev/urandom", NULL};
/* Kernel knobs that must stay read-only even for a process that somehow
 * became root inside the jail. */
static const char *const proc_ro[] = {"proc/sys", "proc/sysrq-trigger", "proc/irq", "proc/bus",
				      NULL};

static const unsigned long RO = MS_RDONLY | MS_NOSUID | MS_NODEV;

/* mkdir -p of a relative path (its last component too when as_dir). */
static int make_path(const char *rel, int as_dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(rel);
	if (n >= sizeof buf)
		return -1;
	memcpy(buf, rel, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (buf[i] == '\0' && !as_dir)
			break;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		buf[i] = c;
	}
	return 0;
}

/* struct mount_attr of mount_setattr(2), under our own name: glibc 2.36's
 * <sys/mount.h> and <linux/mount.h> do not mix. */
struct sbx_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define SBX_MOUNT_ATTR_RDONLY 0x1
#define SBX_MOUNT_ATTR_NOSUID 0x2
#define SBX_MOUNT_ATTR_NODEV 0x4
#define SBX_MOUNT_ATTR_NOEXEC 0x8
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* Binds src at tgt read-only, nosuid, nodev (plus `extra`), submounts
 * included. A remount only changes the top mount, so a host submount under
 * a bound tree (a separate /usr/local, an /etc/ssl mount) would stay
 * writable inside: mount_setattr(AT_RECURSIVE) applies the flags to every
 * mount of the tree. Kernels without it (before 5.12) get a non-recursive
 * bind instead, where submounts are simply not visible. */
static int bind_flags(const char *src, const char *tgt, unsigned long extra)
{
	struct sbx_mount_attr a = {.attr_set = SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID |
					       SBX_MOUNT_ATTR_NODEV |
					       ((extra & MS_NOEXEC) ? SBX_MOUNT_ATTR_NOEXEC : 0)};
	if (mount(src, tgt, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	if (syscall(SYS_mount_setattr, AT_FDCWD, tgt, AT_RECURSIVE, &a, sizeof a) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	if (umount2(tgt, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 ||
	    mount(src, tgt, NULL, MS_BIND, NULL) < 0)
		return -1;
	/* A bind mount takes its flags only from a second, remounting call. */
	return mount(NULL, tgt, NULL, MS_BIND | MS_REMOUNT | RO | extra, NULL);
}

/* Binds host path src read-only at the same place inside (src is absolute,
 * the target is src without its leading slash). Missing sources are skipped
 * when optional. */
static int bind_ro(const char *src, int optional, unsigned long extra)
{
	struct stat st;
	const char *tgt = src + 1;
	if (stat(src, &st) < 0)
		return optional ? 0 : -1;
	if (S_ISDIR(st.st_mode)) {
		if (make_path(tgt, 1) < 0)
			return -1;
	} else {
		if (make_path(tgt, 0) < 0)
			return -1;
		int fd = open(tgt, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return bind_flags(src, tgt, extra);
}

static int write_bytes(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (fdio_write_all(fd, data, len) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int write_file(const char *path, const char *text)
{
	return write_bytes(path, text, strlen(text));
}

static int link_or_bind_top(const char *p)
{
	char target[PATH_MAX];
	struct stat st;
	if (lstat(p, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(p, target, sizeof target - 1);
		if (n < 0)
			return -1;
		target[n] = '\0';
		return symlink(target, p + 1);
	}
	return bind_ro(p, 1, 0);
}

static int setup_etc(const struct jail_spec *s)
{
	if (mkdir("etc", 0755) < 0)
		return -1;
	for (int i = 0; etc_binds[i]; i++)
		if (bind_ro(etc_binds[i], 1, 0) < 0)
			return -1;
	if (write_file("etc/hosts", "127.0.0.1 localhost\n::1 localhost ip6-localhost\n") < 0 ||
	    write_file("etc/hostname", "sandbox\n") < 0 ||
	    write_file("etc/passwd", s->passwd) < 0 || write_file("etc/group", s->group) < 0)
		return -1;
	return 0;
}

/* Where the /proc view stages its files: the old root's /proc (absolute;
 * the new root is the cwd), which no job's tree lies below. Nothing reads
 * the old /proc once the new one is mounted, and it goes when the old root
 * is detached after pivot_root, in that same unmount: one RCU grace period
 * for both instead of one each. The staging tmpfs was a directory of the
 * new root, detached by itself. */
#define MOUNTS_PV_STAGE "/proc"

static int setup_proc(const struct jail_spec *s)
{
	if (mkdir("proc", 0555) < 0 ||
	    mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -1;
	/* A fork server's /proc stays whole: inside a user namespace the
	 * kernel lets a job's child mount its own proc only while a proc with
	 * nothing mounted over it is visible (mount_too_revealing). The job's
	 * pivot_root then leaves the server's behind. */
	if (s->zygote)
		return 0;
	for (int i = 0; proc_ro[i]; i++) {
		if (access(proc_ro[i], F_OK) < 0)
			continue;
		if (bind_flags(proc_ro[i], proc_ro[i], 0) < 0)
			return -1;
	}
	/* After the read-only binds: boot_id is masked inside proc/sys. The
	 * job's own texts come in mounts_finish (procview_fill). */
	return procview_mask(MOUNTS_PV_STAGE);
}

/* A job forked from a fork server binds the server's /dev, made by its init
 * as real root: a user namespace may not mknod. Not recursive (the server
 * has nothing mounted under it), so only the job's own /dev/shm is below. */
static int setup_dev_warm(void)
{
	struct sbx_mount_attr a = {.attr_set = SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID |
					       SBX_MOUNT_ATTR_NOEXEC};
	if (mkdir("dev", 0755) < 0 || mount("/dev", "dev", NULL, MS_BIND, NULL) < 0)
		return -1;
	if (syscall(SYS_mount_setattr, AT_FDCWD, "dev", 0, &a, sizeof a) < 0 &&
	    (errno != ENOSYS ||
	     mount(NULL, "dev", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		   NULL) < 0))
		return -1;
	return 0;
}

static int setup_dev(const struct jail_spec *s)
{
	if (s->warm)
		return setup_dev_warm();
	if (mkdir("dev", 0755) < 0 ||
	    mount("tmpfs", "dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") < 0)
		return -1;
	/* Only these five nodes are reachable. They are made here (the init
	 * still has CAP_MKNOD and this tmpfs is not nodev) with the host nodes'
	 * numbers rather than bound: a bind of the host's devtmpfs would show
	 * its options in the job's mountinfo, and its size= is half the host's
	 * memory. Where mknod is refused (a device cgroup or an LSM around the
	 * daemon), binds of the host's nodes remain. */
	for (int i = 0; dev_nodes[i]; i++) {
		const char *tgt = dev_nodes[i] + 1;
		struct stat st;
		if (stat(dev_nodes[i], &st) < 0 || !S_ISCHR(st.st_mode))
			return -1;
		if (mknod(tgt, S_IFCHR | 0600, st.st_rdev) == 0) {
			if (chmod(tgt, 0666) < 0)
				return -1;
			continue;
		}
		if (errno != EPERM)
			return -1;
		int fd = open(tgt, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
		if (mount(dev_nodes[i], tgt, NULL, MS_BIND, NULL) < 0 ||
		    mount(NULL, tgt, NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NOEXEC, NULL) < 0)
			return -1;
	}
	/* Its tmpfs comes at the end of mounts_prepare. */
	if (mkdir("dev/shm", 01777) < 0)
		return -1;
	if (symlink("/proc/self/fd", "dev/fd") < 0 || symlink("/proc/self/fd/0", "dev/stdin") < 0 ||
	    symlink("/proc/self/fd/1", "dev/stdout") < 0 ||
	    symlink("/proc/self/fd/2", "dev/stderr") < 0)
		return -1;
	return mount(NULL, "dev", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		     NULL);
}

int mounts_prepare(const struct jail_spec *s)
{
	/* First, before any mount: nothing made below may propagate to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	if (mount("tmpfs", s->root_dir, "tmpfs", MS_NOSUID | MS_NODEV, s->root_opts) < 0 ||
	    chdir(s->root_dir) < 0)
		return -1;
	if (bind_ro("/usr", 0, 0) < 0)
		return -1;
	for (int i = 0; top_links[i]; i++)
		if (link_or_bind_top(top_links[i]) < 0)
			return -1;
	if (setup_etc(s) < 0)
		return -1;
	for (size_t i = 0; i < s->job->n_ro; i++)
		if (bind_ro(s->job->ro_paths[i], 0, 0) < 0)
			return -1;
	if (setup_proc(s) < 0 || setup_dev(s) < 0)
		return -1;
	/* The runner lives in the root, which becomes read-only: the
	 * candidate can read its tests (it shares their process anyway) but
	 * cannot rewrite them for a later step. */
	if (s->runner && !s->runner_src) { /* named only: this tree needs its bytes */
		errno = EPROTO;
		return -1;
	}
	if (s->runner && (mkdir("sandboxd", 0755) < 0 ||
			  write_bytes("sandboxd/runner.py", s->runner_src, s->runner_len) < 0))
		return -1;
	if (mkdir("tmp", 01777) < 0 || mkdir("work", 0755) < 0)
		return -1;
	/* A fork server's jobs mount their own /dev/shm; nothing may be under
	 * its /dev, or they could not bind it (setup_dev_warm). */
	if ((!s->zygote &&
	     mount("tmpfs", "dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, s->tmpfs_opts) < 0) ||
	    mount("tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV, s->tmpfs_opts) < 0 ||
	    mount("tmpfs", "work", "tmpfs", MS_NOSUID | MS_NODEV, s->work_opts) < 0)
		return -1;
	/* pivot_root(".", ".") stacks the old root under the new one; detaching
	 * it leaves no path back to the host's file system. The detach waits
	 * for an RCU grace period: here, ahead of a warm job's coming. */
	if (syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH | UMOUNT_NOFOLLOW) < 0 || chdir("/") < 0)
		return -1;
	return 0;
}

/* A tmpfs prepared with opts `had` takes the job's `want` (its size): a
 * remount, which neither mounts nor unmounts anything. */
static int resize(const char *path, const char *had, const char *want)
{
	if (strcmp(had, want) == 0)
		return 0;
	return mount(NULL, path, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, want);
}

int mounts_finish(const struct jail_spec *s, const struct jail_spec *prepared)
{
	const struct jail_spec *p = prepared ? prepared : s;
	/* A tree prepared for other sizes (the runner's job description is
	 * part of the root's) takes the job's. */
	if (resize("/", p->root_opts, s->root_opts) < 0)
		return -1;
	if (s->runner && write_bytes("sandboxd/job.json", s->job_json, s->job_len) < 0)
		return -1;
	/* With a candidate process (another uid), the tests are the grader's
	 * alone: the candidate cannot read them to answer from them. */
	if (s->runner && s->job->peer_args &&
	    (chown("sandboxd/job.json", s->uid, s->gid) < 0 ||
	     chmod("sandboxd/job.json", 0400) < 0))
		return -1;
	if (!s->zygote && procview_fill(&s->procview) < 0)
		return -1;
	if ((!s->zygote && resize("dev/shm", p->tmpfs_opts, s->tmpfs_opts) < 0) ||
	    resize("tmp", p->tmpfs_opts, s->tmpfs_opts) < 0 ||
	    resize("work", p->work_opts, s->work_opts) < 0)
		return -1;
	return mount(NULL, "/", NULL, MS_BIND | MS_REMOUNT | RO, NULL);
}

bool mounts_same_tree(const struct jail_spec *a, const struct jail_spec *b)
{
	if (a->runner != b->runner || a->zygote != b->zygote || a->warm != b->warm ||
	    strcmp(a->root_dir, b->root_dir) != 0 || strcmp(a->passwd, b->passwd) != 0 ||
	    strcmp(a->group, b->group) != 0 || a->job->n_ro != b->job->n_ro)
		return false;
	for (size_t i = 0; i < a->job->n_ro; i++)
		if (strcmp(a->job->ro_paths[i], b->job->ro_paths[i]) != 0)
			return false;
	/* A warm job's description names the runner by length and checksum
	 * only; where both carry its bytes, they are compared too. */
	return !a->runner || (a->runner_len == b->runner_len && a->runner_sum == b->runner_sum &&
			      (!a->runner_src || !b->runner_src ||
			       memcmp(a->runner_src, b->runner_src, a->runner_len) == 0));
}

int mounts_apply(const struct jail_spec *s)
{
	return mounts_prepare(s) < 0 ? -1 : mounts_finish(s, NULL);
}

int mounts_write_files(const struct jail_spec *s)
{
	if (chdir("/work") < 0)
		return -1;
	/* Paths were validated by the protocol layer (relative, no "." or ".."),
	 * the tmpfs is empty and this runs as the job's uid: a path cannot leave
	 * /work, and O_EXCL|O_NOFOLLOW refuse anything already there. */
	for (size_t i = 0; i < s->job->nfiles; i++) {
		const struct jail_file *f = &s->job->files[i];
		if (make_path(f->path, 0) < 0 || write_bytes(f->path, f->data, f->len) < 0)
			return -1;
	}
	return s->runner && !s->main_py ? 0 : write_bytes("main.py", s->code, s->code_len);
}
