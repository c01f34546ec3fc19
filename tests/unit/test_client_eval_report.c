/* Unit tests for `sbx report`'s writer (report.c, report_data.c,
 * report_html.c): hostile text from records (task ids, setting names, code,
 * feedback, errors, models) never reaches the page as markup and survives
 * in its data block unchanged; the table shows exactly score.c's numbers;
 * the page is replaced atomically or not at all; no records, unreadable
 * input and an unwritable output fail; the text cap, the page budget
 * (shared out fairly by kind of text) and the load budget bound the page;
 * the timelines' order, diffs, repeated texts kept once, and outcomes. */
#include <check.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/eval/report.h"
#include "client/eval/score.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"
#include "tests/helpers/tstr.h"

#define XSS1 "</script><script>alert(1)</script>"
#define XSS2 "<img src=x onerror=alert(2)>"
#define XSS3 "<!--<script>"

static json_t *rec(const char *setting, const char *task, int turn, int turns, const char *verdict,
		   const char *code)
{
	json_t *r =
	    json_pack("{s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:n, s:{s:s, s:s, s:s}}", "setting",
		      setting, "task_id", task, "turn", turn, "turns", turns, "verdict", verdict,
		      "code", code, "model", "m", "run_id", "r1", "generator_error", "feedback",
		      "compilation", "No syntax errors", "execution", "", "verbal", "");
	ck_assert_ptr_nonnull(r);
	return r;
}

/* Appends the records (stolen) as lines to path. */
static void write_lines(const char *path, json_t **v, size_t n)
{
	FILE *f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < n; i++) {
		char *s = json_dumps(v[i], JSON_COMPACT);
		fprintf(f, "%s\n", s);
		free(s);
		json_decref(v[i]);
	}
	ck_assert_int_eq(fclose(f), 0);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/test_report.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return strdup(tmpl);
}

