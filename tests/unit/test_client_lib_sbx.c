/* Unit tests for libsbx's `busy` retry (client/lib/sbx.c): the backoff
 * schedule (sbx_retry_delay: exponential from base_ms, capped at max_ms,
 * each delay in the upper half of its step, never past total_ms after the
 * first busy, never any retry when total_ms is 0), and the retry itself
 * against a fake daemon on a Unix socket that answers `busy` as told: the
 * same bytes sent again, no other error retried, the total bound kept, a
 * `busy` without an id retried only when it can only be for one request. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client/lib/sbx.h"
#include "tests/helpers/tmain.h"

static long long td_mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static const struct sbx_retry R = {.base_ms = 10, .max_ms = 1000, .total_ms = 60000};

START_TEST(test_defaults)
{
	struct sbx_retry r;
	sbx_retry_default(&r);
	ck_assert_int_eq(r.base_ms, SBX_RETRY_BASE_MS);
	ck_assert_int_eq(r.max_ms, SBX_RETRY_MAX_MS);
	ck_assert_int_eq(r.total_ms, SBX_RETRY_TOTAL_MS);
	ck_assert_int_gt(r.total_ms, 0);
	ck_assert_int_le(r.base_ms, r.max_ms);
}
END_TEST

/* Step k is min(max, base * 2^k); its delay is in [step - step/2, step]. */
START_TEST(test_exponential_then_capped)
{
	long step = 10;
	for (unsigned k = 0; k < 64; k++) {
		long lo = sbx_retry_delay(&R, k, 0, 0);
		long hi = sbx_retry_delay(&R, k, 0, UINT32_MAX);
		long want = step < 1000 ? step : 1000;
		ck_assert_msg(lo == want - want / 2, "attempt %u: shortest %ld, want %ld", k, lo,
			      want - want / 2);
		ck_assert_msg(hi >= lo && hi <= want, "attempt %u: longest %ld, step %ld", k, hi,
			      want);
		/* the whole range is reachable: rnd = step/2 gives the step */
		ck_assert_int_eq(sbx_retry_delay(&R, k, 0, (uint32_t)(want / 2)), want);
		step = step < 1000 ? step * 2 : step;
	}
	/* 10, 20, 40, ... 640, then 1000 from the 7th retry on */
	ck_assert_int_eq(sbx_retry_delay(&R, 6, 0, 320), 640);
	ck_assert_int_eq(sbx_retry_delay(&R, 7, 0, 500), 1000);
	ck_assert_int_eq(sbx_retry_delay(&R, 4000000000u, 0, 500), 1000);
}
END_TEST

START_TEST(test_jitter_spreads)
{
	/* Clients refused together come back at different times. */
	srand(1);
	long seen[1001] = {0};
	int distinct = 0;
	for (int i = 0; i < 2000; i++) {
		long d = sbx_retry_delay(&R, 10, 0, (uint32_t)rand());
		ck_assert(d >= 500 && d <= 1000);
		distinct += seen[d]++ == 0;
	}
	ck_assert_msg(distinct > 300, "only %d distinct delays of 2000", distinct);
}
END_TEST

START_TEST(test_total_bounds_every_retry)
{
	/* The last retry is sent no later than total_ms after the first busy. */
	srand(2);
	for (int run = 0; run < 200; run++) {
		long long spent = 0;
		unsigned k = 0;
		long d;
		while ((d = sbx_retry_delay(&R, k, spent, (uint32_t)rand())) >= 0) {
			ck_assert_int_ge(d, 5);
			spent += d;
			k++;
			ck_assert_int_le(spent, R.total_ms);
		}
		/* it stops only when a delay would not fit: at most one step short */
		ck_assert_msg(spent > R.total_ms - R.max_ms, "gave up at %lld ms of %d", spent,
			      R.total_ms);
		ck_assert_int_lt(k, 200);
	}
	ck_assert_int_eq(sbx_retry_delay(&R, 3, R.total_ms, 0), -1);
	ck_assert_int_eq(sbx_retry_delay(&R, 3, R.total_ms + 5, 0), -1);
	ck_assert_int_eq(sbx_retry_delay(&R, 7, R.total_ms - 499, 0), -1); /* 500 > 499 */
	ck_assert_int_eq(sbx_retry_delay(&R, 7, R.total_ms - 500, 0), 500);
}
END_TEST

