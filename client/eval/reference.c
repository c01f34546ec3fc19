/* Reference-check records (reference.h): what a reference's run said, why
 * it failed in words a reader can act on (the missing module, the limit),
 * which records a later run may reuse, and the summary's account of the
 * tasks left out. The runs themselves are reference_run.c's. */
#include "client/eval/reference.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/eval/atomic_file.h"
#include "client/eval/score.h"
#include "common/errfmt.h"
#include "common/protocol.h"

#define REASON_MAX 300	 /* a reason is one line of a table */
#define MODULE_MAX 200	 /* longer is no module name */
#define MESSAGE_MAX 2048 /* the daemon's message, kept for the reader */

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

char *reference_missing_module(const char *text)
{
	static const char *const marks[] = {"No module named '", "No module named \"", NULL};
	for (int i = 0; text && marks[i]; i++) {
		const char *p = strstr(text, marks[i]);
		if (!p)
			continue;
		p += strlen(marks[i]);
		char quote = marks[i][strlen(marks[i]) - 1];
		size_t n = 0;
		while (p[n] && p[n] != quote && p[n] != '\n' && n <= MODULE_MAX)
			n++;
		if (n == 0 || n > MODULE_MAX || p[n] != quote)
			continue;
		return strndup(p, n);
	}
	return NULL;
}

/* The first module name in any text of the answer: the runner reports an
 * import that fails at module level as a compile or runtime error, a
 * test's as that test's error. */
static char *find_module(const json_t *resp)
{
	const json_t *fb = json_object_get(resp, R_FEEDBACK);
	const char *texts[] = {str(fb, FB_COMPILATION), str(fb, FB_EXECUTION), str(resp, R_STDERR),
			       str(resp, R_MESSAGE)};
	char *m = NULL;
	for (size_t i = 0; !m && i < sizeof texts / sizeof texts[0]; i++)
		m = reference_missing_module(texts[i]);
	size_t i;
	const json_t *t;
	json_array_foreach(json_object_get(resp, R_TESTS), i, t)
	{
		if (m)
			break;
		m = reference_missing_module(str(t, T_MESSAGE));
		if (!m)
			m = reference_missing_module(str(t, T_TRACEBACK));
	}
	return m;
}

/* One line: up to the first newline, at most REASON_MAX bytes (cut at a
 * UTF-8 character). */