static char *path_in(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

static void rm_rf(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Writes the report of paths to out; asserts it worked. The page. */
static char *report(const char *const *paths, size_t n, const char *out,
		    const struct report_opts *o)
{
	char err[512] = "";
	struct report_stats st;
	ck_assert_msg(report_write(paths, n, out, o, stderr, &st, err, sizeof err) == 0, "%s", err);
	return tf_read(out);
}

#define DATA_OPEN "<script type=\"application/json\" id=\"report-data\">"

/* The page's data block, parsed back. */
static json_t *page_data(const char *page)
{
	const char *s = strstr(page, DATA_OPEN);
	ck_assert_ptr_nonnull(s);
	s += strlen(DATA_OPEN);
	const char *e = strstr(s, "</script>");
	ck_assert_ptr_nonnull(e);
	json_error_t je;
	json_t *d = json_loadb(s, (size_t)(e - s), 0, &je);
	ck_assert_msg(d != NULL, "data block: %s", je.text);
	return d;
}

static json_t *find_row(const json_t *data, const char *setting, const char *task)
{
	const json_t *settings = json_object_get(data, "settings");
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(data, "rows"), i, r)
	{
		size_t s = (size_t)json_integer_value(json_object_get(r, "setting"));
		if (!strcmp(json_string_value(json_array_get(settings, s)), setting) &&
		    !strcmp(json_string_value(json_object_get(r, "task")), task))
			return r;
	}
	ck_abort_msg("no row %s/%s", setting, task);
	return NULL;
}

START_TEST(test_hostile_text_escaped)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl"), *out = path_in(dir, "r.html");
	json_t *v[3];
	v[0] = rec("CF", XSS1 XSS2, 0, 1, "fail", "print('" XSS1 "')\n" XSS2 "\n" XSS3 "\n");
	json_object_set_new(v[0], "generator_error", json_string("exit 1: " XSS1));
	json_object_set_new(v[0], "generator_stderr", json_string(XSS2 " & more"));
	json_object_set_new(v[0], "model", json_string("<b>" XSS2));
	json_object_set_new(v[0], "user_message", json_string("## Task\n" XSS1));
	json_object_set_new(json_object_get(v[0], "feedback"), "execution", json_string(XSS3 XSS1));
	v[1] = rec(XSS1 "\"'&", "t", 0, 1, "pass", "x = 1\n");
	v[2] = rec("CF", XSS1 XSS2, 1, 1, "pass", "print('" XSS1 "')\n" XSS2 "\n" XSS3 "\nfixed\n");
	write_lines(file, v, 3);
	const char *paths[] = {dir};
	char *page = report(paths, 1, out, NULL);

	/* Our two script elements only, nothing of the records as markup. */
	ck_assert_uint_eq(count(page, "<script"), 2);
	ck_assert_uint_eq(count(page, "</script"), 2);
	ck_assert_ptr_null(strstr(page, "<img"));
	ck_assert_ptr_null(strstr(page, "<!--"));
	ck_assert_ptr_null(strstr(page, "<b>&lt;img"));
	ck_assert_ptr_null(strstr(page, "alert(1)</"));
	/* The setting name in the table and the plot, escaped. */
	ck_assert_ptr_nonnull(strstr(page, "<th scope=\"row\">&lt;/script&gt;&lt;script&gt;alert(1)"
					   "&lt;/script&gt;&quot;&#39;&amp;</th>"));
	ck_assert_uint_ge(count(page, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;"),
			  2);
	ck_assert_ptr_nonnull(strstr(page, "<b>&lt;b&gt;&lt;img src=x onerror=alert(2)&gt;</b>"));

	/* The data says exactly what the records said. */
	json_t *d = page_data(page);
	json_t *row = find_row(d, "CF", XSS1 XSS2);
	json_t *t0 = json_array_get(json_object_get(row, "turns"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(t0, "code")),
			 "print('" XSS1 "')\n" XSS2 "\n" XSS3 "\n");
	ck_assert_str_eq(json_string_value(json_object_get(t0, "generator_error")),
			 "exit 1: " XSS1);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(t0, "stderr"), "generator_stderr")),
	    XSS2 " & more");
	ck_assert_str_eq(json_string_value(json_object_get(t0, "user_message")), "## Task\n" XSS1);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(t0, "feedback"), "execution")),
	    XSS3 XSS1);
	json_t *t1 = json_array_get(json_object_get(row, "turns"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(t1, "diff")),
			 "@@ -1,3 +1,4 @@\n print('" XSS1 "')\n " XSS2 "\n " XSS3 "\n+fixed\n");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "models"), 0)),
			 "<b>" XSS2);
	json_decref(d);
	free(page);
	rm_rf(dir);
	free(file);
	free(out);
	free(dir);
}
END_TEST

/* The reference data of test_client_eval_score.c: first passing turn of
 * tasks 0..3 in two settings (-1: never), 3 feedback turns. */
static const int first_pass[2][4] = {{0, 2, -1, 3}, {1, 1, -1, -1}};
static const char *const names[2] = {"CF", "CF_EF_FULL_SEF"};

static void write_reference(const char *file)
{
	json_t *v[64];
	size_t n = 0;
	for (int s = 1; s >= 0; s--)
		for (int k = 0; k < 4; k++) {
			char task[32];
			snprintf(task, sizeof task, "BigCodeBench/%d", k);
			for (int turn = 0; turn <= 3; turn++)
				v[n++] =
				    rec(names[s], task, turn, 3,
					first_pass[s][k] >= 0 && turn >= first_pass[s][k] ? "pass"
											  : "fail",
					"x\n");
		}
	write_lines(file, v, n);
}

