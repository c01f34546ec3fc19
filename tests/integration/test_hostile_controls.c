/* Controls of the hostile-program driver (tests/integration/test_hostile.c):
 * every host check can fail, each run against a host state that a broken
 * jail would leave; every requirement, probe and violation decision can go
 * both ways on made-up responses; and a table program is one job per row,
 * each with its own exact expectations (tests/helpers/hostile.h).
 *
 * Run as root from the repository root: make build/tests/test_hostile_controls
 * && SBX_BUILD=build build/tests/test_hostile_controls. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "common/base64.h"
#include "common/protocol.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/hostile.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

/* --- controls: every host check can fail ---------------------------------- */

static int connect_tcp(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Forks a process that sits in the job uid range. */
static pid_t spawn_as_uid(uid_t uid)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

static void kill_reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

START_TEST(test_host_check_controls)
{
	char why[2048];
	struct test_daemon d;
	start_daemon(&d, "2");

	/* listener-untouched: a connection from the host itself is seen. */
	why[0] = '\0';
	ck_assert(listener_untouched(g_listen_fd, "listener-untouched", why, sizeof why));
	int c = connect_tcp(g_port);
	ck_assert_msg(c >= 0, "control connection to 127.0.0.1:%d: %s", g_port, strerror(errno));
	td_sleep_ms(50);
	ck_assert_msg(!listener_untouched(g_listen_fd, "listener-untouched", why, sizeof why),
		      "listener-untouched missed a real connection");
	close(c);

	/* abstract-untouched: a host connection to the abstract socket is seen. */
	struct sockaddr_un sa;
	socklen_t salen;
	abstract_addr(&sa, &salen);
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_msg(connect(c, (struct sockaddr *)&sa, salen) == 0, "abstract control: %s",
		      strerror(errno));
	td_sleep_ms(20);
	why[0] = '\0';
	ck_assert_msg(!listener_untouched(g_abstract_fd, "abstract-untouched", why, sizeof why),
		      "abstract-untouched missed a real connection");
	close(c);

	/* disk-unchanged: 32 MiB and 5000 files written on the host are seen. */
	struct disk before, after;
	disk_snapshot(&before);
	char fill[512], files[512];
	snprintf(fill, sizeof fill, "%s/disk-control", d.dir);
	snprintf(files, sizeof files, "%s/inode-control", d.dir);
	int fd = open(fill, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	static char block[1 << 20];
	memset(block, 0x5a, sizeof block);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(write(fd, block, sizeof block), (ssize_t)sizeof block);
	fsync(fd);
	close(fd);
	ck_assert_int_eq(mkdir(files, 0700), 0);
	for (int i = 0; i < 5000; i++) {
		char f[600];
		snprintf(f, sizeof f, "%s/%d", files, i);
		close(open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	}
	disk_snapshot(&after);
	why[0] = '\0';
	ck_assert_msg(!disk_compare(&before, &after, why, sizeof why),
		      "disk-unchanged missed 32 MiB and 5000 files written on the host");
	unlink(fill);
	td_rmtree(files);

	/* marker-absent: a marker file in the host's /tmp is seen. */
	char planted[600];
	snprintf(planted, sizeof planted, "/tmp/pwned-%s", g_marker);
	why[0] = '\0';
	ck_assert_msg(marker_absent(&d, why, sizeof why), "marker-absent before the control: %s",
		      why);
	ck_assert_int_eq(write_file(planted, "x", 0600), 0);
	ck_assert_msg(!marker_absent(&d, why, sizeof why), "marker-absent missed %s", planted);
	unlink(planted);
	snprintf(planted, sizeof planted, "%s/state/x-%s", d.dir, g_marker);
	ck_assert_int_eq(write_file(planted, "x", 0600), 0);
	ck_assert_msg(!marker_absent(&d, why, sizeof why), "marker-absent missed %s", planted);
	unlink(planted);

	/* secret-not-leaked: each secret in an output is seen. */
	const char *secrets[] = {g_secret, g_env_secret, g_shadow_hash[0] ? g_shadow_hash : NULL};
	for (int i = 0; i < 3; i++) {
		if (!secrets[i])
			continue;
		char out[512];
		/* after a NUL, which must not hide it */
		int n = snprintf(out, sizeof out, "READ x%cb'%s'\n", 0, secrets[i]);
		json_t *r = json_pack("{s:s%,s:s}", "stdout", out, (size_t)n, "stderr", "");
		why[0] = '\0';
		ck_assert_msg(!secret_not_leaked(r, why, sizeof why),
			      "secret-not-leaked missed secret %d", i);
		json_decref(r);
	}

	/* fetch-clean: a secret in a fetched file (past a NUL), a value that is
	 * not base64, and more than the fetch limit in all are each seen. */
	for (int i = 0; i < 3; i++) {
		if (!secrets[i])
			continue;
		char raw[256], enc[400];
		int n = snprintf(raw, sizeof raw, "x%c%s", 0, secrets[i]);
		b64_encode((const unsigned char *)raw, (size_t)n, enc);
		json_t *r = json_pack("{s:{s:{s:s},s:{s:s}}}", "files", "ok", "error", "a FIFO",
				      "leak", "base64", enc);
		why[0] = '\0';
		ck_assert_msg(!fetch_clean(r, why, sizeof why), "fetch-clean missed secret %d", i);
		json_decref(r);
	}
	json_t *nb = json_pack("{s:{s:{s:s}}}", "files", "f", "base64", "not base64!");
	why[0] = '\0';
	ck_assert_msg(!fetch_clean(nb, why, sizeof why), "fetch-clean took invalid base64");
	json_decref(nb);
	{
		size_t big = PROTO_FETCH_MAX_BYTES / 2 + 1;
		unsigned char *raw = calloc(1, big);
		char *enc = malloc(b64_encoded_len(big) + 1);
		ck_assert_ptr_nonnull(raw);
		ck_assert_ptr_nonnull(enc);
		b64_encode(raw, big, enc);
		json_t *r = json_pack("{s:{s:{s:s},s:{s:s}}}", "files", "a", "base64", enc, "b",
				      "base64", enc);
		why[0] = '\0';
		ck_assert_msg(!fetch_clean(r, why, sizeof why), "fetch-clean missed the total");
		json_decref(r);
		free(raw);
		free(enc);
	}

	/* canary-intact: a changed secret file is seen. */
	why[0] = '\0';
	ck_assert_msg(canary_intact(why, sizeof why), "canary-intact before the control: %s", why);
	ck_assert_int_eq(write_file(g_secret_path, "changed", 0600), 0);
	ck_assert_msg(!canary_intact(why, sizeof why), "canary-intact missed a changed secret");
	ck_assert_int_eq(write_file(g_secret_path, g_secret, 0600), 0);

	/* jail-passwd: the host's passwd in the output is seen. */
	json_t *r = json_pack("{s:s}", "stdout", g_host_passwd);
	why[0] = '\0';
	char *with_sandbox = NULL;
	ck_assert_int_ge(asprintf(&with_sandbox, "%ssandbox:x:1:1::/:/x\n", g_host_passwd), 0);
	json_object_set_new(r, "stdout", json_string(with_sandbox));
	ck_assert_msg(!jail_passwd(r, g_host_passwd, why, sizeof why),
		      "jail-passwd missed the host's passwd");
	json_decref(r);
	free(with_sandbox);

	/* no-leftover: a process in the job uid range, and one carrying the
	 * marker, are seen. */
	pid_t u = spawn_as_uid(d.uid_base + (uid_t)d.workers - 1);
	ck_assert_int_gt(td_wait_uid_procs(d.uid_base, d.uid_base + (uid_t)d.workers - 1, 2000), 0);
	why[0] = '\0';
	ck_assert_msg(!no_leftover(&d, why, sizeof why), "no-leftover missed a job-uid process");
	kill_reap(u);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "sleep 30; : leftover-%s", g_marker);
	pid_t m = fork();
	if (m == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	td_sleep_ms(100);
	why[0] = '\0';
	ck_assert_msg(!no_leftover(&d, why, sizeof why), "no-leftover missed a marker process");
	kill_reap(m);
	why[0] = '\0';
	ck_assert_msg(no_leftover(&d, why, sizeof why), "no-leftover after the control: %s", why);

	/* ipc-clean: a segment with one of the keys on the host is seen. */
	why[0] = '\0';
	ck_assert_msg(ipc_clean(why, sizeof why), "ipc-clean before the control: %s", why);
	int shmid = shmget(IPC_KEY_HI, 4096, IPC_CREAT | IPC_EXCL | 0600);
	ck_assert_msg(shmid >= 0, "shmget: %s", strerror(errno));
	bool seen = !ipc_clean(why, sizeof why);
	shmctl(shmid, IPC_RMID, NULL);
	ck_assert_msg(seen, "ipc-clean missed a host segment with key 0x%x", IPC_KEY_HI);

	/* submount-untouched: a file in the host's submount is seen. */
	why[0] = '\0';
	ck_assert_msg(submount_create(why, sizeof why) == 0, "%s", why);
	ck_assert_msg(submount_untouched(why, sizeof why), "submount-untouched when empty: %s",
		      why);
	char sub[300];
	snprintf(sub, sizeof sub, "%s/x", g_submount);
	ck_assert_int_eq(write_file(sub, "x", 0600), 0);
	seen = !submount_untouched(why, sizeof why);
	submount_remove();
	ck_assert_msg(seen, "submount-untouched missed a file");

	/* victim-survived: a victim that did not survive is seen (its wall limit
	 * is shorter than its sleep). */
	char err[256];
	struct sbx_conn *conn = sbx_connect(d.sock, err, sizeof err);
	ck_assert_msg(conn != NULL, "%s", err);
	json_t *v = json_pack("{s:s,s:s,s:{s:i}}", "id", "v", "code", VICTIM_CODE, "limits",
			      "wall_ms", 1000);
	json_t *vr = sbx_call(conn, v, CALL_MS, err, sizeof err);
	ck_assert_msg(vr != NULL, "%s", err);
	why[0] = '\0';
	ck_assert_msg(!victim_survived(vr, why, sizeof why),
		      "victim-survived missed a dead victim");
	json_decref(v);
	json_decref(vr);
	sbx_close(conn);

	/* warm-intact: a warm job on intact servers passes; a job after the
	 * servers were killed from outside (cold, and the log says so) is
	 * seen. */
	json_t *wr = run1(&d, json_pack("{s:s,s:s}", "id", "w", "code", "print(1)"), CALL_MS);
	why[0] = '\0';
	ck_assert_msg(warm_intact(&d, wr, why, sizeof why), "warm-intact before the control: %s",
		      why);
	json_decref(wr);
	pid_t inits[16];
	int ninit = td_children(d.pid, inits, 16);
	for (int i = 0; i < ninit; i++) {
		pid_t srv[4];
		int ns = td_children(inits[i], srv, 4);
		for (int k = 0; k < ns; k++)
			kill(srv[k], SIGKILL);
	}
	td_sleep_ms(200);
	wr = run1(&d, json_pack("{s:s,s:s}", "id", "w2", "code", "print(1)"), CALL_MS);
	ck_assert_msg(!warm_intact(&d, wr, why, sizeof why), "warm-intact missed killed servers");
	json_decref(wr);

	/* ns-released: a process that holds a mount namespace open is seen
	 * (as the daemon would be, were it to keep a job's). */
	why[0] = '\0';
	ck_assert_msg(ns_released(&d, why, sizeof why), "ns-released before the control: %s", why);
	pid_t h = fork();
	if (h == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	td_sleep_ms(100);
	struct test_daemon holder = d;
	holder.pid = h;
	seen = !ns_released(&holder, why, sizeof why);
	kill_reap(h);
	ck_assert_msg(seen, "ns-released missed a held mount namespace");

	/* daemon-alive: a killed daemon is seen. */
	why[0] = '\0';
	ck_assert_msg(daemon_alive(&d, why, sizeof why), "daemon-alive before the control: %s",
		      why);
	td_kill(&d);
	ck_assert_msg(!daemon_alive(&d, why, sizeof why), "daemon-alive missed a dead daemon");
	td_cleanup(&d);
}
END_TEST

/* Loopback pairs on the host filled without reading: like the job's attack
 * (tests/hostile/res_tcp_buffers.py), but outside any limit. The senders'
 * buffers are left to autotuning (up to net.ipv4.tcp_wmem's maximum, 4 MB
 * by default) rather than set, as SO_SNDBUF stops at net.core.wmem_max,
 * which is only 208 KB on a stock kernel (the check-vm guest). */
static long long fill_tcp_pairs(int *fds, int npairs)
{
	long long sent = 0;
	int big = 64 << 20, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	ck_assert_int_ge(lfd, 0);
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(lfd, npairs), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	static char chunk[1 << 16];
	for (int i = 0; i < npairs; i++) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		ck_assert_int_ge(c, 0);
		if (connect(c, (struct sockaddr *)&sa, sizeof sa) < 0)
			ck_assert_int_eq(errno, EINPROGRESS);
		int a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		ck_assert_int_ge(a, 0);
		fds[2 * i] = c;
		fds[2 * i + 1] = a;
	}
	/* Rounds until no sender takes more: autotuning grows the send
	 * buffers as the data is acknowledged. */
	for (int round = 0, idle = 0; round < 200 && idle < 5; round++) {
		long long before = sent;
		for (int i = 0; i < npairs; i++) {
			ssize_t n;
			while ((n = send(fds[2 * i], chunk, sizeof chunk, MSG_NOSIGNAL)) > 0)
				sent += n;
		}
		idle = sent == before ? idle + 1 : 0;
		td_sleep_ms(10);
	}
	close(lfd);
	return sent;
}

START_TEST(test_sockmem_control)
{
	char why[1024] = "";
	int fds[32];
	/* Nothing held: within any limit. */
	sample_start();
	td_sleep_ms(50);
	sample_stop();
	ck_assert_msg(sample_sockmem_bounded(8, why, sizeof why), "sockmem-bounded at rest: %s",
		      why);
	/* Sixteen unread pairs hold far more than 8 MB + the margin. */
	sample_start();
	long long sent = fill_tcp_pairs(fds, 16);
	td_sleep_ms(100);
	sample_stop();
	for (int i = 0; i < 32; i++)
		close(fds[i]);
	ck_assert_msg(sent > (40LL << 20), "the control queued only %lld bytes", sent);
	ck_assert_msg(!sample_sockmem_bounded(8, why, sizeof why),
		      "sockmem-bounded missed %lld MB held in host sockets", sent >> 20);
}
END_TEST

/* An access ACL of n entries (n >= 4) in the xattr format of
 * posix_acl_xattr.h: a version, then {tag, perm, id} entries, sorted by
 * tag; all but three name uid 1, which the kernel takes as often as given. */
static size_t acl_xattr(unsigned char *buf, size_t n)
{
	/* USER_OBJ, USER, GROUP_OBJ, MASK, OTHER */
	static const uint16_t tags[] = {0x01, 0x02, 0x04, 0x10, 0x20};
	uint32_t ver = 2;
	memcpy(buf, &ver, 4);
	size_t off = 4;
	for (size_t i = 0; i < n; i++) {
		uint16_t tag = i == 0 ? tags[0] : i < n - 3 ? tags[1] : tags[i - (n - 3) + 2];
		uint16_t perm = 7;
		uint32_t id = tag == 0x02 ? 1 : UINT32_MAX;
		memcpy(buf + off, &tag, 2);
		memcpy(buf + off + 2, &perm, 2);
		memcpy(buf + off + 4, &id, 4);
		off += 8;
	}
	return off;
}

START_TEST(test_kmem_control)
{
	char why[1024] = "", dir[] = "/tmp/sbx-kmem-XXXXXX", path[64];
	sample_start();
	td_sleep_ms(50);
	sample_stop();
	ck_assert_msg(sample_kmem_bounded(8, why, sizeof why), "kmem-bounded at rest: %s", why);
	/* The attack of tests/hostile/res_posix_acl.py, made by the host: 300
	 * directories with an access and a default ACL of 8,191 entries each
	 * (the most a 64 KB value holds), 128 KB of kernel memory per ACL that
	 * no cgroup is charged for: 75 MB. */
	ck_assert(mkdtemp(dir));
	ck_assert_int_eq(mount("tmpfs", dir, "tmpfs", 0, "size=8m"), 0);
	static unsigned char acl[8 * 8191 + 4];
	size_t len = acl_xattr(acl, 8191);
	int set = 0, err = 0;
	sample_start();
	for (int i = 0; i < 300 && !err; i++) {
		snprintf(path, sizeof path, "%s/%d", dir, i);
		if (mkdir(path, 0755) < 0 ||
		    setxattr(path, "system.posix_acl_access", acl, len, 0) < 0 ||
		    setxattr(path, "system.posix_acl_default", acl, len, 0) < 0)
			err = errno;
		else
			set++;
	}
	td_sleep_ms(50);
	sample_stop();
	ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);
	rmdir(dir);
	if (set == 0)
		SKIP_TEST("this kernel's tmpfs takes no POSIX ACL: %s", strerror(err));
	ck_assert_msg(!sample_kmem_bounded(8, why, sizeof why),
		      "kmem-bounded missed %d directories' ACLs of %zu bytes set on the host", set,
		      len);
}
END_TEST

/* The requires/probe/violation logic on made-up responses: each decision
 * can go both ways (no daemon needed). */
static void fake_prog(struct prog *p, const char *req, const char *probe, const char *json)
{
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "fake.py");
	p->expect = xstrdup("violation");
	if (req)
		p->req[p->nreq++] = xstrdup(req);
	if (probe)
		p->probe[p->nprobe++] = xstrdup(probe);
	json_error_t je;
	p->resp = json_loads(json, 0, &je);
	ck_assert_msg(p->resp != NULL, "%s: %s", json, je.text);
}

START_TEST(test_requirement_controls)
{
	struct prog p;
	/* cgroup-memory: decided by the response's own enforcement. */
	fake_prog(&p, "cgroup-memory", NULL,
		  "{\"verdict\":\"pass\",\"enforcement\":{\"memory_mb\":\"rlimits\"}}");
	check_requirements(&p);
	ck_assert_msg(p.skip[0] && !p.why[0], "skip '%s' why '%s'", p.skip, p.why);
	prog_free(&p);
	fake_prog(&p, "cgroup-memory", NULL,
		  "{\"verdict\":\"pass\",\"enforcement\":{\"memory_mb\":\"cgroup v2\"}}");
	check_requirements(&p);
	ck_assert_msg(!p.skip[0] && !p.why[0], "skip '%s' why '%s'", p.skip, p.why);
	prog_free(&p);

	/* A host-probed requirement; the program's probe must agree with it. */
	g_have_ia32 = false;
	snprintf(g_ia32_why, sizeof g_ia32_why, "made up");
	fake_prog(&p, "ia32-abi", "ia32-abi",
		  "{\"verdict\":\"pass\",\"stdout\":\"PROBE ia32-abi: absent (x)\\n\"}");
	check_requirements(&p);
	ck_assert_msg(strstr(p.skip, "made up") && !p.why[0], "skip '%s' why '%s'", p.skip, p.why);
	prog_free(&p);
	fake_prog(&p, "ia32-abi", "ia32-abi",
		  "{\"verdict\":\"pass\",\"stdout\":\"PROBE ia32-abi: present (x)\\n\"}");
	check_requirements(&p);
	ck_assert_msg(strstr(p.why, "disagrees"), "why '%s'", p.why);
	prog_free(&p);
	fake_prog(&p, "ia32-abi", "ia32-abi", "{\"verdict\":\"pass\",\"stdout\":\"\"}");
	check_requirements(&p);
	ck_assert_msg(strstr(p.why, "no 'PROBE ia32-abi"), "why '%s'", p.why);
	prog_free(&p);
	/* A skip never covers a job the daemon did not run. */
	fake_prog(&p, "ia32-abi", NULL, "{\"error\":{\"code\":\"internal\"}}");
	check_requirements(&p);
	ck_assert_msg(strstr(p.why, "no run result"), "why '%s'", p.why);
	prog_free(&p);
	g_have_ia32 = true;
	fake_prog(&p, "ia32-abi", "ia32-abi",
		  "{\"verdict\":\"violation\",\"violation\":null,\"stdout\":"
		  "\"PROBE ia32-abi: present (x)\\n\"}");
	check_requirements(&p);
	ck_assert_msg(!p.skip[0] && !p.why[0], "skip '%s' why '%s'", p.skip, p.why);

	/* violation: choices, and "none" for a null violation object. */
	p.violation = xstrdup("unshare|none");
	check_response(&p);
	ck_assert_msg(!p.why[0], "why '%s'", p.why);
	json_object_set_new(p.resp, "violation", json_pack("{s:s}", "syscall", "unshare"));
	check_response(&p);
	ck_assert_msg(!p.why[0], "why '%s'", p.why);
	json_object_set_new(p.resp, "violation", json_pack("{s:s}", "syscall", "process_vm_readv"));
	check_response(&p);
	ck_assert_msg(strstr(p.why, "violation.syscall process_vm_readv"), "why '%s'", p.why);
	prog_free(&p);
}
END_TEST

/* --- tables ---------------------------------------------------------------- */

/* Writes a program and its table into dir. */
static void table_files(const char *dir, const char *program, const char *table)
{
	char path[512];
	snprintf(path, sizeof path, "%s/t.py", dir);
	ck_assert_int_eq(write_file(path, program, 0644), 0);
	snprintf(path, sizeof path, "%s/t.json", dir);
	ck_assert_int_eq(write_file(path, table, 0644), 0);
}

#define TABLE_PROGRAM                                                                              \
	"# A table program.\n"                                                                     \
	"# table: t.json\n"                                                                        \
	"# expect: violation\n"                                                                    \
	"# violation: @ROW.violation@\n"                                                           \
	"# stdout: contains CALLING @ROW.name@\n"                                                  \
	"ROW = '@ROW@'\n"                                                                          \
	"NR = @ROW.nr@\n"

/* A table program is one job per row, each with the row's expectations,
 * checked exactly; a table or row that cannot be used fails the program;
 * and the shipped sys_forbidden.py expands into one job per syscall. */
START_TEST(test_table_controls)
{
	struct test_daemon d;
	memset(&d, 0, sizeof d);
	snprintf(d.sock, sizeof d.sock, "/nonexistent/sock");
	char dir[] = "/tmp/sbx-hostile-table.XXXXXX", path[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t.py", dir);

	table_files(dir, TABLE_PROGRAM,
		    "[{\"name\": \"a\", \"nr\": 1, \"violation\": \"ptrace\"},"
		    " {\"name\": \"b.2\", \"nr\": 22, \"violation\": \"bpf\"}]");
	size_t n;
	struct prog *ps = prog_load_file(path, &d, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(ps[0].name, "t.py[a]");
	ck_assert_str_eq(ps[1].name, "t.py[b.2]");
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!ps[i].why[0], "%s: %s", ps[i].name, ps[i].why);
	ck_assert_str_eq(ps[0].expect, "violation");
	ck_assert_str_eq(ps[0].violation, "ptrace");
	ck_assert_str_eq(ps[1].violation, "bpf");
	ck_assert_int_eq(ps[1].nout, 1);
	ck_assert_str_eq(ps[1].out[0], "contains CALLING b.2");
	ck_assert_ptr_nonnull(strstr(ps[1].src, "NR = 22\n"));
	ck_assert_ptr_nonnull(
	    strstr(ps[1].src, "ROW = '{\"name\":\"b.2\",\"nr\":22,\"violation\":\"bpf\"}'"));
	ck_assert_ptr_null(strstr(ps[0].src, "@ROW"));
	/* Each row's violation is checked exactly: another row's is wrong. */
	ps[0].resp = json_pack("{s:s,s:{s:s},s:s}", "verdict", "violation", "violation", "syscall",
			       "bpf", "stdout", "CALLING a\n");
	check_response(&ps[0]);
	ck_assert_msg(strstr(ps[0].why, "violation.syscall bpf, expected ptrace"), "why '%s'",
		      ps[0].why);
	ps[1].resp = json_pack("{s:s,s:{s:s},s:s}", "verdict", "violation", "violation", "syscall",
			       "bpf", "stdout", "CALLING b.2\n");
	check_response(&ps[1]);
	ck_assert_msg(!ps[1].why[0], "why '%s'", ps[1].why);
	for (size_t i = 0; i < n; i++)
		prog_free(&ps[i]);
	free(ps);

	/* A row without a field a header uses fails that row alone. */
	table_files(dir, TABLE_PROGRAM,
		    "[{\"name\": \"a\", \"nr\": 1}, {\"name\": \"b\", \"nr\": 2, \"violation\": "
		    "\"bpf\"}]");
	ps = prog_load_file(path, &d, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_msg(strstr(ps[0].why, "no value for @ROW.violation@"), "why '%s'", ps[0].why);
	ck_assert_msg(!ps[1].why[0], "why '%s'", ps[1].why);
	for (size_t i = 0; i < n; i++)
		prog_free(&ps[i]);
	free(ps);

	/* Tables that cannot be used: one failing job, named after the file. */
	static const char *const bad[] = {
	    "not json",		 "[]",
	    "{\"name\": \"a\"}", "[{\"name\": \"a\"}, {\"name\": \"a\"}]",
	    "[{\"nr\": 1}]",	 "[{\"name\": \"has space\"}]",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		table_files(dir, TABLE_PROGRAM, bad[i]);
		ps = prog_load_file(path, &d, &n);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(ps[0].name, "t.py");
		ck_assert_msg(strstr(ps[0].why, "table "), "table %s: why '%s'", bad[i], ps[0].why);
		prog_free(&ps[0]);
		free(ps);
	}

	/* A table program alone (as a requires header would run it) is a failure. */
	table_files(dir, TABLE_PROGRAM, "[{\"name\": \"a\", \"nr\": 1, \"violation\": \"x\"}]");
	struct prog p;
	prog_load(&p, path, &d, NULL);
	ck_assert_msg(strstr(p.why, "never alone"), "why '%s'", p.why);
	prog_free(&p);
	td_rmtree(dir);

	/* The shipped table: one job per forbidden syscall, each expecting the
	 * violation that names it. */
	snprintf(path, sizeof path, "%s/sys_forbidden.py", g_dir);
	ps = prog_load_file(path, &d, &n);
	ck_assert_uint_ge(n, 20);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(!ps[i].why[0], "%s: %s", ps[i].name, ps[i].why);
		ck_assert_str_eq(ps[i].expect, "violation");
		ck_assert_msg(ps[i].violation && !strchr(ps[i].violation, '|') &&
				  strcmp(ps[i].violation, "any") != 0,
			      "%s: violation '%s' is not one syscall", ps[i].name, ps[i].violation);
		char want[128];
		snprintf(want, sizeof want, "sys_forbidden.py[%s]", ps[i].violation);
		ck_assert_str_eq(ps[i].name, want);
		prog_free(&ps[i]);
	}
	free(ps);
}
END_TEST

static Suite *hostile_controls_suite(void)
{
	Suite *s = suite_create("hostile_controls");
	TCase *t = tmain_tcase(s, "controls", 120);
	tcase_add_test(t, test_host_check_controls);
	tcase_add_test(t, test_requirement_controls);
	tcase_add_test(t, test_sockmem_control);
	tcase_add_test(t, test_kmem_control);
	tcase_add_test(t, test_table_controls);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {.root = true,
					       .daemon = true,
					       .tmpdir = "sbx-hostile",
					       .setup = hostile_setup,
					       .teardown = hostile_teardown};
	return tmain(hostile_controls_suite, &opts);
}
