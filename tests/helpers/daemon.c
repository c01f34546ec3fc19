/* Test helper: start, probe and stop a real sandboxd. See daemon.h. */
#include "tests/helpers/daemon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "sandboxd/server/sockpath.h"

#define READY_TIMEOUT_MS 10000

static void set_err(struct test_daemon *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof d->err, fmt, ap);
	va_end(ap);
}

long long td_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void td_sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

const char *td_build_dir(void)
{
	const char *b = getenv("SBX_BUILD");
	return b && *b ? b : "build";
}

const char *td_binary(void)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/sandboxd", td_build_dir());
	return path;
}

/* The value of the last `name` among the arguments (the daemon takes the
 * last one given too). */
static const char *find_arg(const char *const *extra, const char *name)
{
	const char *v = NULL;
	for (int i = 0; extra && extra[i]; i++)
		if (strcmp(extra[i], name) == 0 && extra[i + 1])
			v = extra[i + 1];
	return v;
}

int td_usable_cpus(void)
{
	/* Grows the set until it holds the kernel's CPU mask (machines with
	 * more than CPU_SETSIZE CPUs). */
	for (int n = 1024; n <= (1 << 20); n *= 2) {
		cpu_set_t *set = CPU_ALLOC((size_t)n);
		if (!set)
			break;
		size_t size = CPU_ALLOC_SIZE((size_t)n);
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) == 0) {
			int c = CPU_COUNT_S(size, set);
			CPU_FREE(set);
			return c > 0 ? c : 1;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			break;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	return ncpu > 0 ? (int)ncpu : 1;
}

/* Appends the words of $SBX_TEST_DAEMON_ARGS to d->extra (from index n). */
static int add_env_args(struct test_daemon *d, int n)
{
	const char *env = getenv("SBX_TEST_DAEMON_ARGS");
	if (!env || !*env)
		return n;
	char *copy = strdup(env), *save = NULL;
	if (!copy) {
		set_err(d, "SBX_TEST_DAEMON_ARGS: out of memory");
		return -1;
	}
	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (n >= TD_MAX_ARGS) {
			set_err(d, "too many extra arguments with SBX_TEST_DAEMON_ARGS=%s", env);
			free(copy);
			return -1;
		}
		d->extra[n++] = strdup(w);
	}
	free(copy);
	d->extra[n] = NULL;
	return n;
}

/* The last `max` bytes of the log, for error messages. */
static void log_tail(const struct test_daemon *d, char *out, size_t max)
{
	char *log = td_log(d);
	size_t n = strlen(log);
	snprintf(out, max, "%s", n >= max ? log + n - (max - 1) : log);
	free(log);
}