static void one_line(char *dst, size_t len, const char *src)
{
	size_t n = strcspn(src, "\n");
	if (n >= len)
		n = len - 1;
	while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
		n--;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* What to do about a limit the reference hit: raise it, unless the daemon
 * already clamped what was asked to its profile's maximum, where no flag
 * helps (the reference needs more than this daemon allows). */
static const char *limit_advice(const json_t *asked, const json_t *applied, const char *key,
				const char *flag, char *buf, size_t len)
{
	json_int_t want = json_integer_value(json_object_get(asked, key));
	json_int_t got = json_integer_value(json_object_get(applied, key));
	if (want > got && got > 0)
		snprintf(buf, len,
			 "the profile's maximum, clamped from %lld: more is not allowed here",
			 (long long)want);
	else
		snprintf(buf, len, "raise it with %s", flag);
	return buf;
}

/* Why a reference that did not pass failed, in one line; asked: the
 * limits the request gave. */
static void reason_of(const json_t *resp, const json_t *asked, const char *verdict,
		      const char *module, char *buf, size_t len)
{
	const json_t *lim = json_object_get(resp, R_LIMITS);
	const char *hit = str(resp, R_LIMIT_HIT);
	char advice[128];
	if (module) {
		snprintf(buf, len, "missing module %s (No module named '%s')", module, module);
	} else if (strcmp(verdict, "timeout") == 0 && *hit) {
		char key[40];
		snprintf(key, sizeof key, "%.30s_ms", hit); /* cpu -> cpu_ms, case_wall -> ... */
		json_int_t v = json_integer_value(json_object_get(lim, key));
		snprintf(buf, len, "%s limit hit (%lld ms; %s)", hit, (long long)v,
			 limit_advice(asked, lim, key, strstr(hit, "cpu") ? "--cpu" : "--wall",
				      advice, sizeof advice));
	} else if (strcmp(verdict, "memory_limit") == 0) {
		snprintf(buf, len, "memory limit hit (%lld MB; %s)",
			 (long long)json_integer_value(json_object_get(lim, "memory_mb")),
			 limit_advice(asked, lim, "memory_mb", "--memory", advice, sizeof advice));
	} else {
		/* The first test that did not pass, else the daemon's message. */
		size_t i;
		const json_t *t;
		json_array_foreach(json_object_get(resp, R_TESTS), i, t)
		{
			if (strcmp(str(t, T_OUTCOME), "passed") == 0 ||
			    strcmp(str(t, T_OUTCOME), "skipped") == 0)
				continue;
			char msg[REASON_MAX];
			one_line(msg, sizeof msg, str(t, T_MESSAGE));
			snprintf(buf, len, "%s %s%s%s", str(t, T_NAME), str(t, T_OUTCOME),
				 *msg ? ": " : "", msg);
			return;
		}
		char msg[REASON_MAX];
		const json_t *fb = json_object_get(resp, R_FEEDBACK);
		const char *src =
		    *str(resp, R_MESSAGE) ? str(resp, R_MESSAGE) : str(fb, FB_EXECUTION);
		one_line(msg, sizeof msg, src);
		snprintf(buf, len, "%s%s%s", verdict, *msg ? ": " : "", msg);
	}
}

static json_t *copy_or_null(const json_t *v)
{
	return v ? json_deep_copy(v) : json_null();
}

json_t *reference_record(const struct ds_task *t, const json_t *resp, const json_t *check,
			 const char *time)
{
	json_t *r = json_pack("{s:s, s:s, s:O}", "task_id", t->id, "time", time, "check", check);
	if (!r)
		return NULL;
	int rc = 0;
	if (!resp) {
		rc |= json_object_set_new(r, "verdict", json_string(REF_NONE));
		rc |= json_object_set_new(r, "reason",
					  json_string("no reference solution in the data set"));
		return rc ? (json_decref(r), NULL) : r;
	}
	const json_t *e = json_object_get(resp, R_ERROR);
	const char *verdict = e ? REF_ERROR : str(resp, R_VERDICT);
	if (!*verdict)
		verdict = REF_ERROR;
	const json_t *sum = json_object_get(resp, R_SUMMARY);
	char *module = e ? NULL : find_module(resp);
	char reason[REASON_MAX + 64] = "", msg[MESSAGE_MAX] = "";
	if (e)
		snprintf(reason, sizeof reason, "sandboxd refused the run: %s: %.200s",
			 str(e, R_ERROR_CODE), str(e, R_ERROR_MESSAGE));
	else if (strcmp(verdict, "pass") != 0)
		reason_of(resp, json_object_get(check, "limits"), verdict, module, reason,
			  sizeof reason);
	snprintf(msg, sizeof msg, "%s", e ? str(e, R_ERROR_MESSAGE) : str(resp, R_MESSAGE));
	rc |= json_object_set_new(r, "verdict", json_string(verdict));
	rc |= json_object_set_new(r, "passed",
				  json_integer(json_integer_value(json_object_get(sum, S_PASSED))));
	rc |= json_object_set_new(r, "total",
				  json_integer(json_integer_value(json_object_get(sum, S_TOTAL))));
	rc |= json_object_set_new(r, "message", json_string(msg));
	rc |= json_object_set_new(r, "reason", *reason ? json_string(reason) : json_null());
	rc |= json_object_set_new(r, "missing_module", module ? json_string(module) : json_null());
	rc |= json_object_set_new(r, "limit_hit", copy_or_null(json_object_get(resp, R_LIMIT_HIT)));
	rc |= json_object_set_new(r, "usage", copy_or_null(json_object_get(resp, R_USAGE)));
	rc |= json_object_set_new(r, "limits", copy_or_null(json_object_get(resp, R_LIMITS)));
	free(module);
	if (rc) {
		json_decref(r);
		return NULL;
	}
	return r;
}

bool reference_broken(const json_t *rec)
{
	const char *v = str(rec, "verdict");
	return strcmp(v, "pass") != 0 && strcmp(v, REF_NONE) != 0;
}

json_t *reference_key(const char *dataset_sha256, enum ds_format f, const json_t *limits,
		      long long seed, bool seed_per_task, const json_t *ping)
{
	const json_t *v = json_object_get(ping, "version");
	return json_pack("{s:s, s:s, s:O, s:I, s:b, s:O}", "dataset_sha256", dataset_sha256,
			 "format", ds_format_name(f), "limits", limits, "seed", (json_int_t)seed,
			 "seed_per_task", seed_per_task, "daemon_version", v ? v : json_null());
}

json_t *reference_load(const char *path, const json_t *key, FILE *warn, size_t *stale, char *err,
		       size_t errlen)
{
	*stale = 0;
	json_t *byid = json_object();
	if (!byid) {
		errfmt(err, errlen, "out of memory");
		return NULL;
	}
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return byid;
		errfmt(err, errlen, "cannot read %s: %s", path, errfmt_desc(errno));
		json_decref(byid);
		return NULL;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		json_t *r = json_loadb(line, (size_t)n, 0, NULL);
		const char *id = json_string_value(json_object_get(r, "task_id"));
		if (!json_is_object(r) || !id || !json_is_string(json_object_get(r, "verdict"))) {
			/* A run killed mid-write leaves a torn last line: the
			 * task is checked again. */
			if (warn)
				fprintf(warn, "%s:%zu: not a reference record, ignored\n", path,
					lineno);
		} else if (!json_equal(json_object_get(r, "check"), key)) {
			(*stale)++;
		} else if (json_object_set(byid, id, r) < 0) {
			json_decref(r);
			json_decref(byid);
			free(line);
			fclose(f);
			errfmt(err, errlen, "out of memory");
			return NULL;
		}
		json_decref(r);
	}
	free(line);
	fclose(f);
	return byid;
}

