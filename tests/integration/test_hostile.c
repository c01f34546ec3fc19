/* The hostile-program suite: every tests/hostile/NAME.py is a program written
 * to break the jail, run against a real sandboxd. Each file starts with a
 * header the driver reads ("# key: value" lines among its leading comments):
 *
 *   # expect: timeout|memory_limit   one verdict, or several separated by '|';
 *                                    "error:CODE" expects an error object
 *   # limit_hit: cpu                 the response's limit_hit ("any": non-null,
 *                                    "none": null; '|' separates choices)
 *   # violation: ptrace              violation.syscall ("any": non-null,
 *                                    "none": null; '|' separates choices)
 *   # limits: {"cpu_ms": 2000}       JSON merged into the request's limits
 *   # files: {"a.txt": "..."}        the request's files field
 *   # stdin_bytes: 8388608           the request's stdin: that many bytes
 *   # setup: usr-submount            before the job, mount a world-writable
 *                                    tmpfs at @SUBMOUNT@ (under the host's
 *                                    /usr/local); removed after its checks
 *   # stdout: contains TEXT          (or "not-contains TEXT"); repeatable
 *   # host: CHECK                    a host-side check run after the job;
 *                                    repeatable; one of g_checks[]:
 *
 *   disk-unchanged      used bytes and inodes of /, /tmp, /var/tmp, /dev/shm
 *                       and /root moved by less than a margin
 *   marker-absent       no file named with the marker in the host's writable-
 *                       looking directories or under the daemon's directory
 *   secret-not-leaked   the output holds neither the planted secret, nor the
 *                       daemon's environment secret, nor root's shadow hash
 *   canary-intact       the planted secret is intact, no host /etc file holds
 *                       the marker, the host name is unchanged
 *   listener-untouched  the host's 127.0.0.1:@PORT@ (and [::1]) listener got
 *                       no connection
 *   abstract-untouched  the host's abstract socket "\0sbx-MARKER" got none
 *   no-leftover         no process of the daemon's job uids, and none whose
 *                       command line holds the marker
 *   daemon-alive        the daemon runs and answers a ping
 *   jail-passwd         the output shows the jail's passwd, no host line
 *   victim-survived     a victim job run at the same time still passed
 *   ipc-clean           no host SysV IPC object has a key 0x5bd0-0x5bdf
 *   submount-untouched  the usr-submount tmpfs is still empty
 *
 *   # requires: NAME                 what the program needs of the machine;
 *                                    repeatable; one of g_reqs[]:
 *
 *   ia32-abi        the kernel's i386 ABI (IA32 emulation): the driver's own
 *                   i386 getpid through int $0x80 in an unfiltered child
 *                   (tests/helpers/skip.c) returns the pid
 *   mount-setattr   mount_setattr(2) (Linux 5.12+; without it the daemon
 *                   binds read-only paths non-recursively, submounts unseen)
 *   cgroup-memory   the response's enforcement.memory_mb names a cgroup (the
 *                   daemon may run without cgroups: then there is no OOM
 *                   counter, so no memory_limit verdict to expect)
 *   cgroup-pids     enforcement.pids names a cgroup
 *   cgroup-cpu      enforcement.cpu_ms names a cgroup (the job's CPU summed
 *                   over all its processes, not RLIMIT_CPU per process)
 *
 *   # probe: NAME                    the program probes requirement NAME
 *                                    itself, inside the jail, and prints
 *                                    "PROBE NAME: present (...)" or "PROBE
 *                                    NAME: absent (...)"; that line must be
 *                                    there and agree with the driver's probe
 *
 * A program with a requires header runs alone, on a daemon of its own, as
 * one iteration of the test_hostile_requiring loop (the other programs share
 * test_hostile_programs). When a requirement is not met, the program is a
 * skip: it is reported as "SKIP: hostile/NAME.py: <reason>" (tests/helpers/
 * skip.h; tests/run_suite.sh counts it, never as a pass), its expect,
 * limit_hit, violation and stdout headers are not checked, but its host
 * checks and its probe agreement still are: a skip never hides a breach.
 *
 * Before parsing, the driver substitutes in the whole file: @MARKER@ (a
 * random token unique to this run), @PORT@ (the host listener's port),
 * @SOCK@ (the daemon's socket), @STATEDIR@ (its --state-dir), @DAEMONPID@
 * (its host pid), @SUBMOUNT@ (see setup) and @ASSUME_NO_IA32@ ("1" when
 * SBX_TEST_ASSUME_NO_IA32 is set, else "0").
 *
 * Programs run on one daemon (--workers 2) in batches of two; the host checks
 * of a batch run when both jobs have answered. Programs with a setup or a
 * victim run alone; the xjob_* programs run together, at the same time in two
 * slots. persist_* programs run in name order, one at a time, on a
 * --workers 1 daemon (so they share a slot and a uid).
 *
 * The "controls" test shows that every host check can fail: each is run
 * against a host state that a broken jail would leave.
 *
 * Run as root from the repository root: make build/tests/test_hostile &&
 * SBX_BUILD=build build/tests/test_hostile. SBX_HOSTILE_ONLY=substring runs
 * only the matching programs; SBX_HOSTILE_DIR overrides tests/hostile.
 * Test-only overrides, to run the skip paths on a machine that has
 * everything: SBX_TEST_ASSUME_NO_IA32=1 makes the driver's IA32 probe report
 * absence (and tells the programs, through @ASSUME_NO_IA32@, to report the
 * same without probing); SBX_TEST_DAEMON_ARGS="--no-cgroups" (words
 * separated by spaces) is added to every daemon this suite starts, as to
 * every daemon of the test helpers (tests/helpers/daemon.h). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"

#define CALL_MS 90000 /* the longest a response may take (queue + job) */
#define MAX_HDR 32
#define DISK_MARGIN_BYTES (16LL << 20)
#define DISK_MARGIN_INODES 4000LL
#define LEFTOVER_GRACE_MS 2000
#define VICTIM_CODE "import time\ntime.sleep(3)\nprint(\"survived\")\n"

/* --- run-wide state, set up in main() before the suite forks ------------- */

static char g_marker[40];	/* in file names the jobs write; must never reach the host */
static char g_secret[80];	/* content of /root/sbx-secret-MARKER; never job-visible */
static char g_env_secret[80];	/* in the daemon's environment */
static char g_secret_path[128]; /* /root/sbx-secret-MARKER */
static char g_shadow_hash[256]; /* root's password field in the host's /etc/shadow, if real */
static char *g_host_passwd;	/* the host's /etc/passwd */
/* Host files the programs try to append the marker to. Their content is not
 * compared with a snapshot: other tests on the machine may add users. */
static const char *const g_host_file_names[] = {"/etc/passwd", "/etc/hostname", "/etc/hosts",
						"/etc/shadow", "/etc/group"};
