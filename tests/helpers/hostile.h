/* The hostile-program driver's shared parts, for tests/integration/
 * test_hostile.c (the programs) and test_hostile_controls.c (every check
 * shown able to fail): the program files and their headers, tables included
 * (hostile_prog.c), and the run-wide host state the programs must not reach
 * with the host-side checks (hostile_host.c). The header format and the
 * checks are documented at the top of test_hostile.c. */
#ifndef SBX_HOSTILE_H
#define SBX_HOSTILE_H

#include <glob.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "tests/helpers/daemon.h"

#define CALL_MS 90000 /* the longest a response may take (queue + job) */
#define MAX_HDR 32
#define VICTIM_CODE "import time\ntime.sleep(3)\nprint(\"survived\")\n"
/* setup busy-neighbour: the same client's other job, spinning two CPUs
 * (limit cpus 2; two processes) for three seconds of wall time beside the
 * program. */
#define NEIGHBOUR_CODE                                                                             \
	"import os, time\nt = time.monotonic() + 3\npid = os.fork()\n"                             \
	"while time.monotonic() < t:\n    pass\nif pid == 0:\n    os._exit(0)\n"                   \
	"os.waitpid(pid, 0)\nprint(\"spun\")\n"
/* ipc-clean: the SysV IPC keys the programs use. */
#define IPC_KEY_LO 0x5bd0
#define IPC_KEY_HI 0x5bdf

/* --- run-wide state, set up by hostile_setup() before the suite forks ----- */

extern char g_marker[40];	/* in file names the jobs write; must never reach the host */
extern char g_secret[80];	/* content of /root/sbx-secret-MARKER; never job-visible */
extern char g_env_secret[80];	/* in the daemon's environment */
extern char g_secret_path[128]; /* /root/sbx-secret-MARKER */
extern char g_shadow_hash[256]; /* root's password field in the host's /etc/shadow, if real */
extern char *g_host_passwd;	/* the host's /etc/passwd */
extern int g_listen_fd, g_listen6_fd, g_abstract_fd;
extern int g_port;	     /* of the host's loopback listeners */
extern char g_dir[64];	     /* the programs: tests/hostile, or $SBX_HOSTILE_DIR */
extern char g_submount[128]; /* /usr/local/sbx-hostile-submount.PID */
/* The driver's probes of the machine (requires headers), made once. */
extern bool g_have_ia32, g_have_mount_setattr, g_have_socket_memcg, g_have_ipv6;
extern char g_ia32_why[512], g_mount_setattr_why[256], g_socket_memcg_why[256], g_ipv6_why[256];
extern bool g_assume_no_ia32; /* SBX_TEST_ASSUME_NO_IA32 */

/* Plants the secrets, opens the host listeners, probes the machine; 0, or
 * -1 with the reason on stderr. hostile_teardown undoes what it can. */
int hostile_setup(void);
void hostile_teardown(void);

/* --- the program files (hostile_prog.c) ----------------------------------- */