static int launch(struct test_daemon *d)
{
	char uidbuf[32];
	const char *argv[TD_MAX_WRAP + TD_MAX_ARGS + 12];
	int a = 0;
	for (int i = 0; d->wrap[i]; i++)
		argv[a++] = d->wrap[i];
	int bin = a;
	argv[a++] = td_binary();
	argv[a++] = "--socket";
	argv[a++] = d->sock;
	argv[a++] = "--state-dir";
	argv[a++] = d->state;
	if (!find_arg((const char *const *)d->extra, "--uid-base")) {
		snprintf(uidbuf, sizeof uidbuf, "%u", (unsigned)d->uid_base);
		argv[a++] = "--uid-base";
		argv[a++] = uidbuf;
	}
	/* A suite that asked for profiles without preloads (tmain_opts). */
	const char *pol = getenv("SBX_TEST_POLICIES");
	if (pol && *pol && !find_arg((const char *const *)d->extra, "--policies")) {
		argv[a++] = "--policies";
		argv[a++] = pol;
	}
	for (int i = 0; d->extra[i]; i++)
		argv[a++] = d->extra[i];
	argv[a] = NULL;
	if (access(argv[bin], X_OK) < 0) {
		set_err(d, "%s: %s (build it with make all)", argv[bin], strerror(errno));
		return -1;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		set_err(d, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* Die with the test process: a failed assertion must not leave a
		 * root daemon (and its jobs) running. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		int logfd = open(d->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (logfd < 0 || nullfd < 0 || dup2(nullfd, 0) < 0 || dup2(logfd, 1) < 0 ||
		    dup2(logfd, 2) < 0)
			_exit(126);
		/* Nothing of the test process (client sockets, Check's pipes) may
		 * live on in the daemon. */
		if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	d->pid = pid;
	return td_wait_ready(d, READY_TIMEOUT_MS);
}

int td_startv(struct test_daemon *d, const char *const *extra)
{
	return td_startw(d, NULL, extra);
}

int td_startw(struct test_daemon *d, const char *const *wrap, const char *const *extra)
{
	memset(d, 0, sizeof *d);
	for (int i = 0; wrap && wrap[i]; i++) {
		if (i >= TD_MAX_WRAP) {
			set_err(d, "too many words in the wrapper command");
			return -1;
		}
		d->wrap[i] = wrap[i];
	}
	const char *base = getenv("SBX_TEST_TMPDIR");
	snprintf(d->dir, sizeof d->dir, "%s/sbxd.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(d->dir)) {
		set_err(d, "mkdtemp %s: %s", d->dir, strerror(errno));
		d->dir[0] = '\0';
		return -1;
	}
	if (strlen(d->dir) > 100) { /* sun_path holds 108 bytes */
		set_err(d, "socket path under %s too long", d->dir);
		return -1;
	}
	snprintf(d->sock, sizeof d->sock, "%.100s/sock", d->dir);
	snprintf(d->state, sizeof d->state, "%s/state", d->dir);
	snprintf(d->log, sizeof d->log, "%s/log", d->dir);
	int n = 0;
	for (; extra && extra[n]; n++) {
		if (n >= TD_MAX_ARGS) {
			set_err(d, "too many extra arguments");
			return -1;
		}
		d->extra[n] = strdup(extra[n]);
	}
	d->extra[n] = NULL;
	if (add_env_args(d, n) < 0)
		return -1;
	const char *const *all = (const char *const *)d->extra;
	const char *w = find_arg(all, "--workers"), *u = find_arg(all, "--uid-base");
	/* The daemon's own default is the number of CPUs; td_wait_ready then
	 * takes the count the daemon reports. */
	d->workers = w ? atoi(w) : td_usable_cpus();
	/* A uid range of its own, so neither a concurrent run nor a leftover can
	 * show up in a uid scan (or make the daemon refuse the range): 1024 uids,
	 * three per worker slot at the daemon's --workers maximum of 256. */
	/* Each daemon a test starts gets its own range (a fork server lives as
	 * long as its daemon, so two daemons of one test must not share). */
	static unsigned nth;
	d->uid_base =
	    u ? (uid_t)strtoul(u, NULL, 10)
	      : (uid_t)(200000u + (((unsigned)getpid() % 100000u) * 4u + nth++ % 4u) * 1024u);
	if (launch(d) == 0)
		return 0;
	/* A daemon that never served leaves no directory behind (the tail of
	 * its log is in d->err). */
	td_rmtree(d->dir);
	d->dir[0] = '\0';
	return -1;
}

int td_start(struct test_daemon *d, ...)
{
	const char *args[TD_MAX_ARGS + 1];
	int n = 0;
	va_list ap;
	va_start(ap, d);
	const char *s;
	while ((s = va_arg(ap, const char *)) != NULL && n < TD_MAX_ARGS)
		args[n++] = s;
	va_end(ap);
	args[n] = NULL;
	return td_startv(d, args);
}

int td_restart(struct test_daemon *d)
{
	if (d->pid > 0) {
		set_err(d, "td_restart: the daemon (pid %d) is still running", (int)d->pid);
		return -1;
	}
	d->err[0] = '\0';
	return launch(d);
}

bool td_exited(struct test_daemon *d, int *status)
{
	if (d->pid <= 0)
		return true;
	int st = 0;
	pid_t w = waitpid(d->pid, &st, WNOHANG);
	if (w == d->pid) {
		d->pid = 0;
		if (status)
			*status = st;
		return true;
	}
	return false;
}

/* The daemon answers a ping; its "workers" count goes to *workers. */
static bool ping_ok(const char *sock, int *workers)
{
	char err[256];
	struct sbx_conn *c = sbx_connect(sock, err, sizeof err);
	if (!c)
		return false;
	json_t *req = json_pack("{s:s,s:s}", "id", "td-ready", "op", "ping");
	json_t *r = req ? sbx_call(c, req, 1000, err, sizeof err) : NULL;
	bool ok = r && json_is_string(json_object_get(r, "version"));
	json_t *w = json_object_get(r, "workers");
	if (ok && json_is_integer(w) && json_integer_value(w) > 0 &&
	    json_integer_value(w) <= 100000)
		*workers = (int)json_integer_value(w);
	json_decref(r);
	json_decref(req);
	sbx_close(c);
	return ok;
}

int td_wait_ready(struct test_daemon *d, int timeout_ms)
{
	long long deadline = td_now_ms() + timeout_ms;
	for (;;) {
		int st = 0;
		if (td_exited(d, &st)) {
			char tail[600];
			log_tail(d, tail, sizeof tail);
			set_err(d, "sandboxd exited before serving (%s %d); log:\n%s",
				WIFEXITED(st) ? "status" : "signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), tail);
			return -1;
		}
		if (ping_ok(d->sock, &d->workers))
			return 0;
		if (td_now_ms() > deadline) {
			char tail[600];
			log_tail(d, tail, sizeof tail);
			set_err(d, "sandboxd did not answer a ping on %s within %d ms; log:\n%s",
				d->sock, timeout_ms, tail);
			td_kill(d);
			return -1;
		}
		td_sleep_ms(5);
	}
}

int td_kill(struct test_daemon *d)
{
	if (d->pid <= 0)
		return -1;
	int st = -1;
	kill(d->pid, SIGKILL);
	while (waitpid(d->pid, &st, 0) < 0 && errno == EINTR)
		;
	d->pid = 0;
	return st;
}

int td_stop(struct test_daemon *d, int timeout_ms)
{
	if (d->pid <= 0) {
		set_err(d, "td_stop: not running");
		return -1;
	}
	kill(d->pid, SIGTERM);
	long long deadline = td_now_ms() + timeout_ms;
	int st = 0;
	while (td_now_ms() <= deadline) {
		if (td_exited(d, &st))
			return st;
		td_sleep_ms(5);
	}
	set_err(d, "sandboxd did not exit within %d ms of SIGTERM; killed", timeout_ms);
	td_kill(d);
	return -1;
}

char *td_log(const struct test_daemon *d)
{
	FILE *f = fopen(d->log, "r");
	char *buf = NULL;
	size_t len = 0;
	if (f) {
		size_t cap = 0;
		for (;;) {
			if (len + 4096 + 1 > cap) {
				cap = cap ? cap * 2 : 8192;
				char *nb = realloc(buf, cap);
				if (!nb)
					break;
				buf = nb;
			}
			size_t r = fread(buf + len, 1, cap - len - 1, f);
			len += r;
			if (r == 0)
				break;
		}
		fclose(f);
	}
	if (!buf)
		return strdup("");
	buf[len] = '\0';
	return buf;
}

bool td_log_contains(const struct test_daemon *d, const char *needle)
{
	char *log = td_log(d);
	bool yes = strstr(log, needle) != NULL;
	free(log);
	return yes;
}

int td_wait_warm(struct test_daemon *d, int timeout_ms)
{
	for (int i = 0; i < TD_MAX_ARGS && d->extra[i]; i++)
		if (strcmp(d->extra[i], "--cold") == 0)
			return 0;
	long long deadline = td_now_ms() + timeout_ms;
	long long ready = -1;
	while (td_now_ms() <= deadline) {
		int fd = td_raw_connect(d->sock);
		static const char req[] = "{\"id\":\"warm?\",\"op\":\"ping\"}\n";
		json_t *p = fd >= 0 && td_raw_send(fd, req, sizeof req - 1) == 0
				? td_raw_read_json(fd, 5000)
				: NULL;
		if (fd >= 0)
			close(fd);
		json_t *v = p ? json_object_get(p, "warm_ready") : NULL;
		json_t *k = p ? json_object_get(p, "warm_servers") : NULL;
		ready = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
		long long kept = json_is_integer(k) ? (long long)json_integer_value(k) : -1;
		json_decref(p);
		if (kept >= 2LL * d->workers && ready >= kept)
			return 0;
		td_sleep_ms(50);
	}
	set_err(d, "%lld fork servers ready after %d ms (%d workers)", ready, timeout_ms,
		d->workers);
	return -1;
}

/* The cgroups of a daemon that was killed stay behind (a daemon removes
 * its stale ones only when started again on the same socket, which a test's
 * temporary socket never is), and every one slows the kernel's next CPU
 * quota write. */
static char g_sweep[40];
static int sweep_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	size_t n = strlen(g_sweep);
	if (flag != FTW_DP || strncmp(path + f->base, g_sweep, n) != 0 ||
	    (path[f->base + n] != '-' && path[f->base + n] != '\0'))
		return 0;
	char procs[PATH_MAX + 16];
	snprintf(procs, sizeof procs, "%s/cgroup.procs", path);
	for (int tries = 0; tries < 50 && rmdir(path) < 0 && errno == EBUSY; tries++) {
		FILE *p = fopen(procs, "re");
		for (int pid; p && fscanf(p, "%d", &pid) == 1;)
			kill(pid, SIGKILL);
		if (p)
			fclose(p);
		td_sleep_ms(10);
	}
	return 0;
}

static void sweep_cgroups(const struct test_daemon *d)
{
	char *log = td_log(d);
	/* A daemon whose last start ended in a clean stop removed its own. */
	const char *last = log ? strstr(log, "sandboxd: serving ") : NULL;
	for (const char *p = last; p && (p = strstr(p + 1, "sandboxd: serving "));)
		last = p;
	bool clean =
	    last && strstr(last, "sandboxd: stopped") && !strstr(last, "sandboxd: cleanup:");
	if (last && !clean) {
		sockpath_instance(d->sock, g_sweep, sizeof g_sweep);
		nftw("/sys/fs/cgroup", sweep_one, 32, FTW_DEPTH | FTW_PHYS);
	}
	free(log);
}

void td_cleanup(struct test_daemon *d)
{
	/* Stopped as an operator would, so that it removes its cgroups (one
	 * that does not stop in time is killed); what a killed daemon left,
	 * now or earlier in the test, is swept. */
	if (d->pid > 0)
		td_stop(d, 3000);
	if (d->dir[0])
		sweep_cgroups(d);
	/* SBX_TEST_KEEP=1 keeps the daemon's directory (its log) for a look. */
	const char *keep = getenv("SBX_TEST_KEEP");
	if (d->dir[0] && !(keep && strcmp(keep, "1") == 0))
		td_rmtree(d->dir);
	d->dir[0] = '\0';
	for (int i = 0; i < TD_MAX_ARGS && d->extra[i]; i++) {
		free(d->extra[i]);
		d->extra[i] = NULL;
	}
}

/* --- /proc scans ---------------------------------------------------------- */

struct proc_info {
	pid_t pid, ppid;
	char name[64];
	char state;
	unsigned long uid[4];
};

static int read_proc(pid_t pid, struct proc_info *pi)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	memset(pi, 0, sizeof *pi);
	pi->pid = pid;
	pi->ppid = -1;
	bool have_uid = false;
	for (char *l = buf; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(l, "Name:", 5) == 0)
			snprintf(pi->name, sizeof pi->name, "%s", l + 5 + strspn(l + 5, " \t"));
		else if (strncmp(l, "State:", 6) == 0)
			pi->state = l[6 + strspn(l + 6, " \t")];
		else if (strncmp(l, "PPid:", 5) == 0)
			pi->ppid = (pid_t)strtol(l + 5, NULL, 10);
		else if (strncmp(l, "Uid:", 4) == 0)
			have_uid = sscanf(l + 4, "%lu %lu %lu %lu", &pi->uid[0], &pi->uid[1],
					  &pi->uid[2], &pi->uid[3]) == 4;
		l = nl ? nl + 1 : NULL;
	}
	return have_uid ? 0 : -1;
}

/* Calls fn for every live (non-zombie) process; stops when fn returns false. */
static void for_each_proc(bool (*fn)(const struct proc_info *, void *), void *arg)
{
	DIR *dir = opendir("/proc");
	if (!dir)
		return;
	struct dirent *de;
	while ((de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		struct proc_info pi;
		if (read_proc((pid_t)pid, &pi) < 0 || pi.state == 'Z' || pi.state == 'X')
			continue;
		if (!fn(&pi, arg))
			break;
	}
	closedir(dir);
}

struct uid_scan {
	uid_t lo, hi;
	int count;
	char *desc;
	size_t desclen, used;
};

static bool uid_visit(const struct proc_info *pi, void *arg)
{
	struct uid_scan *s = arg;
	for (int i = 0; i < 4; i++) {
		if (pi->uid[i] >= s->lo && pi->uid[i] <= s->hi) {
			s->count++;
			if (s->desc && s->used < s->desclen && s->count <= 8) {
				int n =
				    snprintf(s->desc + s->used, s->desclen - s->used,
					     "%spid %d %s uid %lu state %c", s->used ? "; " : "",
					     (int)pi->pid, pi->name, pi->uid[i], pi->state);
				if (n > 0)
					s->used += (size_t)n;
			}
			break;
		}
	}
	return true;
}

int td_count_uid_procs(uid_t lo, uid_t hi, char *desc, size_t desclen)
{
	struct uid_scan s = {.lo = lo, .hi = hi, .desc = desc, .desclen = desclen};
	if (desc && desclen)
		desc[0] = '\0';
	for_each_proc(uid_visit, &s);
	return s.count;
}

int td_wait_no_uid_procs(uid_t lo, uid_t hi, int timeout_ms, char *desc, size_t desclen)
{
	long long deadline = td_now_ms() + timeout_ms;
	for (;;) {
		int n = td_count_uid_procs(lo, hi, desc, desclen);
		if (n == 0 || td_now_ms() > deadline)
			return n;
		td_sleep_ms(10);
	}
}

int td_wait_uid_procs(uid_t lo, uid_t hi, int timeout_ms)
{
	long long deadline = td_now_ms() + timeout_ms;
	for (;;) {
		int n = td_count_uid_procs(lo, hi, NULL, 0);
		if (n > 0 || td_now_ms() > deadline)
			return n;
		td_sleep_ms(10);
	}
}

struct child_scan {
	pid_t parent;
	pid_t *out;
	int max, count;
};

static bool child_visit(const struct proc_info *pi, void *arg)
{
	struct child_scan *s = arg;
	if (pi->ppid == s->parent) {
		if (s->count < s->max)
			s->out[s->count] = pi->pid;
		s->count++;
	}
	return true;
}

int td_children(pid_t parent, pid_t *out, int max)
{
	struct child_scan s = {.parent = parent, .out = out, .max = max};
	for_each_proc(child_visit, &s);
	return s.count;
}

bool td_pid_alive(pid_t pid)
{
	struct proc_info pi;
	return read_proc(pid, &pi) == 0 && pi.state != 'Z' && pi.state != 'X';
}

/* --- raw socket ----------------------------------------------------------- */

int td_raw_connect(const char *sock)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(sock) >= sizeof sa.sun_path)
		return -1;
	strcpy(sa.sun_path, sock);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int td_raw_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Peeks to find the newline and consumes exactly up to it, so bytes of the
 * next line stay in the socket for the next call. */
char *td_raw_read_line(int fd, int timeout_ms, size_t *len_out, bool *eof)
{
	long long deadline = td_now_ms() + timeout_ms;
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap + 1);
	if (eof)
		*eof = false;
	while (buf) {
		int wait = (int)(deadline - td_now_ms());
		if (wait <= 0)
			break;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, wait);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t n = recv(fd, buf + len, cap - len, MSG_PEEK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 && eof)
				*eof = true;
			break;
		}
		char *nl = memchr(buf + len, '\n', (size_t)n);
		size_t take = nl ? (size_t)(nl - (buf + len)) + 1 : (size_t)n;
		ssize_t r = recv(fd, buf + len, take, 0);
		if (r != (ssize_t)take)
			break;
		len += take;
		if (nl) {
			buf[len - 1] = '\0';
			if (len_out)
				*len_out = len - 1;
			return buf;
		}
	}
	free(buf);
	return NULL;
}