static char g_hostname[256];
static int g_listen_fd = -1, g_listen6_fd = -1, g_abstract_fd = -1;
static int g_port;
static char g_dir[64] = "tests/hostile";
static char g_submount[128]; /* /usr/local/sbx-hostile-submount.PID */
/* The driver's probes of the machine (see g_reqs[]), made once in setup(). */
static bool g_have_ia32, g_have_mount_setattr;
static char g_ia32_why[512], g_mount_setattr_why[256];
static bool g_assume_no_ia32; /* SBX_TEST_ASSUME_NO_IA32 */
/* Programs with a requires header, each an iteration of test_hostile_requiring. */
#define MAX_REQ_PROGS 64
static char g_req_progs[MAX_REQ_PROGS][96];
static int g_nreq_progs;

/* --- small helpers -------------------------------------------------------- */

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	ck_assert_ptr_nonnull(d);
	return d;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static int write_file(const char *path, const char *content, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -1;
	size_t n = strlen(content);
	ssize_t w = write(fd, content, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

static void random_hex(char *out, size_t nbytes)
{
	unsigned char b[64];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t r = fd >= 0 ? read(fd, b, nbytes) : -1;
	if (fd >= 0)
		close(fd);
	if (r != (ssize_t)nbytes) { /* not expected; still unique enough per run */
		srand((unsigned)(time(NULL) ^ getpid()));
		for (size_t i = 0; i < nbytes; i++)
			b[i] = (unsigned char)rand();
	}
	for (size_t i = 0; i < nbytes; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* s with every `from` replaced by `to` (new string). */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	char *out = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
	ck_assert_ptr_nonnull(out);
	for (const char *p = s, *q; *p; p = q + fl) {
		q = strstr(p, from);
		if (!q) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = '\0';
	return out;
}

/* Appends to a program's failure text. */
static void whyf(char *why, size_t len, const char *fmt, ...)
{
	size_t used = strlen(why);
	if (used + 4 >= len)
		return;
	if (used) {
		snprintf(why + used, len - used, "; ");
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why + used, len - used, fmt, ap);
	va_end(ap);
}

/* o[k] (a string, which may hold NULs: a job can print them) contains
 * needle. */
static bool jhas(const json_t *o, const char *k, const char *needle)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_string(v))
		return false;
	return memmem(json_string_value(v), json_string_length(v), needle, strlen(needle)) != NULL;
}

/* --- the program files ---------------------------------------------------- */

struct prog {
	char name[96];
	char *src; /* after substitution */
	char *expect, *limit_hit, *violation;
	json_t *limits, *files;
	long stdin_bytes;
	bool setup_submount;
	char *out[MAX_HDR];
	int nout;
	char *host[MAX_HDR];
	int nhost;
	char *req[MAX_HDR]; /* requires */
	int nreq;
	char *probe[MAX_HDR]; /* probe */
	int nprobe;
	char skip[1024]; /* non-empty: a requirement is not met (why) */
	char why[4096];	 /* empty: everything held */
	json_t *resp, *victim_resp;
};

static void prog_free(struct prog *p)
{
	free(p->src);
	free(p->expect);
	free(p->limit_hit);
	free(p->violation);
	json_decref(p->limits);
	json_decref(p->files);
	for (int i = 0; i < p->nout; i++)
		free(p->out[i]);
	for (int i = 0; i < p->nhost; i++)
		free(p->host[i]);
	for (int i = 0; i < p->nreq; i++)
		free(p->req[i]);
	for (int i = 0; i < p->nprobe; i++)
		free(p->probe[i]);
	json_decref(p->resp);
	json_decref(p->victim_resp);
	memset(p, 0, sizeof *p);
}

static bool is_host_check(const char *name);
static bool is_requirement(const char *name);

/* Reads path, substitutes the run's tokens and parses the header. A broken
 * header is a failure of that program (in p->why), not of the suite. */
static void prog_load(struct prog *p, const char *path, const struct test_daemon *d)
{
	memset(p, 0, sizeof *p);
	const char *base = strrchr(path, '/');
	snprintf(p->name, sizeof p->name, "%s", base ? base + 1 : path);
	char *raw = slurp(path);
	if (!raw) {
		whyf(p->why, sizeof p->why, "cannot read %s", path);
		p->src = xstrdup("");
		return;
	}
	char port[16], pid[16];
	snprintf(port, sizeof port, "%d", g_port);
	snprintf(pid, sizeof pid, "%d", (int)d->pid);
	const char *subst[][2] = {{"@MARKER@", g_marker},
				  {"@PORT@", port},
				  {"@SOCK@", d->sock},
				  {"@STATEDIR@", d->state},
				  {"@DAEMONPID@", pid},
				  {"@SUBMOUNT@", g_submount},
				  {"@ASSUME_NO_IA32@", g_assume_no_ia32 ? "1" : "0"}};
	char *s = raw;
	for (size_t i = 0; i < sizeof subst / sizeof subst[0]; i++) {
		char *n = replace_all(s, subst[i][0], subst[i][1]);
		free(s);
		s = n;
	}
	p->src = s;

	/* The header: "# key: value" lines among the leading comment lines. */
	char *copy = xstrdup(s);
	for (char *line = copy, *next; line && *line == '#'; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char key[32];
		int off = 0;
		if (sscanf(line, "# %31[a-z_]:%n", key, &off) != 1 || off == 0)
			continue; /* prose */
		const char *val = line + off + strspn(line + off, " \t");
		json_error_t je;
		if (strcmp(key, "expect") == 0) {
			free(p->expect);
			p->expect = xstrdup(val);
		} else if (strcmp(key, "limit_hit") == 0) {
			free(p->limit_hit);
			p->limit_hit = xstrdup(val);
		} else if (strcmp(key, "violation") == 0) {
			free(p->violation);
			p->violation = xstrdup(val);
		} else if (strcmp(key, "limits") == 0 || strcmp(key, "files") == 0) {
			json_t *o = json_loads(val, 0, &je);
			if (!json_is_object(o))
				whyf(p->why, sizeof p->why, "header %s: not a JSON object (%s)",
				     key, je.text);
			else if (key[0] == 'l')
				p->limits = json_incref(o);
			else
				p->files = json_incref(o);
			json_decref(o);
		} else if (strcmp(key, "stdin_bytes") == 0) {
			char *end;
			p->stdin_bytes = strtol(val, &end, 10);
			if (*end || p->stdin_bytes <= 0 || p->stdin_bytes > (12L << 20))
				whyf(p->why, sizeof p->why, "header stdin_bytes: '%s'", val);
		} else if (strcmp(key, "setup") == 0) {
			if (strcmp(val, "usr-submount") == 0)
				p->setup_submount = true;
			else
				whyf(p->why, sizeof p->why, "unknown setup '%s'", val);
		} else if (strcmp(key, "stdout") == 0) {
			if (strncmp(val, "contains ", 9) != 0 &&
			    strncmp(val, "not-contains ", 13) != 0)
				whyf(p->why, sizeof p->why, "header stdout: '%s'", val);
			else if (p->nout < MAX_HDR)
				p->out[p->nout++] = xstrdup(val);
		} else if (strcmp(key, "host") == 0) {
			if (!is_host_check(val))
				whyf(p->why, sizeof p->why, "unknown host check '%s'", val);
			else if (p->nhost < MAX_HDR)
				p->host[p->nhost++] = xstrdup(val);
		} else if (strcmp(key, "requires") == 0 || strcmp(key, "probe") == 0) {
			if (!is_requirement(val))
				whyf(p->why, sizeof p->why, "unknown requirement '%s'", val);
			else if (key[0] == 'r' && p->nreq < MAX_HDR)
				p->req[p->nreq++] = xstrdup(val);
			else if (key[0] == 'p' && p->nprobe < MAX_HDR)
				p->probe[p->nprobe++] = xstrdup(val);
		} else {
			whyf(p->why, sizeof p->why, "unknown header '%s'", key);
		}
	}
	free(copy);
	if (!p->expect)
		whyf(p->why, sizeof p->why, "no '# expect:' header");
}

static bool has_host(const struct prog *p, const char *check)
{
	for (int i = 0; i < p->nhost; i++)
		if (strcmp(p->host[i], check) == 0)
			return true;
	return false;
}

static json_t *prog_request(const struct prog *p)
{
	json_t *req = json_pack("{s:s,s:s}", "id", p->name, "code", p->src);
	ck_assert_ptr_nonnull(req);
	if (p->limits)
		json_object_set(req, "limits", p->limits);
	if (p->files)
		json_object_set(req, "files", p->files);
	if (p->stdin_bytes > 0) {
		char *in = malloc((size_t)p->stdin_bytes);
		ck_assert_ptr_nonnull(in);
		for (long i = 0; i < p->stdin_bytes; i++)
			in[i] = i % 64 == 63 ? '\n' : 'x';
		json_object_set_new(req, "stdin", json_stringn(in, (size_t)p->stdin_bytes));
		free(in);
	}
	return req;
}

/* value is one of the '|'-separated choices in list. */
static bool one_of(const char *list, const char *value)
{
	size_t vl = strlen(value);
	for (const char *p = list; p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		if (n == vl && strncmp(p, value, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* The response against the header's expectations. */
static void check_response(struct prog *p)
{
	const json_t *r = p->resp;
	char *why = p->why;
	size_t wl = sizeof p->why;
	if (!r) {
		whyf(why, wl, "no response");
		return;
	}
	const char *verdict = sget(r, "verdict");
	const char *code = sget(json_object_get(r, "error"), "code");
	char got[96];
	if (code)
		snprintf(got, sizeof got, "error:%s", code);
	else
		snprintf(got, sizeof got, "%s", verdict ? verdict : "(none)");
	if (!one_of(p->expect, got)) {
		char out[200] = "";
		const char *o = sget(r, "stdout");
		for (size_t i = 0, j = 0; o && o[i] && j + 3 < sizeof out; i++)
			out[j++] = o[i] == '\n' ? '|' : o[i];
		whyf(why, wl, "verdict %s, expected %s (message '%s', memory_kb %lld, stdout '%s')",
		     got, p->expect,
		     code ? sget(json_object_get(r, "error"), "message") : sget(r, "message"),
		     (long long)json_integer_value(
			 json_object_get(json_object_get(r, "usage"), "memory_kb")),
		     out);
		return;
	}
	if (code)
		return;
	const json_t *lh = json_object_get(r, "limit_hit");
	if (p->limit_hit) {
		bool ok = strcmp(p->limit_hit, "any") == 0 ? json_is_string(lh)
			  : json_is_null(lh)		   ? one_of(p->limit_hit, "none")
			  : json_is_string(lh) ? one_of(p->limit_hit, json_string_value(lh))
					       : false;
		if (!ok)
			whyf(why, wl, "limit_hit %s, expected %s",
			     json_is_string(lh) ? json_string_value(lh) : "null", p->limit_hit);
	}
	const json_t *v = json_object_get(r, "violation");
	if (p->violation) {
		const char *sc = sget(v, "syscall");
		bool ok = strcmp(p->violation, "any") == 0 ? json_is_object(v)
			  : sc				   ? one_of(p->violation, sc)
			       : json_is_null(v) && one_of(p->violation, "none");
		if (!ok)
			whyf(why, wl, "violation.syscall %s, expected %s", sc ? sc : "null",
			     p->violation);
	}
	for (int i = 0; i < p->nout; i++) {
		bool neg = strncmp(p->out[i], "not-", 4) == 0;
		const char *text = p->out[i] + (neg ? 13 : 9);
		bool has = jhas(r, "stdout", text);
		if (neg && has)
			whyf(why, wl, "stdout contains '%s'", text);
		else if (!neg && !has)
			whyf(why, wl, "stdout lacks '%s'", text);
	}
}

/* --- requirements ----------------------------------------------------------- */

static const char *const g_reqs[] = {"ia32-abi",    "mount-setattr", "cgroup-memory",
				     "cgroup-pids", "cgroup-cpu",    NULL};

static bool is_requirement(const char *name)
{
	for (int i = 0; g_reqs[i]; i++)
		if (strcmp(g_reqs[i], name) == 0)
			return true;
	return false;
}

/* The driver's own probe of a requirement: 1 present, 0 absent (*why says
 * why), -1 when the requirement is not decided by a host probe. */
static int host_probe(const char *name, const char **why)
{
	if (strcmp(name, "ia32-abi") == 0) {
		*why = g_ia32_why;
		return g_have_ia32;
	}
	if (strcmp(name, "mount-setattr") == 0) {
		*why = g_mount_setattr_why;
		return g_have_mount_setattr;
	}
	return -1;
}

/* cgroup-*: how the daemon says it enforced the limit on this very run. 1:
 * by a cgroup; 0: not (why set); -1: the response has no enforcement (an
 * error object, or none at all), which the usual checks then report. */
static int cgroup_enforced(const json_t *r, const char *name, char *why, size_t wl)
{
	static const struct {
		const char *req, *limit, *consequence;
	} m[] = {
	    {"cgroup-memory", "memory_mb",
	     "no memory cgroup, so the limit is per process, nothing charges the job as a "
	     "whole (tmpfs, SysV shm, many processes) and no OOM counter tells a memory_limit"},
	    {"cgroup-pids", "pids", "no pids cgroup, so no job-wide count of processes"},
	    {"cgroup-cpu", "cpu_ms",
	     "no CPU accounting cgroup, so CPU time is limited per process (RLIMIT_CPU), not "
	     "summed over the job"},
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		if (strcmp(name, m[i].req) != 0)
			continue;
		const char *e = r ? sget(json_object_get(r, "enforcement"), m[i].limit) : NULL;
		if (!e)
			return -1;
		if (strstr(e, "cgroup"))
			return 1;
		snprintf(why, wl, "the daemon enforced %s with \"%s\": %s", m[i].limit, e,
			 m[i].consequence);
		return 0;
	}
	return -1;
}

/* The program's "PROBE NAME: present|absent ..." line: 1 present, 0 absent,
 * -1 missing or neither (the line, when there is one, in line). */
static int program_probe(const json_t *r, const char *name, char *line, size_t ll)
{
	const char *o = r ? sget(r, "stdout") : NULL;
	char head[64];
	int hl = snprintf(head, sizeof head, "PROBE %s: ", name);
	line[0] = '\0';
	for (const char *l = o; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, head, (size_t)hl) != 0)
			continue;
		snprintf(line, ll, "%.*s", (int)strcspn(l, "\n"), l);
		if (strncmp(l + hl, "present", 7) == 0)
			return 1;
		if (strncmp(l + hl, "absent", 6) == 0)
			return 0;
		return -1;
	}
	return -1;
}

/* After the response: the program's probes must agree with the driver's,
 * and an unmet requirement makes the program a skip (p->skip says why). */
static void check_requirements(struct prog *p)
{
	char line[512];
	const char *hw;
	for (int i = 0; i < p->nprobe; i++) {
		int mine = program_probe(p->resp, p->probe[i], line, sizeof line);
		int host = host_probe(p->probe[i], &hw);
		if (mine < 0)
			whyf(p->why, sizeof p->why,
			     "no 'PROBE %s: present|absent ...' line in stdout%s%s", p->probe[i],
			     line[0] ? ", got: " : "", line);
		else if (host >= 0 && host != mine)
			whyf(p->why, sizeof p->why,
			     "the program's probe in the jail ('%s') disagrees with the driver's "
			     "on the host (%s%s)",
			     line, host ? "present" : "absent: ", host ? "" : hw);
	}
	for (int i = 0; i < p->nreq; i++) {
		char why[512] = "";
		int ok = host_probe(p->req[i], &hw);
		if (ok == 0)
			snprintf(why, sizeof why, "%s", hw);
		else if (ok < 0 && cgroup_enforced(p->resp, p->req[i], why, sizeof why) != 0)
			why[0] = '\0';
		if (!why[0])
			continue;
		size_t used = strlen(p->skip);
		snprintf(p->skip + used, sizeof p->skip - used, "%srequires %s: %s",
			 used ? "; " : "", p->req[i], why);
	}
	/* A skip is for what the machine lacks, never for a daemon that did not
	 * run the job. */
	if (p->skip[0] && (!p->resp || !sget(p->resp, "verdict")))
		whyf(p->why, sizeof p->why, "no run result (%s)",
		     p->resp ? sget(json_object_get(p->resp, "error"), "code") : "no response");
}

/* --- host-side checks ----------------------------------------------------- */

/* disk-unchanged: used bytes and inodes of the host file systems a leaked
 * write could land on. */
static const char *const g_disk_paths[] = {"/", "/tmp", "/var/tmp", "/dev/shm", "/root"};
#define NDISK (sizeof g_disk_paths / sizeof g_disk_paths[0])
struct disk {
	long long used[NDISK], inodes[NDISK];
	bool ok[NDISK];
};

static void disk_snapshot(struct disk *s)
{
	sync();
	for (size_t i = 0; i < NDISK; i++) {
		struct statvfs v;
		s->ok[i] = statvfs(g_disk_paths[i], &v) == 0;
		s->used[i] =
		    s->ok[i] ? (long long)(v.f_blocks - v.f_bfree) * (long long)v.f_frsize : 0;
		s->inodes[i] = s->ok[i] ? (long long)(v.f_files - v.f_ffree) : 0;
	}
}

static bool disk_compare(const struct disk *a, const struct disk *b, char *why, size_t wl)
{
	bool same = true;
	for (size_t i = 0; i < NDISK; i++) {
		if (!a->ok[i] || !b->ok[i])
			continue;
		long long db = b->used[i] - a->used[i], di = b->inodes[i] - a->inodes[i];
		if (llabs(db) > DISK_MARGIN_BYTES || llabs(di) > DISK_MARGIN_INODES) {
			whyf(why, wl, "disk-unchanged: %s changed by %lld KiB and %lld inodes",
			     g_disk_paths[i], db / 1024, di);
			same = false;
		}
	}
	return same;
}

/* marker-absent: no file whose name holds the marker, in the host's
 * writable-looking directories or anywhere under the daemon's directory. */
static char g_scan_hit[1024];
static int scan_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	if (strstr(path + ftw->base, g_marker) && !g_scan_hit[0])
		snprintf(g_scan_hit, sizeof g_scan_hit, "%s", path);
	return 0;
}

static bool marker_absent(const struct test_daemon *d, char *why, size_t wl)
{
	static const char *const dirs[] = {
	    "/tmp",	"/var/tmp",   "/dev/shm", "/root", "/etc", "/usr",  "/usr/bin",
	    "/usr/lib", "/usr/local", "/",	  "/var",  "/run", "/home", "/opt",
	    "/srv",	"/mnt",	      "/media",	  "/lib",  "/bin", ".",	    NULL};
	bool ok = true;
	for (int i = 0; dirs[i]; i++) {
		DIR *dir = opendir(dirs[i]);
		if (!dir)
			continue;
		struct dirent *de;
		while ((de = readdir(dir))) {
			if (!strstr(de->d_name, g_marker))
				continue;
			char full[1024];
			snprintf(full, sizeof full, "%s/%s", strcmp(dirs[i], "/") ? dirs[i] : "",
				 de->d_name);
			if (strcmp(full, g_secret_path) == 0)
				continue; /* the driver's own plant */
			whyf(why, wl, "marker-absent: %s exists on the host", full);
			ok = false;
		}
		closedir(dir);
	}
	const char *trees[] = {d->dir, getenv("SBX_TEST_TMPDIR")};
	for (size_t i = 0; i < 2; i++) {
		if (!trees[i] || !trees[i][0])
			continue;
		g_scan_hit[0] = '\0';
		nftw(trees[i], scan_visit, 16, FTW_PHYS | FTW_MOUNT);
		if (g_scan_hit[0]) {
			whyf(why, wl, "marker-absent: %s exists on the host", g_scan_hit);
			ok = false;
		}
	}
	return ok;
}

/* secret-not-leaked: the job's output holds none of the secrets. */
static bool secret_not_leaked(const json_t *r, char *why, size_t wl)
{
	bool ok = true;
	const char *streams[] = {"stdout", "stderr", "message"};
	for (size_t i = 0; i < 3; i++) {
		const char *s = streams[i];
		if (jhas(r, s, g_secret)) {
			whyf(why, wl,
			     "secret-not-leaked: the planted secret file's content is in the "
			     "output");
			ok = false;
		}
		if (jhas(r, s, g_env_secret)) {
			whyf(why, wl,
			     "secret-not-leaked: the daemon's environment is in the output");
			ok = false;
		}
		if (g_shadow_hash[0] && jhas(r, s, g_shadow_hash)) {
			whyf(why, wl,
			     "secret-not-leaked: root's hash from /etc/shadow is in the output");
			ok = false;
		}
	}
	return ok;
}

/* canary-intact: the secret the driver planted is as it was, no host file a
 * program appends to holds the marker, and the host name is unchanged. */
static bool canary_intact(char *why, size_t wl)
{
	bool ok = true;
	struct stat st;
	char *s = NULL;
	if (lstat(g_secret_path, &st) < 0 || !S_ISREG(st.st_mode) || !(s = slurp(g_secret_path)) ||
	    strcmp(s, g_secret) != 0) {
		whyf(why, wl, "canary-intact: %s is gone or changed", g_secret_path);
		ok = false;
	}
	free(s);
	for (size_t i = 0; i < sizeof g_host_file_names / sizeof g_host_file_names[0]; i++) {
		char *now = slurp(g_host_file_names[i]);
		if (now && strstr(now, g_marker)) {
			whyf(why, wl, "canary-intact: the host's %s holds the marker",
			     g_host_file_names[i]);
			ok = false;
		}
		free(now);
	}
	char hn[256] = "";
	gethostname(hn, sizeof hn);
	if (strcmp(hn, g_hostname) != 0) {
		whyf(why, wl, "canary-intact: the host name changed to '%s'", hn);
		ok = false;
	}
	return ok;
}

/* listener-untouched / abstract-untouched: nothing is waiting to be accepted.
 * A pending connection is accepted and closed, so the next check starts clean. */
static bool listener_untouched(int fd, const char *what, char *why, size_t wl)
{
	if (fd < 0)
		return true;
	bool ok = true;
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, 0) <= 0)
			break;
		int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c < 0)
			break;
		close(c);
		if (ok)
			whyf(why, wl, "%s: the host's listener received a connection", what);
		ok = false;
	}
	return ok;
}

