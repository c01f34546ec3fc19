/* Check-side helpers shared by the integration suites: reading fields of a
 * response, asserting with the whole response in the message, starting and
 * stopping a daemon under assertions, one job on a fresh connection, the
 * daemon's job uids, and how a response says a limit was enforced.
 * Header-only (static inline) so a suite that uses a few of them carries no
 * unused code. */
#ifndef SBX_TCHECK_H
#define SBX_TCHECK_H

#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"

/* The response as text for a failure message (cut at about 3000 bytes). */
static inline char *dump(const json_t *o)
{
	if (!o)
		return strdup("(null)");
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENCODE_ANY);
	if (s && strlen(s) > 3000)
		strcpy(s + 2990, "...[cut]");
	return s ? s : strdup("(unencodable)");
}

static inline const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* An integer field, or -1 when missing or not an integer. */
static inline json_int_t iget(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static inline json_int_t iget2(const json_t *o, const char *a, const char *b)
{
	return iget(json_object_get(o, a), b);
}

static inline bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static inline const char *errcode(const json_t *r)
{
	return sget(json_object_get(r, "error"), "code");
}

/* Asserts cond, printing the whole response when it fails. */
#define CHECK_R(r, cond) ck_assert_msg((cond), "%s -- response: %s", #cond, dump(r))
#define CHECK_RM(r, cond, fmt, ...)                                                                \
	ck_assert_msg((cond), fmt " -- response: %s", __VA_ARGS__, dump(r))

#define START(d, ...)                                                                              \
	do {                                                                                       \
		const char *args_[] = {__VA_ARGS__, NULL};                                         \
		ck_assert_msg(td_startv(&(d), args_) == 0, "starting sandboxd: %s", (d).err);      \
	} while (0)

static inline struct sbx_conn *conn_open(const struct test_daemon *d)
{
	char err[512];
	struct sbx_conn *c = sbx_connect(d->sock, err, sizeof err);
	ck_assert_msg(c != NULL, "connect: %s", err);
	/* The suites test what the daemon answers, `busy` included: no retry
	 * (test_client_retry.c turns it on where retrying is the subject). */
	static const struct sbx_retry off = {.base_ms = 1, .max_ms = 1, .total_ms = 0};
	sbx_set_retry(c, &off);
	return c;
}

/* A plain run request. */
static inline json_t *job(const char *id, const char *code)
{
	json_t *o = json_pack("{s:s,s:s}", "id", id, "code", code);
	ck_assert_ptr_nonnull(o);
	return o;
}

/* Sets one limit on a request; returns the request. */
static inline json_t *lim(json_t *req, const char *name, json_int_t v)
{
	json_t *l = json_object_get(req, "limits");
	if (!l) {
		l = json_object();
		json_object_set_new(req, "limits", l);
	}
	json_object_set_new(l, name, json_integer(v));
	return req;
}

/* Sends req (consumed) and waits for its response. */
static inline json_t *call(struct sbx_conn *c, json_t *req, int timeout_ms)
{
	char err[512];
	json_t *r = sbx_call(c, req, timeout_ms, err, sizeof err);
	ck_assert_msg(r != NULL, "request %s: %s", dump(req), err);
	json_decref(req);
	return r;
}

/* Sends req (consumed) without waiting. */
static inline void submit(struct sbx_conn *c, json_t *req)
{
	char err[512];
	ck_assert_msg(sbx_submit(c, req, err, sizeof err) == 0, "submit: %s", err);
	json_decref(req);
}

/* One job on a fresh connection: req (consumed) and its response. */
static inline json_t *run1(const struct test_daemon *d, json_t *req, int timeout_ms)
{
	struct sbx_conn *c = conn_open(d);
	json_t *r = call(c, req, timeout_ms);
	sbx_close(c);
	return r;
}

static inline json_t *ping(struct sbx_conn *c, const char *id)
{
	return call(c, json_pack("{s:s,s:s}", "id", id, "op", "ping"), 5000);
}

/* The last 2500 bytes of the daemon's log (caller frees). */
static inline char *log_tail(const struct test_daemon *d)
{
	char *log = td_log(d);
	size_t n = strlen(log);
	if (n > 2500)
		memmove(log, log + n - 2500, 2501);
	return log;
}

/* SIGTERM; the daemon must exit 0 in time (a leak under LeakSanitizer would
 * make it exit non-zero). Then removes its directory. */
static inline void stop_ok(struct test_daemon *d)
{
	int st = td_stop(d, 10000);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "sandboxd did not exit 0 on SIGTERM (wait status %d: %s); log:\n%s", st,
		      st < 0 ? d->err : "", log_tail(d));
	td_cleanup(d);
}

/* The daemon's job uids: [uid_lo, uid_hi], one per worker. */
static inline uid_t uid_lo(const struct test_daemon *d)
{
	return d->uid_base;
}

static inline uid_t uid_hi(const struct test_daemon *d)
{
	return d->uid_base + (uid_t)d->workers - 1;
}

/* No process of the daemon's job uids is left within within_ms. */
static inline void assert_no_job_procs(const struct test_daemon *d, int within_ms, const char *when)
{
	char desc[1024];
	int n = td_wait_no_uid_procs(uid_lo(d), uid_hi(d), within_ms, desc, sizeof desc);
	ck_assert_msg(n == 0, "%s: %d process(es) with uid in [%u, %u] remain after %d ms: %s",
		      when, n, (unsigned)uid_lo(d), (unsigned)uid_hi(d), within_ms, desc);
}

/* How the response says `limit` was enforced ("cgroup v2", "RLIMIT_AS", ...);
 * true when by a cgroup. A daemon on rlimits (--no-cgroups, for example
 * through SBX_TEST_DAEMON_ARGS) has no cgroup counters: behaviour that only
 * a cgroup gives is then a skip, with this as the reason. */
static inline bool cgroup_enforces(const json_t *r, const char *limit, char *why, size_t len)
{
	const char *by = sget(json_object_get(r, "enforcement"), limit);
	if (by && strncmp(by, "cgroup", 6) == 0)
		return true;
	snprintf(why, len, "this daemon enforces %s with %s, not a cgroup (enforcement.%s)", limit,
		 by ? by : "(nothing reported)", limit);
	return false;
}

/* Ends a test whose subject needs a cgroup when the response r says the
 * daemon has none: frees r, stops the daemon, reports the skip. */
#define SKIP_UNLESS_CGROUP(r, limit, d, what)                                                      \
	do {                                                                                       \
		char why_[256];                                                                    \
		if (!cgroup_enforces((r), (limit), why_, sizeof why_)) {                           \
			json_decref(r);                                                            \
			stop_ok(&(d));                                                             \
			SKIP_TEST("%s needs a cgroup: %s", (what), why_);                          \
		}                                                                                  \
	} while (0)

#endif
