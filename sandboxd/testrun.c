/* Test requests. unittest, humaneval and asserts run the in-jail runner once
 * and trust only what feedback.c validated; stdio compiles in the jail, then
 * runs each case as its own job and compares the output here, outside the
 * jail, where the candidate cannot reach the comparison. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "feedback.h"
#include "run.h"
#include "stdio.h"

#define CASE_TEXT_MAX 1000

static int make_key(char key[33])
{
	unsigned char raw[16];
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (int i = 0; i < 16; i++)
		snprintf(key + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* The job description the runner reads from /sandboxd/job.json. */
static char *job_json(const struct proto_request *req, const char *format)
{
	json_t *tests = json_null();
	if (req->tests_text) {
		tests = json_stringn(req->tests_text, req->tests_len);
	} else if (req->asserts) {
		tests = json_array();
		for (size_t i = 0; i < req->nasserts; i++)
			json_array_append_new(tests, json_string(req->asserts[i]));
	}
	if (strcmp(format, "compile") == 0) {
		json_decref(tests);
		tests = json_null();
	}
	json_t *o = json_pack(
	    "{s:s,s:s%,s:o,s:o,s:o,s:o,s:s}", "format", format, "code", req->code, req->code_len,
	    "tests", tests, "entry_point",
	    req->entry_point ? json_string(req->entry_point) : json_null(), "test_timeout_ms",
	    req->test_timeout_ms > 0 ? json_integer(req->test_timeout_ms) : json_null(), "seed",
	    req->seed >= 0 ? json_integer(req->seed) : json_null(), "filename", "solution.py");
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

static bool is_limit(enum proto_verdict v)
{
	return v == V_TIMEOUT || v == V_MEMORY_LIMIT || v == V_OUTPUT_LIMIT || v == V_VIOLATION;
}

static void set_verdict(json_t *resp, enum proto_verdict v, const char *msg,
			enum proto_limit_hit hit)
{
	const char *hn = is_limit(v) ? proto_limit_hit_name(hit) : NULL;
	json_object_set_new(resp, R_VERDICT, json_string(proto_verdict_name(v)));
	json_object_set_new(resp, R_MESSAGE, json_string(msg));
	json_object_set_new(resp, R_LIMIT_HIT, hn ? json_string(hn) : json_null());
}

static void fail_message(const struct fb_run *fb, char *msg, size_t len)
{
	size_t n[OUT_COUNT] = {0};
	for (size_t i = 0; i < fb->ntests; i++)
		if (fb->tests[i].outcome >= 0)
			n[fb->tests[i].outcome]++;
	snprintf(msg, len, "%zu of %zu tests did not pass: %zu failed, %zu errors, %zu timeouts",
		 n[OUT_FAILED] + n[OUT_ERROR] + n[OUT_TIMEOUT], fb->ntests, n[OUT_FAILED],
		 n[OUT_ERROR], n[OUT_TIMEOUT]);
}

/* Runs the runner once on `format`; fills fb and o. false: cancelled or no key. */
static bool run_runner(const struct config *cfg, int slot, const struct job *j, const char *format,
		       struct fb_run *fb, struct run_out *o)
{
	char key[33];
	char *job = make_key(key) == 0 ? job_json(&j->req, format) : NULL;
	fb_init(fb, key, j->req.test_timeout_ms);
	struct jail_hooks h = {fb_on_record, fb_deadline, fb};
	struct run_params p = {.job_json = job,
			       .job_len = job ? strlen(job) : 0,
			       .key = key,
			       .seed = j->req.seed,
			       .hooks = &h};
	if (!job) {
		memset(o, 0, sizeof *o);
		o->v = V_ERROR;
		snprintf(o->msg, sizeof o->msg, "cannot prepare the test job");
		return true;
	}
	run_once(cfg, slot, j, &p, o);
	free(job);
	return !o->r.cancelled;
}

json_t *testrun_runner(const struct config *cfg, int slot, const struct job *j)
{
	struct fb_run fb;
	struct run_out o;
	if (!run_runner(cfg, slot, j, proto_format_name(j->req.format), &fb, &o)) {
		run_out_free(&o);
		fb_free(&fb);
		return NULL;
	}
	char msg[256];
	snprintf(msg, sizeof msg, "%s", o.msg);
	enum proto_verdict v = fb_finish(&fb, o.v, o.r.watchdog, msg, sizeof msg);
	/* For a plain failure the run's own message (e.g. its exit status) is
	 * beside the point: say what failed. */
	if (v == V_FAIL && !o.r.watchdog)
		fail_message(&fb, msg, sizeof msg);
	if (v == V_PASS || v == V_COMPILE_ERROR)
		msg[0] = '\0';
	json_t *resp = response_base(cfg, j, &o);
	set_verdict(resp, v, msg, o.hit);
	fb_to_json(&fb, &j->req, resp);
	run_out_free(&o);
	fb_free(&fb);
	return resp;
}

static char *case_diff(const struct proto_case *c, const char *got, size_t got_len)
{
	char *parts[3] = {
	    strndup(c->input, CASE_TEXT_MAX), strndup(c->output, CASE_TEXT_MAX),
	    strndup(got ? got : "", got_len < CASE_TEXT_MAX ? got_len : CASE_TEXT_MAX)};
	size_t n = 64;
	for (int i = 0; i < 3; i++)
		n += parts[i] ? strlen(parts[i]) : 0;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "Input:\n%s\nExpected output:\n%s\nActual output:\n%s",
			 parts[0] ? parts[0] : "", parts[1] ? parts[1] : "",
			 parts[2] ? parts[2] : "");
	for (int i = 0; i < 3; i++)
		free(parts[i]);
	return s;
}