/* Processes whose command line holds the marker (other than this one). */
static int marker_procs(char *desc, size_t dl)
{
	int n = 0;
	DIR *dir = opendir("/proc");
	if (desc && dl)
		desc[0] = '\0';
	if (!dir)
		return 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		char path[64], buf[4096];
		snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		for (ssize_t i = 0; i < r; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[r] = '\0';
		if (strstr(buf, g_marker) && td_pid_alive((pid_t)pid)) {
			n++;
			if (desc && strlen(desc) + 80 < dl)
				snprintf(desc + strlen(desc), dl - strlen(desc), "%spid %ld: %.60s",
					 desc[0] ? "; " : "", pid, buf);
		}
	}
	closedir(dir);
	return n;
}

/* no-leftover: no process of the daemon's job uids and none carrying the
 * marker, once a short grace has passed. */
static bool no_leftover(const struct test_daemon *d, char *why, size_t wl)
{
	char desc[1024];
	bool ok = true;
	int n = td_wait_no_uid_procs(d->uid_base, d->uid_base + (uid_t)d->workers - 1,
				     LEFTOVER_GRACE_MS, desc, sizeof desc);
	if (n) {
		whyf(why, wl, "no-leftover: %d process(es) of the job uids remain: %s", n, desc);
		ok = false;
	}
	long long deadline = td_now_ms() + LEFTOVER_GRACE_MS;
	while ((n = marker_procs(desc, sizeof desc)) > 0 && td_now_ms() < deadline)
		td_sleep_ms(20);
	if (n) {
		whyf(why, wl, "no-leftover: %d process(es) with the marker remain: %s", n, desc);
		ok = false;
	}
	return ok;
}