START_TEST(test_table_equals_score)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl"), *out = path_in(dir, "r.html");
	write_reference(file);
	/* A shorter setting: its missing turns print "-" in both. */
	json_t *x = rec("CF_SNF", "z", 0, 1, "pass", "y\n");
	write_lines(file, &x, 1);
	const char *paths[] = {file};
	char *page = report(paths, 1, out, NULL);

	struct score_table t;
	char err[256];
	ck_assert_int_eq(score_load(paths, 1, stderr, &t, err, sizeof err), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	score_print(&t, f);
	fclose(f);
	/* Each row of the page's table against the same row of sbx score:
	 * the setting, then the same cells, token for token. */
	size_t rows = 0;
	for (const char *tr = page; (tr = strstr(tr, "<tr><th scope=\"row\">")); rows++) {
		tr += strlen("<tr><th scope=\"row\">");
		const char *end = strstr(tr, "</tr>");
		struct sb cells = {0};
		const char *c = tr;
		sb_add(&cells, "%.*s", (int)(strstr(c, "</th>") - c), c);
		while ((c = strstr(c, "<td>")) && c < end) {
			c += 4;
			sb_add(&cells, " %.*s", (int)(strstr(c, "</td>") - c), c);
		}
		char want[512];
		snprintf(want, sizeof want, "\n%s ", t.v[rows].name);
		const char *line = strstr(text, want);
		ck_assert_ptr_nonnull(line);
		struct sb toks = {0};
		char *copy = strndup(line + 1, (size_t)(strchr(line + 1, '\n') - line - 1)), *save;
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			sb_add(&toks, "%s%s", toks.len ? " " : "", w);
		ck_assert_str_eq(sb_str(&cells), sb_str(&toks));
		free(copy);
		free(cells.s);
		free(toks.s);
	}
	ck_assert_uint_eq(rows, 3);
	/* No samples, no pass@k table. */
	ck_assert_ptr_null(strstr(page, "passk-table"));
	/* Values known from the score tests, in case both went wrong. */
	ck_assert_ptr_nonnull(strstr(page, "<th scope=\"row\">CF</th><td>4</td><td>25.0</td>"
					   "<td>25.0</td><td>50.0</td><td>75.0</td><td>39.6</td>"
					   "<td>75.0</td><td>0</td><td>0</td></tr>"));
	ck_assert_ptr_nonnull(strstr(page, "<th scope=\"row\">CF_SNF</th><td>1</td><td>100.0</td>"
					   "<td>100.0</td><td>-</td><td>-</td>"));
	/* The data's scores are score_to_json's. */
	json_t *d = page_data(page), *j = score_to_json(&t);
	ck_assert(json_equal(json_object_get(d, "scores"), json_object_get(j, "settings")));
	/* And the outcomes agree with the numbers: solved rows = Recall. */
	size_t i;
	json_t *r;
	size_t solved[3] = {0}, all[3] = {0};
	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		size_t s = (size_t)json_integer_value(json_object_get(r, "setting"));
		all[s]++;
		solved[s] += json_is_true(json_object_get(r, "solved"));
	}
	for (size_t s = 0; s < 3; s++) {
		ck_assert_uint_eq(all[s], t.v[s].tasks);
		ck_assert_double_eq_tol((double)solved[s] / (double)all[s], t.v[s].recall, 1e-12);
	}
	json_decref(j);
	json_decref(d);
	score_free(&t);
	free(text);
	free(page);
	rm_rf(dir);
	free(file);
	free(out);
	free(dir);
}
END_TEST

static size_t entries(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
	pclose(p);
	return n;
}

START_TEST(test_written_atomically)
{
	char *dir = tmpdir(), *in = path_in(dir, "in"), *file, *odir = path_in(dir, "out");
	ck_assert_int_eq(mkdir(in, 0755), 0);
	ck_assert_int_eq(mkdir(odir, 0755), 0);
	file = path_in(in, "turns.jsonl");
	write_reference(file);
	char *out = path_in(odir, "report.html");
	tf_write(out, "old page");
	const char *paths[] = {in};
	char err[256] = "";

	/* A write that fails half-way (the file size limit: the page is far
	 * over 4 KiB) leaves the old page and no temporary file. */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old;
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &(struct rlimit){4096, old.rlim_max}), 0);
	ck_assert_int_eq(report_write(paths, 1, out, NULL, stderr, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "cannot write") && strstr(err, out), "err: %s", err);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	char *s = tf_read(out);
	ck_assert_str_eq(s, "old page");
	free(s);
	ck_assert_uint_eq(entries(odir), 1);

	/* Then a good write replaces it whole, readable by all. */
	s = report(paths, 1, out, NULL);
	ck_assert(str_starts(s, "<!DOCTYPE html>"));
	ck_assert(str_ends(s, "</html>\n"));
	free(s);
	ck_assert_uint_eq(entries(odir), 1);
	struct stat st;
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);

	/* An output directory that does not exist: a message naming it. */
	char *bad = path_in(dir, "no/such/r.html");
	ck_assert_int_eq(report_write(paths, 1, bad, NULL, stderr, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "no/such/r.html"), "err: %s", err);
	free(bad);
	rm_rf(dir);
	free(in);
	free(odir);
	free(file);
	free(out);
	free(dir);
}
END_TEST