static const char *last_line(const char *s, size_t len, char *buf, size_t buflen)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	size_t start = len;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	snprintf(buf, buflen, "%.*s", (int)(len - start), s + start);
	return buf;
}

/* One case's outcome from its run. */
static void judge_case(struct fb_run *fb, const struct job *j, size_t i, struct run_out *o)
{
	const struct proto_case *c = &j->req.cases[i];
	char name[32], line[256];
	uint64_t cpu, wall, mem;
	run_usage(o, &cpu, &wall, &mem);
	snprintf(name, sizeof name, "case %zu", i + 1);
	if (o->v == V_PASS) {
		bool ok = stdio_output_matches(o->r.out ? o->r.out : "", o->r.out_len, c->output,
					       c->output_len, j->req.float_tolerance);
		char *diff = ok ? NULL : case_diff(c, o->r.out, o->r.out_len);
		fb_add_test(fb, name, ok ? OUT_PASSED : OUT_FAILED, ok ? "" : "wrong answer",
			    diff ? diff : "", (long)wall);
		free(diff);
	} else if (o->v == V_RUNTIME_ERROR) {
		char *tb = strndup(o->r.err ? o->r.err : "", o->r.err_len);
		char *trimmed = tb ? fb_trim(tb, 4000) : NULL;
		const char *m =
		    o->r.err_len ? last_line(o->r.err, o->r.err_len, line, sizeof line) : o->msg;
		fb_add_test(fb, name, OUT_ERROR, m, trimmed ? trimmed : "", (long)wall);
		free(tb);
		free(trimmed);
	} else {
		fb_add_test(fb, name, o->v == V_TIMEOUT ? OUT_TIMEOUT : OUT_ERROR, o->msg, "",
			    (long)wall);
	}
}

json_t *testrun_stdio(const struct config *cfg, int slot, const struct job *j)
{
	struct fb_run fb;
	struct run_out o, rep;
	if (!run_runner(cfg, slot, j, "compile", &fb, &o)) {
		run_out_free(&o);
		fb_free(&fb);
		return NULL;
	}
	char msg[256] = "";
	if (!fb.have_compile || !fb.compile_ok || o.v != V_PASS) {
		snprintf(msg, sizeof msg, "%s", o.msg);
		enum proto_verdict v = fb_finish(&fb, o.v, false, msg, sizeof msg);
		json_t *resp = response_base(cfg, j, &o);
		set_verdict(resp, v, v == V_COMPILE_ERROR ? "" : msg, o.hit);
		fb_to_json(&fb, &j->req, resp);
		run_out_free(&o);
		fb_free(&fb);
		return resp;
	}
	run_out_free(&o);
	uint64_t cpu_total = 0, wall_total = 0, mem_max = 0;
	enum proto_verdict worst = V_PASS;
	enum proto_limit_hit worst_hit = HIT_NONE;
	bool have_rep = false, rep_is_bad = false;
	for (size_t i = 0; i < j->req.ncases; i++) {
		struct run_params p = {.stdin_data = j->req.cases[i].input,
				       .stdin_len = j->req.cases[i].input_len,
				       .seed = -1};
		run_once(cfg, slot, j, &p, &o);
		if (o.r.cancelled) {
			run_out_free(&o);
			if (have_rep)
				run_out_free(&rep);
			fb_free(&fb);
			return NULL;
		}
		uint64_t cpu, wall, mem;
		run_usage(&o, &cpu, &wall, &mem);
		cpu_total += cpu;
		wall_total += wall;
		mem_max = mem > mem_max ? mem : mem_max;
		judge_case(&fb, j, i, &o);
		bool bad = fb.tests[i].outcome != OUT_PASSED;
		/* A violation outranks everything; otherwise the first limit seen. */
		if ((o.v == V_VIOLATION && worst != V_VIOLATION) ||
		    ((is_limit(o.v) || o.v == V_ERROR) && !is_limit(worst) && worst != V_ERROR)) {
			worst = o.v;
			worst_hit = o.hit;
			snprintf(msg, sizeof msg, "case %zu: %.200s", i + 1, o.msg);
		} else if (bad && worst == V_PASS) {
			worst = V_FAIL;
		}
		/* The response's stdout/stderr are those of the first case that did
		 * not pass, else of the last case. */
		if (!rep_is_bad) {
			if (have_rep)
				run_out_free(&rep);
			rep = o;
			have_rep = true;
			rep_is_bad = bad;
		} else {
			run_out_free(&o);
		}
	}
	fb.done = true;
	if (worst == V_FAIL)
		fail_message(&fb, msg, sizeof msg);
	json_t *resp = response_base(cfg, j, &rep);
	set_verdict(resp, worst, msg, worst_hit);
	json_object_set_new(resp, R_USAGE, response_usage(cpu_total, wall_total, mem_max));
	fb_to_json(&fb, &j->req, resp);
	run_out_free(&rep);
	fb_free(&fb);
	return resp;
}