/* daemon-alive: still running and answering a ping. */
static bool daemon_alive(struct test_daemon *d, char *why, size_t wl)
{
	int st;
	if (td_exited(d, &st)) {
		whyf(why, wl, "daemon-alive: sandboxd exited (wait status %d)", st);
		return false;
	}
	char err[256];
	struct sbx_conn *c = sbx_connect(d->sock, err, sizeof err);
	json_t *req = json_pack("{s:s,s:s}", "id", "alive?", "op", "ping");
	json_t *r = c ? sbx_call(c, req, 5000, err, sizeof err) : NULL;
	bool ok = r && json_is_string(json_object_get(r, "version"));
	if (!ok)
		whyf(why, wl, "daemon-alive: no answer to a ping (%s)", err);
	json_decref(r);
	json_decref(req);
	if (c)
		sbx_close(c);
	return ok;
}

/* jail-passwd: the output shows the jail's passwd (the job user as sandbox)
 * and no line of the host's that the jail's does not have. */
static bool jail_passwd(const json_t *r, const char *host_passwd, char *why, size_t wl)
{
	if (!jhas(r, "stdout", "sandbox:")) {
		whyf(why, wl, "jail-passwd: the output lacks the jail's 'sandbox:' line");
		return false;
	}
	bool ok = true;
	char *copy = xstrdup(host_passwd);
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		if (strlen(line) < 8 || strncmp(line, "sandbox:", 8) == 0 ||
		    strcmp(line, "root:x:0:0:root:/root:/usr/sbin/nologin") == 0)
			continue; /* lines the jail writes itself */
		if (jhas(r, "stdout", line)) {
			whyf(why, wl, "jail-passwd: the host's line '%s' is in the output", line);
			ok = false;
			break;
		}
	}
	free(copy);
	return ok;
}