START_TEST(test_no_records_fails)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl"), *out = path_in(dir, "r.html");
	char *missing = path_in(dir, "nowhere"), err[512] = "";
	const char *paths[] = {dir};
	FILE *quiet = fopen("/dev/null", "w");
	/* An empty log, then one of bad lines only, then nothing at all. */
	tf_write(file, "");
	ck_assert_int_eq(report_write(paths, 1, out, NULL, quiet, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "no records in") && strstr(err, dir), "err: %s", err);
	ck_assert_int_eq(access(out, F_OK), -1);
	tf_write(file, "garbage\n{\"setting\": \"CF\"}\n\n");
	err[0] = '\0';
	ck_assert_int_eq(report_write(paths, 1, out, NULL, quiet, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "no records in"), "err: %s", err);
	ck_assert_int_eq(access(out, F_OK), -1);
	const char *gone[] = {missing};
	ck_assert_int_eq(report_write(gone, 1, out, NULL, quiet, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "cannot open") && strstr(err, "nowhere"), "err: %s", err);
	ck_assert_int_eq(access(out, F_OK), -1);
	/* A directory without turns.jsonl names the file it looked for. */
	unlink(file);
	ck_assert_int_eq(report_write(paths, 1, out, NULL, quiet, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "turns.jsonl"), "err: %s", err);
	fclose(quiet);
	rm_rf(dir);
	free(missing);
	free(file);
	free(out);
	free(dir);
}
END_TEST

/* The record text in the page's data: the strings under "rows" but task
 * ids, verdicts and times (which the budget does not count). */
static size_t text_bytes(const json_t *v)
{
	if (json_is_string(v))
		return json_string_length(v);
	size_t n = 0, i;
	const char *k;
	json_t *c;
	json_array_foreach(v, i, c)
	{
		n += text_bytes(c);
	}
	json_object_foreach((json_t *)v, k, c)
	{
		if (strcmp(k, "verdict") && strcmp(k, "time") && strcmp(k, "task"))
			n += text_bytes(c);
	}
	return n;
}

static json_int_t cap_of(const json_t *d, const char *kind)
{
	return json_integer_value(json_object_get(json_object_get(d, "caps"), kind));
}

START_TEST(test_text_cap)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl"), *out = path_in(dir, "r.html");
	/* "x" and 1000 "é": cut to 1000 bytes the last é would be split, so
	 * 999 are kept and the page knows the other 1002 were left out. */
	struct sb code = {0};
	sb_add(&code, "%s", "x");
	for (int i = 0; i < 1000; i++)
		sb_add(&code, "é");
	json_t *v = rec("CF", "t", 0, 0, "fail", code.s);
	write_lines(file, &v, 1);
	const char *paths[] = {file};
	struct report_opts o = {.text_cap = 1000};
	char *page = report(paths, 1, out, &o);
	json_t *d = page_data(page);
	json_t *t0 = json_array_get(json_object_get(find_row(d, "CF", "t"), "turns"), 0);
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(t0, "code"))), 999);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(t0, "cut"), "code")),
			 1002);
	ck_assert_ptr_nonnull(strstr(page, "keeps at most its first 1000 bytes."));
	ck_assert_ptr_null(strstr(page, "cut further"));
	json_decref(d);
	free(page);
	free(code.s);
	rm_rf(dir);
	free(file);
	free(out);
	free(dir);
}
END_TEST