START_TEST(test_zero_total_never_retries)
{
	struct sbx_retry off = R;
	off.total_ms = 0;
	for (unsigned k = 0; k < 5; k++)
		ck_assert_int_eq(sbx_retry_delay(&off, k, 0, 12345), -1);
	/* nonsense settings still give a sane, bounded delay */
	struct sbx_retry odd = {.base_ms = 0, .max_ms = -3, .total_ms = 10};
	long d = sbx_retry_delay(&odd, 3, 0, 7);
	ck_assert(d >= 1 && d <= 10);
	ck_assert_int_eq(sbx_retry_delay(&R, 0, -1, 0), -1);
}
END_TEST

/* --- a fake daemon ------------------------------------------------------------
 * Each request's "code" says how to answer: "busy N" (busy with the id for
 * its first N arrivals, then a result), "noid N" (the same without an id),
 * "error" (bad_request, with the id), "hold" (no answer until the next
 * request's), "big N" (a result with N KiB of stdout). Every line received
 * is kept, to compare the bytes. */
struct fake {
	char path[108];
	int lfd;
	pthread_t tid;
	char *lines[256];
	int nlines;
};

static int fake_seen(const struct fake *f, const char *line)
{
	int n = 0;
	for (int i = 0; i < f->nlines; i++)
		n += strcmp(f->lines[i], line) == 0;
	return n;
}

static int write_all(int fd, const char *p, size_t n);