/* ipc-clean: no SysV IPC object of the host has one of the keys the
 * programs use (0x5bd0-0x5bdf): a job's objects live in its own IPC
 * namespace. */
#define IPC_KEY_LO 0x5bd0
#define IPC_KEY_HI 0x5bdf
static bool ipc_clean(char *why, size_t wl)
{
	static const char *const files[] = {"/proc/sysvipc/shm", "/proc/sysvipc/sem",
					    "/proc/sysvipc/msg"};
	bool ok = true;
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(files[i], "r");
		if (!f)
			continue;
		char line[512];
		while (fgets(line, sizeof line, f)) {
			long long key;
			if (sscanf(line, "%lld", &key) == 1 && key >= IPC_KEY_LO &&
			    key <= IPC_KEY_HI) {
				whyf(why, wl, "ipc-clean: the host's %s has key 0x%llx", files[i],
				     key);
				ok = false;
			}
		}
		fclose(f);
	}
	return ok;
}

/* The usr-submount setup: a world-writable tmpfs mounted below /usr on the
 * host, as a separately mounted /usr/local or /usr/share would be. */
static void submount_remove(void)
{
	if (umount2(g_submount, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		fprintf(stderr, "test_hostile: umount %s: %s\n", g_submount, strerror(errno));
	rmdir(g_submount);
}

static int submount_create(char *why, size_t wl)
{
	submount_remove();
	if (mkdir(g_submount, 0755) < 0 ||
	    mount("tmpfs", g_submount, "tmpfs", 0, "size=1m,mode=1777") < 0) {
		whyf(why, wl, "setup usr-submount: %s: %s", g_submount, strerror(errno));
		rmdir(g_submount);
		return -1;
	}
	return 0;
}

/* submount-untouched: the host's tmpfs below /usr is still empty. */
static bool submount_untouched(char *why, size_t wl)
{
	DIR *dir = opendir(g_submount);
	if (!dir) {
		whyf(why, wl, "submount-untouched: %s: %s", g_submount, strerror(errno));
		return false;
	}
	bool ok = true;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		whyf(why, wl, "submount-untouched: the job created %s/%s on the host", g_submount,
		     de->d_name);
		ok = false;
	}
	closedir(dir);
	return ok;
}

/* victim-survived: the victim job that ran next to the program passed. */
static bool victim_survived(const json_t *v, char *why, size_t wl)
{
	const char *verdict = v ? sget(v, "verdict") : NULL;
	const char *out = v ? sget(v, "stdout") : NULL;
	if (!verdict || strcmp(verdict, "pass") != 0 || !jhas(v, "stdout", "survived")) {
		whyf(why, wl, "victim-survived: the victim job ended %s (%s), stdout '%s'",
		     verdict ? verdict : "without a response", v ? sget(v, "message") : "",
		     out ? out : "");
		return false;
	}
	return true;
}

static const char *const g_checks[] = {"disk-unchanged",
				       "marker-absent",
				       "secret-not-leaked",
				       "canary-intact",
				       "listener-untouched",
				       "abstract-untouched",
				       "no-leftover",
				       "daemon-alive",
				       "jail-passwd",
				       "victim-survived",
				       "ipc-clean",
				       "submount-untouched",
				       NULL};

static bool is_host_check(const char *name)
{
	for (int i = 0; g_checks[i]; i++)
		if (strcmp(g_checks[i], name) == 0)
			return true;
	return false;
}

static void run_host_checks(struct prog *p, struct test_daemon *d, const struct disk *before)
{
	char *why = p->why;
	size_t wl = sizeof p->why;
	for (int i = 0; i < p->nhost; i++) {
		const char *c = p->host[i];
		if (strcmp(c, "disk-unchanged") == 0) {
			struct disk after;
			disk_snapshot(&after);
			disk_compare(before, &after, why, wl);
		} else if (strcmp(c, "marker-absent") == 0) {
			marker_absent(d, why, wl);
		} else if (strcmp(c, "secret-not-leaked") == 0) {
			if (p->resp)
				secret_not_leaked(p->resp, why, wl);
		} else if (strcmp(c, "canary-intact") == 0) {
			canary_intact(why, wl);
		} else if (strcmp(c, "listener-untouched") == 0) {
			listener_untouched(g_listen_fd, c, why, wl);
			listener_untouched(g_listen6_fd, c, why, wl);
		} else if (strcmp(c, "abstract-untouched") == 0) {
			listener_untouched(g_abstract_fd, c, why, wl);
		} else if (strcmp(c, "no-leftover") == 0) {
			no_leftover(d, why, wl);
		} else if (strcmp(c, "daemon-alive") == 0) {
			daemon_alive(d, why, wl);
		} else if (strcmp(c, "jail-passwd") == 0) {
			if (p->resp)
				jail_passwd(p->resp, g_host_passwd, why, wl);
		} else if (strcmp(c, "victim-survived") == 0) {
			victim_survived(p->victim_resp, why, wl);
		} else if (strcmp(c, "ipc-clean") == 0) {
			ipc_clean(why, wl);
		} else if (strcmp(c, "submount-untouched") == 0) {
			submount_untouched(why, wl);
		}
	}
}

/* --- running ------------------------------------------------------------- */

struct report {
	char *fails; /* the failing lines, for the assertion message */
	size_t flen;
	int npass, nfail, nskip;
	char *table; /* every line */
	size_t tlen;
};

static void append(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = NULL;
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	char *nb = realloc(*buf, *len + (size_t)n + 1);
	ck_assert_ptr_nonnull(nb);
	memcpy(nb + *len, line, (size_t)n + 1);
	*buf = nb;
	*len += (size_t)n;
	free(line);
}

static void report_prog(struct report *rep, const struct prog *p)
{
	const json_t *r = p->resp;
	const char *code = sget(json_object_get(r, "error"), "code");
	char verdict[96], hit[32] = "-";
	if (code)
		snprintf(verdict, sizeof verdict, "error:%s", code);
	else
		snprintf(verdict, sizeof verdict, "%s",
			 r && sget(r, "verdict") ? sget(r, "verdict") : "-");
	if (r && json_is_string(json_object_get(r, "limit_hit")))
		snprintf(hit, sizeof hit, "%s", sget(r, "limit_hit"));
	const char *sc = sget(json_object_get(r, "violation"), "syscall");
	bool ok = p->why[0] == '\0', skipped = ok && p->skip[0];
	const char *status = skipped ? "SKIP" : ok ? "PASS" : "FAIL";
	char line[6000];
	snprintf(line, sizeof line, "%-28s %-15s %-7s %-17s %-4s %s\n", p->name, verdict, hit,
		 sc ? sc : "-", status, ok ? p->skip : p->why);
	append(&rep->table, &rep->tlen, "%s", line);
	if (isatty(2))
		fprintf(stderr, "%s", line);
	if (skipped) {
		rep->nskip++;
	} else if (ok) {
		rep->npass++;
	} else {
		rep->nfail++;
		append(&rep->fails, &rep->flen, "  %s", line);
	}
}

/* Submits the batch (and a victim when one program needs it), waits for
 * every answer, then runs the host checks of each program. */
static void run_batch(struct test_daemon *d, struct prog **batch, int n, struct report *rep)
{
	char err[512];
	bool submount = false;
	for (int i = 0; i < n; i++)
		if (batch[i]->setup_submount && !batch[i]->why[0]) {
			if (!submount && submount_create(batch[i]->why, sizeof batch[i]->why) == 0)
				submount = true;
		}
	struct disk before;
	disk_snapshot(&before);
	struct sbx_conn *c = sbx_connect(d->sock, err, sizeof err);
	ck_assert_msg(c != NULL, "connect: %s", err);
	char victim_id[128] = "";
	bool sent[8] = {false};
	for (int i = 0; i < n; i++) {
		struct prog *p = batch[i];
		if (p->why[0])
			continue; /* broken header: not run */
		if (has_host(p, "victim-survived")) {
			snprintf(victim_id, sizeof victim_id, "victim-of-%s", p->name);
			json_t *v = json_pack("{s:s,s:s,s:{s:i}}", "id", victim_id, "code",
					      VICTIM_CODE, "limits", "wall_ms", 15000);
			ck_assert_int_eq(sbx_submit(c, v, err, sizeof err), 0);
			json_decref(v);
		}
		json_t *req = prog_request(p);
		sent[i] = sbx_submit(c, req, err, sizeof err) == 0;
		if (!sent[i])
			whyf(p->why, sizeof p->why, "submit: %s", err);
		json_decref(req);
	}
	for (int i = 0; i < n; i++) {
		struct prog *p = batch[i];
		if (!sent[i])
			continue;
		p->resp = sbx_wait(c, p->name, CALL_MS, err, sizeof err);
		if (!p->resp)
			whyf(p->why, sizeof p->why, "no response: %s", err);
		if (victim_id[0] && has_host(p, "victim-survived"))
			p->victim_resp = sbx_wait(c, victim_id, CALL_MS, err, sizeof err);
	}
	sbx_close(c);
	for (int i = 0; i < n; i++) {
		struct prog *p = batch[i];
		if (sent[i]) {
			check_requirements(p);
			if (!p->skip[0])
				check_response(p);
			run_host_checks(p, d, &before);
		}
		report_prog(rep, p);
	}
	if (submount)
		submount_remove();
}

static bool selected(const char *name)
{
	const char *only = getenv("SBX_HOSTILE_ONLY");
	return !only || !*only || strstr(name, only);
}

/* The program files (sorted), persist_* ones either only or excluded. */
static glob_t list_programs(void)
{
	char pat[128];
	snprintf(pat, sizeof pat, "%s/*.py", g_dir);
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	ck_assert_msg(rc == 0 && g.gl_pathc > 0, "no hostile programs match %s", pat);
	return g;
}

static bool is_persist(const char *path)
{
	const char *base = strrchr(path, '/');
	return strncmp(base ? base + 1 : path, "persist_", 8) == 0;
}

/* A daemon with --workers N (and SBX_TEST_DAEMON_ARGS, which the helper adds). */
static void start_daemon(struct test_daemon *d, const char *workers)
{
	const char *args[] = {"--workers", workers, NULL};
	ck_assert_msg(td_startv(d, args) == 0, "starting sandboxd: %s", d->err);
}

/* The leading comment lines of a program have a "# requires:" header. */
static bool has_requires(const char *path)
{
	char *src = slurp(path);
	bool found = false;
	for (char *l = src; l && *l == '#' && !found;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		found = strncmp(l, "# requires:", 11) == 0;
	free(src);
	return found;
}

static void finish(struct report *rep, const char *what)
{
	printf("%-28s %-15s %-7s %-17s %-4s %s\n", "PROGRAM", "VERDICT", "HIT", "VIOLATION", "OK",
	       "WHY NOT");
	if (rep->fails)
		printf("%s", rep->fails);
	printf("%s", rep->table ? rep->table : "");
	printf("%s: %d held, %d not held, %d skipped\n", what, rep->npass, rep->nfail, rep->nskip);
	fflush(stdout);
	ck_assert_msg(rep->nfail == 0, "%d hostile program(s) not held:\n%s", rep->nfail,
		      rep->fails);
	free(rep->fails);
	free(rep->table);
}

START_TEST(test_hostile_programs)
{
#ifndef __x86_64__
	SKIP_TEST("the hostile programs use x86_64 syscall numbers and machine code");
#endif
	struct test_daemon d;
	start_daemon(&d, "2");
	glob_t g = list_programs();
	struct report rep = {0};
	struct prog *progs = calloc(g.gl_pathc, sizeof *progs);
	ck_assert_ptr_nonnull(progs);
	struct prog *batch[2], *xjob[2];
	int nb = 0, nx = 0, total = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (is_persist(g.gl_pathv[i]))
			continue;
		struct prog *p = &progs[i];
		prog_load(p, g.gl_pathv[i], &d);
		if (!selected(p->name) || p->nreq)
			continue; /* a requires header: test_hostile_requiring */
		total++;
		if (strncmp(p->name, "xjob_", 5) == 0) {
			if (nx < 2)
				xjob[nx++] = p;
			else
				whyf(p->why, sizeof p->why, "more than two xjob_* programs");
			continue;
		}
		/* A program that needs a victim or a setup runs alone. */
		if (has_host(p, "victim-survived") || p->setup_submount) {
			if (nb)
				run_batch(&d, batch, nb, &rep);
			nb = 0;
			run_batch(&d, &p, 1, &rep);
			continue;
		}
		batch[nb++] = p;
		if (nb == 2) {
			run_batch(&d, batch, nb, &rep);
			nb = 0;
		}
	}
	if (nb)
		run_batch(&d, batch, nb, &rep);
	if (nx)
		run_batch(&d, xjob, nx, &rep);
	for (size_t i = 0; i < g.gl_pathc; i++)
		prog_free(&progs[i]);
	free(progs);
	globfree(&g);
	char why[512] = "";
	if (!daemon_alive(&d, why, sizeof why))
		rep.nfail++, append(&rep.fails, &rep.flen, "  after the suite: %s\n", why);
	int st = td_stop(&d, 10000);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		rep.nfail++,
		    append(&rep.fails, &rep.flen,
			   "  after the suite: sandboxd did not exit 0 on SIGTERM (%d)\n", st);
	td_cleanup(&d);
	if (!getenv("SBX_HOSTILE_ONLY") && total < 30)
		rep.nfail++,
		    append(&rep.fails, &rep.flen, "  only %d programs (at least 30)\n", total);
	finish(&rep, "hostile programs");
}
END_TEST

/* A program with a requires header: alone, on a daemon of its own, so that
 * a skip is the skip of one Check test (see the top of the file). */
START_TEST(test_hostile_requiring)
{
#ifndef __x86_64__
	SKIP_TEST("the hostile programs use x86_64 syscall numbers and machine code");
#endif
	const char *name = g_req_progs[_i];
	char path[256];
	snprintf(path, sizeof path, "%s/%s", g_dir, name);
	struct test_daemon d;
	start_daemon(&d, "2");
	struct report rep = {0};
	struct prog p;
	prog_load(&p, path, &d);
	if (!p.why[0] && !p.nreq)
		whyf(p.why, sizeof p.why, "no requires header any more");
	struct prog *pp = &p;
	run_batch(&d, &pp, 1, &rep);
	char why[512] = "", skip[sizeof p.skip] = "";
	if (!daemon_alive(&d, why, sizeof why))
		rep.nfail++, append(&rep.fails, &rep.flen, "  after %s: %s\n", name, why);
	int st = td_stop(&d, 10000);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		rep.nfail++,
		    append(&rep.fails, &rep.flen,
			   "  after %s: sandboxd did not exit 0 on SIGTERM (%d)\n", name, st);
	td_cleanup(&d);
	if (!p.why[0])
		snprintf(skip, sizeof skip, "%s", p.skip);
	prog_free(&p);
	finish(&rep, name);
	if (skip[0])
		sbx_skip_report(name, "%s", skip);
}
END_TEST

/* persist_*: one at a time, in name order, on a one-worker daemon, so each
 * runs in the slot (and as the uid) the previous one used. */
START_TEST(test_hostile_persist)
{
#ifndef __x86_64__
	SKIP_TEST("the hostile programs use x86_64 syscall numbers and machine code");
#endif
	struct test_daemon d;
	start_daemon(&d, "1");
	glob_t g = list_programs();
	struct report rep = {0};
	int n = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (!is_persist(g.gl_pathv[i]))
			continue;
		struct prog p;
		prog_load(&p, g.gl_pathv[i], &d);
		if (selected(p.name)) {
			struct prog *pp = &p;
			run_batch(&d, &pp, 1, &rep);
			n++;
		}
		prog_free(&p);
	}
	globfree(&g);
	td_stop(&d, 10000);
	td_cleanup(&d);
	if (!getenv("SBX_HOSTILE_ONLY") && n < 2)
		rep.nfail++, append(&rep.fails, &rep.flen, "  only %d persist_* programs\n", n);
	finish(&rep, "persistence programs");
}
END_TEST

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