/* 40 tasks x 2 turns: turn 0 a 1575-byte code, turn 1 the same with one
 * line changed, 600 bytes of execution feedback each, a 2400-byte user
 * message each; texts kept to 1000 bytes. */
static void write_big(const char *file)
{
	for (int k = 0; k < 40; k++) {
		struct sb c0 = {0}, c1 = {0}, fb0 = {0}, fb1 = {0}, um = {0};
		for (int i = 0; i < 75; i++) {
			sb_add(&c0, "line %03d of task %03d\n", i, k);
			sb_add(&c1,
			       i == 10 ? "LINE %03d of task %03d\n" : "line %03d of task %03d\n", i,
			       k);
		}
		for (int i = 0; i < 25; i++) {
			sb_add(&fb0, "failure %03d, turn 0 %03d\n", i, k);
			sb_add(&fb1, "failure %03d, turn 1 %03d\n", i, k);
		}
		for (int i = 0; i < 150; i++)
			sb_add(&um, "the prompt %04d\n", i + k);
		char task[16];
		snprintf(task, sizeof task, "t%d", k);
		json_t *v[2] = {rec("CF", task, 0, 1, "fail", c0.s),
				rec("CF", task, 1, 1, "pass", c1.s)};
		for (int t = 0; t < 2; t++) {
			json_object_set_new(json_object_get(v[t], "feedback"), "execution",
					    json_string(t ? fb1.s : fb0.s));
			json_object_set_new(v[t], "user_message", json_string(um.s));
		}
		write_lines(file, v, 2);
		free(c0.s), free(c1.s), free(fb0.s), free(fb1.s), free(um.s);
	}
}

START_TEST(test_page_budget)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl"), *out = path_in(dir, "r.html");
	write_big(file);
	const char *paths[] = {file};
	/* Diffs (40 small ones) and feedback (80 x 600 bytes, and "No syntax
	 * errors") fit whole in 70000 bytes; what is left, about 13000, gives
	 * each turn-0 code the same share, about 330 bytes; the codes of turns
	 * with a diff and the user messages get nothing. */
	struct report_opts o = {.text_cap = 1000, .budget = 70000};
	char *page = report(paths, 1, out, &o);
	json_t *d = page_data(page);
	ck_assert_int_eq(cap_of(d, "error"), 1000);
	ck_assert_int_eq(cap_of(d, "diff"), 1000);
	ck_assert_int_eq(cap_of(d, "feedback"), 1000);
	json_int_t code = cap_of(d, "code");
	size_t whole = 0; /* the diffs and feedback, kept whole */
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		for (size_t k = 0; k < 2; k++) {
			json_t *t = json_array_get(json_object_get(r, "turns"), k);
			whole += text_bytes(json_object_get(t, "feedback"));
			whole += text_bytes(json_object_get(t, "diff"));
		}
	}
	ck_assert_int_eq(code, (json_int_t)((70000 - whole) / 40));
	ck_assert_int_gt(code, 300);
	ck_assert_int_lt(code, 400);
	ck_assert_int_eq(cap_of(d, "code_with_diff"), 0);
	ck_assert_int_eq(cap_of(d, "user_message"), 0);
	ck_assert_uint_le(text_bytes(json_object_get(d, "rows")), 70000);
	ck_assert_uint_gt(text_bytes(json_object_get(d, "rows")), 70000 - 40);
	/* Every task alike, the last read as the first. */
	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		json_t *t0 = json_array_get(json_object_get(r, "turns"), 0);
		json_t *t1 = json_array_get(json_object_get(r, "turns"), 1);
		ck_assert_uint_eq(strlen(json_string_value(json_object_get(t0, "code"))),
				  (size_t)code);
		ck_assert_int_eq(
		    json_integer_value(json_object_get(json_object_get(t0, "cut"), "code")),
		    1575 - code);
		ck_assert_ptr_null(json_object_get(t1, "code"));
		ck_assert_ptr_null(json_object_get(t0, "user_message"));
		ck_assert_ptr_nonnull(
		    strstr(json_string_value(json_object_get(t1, "diff")), "\n-line 010 of task"));
		ck_assert_uint_eq(strlen(json_string_value(json_object_get(
				      json_object_get(t1, "feedback"), "execution"))),
				  600);
		ck_assert_str_eq(json_string_value(json_object_get(t1, "verdict")), "pass");
	}
	char want[160];
	snprintf(want, sizeof want,
		 "texts were cut further: code to %lld bytes, the code of turns with a diff left "
		 "out, user messages left out.",
		 (long long)code);
	ck_assert_msg(strstr(page, want), "no note: %s", want);
	json_decref(d);
	free(page);

	/* A page budget that holds it all: nothing cut further. */
	o.budget = 1 << 20;
	page = report(paths, 1, out, &o);
	d = page_data(page);
	ck_assert_int_eq(cap_of(d, "user_message"), 1000);
	ck_assert(json_is_false(json_object_get(json_object_get(d, "caps"), "over")));
	ck_assert_ptr_null(strstr(page, "cut further"));
	json_decref(d);
	free(page);
	rm_rf(dir);
	free(file);
	free(out);
	free(dir);
}
END_TEST