static void fake_answer(int fd, const struct fake *f, const char *line, char **held)
{
	json_t *req = json_loads(line, 0, NULL);
	const char *id = json_string_value(json_object_get(req, "id"));
	const char *code = json_string_value(json_object_get(req, "code"));
	int n = 0;
	char out[512];
	if (code && sscanf(code, "big %d", &n) == 1) {
		size_t len = (size_t)n << 10;
		char *big = malloc(len + 128);
		ck_assert_ptr_nonnull(big);
		int h = snprintf(big, 128, "{\"id\":\"%s\",\"stdout\":\"", id);
		memset(big + h, 'x', len);
		memcpy(big + h + len, "\"}\n", 3);
		ck_assert(write_all(fd, big, (size_t)h + len + 3) == 0);
		free(big);
		json_decref(req);
		return;
	}
	if (code && (sscanf(code, "busy %d", &n) == 1 || sscanf(code, "noid %d", &n) == 1) &&
	    fake_seen(f, line) <= n)
		snprintf(out, sizeof out, "{\"id\":%s%s%s,\"error\":{\"code\":\"busy\"}}\n",
			 code[0] == 'b' ? "\"" : "", code[0] == 'b' ? id : "null",
			 code[0] == 'b' ? "\"" : "");
	else if (code && strcmp(code, "error") == 0)
		snprintf(out, sizeof out, "{\"id\":\"%s\",\"error\":{\"code\":\"bad_request\"}}\n",
			 id);
	else
		snprintf(out, sizeof out, "{\"id\":\"%s\",\"verdict\":\"pass\",\"arrivals\":%d}\n",
			 id, fake_seen(f, line));
	if (code && strcmp(code, "hold") == 0) {
		*held = strdup(out);
	} else {
		ck_assert(write(fd, out, strlen(out)) == (ssize_t)strlen(out));
		if (*held) {
			ck_assert(write(fd, *held, strlen(*held)) == (ssize_t)strlen(*held));
			free(*held);
			*held = NULL;
		}
	}
	json_decref(req);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	int fd = accept(f->lfd, NULL, NULL);
	char buf[65536], *held = NULL;
	size_t len = 0;
	ssize_t r;
	while (fd >= 0 && (r = read(fd, buf + len, sizeof buf - len - 1)) > 0) {
		len += (size_t)r;
		char *nl;
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			if (f->nlines < 256)
				f->lines[f->nlines++] = strdup(buf);
			fake_answer(fd, f, buf, &held);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
	}
	free(held);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static struct sbx_conn *fake_start(struct fake *f, const struct sbx_retry *r)
{
	memset(f, 0, sizeof *f);
	snprintf(f->path, sizeof f->path, "/tmp/sbx-fake-%d.sock", (int)getpid());
	unlink(f->path);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", f->path);
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(f->lfd >= 0 && bind(f->lfd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
		  listen(f->lfd, 4) == 0);
	ck_assert_int_eq(pthread_create(&f->tid, NULL, fake_main, f), 0);
	char err[256];
	struct sbx_conn *c = sbx_connect(f->path, err, sizeof err);
	ck_assert_msg(c, "%s", err);
	sbx_set_retry(c, r);
	return c;
}

static void fake_end(struct fake *f, struct sbx_conn *c)
{
	sbx_close(c);
	pthread_join(f->tid, NULL);
	close(f->lfd);
	unlink(f->path);
	for (int i = 0; i < f->nlines; i++)
		free(f->lines[i]);
}

static json_t *req(const char *id, const char *code)
{
	return json_pack("{s:s,s:s}", "id", id, "code", code);
}

static const char *err_code(const json_t *o)
{
	const char *c = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
	return c ? c : "";
}

static const struct sbx_retry QUICK = {.base_ms = 2, .max_ms = 20, .total_ms = 5000};

/* A connection kept for later holds 64 KiB, not its largest answer. */
START_TEST(test_buffer_given_back)
{
	struct fake f;
	struct sbx_conn *c = fake_start(&f, &QUICK);
	char err[256];
	json_t *r = req("a", "big 4096"), *o = sbx_call(c, r, 5000, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(o, "stdout"))), 4096u << 10);
	ck_assert_uint_le(sbx_buffer_size(c), 65536);
	json_decref(o);
	json_decref(r);
	r = req("b", "small");
	o = sbx_call(c, r, 5000, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_uint_le(sbx_buffer_size(c), 65536);
	json_decref(o);
	json_decref(r);
	fake_end(&f, c);
}
END_TEST

START_TEST(test_busy_resent_same_bytes)
{
	struct fake f;
	struct sbx_conn *c = fake_start(&f, &QUICK);
	char err[256];
	json_t *q = req("a", "busy 3");
	json_t *o = sbx_call(c, q, 5000, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_str_eq(json_string_value(json_object_get(o, "verdict")), "pass");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "arrivals")), 4);
	ck_assert_uint_eq(sbx_busy_retries(c), 3);
	ck_assert_int_eq(f.nlines, 4);
	for (int i = 1; i < f.nlines; i++)
		ck_assert_str_eq(f.lines[i], f.lines[0]); /* the same id, the same bytes */
	json_decref(o);
	json_decref(q);
	fake_end(&f, c);
}
END_TEST