static int fill_records(FILE *f, void *ctx, char *err, size_t errlen)
{
	const json_t *byid = ctx;
	const char *id;
	const json_t *r;
	json_object_foreach((json_t *)byid, id, r)
	{
		char *s = json_dumps(r, JSON_COMPACT | JSON_ENSURE_ASCII);
		if (!s)
			return errfmt(err, errlen, "out of memory");
		fprintf(f, "%s\n", s);
		free(s);
	}
	return 0;
}

int reference_rewrite(const char *path, const json_t *byid, char *err, size_t errlen)
{
	return atomic_file_write(path, fill_records, (void *)byid, err, errlen);
}

json_t *reference_summary(const json_t *byid, const char *const *ids, size_t n, bool keep_broken)
{
	json_t *broken = json_array();
	size_t passed = 0, unchecked = 0, nbroken = 0;
	for (size_t i = 0; broken && i < n; i++) {
		const json_t *r = json_object_get(byid, ids[i]);
		if (!r || strcmp(str(r, "verdict"), REF_NONE) == 0) {
			unchecked++;
		} else if (!reference_broken(r)) {
			passed++;
		} else {
			nbroken++;
			json_array_append_new(
			    broken, json_pack("{s:s, s:s, s:s}", "task_id", ids[i], "verdict",
					      str(r, "verdict"), "reason", str(r, "reason")));
		}
	}
	if (!broken)
		return NULL;
	return json_pack("{s:i, s:i, s:i, s:i, s:b, s:o}", "checked", (json_int_t)(n - unchecked),
			 "passed", (json_int_t)passed, "broken", (json_int_t)nbroken, "unchecked",
			 (json_int_t)unchecked, "keep_broken", keep_broken,
			 keep_broken ? "kept" : "excluded", broken);
}

void reference_print(const json_t *summary, size_t scored, FILE *f)
{
	if (!summary) {
		fprintf(f,
			"Tasks scored: %zu (reference solutions not checked: "
			"--check-reference)\n",
			scored);
		return;
	}
	bool keep = json_is_true(json_object_get(summary, "keep_broken"));
	const json_t *list = json_object_get(summary, keep ? "kept" : "excluded");
	size_t nb = json_array_size(list);
	json_int_t unchecked = json_integer_value(json_object_get(summary, "unchecked"));
	fprintf(f, "Tasks scored: %zu; references checked: %lld, %zu failing here%s", scored,
		(long long)json_integer_value(json_object_get(summary, "checked")), nb,
		nb == 0 ? ""
		: keep	? " (kept: --keep-broken)"
			: " (excluded; --keep-broken keeps them)");
	if (unchecked)
		fprintf(f, ", %lld without a reference (kept)", (long long)unchecked);
	fputc('\n', f);
	size_t i;
	const json_t *b;
	json_array_foreach(list, i, b)
	{
		fprintf(f, "  %s %s: %s\n", keep ? "kept" : "excluded", str(b, "task_id"),
			str(b, "reason"));
	}
}

size_t reference_scored(const struct score_table *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].tasks > n)
			n = t->v[i].tasks;
	return n;
}