START_TEST(test_load_budget)
{
	char *dir = tmpdir(), *file = path_in(dir, "turns.jsonl"), *out = path_in(dir, "r.html");
	write_big(file);
	const char *paths[] = {file};
	/* 30000 bytes while reading: the first tasks keep their texts, the
	 * later turns none, but all keep their verdicts; the page counts them. */
	struct report_opts o = {.text_cap = 1000, .load_budget = 30000};
	char *page = report(paths, 1, out, &o);
	json_t *d = page_data(page);
	json_int_t trimmed = json_integer_value(json_object_get(d, "trimmed"));
	ck_assert_int_gt(trimmed, 60);
	ck_assert_int_lt(trimmed, 80);
	json_t *first = json_array_get(json_object_get(find_row(d, "CF", "t0"), "turns"), 1);
	json_t *last = json_array_get(json_object_get(find_row(d, "CF", "t39"), "turns"), 1);
	ck_assert_ptr_nonnull(json_object_get(first, "code"));
	ck_assert_ptr_null(json_object_get(last, "code"));
	ck_assert(json_is_true(json_object_get(last, "trimmed")));
	ck_assert_str_eq(json_string_value(json_object_get(last, "verdict")), "pass");
	char want[160];
	snprintf(want, sizeof want,
		 "<span id=\"n-trimmed\">%lld</span> turns (the last ones read) were left out",
		 (long long)trimmed);
	ck_assert_msg(strstr(page, want), "no note: %s", want);
	json_decref(d);
	free(page);
	rm_rf(dir);
	free(file);
	free(out);
	free(dir);
}
END_TEST