START_TEST(test_other_errors_not_retried)
{
	struct fake f;
	struct sbx_conn *c = fake_start(&f, &QUICK);
	char err[256];
	json_t *q = req("e", "error");
	json_t *o = sbx_call(c, q, 5000, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_str_eq(err_code(o), "bad_request");
	ck_assert_int_eq(f.nlines, 1);
	ck_assert_uint_eq(sbx_busy_retries(c), 0);
	json_decref(o);
	json_decref(q);
	fake_end(&f, c);
}
END_TEST

START_TEST(test_total_bound_then_busy)
{
	struct fake f;
	struct sbx_retry r = {.base_ms = 10, .max_ms = 40, .total_ms = 300};
	struct sbx_conn *c = fake_start(&f, &r);
	char err[256];
	json_t *q = req("b", "busy 100000");
	long long t0 = td_mono_ms();
	json_t *o = sbx_call(c, q, 5000, err, sizeof err);
	long long took = td_mono_ms() - t0;
	ck_assert_msg(o, "%s", err);
	ck_assert_str_eq(err_code(o), "busy"); /* its answer once the bound is reached */
	ck_assert_str_eq(json_string_value(json_object_get(o, "id")), "b");
	ck_assert_msg(took >= 240 && took < 1500, "gave up after %lld ms (bound 300)", took);
	ck_assert_msg(f.nlines >= 5 && f.nlines < 40, "%d sends in 300 ms", f.nlines);
	json_decref(o);
	json_decref(q);
	/* Retries off: the first busy is the answer. */
	struct sbx_retry off = r;
	off.total_ms = 0;
	sbx_set_retry(c, &off);
	q = req("b2", "busy 1");
	o = sbx_call(c, q, 5000, err, sizeof err);
	ck_assert_str_eq(err_code(o), "busy");
	json_decref(o);
	json_decref(q);
	fake_end(&f, c);
}
END_TEST

START_TEST(test_busy_without_id)
{
	struct fake f;
	struct sbx_conn *c = fake_start(&f, &QUICK);
	char err[256];
	/* Alone in flight: the busy can only be its own. */
	json_t *q = req("n", "noid 2"), *o = sbx_call(c, q, 5000, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_str_eq(json_string_value(json_object_get(o, "verdict")), "pass");
	ck_assert_int_eq(f.nlines, 3);
	json_decref(o);
	json_decref(q);
	/* Another request in flight: it could be either, so it is the caller's. */
	q = req("h", "hold");
	ck_assert_int_eq(sbx_submit(c, q, err, sizeof err), 0);
	json_decref(q);
	q = req("m", "noid 1");
	ck_assert_int_eq(sbx_submit(c, q, err, sizeof err), 0);
	json_decref(q);
	o = sbx_next(c, 5000, err, sizeof err);
	ck_assert_msg(o, "%s", err);
	ck_assert_str_eq(err_code(o), "busy");
	ck_assert(json_is_null(json_object_get(o, "id")));
	json_decref(o);
	o = sbx_next(c, 5000, err, sizeof err); /* h's answer, released by m's arrival */
	ck_assert_str_eq(json_string_value(json_object_get(o, "id")), "h");
	json_decref(o);
	fake_end(&f, c);
}
END_TEST

START_TEST(test_pipelined_each_once)
{
	struct fake f;
	struct sbx_conn *c = fake_start(&f, &QUICK);
	char err[256], id[16], code[16];
	enum { N = 40 };
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof id, "p%d", i);
		snprintf(code, sizeof code, "busy %d", i % 4);
		json_t *q = req(id, code);
		ck_assert_int_eq(sbx_submit(c, q, err, sizeof err), 0);
		json_decref(q);
	}
	int seen[N] = {0};
	for (int k = 0; k < N; k++) {
		json_t *o = sbx_next(c, 5000, err, sizeof err);
		ck_assert_msg(o, "%s", err);
		int i = -1;
		ck_assert(sscanf(json_string_value(json_object_get(o, "id")), "p%d", &i) == 1);
		ck_assert(i >= 0 && i < N && seen[i]++ == 0);
		ck_assert_int_eq(json_integer_value(json_object_get(o, "arrivals")), i % 4 + 1);
		json_decref(o);
	}
	ck_assert_ptr_null(sbx_next(c, 200, err, sizeof err));
	ck_assert_uint_eq(sbx_busy_retries(c), N / 4 * (0 + 1 + 2 + 3));
	fake_end(&f, c);
}
END_TEST

static Suite *sbx_suite(void)
{
	Suite *s = suite_create("client_lib_sbx");
	TCase *t = tcase_create("retry");
	tcase_add_test(t, test_defaults);
	tcase_add_test(t, test_exponential_then_capped);
	tcase_add_test(t, test_jitter_spreads);
	tcase_add_test(t, test_total_bounds_every_retry);
	tcase_add_test(t, test_zero_total_never_retries);
	suite_add_tcase(s, t);
	t = tcase_create("fake_daemon");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_buffer_given_back);
	tcase_add_test(t, test_busy_resent_same_bytes);
	tcase_add_test(t, test_other_errors_not_retried);
	tcase_add_test(t, test_total_bound_then_busy);
	tcase_add_test(t, test_busy_without_id);
	tcase_add_test(t, test_pipelined_each_once);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(sbx_suite, NULL);
}