json_t *td_raw_read_json(int fd, int timeout_ms)
{
	size_t n;
	char *line = td_raw_read_line(fd, timeout_ms, &n, NULL);
	if (!line)
		return NULL;
	json_error_t je;
	json_t *o = json_loadb(line, n, 0, &je);
	free(line);
	return o;
}

/* --- files ---------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* Best effort: a failure leaves the entry and the walk goes on. */
	if (type == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

int td_rmtree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* --- cgroup mounts -------------------------------------------------------- */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(const char *in, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; in[i] && o + 1 < len; i++) {
		if (in[i] == '\\' && in[i + 1] >= '0' && in[i + 1] <= '3' && in[i + 2] >= '0' &&
		    in[i + 2] <= '7' && in[i + 3] >= '0' && in[i + 3] <= '7') {
			out[o++] = (char)((in[i + 1] - '0') * 64 + (in[i + 2] - '0') * 8 +
					  (in[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = in[i];
		}
	}
	out[o] = '\0';
}

static bool has_option(const char *opts, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, nl) == 0 && (p[nl] == ',' || p[nl] == '\0'))
			return true;
	return false;
}

int td_cgroup_mounts(struct td_cgmounts *m)
{
	memset(m, 0, sizeof *m);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER */
		char root[4096], mnt[4096], fstype[64], super[1024] = "";
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, super) < 1)
			continue;
		struct td_cgmount *slots[5] = {NULL, NULL, NULL, NULL, NULL};
		if (strcmp(fstype, "cgroup2") == 0) {
			slots[0] = &m->v2;
		} else if (strcmp(fstype, "cgroup") == 0) {
			int k = 0;
			if (has_option(super, "memory"))
				slots[k++] = &m->memory;
			if (has_option(super, "pids"))
				slots[k++] = &m->pids;
			if (has_option(super, "cpuacct"))
				slots[k++] = &m->cpuacct;
			if (has_option(super, "cpu"))
				slots[k++] = &m->cpu;
		}
		for (int k = 0; k < 5 && slots[k]; k++) {
			if (slots[k]->path[0])
				continue; /* the first mount of a hierarchy */
			unescape(mnt, slots[k]->path, sizeof slots[k]->path);
			unescape(root, slots[k]->root, sizeof slots[k]->root);
		}
	}
	free(line);
	fclose(f);
	return !!m->v2.path[0] + !!m->memory.path[0] + !!m->pids.path[0] + !!m->cpuacct.path[0] +
	       !!m->cpu.path[0];
}

int td_cgroup_dir(const struct td_cgmount *h, const char *cg, char *out, size_t outlen)
{
	if (!h->path[0] || cg[0] != '/')
		return -1;
	size_t rl = strcmp(h->root, "/") == 0 ? 0 : strlen(h->root);
	if (rl && (strncmp(cg, h->root, rl) != 0 || (cg[rl] != '/' && cg[rl] != '\0')))
		return -1;
	const char *rest = cg + rl;
	if (strcmp(rest, "/") == 0)
		rest = "";
	int n = snprintf(out, outlen, "%s%s", h->path, rest);
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

static int rmdir_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		(void)rmdir(path);
	return 0;
}

void td_cgroup_rmtree(const char *dir)
{
	nftw(dir, rmdir_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