static void abstract_addr(struct sockaddr_un *sa, socklen_t *len)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, "sbx-%s", g_marker);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
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

	/* daemon-alive: a killed daemon is seen. */
	why[0] = '\0';
	ck_assert_msg(daemon_alive(&d, why, sizeof why), "daemon-alive before the control: %s",
		      why);
	td_kill(&d);
	ck_assert_msg(!daemon_alive(&d, why, sizeof why), "daemon-alive missed a dead daemon");
	td_cleanup(&d);
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

/* --- run-wide setup ------------------------------------------------------- */

static int listen_tcp(int family, int port)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	int rc;
	if (family == AF_INET) {
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	} else {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
		struct sockaddr_in6 sa = {.sin6_family = AF_INET6,
					  .sin6_port = htons((uint16_t)port),
					  .sin6_addr = IN6ADDR_LOOPBACK_INIT};
		rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	}
	if (rc < 0 || listen(fd, 64) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int setup(void)
{
	random_hex(g_marker + 4, 8);
	memcpy(g_marker, "sbxh", 4);
	random_hex(g_secret, 24);
	random_hex(g_env_secret, 24);
	snprintf(g_secret_path, sizeof g_secret_path, "/root/sbx-secret-%s", g_marker);
	if (write_file(g_secret_path, g_secret, 0600) < 0) {
		fprintf(stderr, "test_hostile: planting %s: %s\n", g_secret_path, strerror(errno));
		return -1;
	}
	/* Every daemon this process starts inherits it (the job's init is a
	 * fork of the daemon, so its environment is in that init's memory). */
	setenv("SBX_HOSTILE_ENV_SECRET", g_env_secret, 1);

	char *shadow = slurp("/etc/shadow");
	if (shadow && strncmp(shadow, "root:", 5) == 0) {
		size_t n = strcspn(shadow + 5, ":\n");
		if (n >= 13 && n < sizeof g_shadow_hash) /* a real hash, not '*' or '!' */
			memcpy(g_shadow_hash, shadow + 5, n);
	}
	free(shadow);
	g_host_passwd = slurp("/etc/passwd");
	if (!g_host_passwd)
		g_host_passwd = strdup("");
	gethostname(g_hostname, sizeof g_hostname);

	/* The host listeners the jobs must not reach. */
	for (int tries = 0; tries < 50 && g_listen_fd < 0; tries++) {
		char hex[8];
		random_hex(hex, 2);
		g_port = 20000 + (int)(strtoul(hex, NULL, 16) % 40000);
		g_listen_fd = listen_tcp(AF_INET, g_port);
	}
	if (g_listen_fd < 0) {
		fprintf(stderr, "test_hostile: no TCP port to listen on\n");
		return -1;
	}
	g_listen6_fd = listen_tcp(AF_INET6, g_port); /* best effort: no IPv6 is fine */
	struct sockaddr_un sa;
	socklen_t salen;
	abstract_addr(&sa, &salen);
	g_abstract_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (g_abstract_fd < 0 || bind(g_abstract_fd, (struct sockaddr *)&sa, salen) < 0 ||
	    listen(g_abstract_fd, 16) < 0) {
		fprintf(stderr, "test_hostile: abstract socket: %s\n", strerror(errno));
		return -1;
	}
	snprintf(g_submount, sizeof g_submount, "/usr/local/sbx-hostile-submount.%d",
		 (int)getpid());
	const char *dir = getenv("SBX_HOSTILE_DIR");
	if (dir && *dir)
		snprintf(g_dir, sizeof g_dir, "%s", dir);

	/* Test-only overrides (see the top of the file). */
	const char *o = getenv("SBX_TEST_ASSUME_NO_IA32");
	g_assume_no_ia32 = o && *o && strcmp(o, "0") != 0;
	const char *extra = getenv("SBX_TEST_DAEMON_ARGS");
	if (extra && *extra)
		fprintf(stderr, "test_hostile: every daemon gets %s (SBX_TEST_DAEMON_ARGS)\n",
			extra);

	/* The machine, as the requires headers ask (g_reqs[]). */
	g_have_ia32 = sbx_have_ia32(g_ia32_why, sizeof g_ia32_why);
	g_have_mount_setattr =
	    sbx_have_mount_setattr(g_mount_setattr_why, sizeof g_mount_setattr_why);

	/* The programs with a requires header: one test iteration each. */
	char pat[128];
	snprintf(pat, sizeof pat, "%s/*.py", g_dir);
	glob_t g;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && g_nreq_progs < MAX_REQ_PROGS; i++) {
			const char *base = strrchr(g.gl_pathv[i], '/');
			base = base ? base + 1 : g.gl_pathv[i];
			if (is_persist(g.gl_pathv[i]) || !selected(base) ||
			    !has_requires(g.gl_pathv[i]))
				continue;
			snprintf(g_req_progs[g_nreq_progs++], sizeof g_req_progs[0], "%s", base);
		}
		globfree(&g);
	}
	return 0;
}

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *t = tcase_create("controls");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_host_check_controls);
	tcase_add_test(t, test_requirement_controls);
	suite_add_tcase(s, t);
	t = tcase_create("programs");
	tcase_set_timeout(t, 420);
	tcase_add_test(t, test_hostile_programs);
	tcase_add_test(t, test_hostile_persist);
	suite_add_tcase(s, t);
	if (g_nreq_progs > 0) {
		t = tcase_create("requiring");
		tcase_set_timeout(t, 120);
		tcase_add_loop_test(t, test_hostile_requiring, 0, g_nreq_progs);
		suite_add_tcase(s, t);
	}
	return s;
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_hostile: must run as root (sandboxd does)\n");
		return 1;
	}
	if (access(td_binary(), X_OK) < 0) {
		fprintf(stderr, "test_hostile: %s: %s\n", td_binary(), strerror(errno));
		return 1;
	}
	char base[] = "/tmp/sbx-hostile.XXXXXX";
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("SBX_TEST_TMPDIR", base, 1);
	int failed = 1;
	if (setup() == 0) {
		SRunner *sr = srunner_create(hostile_suite());
		srunner_run_all(sr, CK_NORMAL);
		failed = srunner_ntests_failed(sr);
		srunner_free(sr);
	}
	unlink(g_secret_path);
	submount_remove();
	td_rmtree(base);
	return failed ? 1 : 0;
}