START_TEST(test_timelines)
{
	char *dir = tmpdir(), *a = path_in(dir, "a.jsonl"), *b = path_in(dir, "b.jsonl");
	char *out = path_in(dir, "r.html");
	/* Shards with a task's turns out of order and split between them, a
	 * duplicate that disagrees (the first wins, as in the scores), a
	 * generator error, a carried turn. */
	json_t *va[4] = {rec("CF_EF_FULL", "BigCodeBench/10", 2, 2, "pass", "a\nB\nc\n"),
			 rec("CF_EF_FULL", "BigCodeBench/10", 0, 2, "fail", "a\nb\nc\n"),
			 rec("CF", "BigCodeBench/2", 0, 2, "fail", "z\n"),
			 rec("CF", "BigCodeBench/2", 1, 2, "fail", "z\n")};
	json_object_set_new(va[3], "generator_error", json_string("timed out after 600 s"));
	json_t *vb[4] = {rec("CF_EF_FULL", "BigCodeBench/10", 1, 2, "fail", "a\nb\nc\n"),
			 rec("CF_EF_FULL", "BigCodeBench/10", 1, 2, "pass", "other\n"),
			 rec("CF", "BigCodeBench/2", 2, 2, "fail", "z\n"),
			 rec("CF", "BigCodeBench/10", 0, 2, "pass", "q\n")};
	json_object_set_new(vb[2], "carried", json_true());
	write_lines(a, va, 4);
	write_lines(b, vb, 4);
	const char *paths[] = {a, b};
	char *page = report(paths, 2, out, NULL);
	json_t *d = page_data(page);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "tasks")), 2);
	ck_assert_ptr_nonnull(strstr(page, "<span id=\"n-tasks\">2</span> tasks"));
	/* Rows: task 2 before task 10 (numbers compare as numbers), then the
	 * table's setting order. */
	json_t *rows = json_object_get(d, "rows");
	ck_assert_uint_eq(json_array_size(rows), 3);
	const char *want[3][2] = {
	    {"BigCodeBench/2", "CF"}, {"BigCodeBench/10", "CF"}, {"BigCodeBench/10", "CF_EF_FULL"}};
	for (size_t i = 0; i < 3; i++) {
		json_t *r = json_array_get(rows, i);
		ck_assert_str_eq(json_string_value(json_object_get(r, "task")), want[i][0]);
		size_t s = (size_t)json_integer_value(json_object_get(r, "setting"));
		ck_assert_str_eq(
		    json_string_value(json_array_get(json_object_get(d, "settings"), s)),
		    want[i][1]);
	}
	json_t *r = json_array_get(rows, 2), *turns = json_object_get(r, "turns");
	ck_assert_uint_eq(json_array_size(turns), 3);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(
		    json_integer_value(json_object_get(json_array_get(turns, k), "turn")), k);
	/* The first turn-1 record won: no change, and solved only at 2. */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(turns, 1), "verdict")),
			 "fail");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(turns, 1), "diff")), "");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(turns, 2), "diff")),
			 "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
	ck_assert_ptr_null(json_object_get(json_array_get(turns, 0), "diff"));
	ck_assert(json_is_true(json_object_get(r, "solved")));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "first_pass")), 2);
	ck_assert(json_is_false(json_object_get(r, "errors")));
	/* Task 2: unsolved, with an error at turn 1, carried at turn 2. */
	r = json_array_get(rows, 0);
	turns = json_object_get(r, "turns");
	ck_assert(json_is_false(json_object_get(r, "solved")));
	ck_assert(json_is_null(json_object_get(r, "first_pass")));
	ck_assert(json_is_true(json_object_get(r, "errors")));
	ck_assert(json_is_true(json_object_get(json_array_get(turns, 1), "error")));
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(turns, 1), "generator_error")),
	    "timed out after 600 s");
	ck_assert(json_is_true(json_object_get(json_array_get(turns, 2), "carried")));
	/* Turns 1 and 2 repeat turn 0's code and feedback: kept once, marked
	 * "same", their diffs empty. */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(turns, 0), "code")),
			 "z\n");
	for (int k = 1; k <= 2; k++) {
		json_t *tk = json_array_get(turns, k);
		ck_assert_ptr_null(json_object_get(tk, "code"));
		ck_assert(json_is_true(json_object_get(json_object_get(tk, "same"), "code")));
		ck_assert(json_is_true(json_object_get(
		    json_object_get(json_object_get(tk, "feedback"), "same"), "compilation")));
		ck_assert_str_eq(json_string_value(json_object_get(tk, "diff")), "");
	}
	ck_assert_int_eq(json_integer_value(json_object_get(d, "duplicates")), 1);
	json_decref(d);
	free(page);
	rm_rf(dir);
	free(a);
	free(b);
	free(out);
	free(dir);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *t = tcase_create("report");
	tcase_add_test(t, test_hostile_text_escaped);
	tcase_add_test(t, test_table_equals_score);
	tcase_add_test(t, test_written_atomically);
	tcase_add_test(t, test_no_records_fails);
	tcase_add_test(t, test_text_cap);
	tcase_add_test(t, test_page_budget);
	tcase_add_test(t, test_load_budget);
	tcase_add_test(t, test_timelines);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(report_suite, NULL);
}