/* One job: a program file, or one row of its table. */
struct prog {
	char name[96]; /* NAME.py, or NAME.py[ROW] for a table row */
	char *src;     /* after substitution */
	char *expect, *limit_hit, *violation;
	json_t *limits, *files;
	json_t *fetch;		/* "# fetch:": the request's fetch_files */
	char *fetched[MAX_HDR]; /* "# fetched: PATH error" or "PATH = TEXT" */
	int nfetched;
	long stdin_bytes;
	bool setup_submount;
	bool setup_neighbour; /* "# setup: busy-neighbour" */
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

char *xstrdup(const char *s);
/* Appends to a program's failure text ("; " between reasons). */
void whyf(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* o[k] (a string, which may hold NULs: a job can print them) contains needle. */
bool jhas(const json_t *o, const char *k, const char *needle);
/* value is one of the '|'-separated choices in list. */
bool one_of(const char *list, const char *value);

/* Reads path, substitutes the run's tokens (and, for a table row, the row's)
 * and parses the header. A broken header is a failure of that program (in
 * p->why), not of the suite. row: NULL for a plain program. */
void prog_load(struct prog *p, const char *path, const struct test_daemon *d, const json_t *row);
/* Every job of one program file (calloc'd, *n of them): the program, or one
 * per row of its "# table:" file. A table that cannot be used is one failing
 * job named after the file. */
struct prog *prog_load_file(const char *path, const struct test_daemon *d, size_t *n);
void prog_free(struct prog *p);
bool has_host(const struct prog *p, const char *check);
json_t *prog_request(const struct prog *p);
/* The response against the header's expectations (into p->why). */
void check_response(struct prog *p);
/* After the response: the program's probes must agree with the driver's,
 * and an unmet requirement makes the program a skip (p->skip says why). */
void check_requirements(struct prog *p);
bool is_requirement(const char *name);

/* The program files of g_dir (sorted). */
glob_t list_programs(void);
bool is_persist(const char *path);
/* client_*.py: a hostile client run on the host by test_hostile_clients.c
 * (client_lib.py is its helper module), never a job program. */
bool is_client_script(const char *path);
/* The leading comment lines of a program have a "# requires:" header. */
bool has_requires(const char *path);
/* SBX_HOSTILE_ONLY (a substring of the name) selects the program. */
bool selected(const char *name);

/* --- host-side checks (hostile_host.c) ------------------------------------ */

/* disk-unchanged: used bytes and inodes of the host file systems a leaked
 * write could land on. */
#define NDISK 5
struct disk {
	long long used[NDISK], inodes[NDISK];
	bool ok[NDISK];
};
void disk_snapshot(struct disk *s);
bool disk_compare(const struct disk *a, const struct disk *b, char *why, size_t wl);
bool marker_absent(const struct test_daemon *d, char *why, size_t wl);
bool secret_not_leaked(const json_t *r, char *why, size_t wl);
/* fetch-clean: every fetched file (the response's "files") is an error or
 * valid base64 holding none of the secrets, and together they stay within
 * PROTO_FETCH_MAX_BYTES. */
bool fetch_clean(const json_t *r, char *why, size_t wl);
bool canary_intact(char *why, size_t wl);
bool listener_untouched(int fd, const char *what, char *why, size_t wl);
bool no_leftover(const struct test_daemon *d, char *why, size_t wl);
bool daemon_alive(struct test_daemon *d, char *why, size_t wl);
bool ns_released(const struct test_daemon *d, char *why, size_t wl);
bool jail_passwd(const json_t *r, const char *host_passwd, char *why, size_t wl);
bool ipc_clean(char *why, size_t wl);
int submount_create(char *why, size_t wl);
void submount_remove(void);
bool submount_untouched(char *why, size_t wl);
bool victim_survived(const json_t *v, char *why, size_t wl);
bool warm_intact(const struct test_daemon *d, const json_t *r, char *why, size_t wl);
/* sockmem-bounded and kmem-bounded (hostile_sample.c): sample the host-wide
 * TCP+UDP memory and unreclaimable kernel memory from start to stop;
 * bounded: a peak grew by at most limit_mb + a margin. */
long long sample_sockmem_pages(void);
long long sample_kmem_kb(void);
void sample_start(void);
void sample_stop(void);
bool sample_sockmem_bounded(long limit_mb, char *why, size_t wl);
bool sample_kmem_bounded(long limit_mb, char *why, size_t wl);
bool is_host_check(const char *name);
/* The program's host headers, in order (into p->why). */
void run_host_checks(struct prog *p, struct test_daemon *d, const struct disk *before);

/* The abstract socket "\0sbx-MARKER" the jobs must not reach. */
void abstract_addr(struct sockaddr_un *sa, socklen_t *len);
/* Writes a file (O_NOFOLLOW); 0 or -1. */
int write_file(const char *path, const char *content, mode_t mode);
/* A daemon with --workers N (and SBX_TEST_DAEMON_ARGS, which the helper
 * adds), its fork servers ready: 0, or -1 with the reason in d->err (for a
 * caller outside a test, where no assertion may fail). */
int hostile_daemon_up(struct test_daemon *d, const char *workers);
/* The same, failing the test when it cannot. */
void start_daemon(struct test_daemon *d, const char *workers);

#endif
