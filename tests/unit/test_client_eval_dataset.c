/* Unit tests for the benchmark loaders: the real HumanEval, BigCodeBench and
 * CodeContests files in ../shared/datasets or $SBX_DATASETS (skipped when
 * absent; tests/helpers/datasets.h), then synthetic records for every format
 * and every way a record can be bad. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "client/eval/dataset.h"
#include "tests/helpers/datasets.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

/* ---- a temp file per test, warnings captured in memory ---- */

struct loaded {
	char path[PATH_MAX];
	struct ds_set s;
	char *warn;
	size_t warn_len;
	int rc;
	char err[256];
};

static void write_file(const char *path, const char *text, size_t n, bool gz)
{
	if (gz) {
		gzFile g = gzopen(path, "wb");
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzwrite(g, text, (unsigned)n), (int)n);
		ck_assert_int_eq(gzclose(g), Z_OK);
		return;
	}
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

static void load_path(struct loaded *l, enum ds_format fmt)
{
	FILE *w = open_memstream(&l->warn, &l->warn_len);
	ck_assert_ptr_nonnull(w);
	l->rc = ds_load(l->path, fmt, w, &l->s, l->err, sizeof l->err);
	ck_assert_int_eq(fclose(w), 0);
}

static void load_n(struct loaded *l, const char *text, size_t n, enum ds_format fmt, bool gz)
{
	memset(l, 0, sizeof *l);
	strcpy(l->path, "/tmp/sbx_test_dataset_XXXXXX");
	int fd = mkstemp(l->path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(l->path, text, n, gz);
	load_path(l, fmt);
	unlink(l->path);
}

static void load(struct loaded *l, const char *text, enum ds_format fmt, bool gz)
{
	load_n(l, text, strlen(text), fmt, gz);
}

static void unload(struct loaded *l)
{
	ds_free(&l->s);
	free(l->warn);
}

/* A warning "PATH:LINE: ...why..., skipped" on a line of its own. */
static bool warned(const struct loaded *l, size_t line, const char *why)
{
	char prefix[PATH_MAX + 32];
	snprintf(prefix, sizeof prefix, "%s:%zu: ", l->path, line);
	for (const char *p = l->warn; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *one = strndup(p, n);
		bool hit = strncmp(one, prefix, strlen(prefix)) == 0 && strstr(one, why) &&
			   n >= 9 && strcmp(one + n - 9, ", skipped") == 0;
		free(one);
		if (hit)
			return true;
		p += n + (nl ? 1 : 0);
	}
	return false;
}

#define ASSERT_WARNED(l, line, why)                                                                \
	ck_assert_msg(warned(l, line, why), "no warning \"%s\" on line %d in:\n%s", why, line,     \
		      (l)->warn ? (l)->warn : "")

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static const struct ds_task *find(const struct ds_set *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].id, id) == 0)
			return &s->v[i];
	return NULL;
}

/* ---- the real files ---- */

START_TEST(test_real_humaneval)
{
	NEED_DATASET("HumanEval.jsonl.gz");
	struct loaded l = {0};
	snprintf(l.path, sizeof l.path, "%s", tds_path("HumanEval.jsonl.gz"));
	load_path(&l, DS_HUMANEVAL);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 164);
	ck_assert_uint_eq(l.s.skipped, 0);
	ck_assert_uint_eq(l.warn_len, 0);
	const struct ds_task *t = &l.s.v[0];
	ck_assert_str_eq(t->id, "HumanEval/0");
	ck_assert_str_eq(t->entry_point, "has_close_elements");
	ck_assert_int_eq(t->test_format, FMT_HUMANEVAL);
	ck_assert(json_is_string(t->tests));
	ck_assert_ptr_nonnull(strstr(json_string_value(t->tests), "def check"));
	ck_assert_uint_eq(t->line, 1);
	ck_assert(strncmp(t->reference, t->prompt, strlen(t->prompt)) == 0);
	ck_assert_uint_gt(strlen(t->reference), strlen(t->prompt));
	ck_assert_str_eq(l.s.v[163].id, "HumanEval/163");
	ck_assert_uint_eq(l.s.v[163].line, 164);
	unload(&l);
}
END_TEST

/* Reads the file again, independently, to compare each task's prompt with
 * its record's instruct_prompt. */
static void check_bcb_prompts(const struct ds_set *s)
{
	gzFile g = gzopen(tds_path("BigCodeBench.jsonl.gz"), "rb");
	ck_assert_ptr_nonnull(g);
	size_t cap = 1 << 20, i = 0;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	while (gzgets(g, buf, (int)cap)) {
		size_t n = strlen(buf);
		ck_assert_msg(n + 1 < cap, "test buffer too small");
		json_t *rec = json_loadb(buf, n, 0, NULL);
		ck_assert_ptr_nonnull(rec);
		ck_assert_uint_lt(i, s->n);
		const struct ds_task *t = &s->v[i++];
		ck_assert_str_eq(t->id, json_string_value(json_object_get(rec, "task_id")));
		ck_assert_str_eq(t->prompt,
				 json_string_value(json_object_get(rec, "instruct_prompt")));
		ck_assert_str_eq(json_string_value(t->tests),
				 json_string_value(json_object_get(rec, "test")));
		json_decref(rec);
	}
	ck_assert_uint_eq(i, s->n);
	free(buf);
	gzclose(g);
}

START_TEST(test_real_bigcodebench)
{
	NEED_DATASET("BigCodeBench.jsonl.gz");
	struct loaded l = {0};
	snprintf(l.path, sizeof l.path, "%s", tds_path("BigCodeBench.jsonl.gz"));
	load_path(&l, DS_BIGCODEBENCH);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 1140);
	ck_assert_uint_eq(l.s.skipped, 0);
	for (size_t i = 0; i < l.s.n; i++) {
		const struct ds_task *t = &l.s.v[i];
		ck_assert_int_eq(t->test_format, FMT_UNITTEST);
		ck_assert_ptr_nonnull(strstr(json_string_value(t->tests), "class TestCases"));
		ck_assert_ptr_nonnull(t->entry_point);
		ck_assert_ptr_nonnull(t->reference);
		ck_assert_uint_eq(t->line, i + 1);
	}
	ck_assert_str_eq(l.s.v[0].id, "BigCodeBench/0");
	ck_assert_ptr_nonnull(strstr(l.s.v[0].reference, "def task_func("));
	check_bcb_prompts(&l.s);
	unload(&l);
}
END_TEST

START_TEST(test_real_code_contests)
{
	NEED_DATASET("code_contests_sample.jsonl.gz");
	struct loaded l = {0};
	snprintf(l.path, sizeof l.path, "%s", tds_path("code_contests_sample.jsonl.gz"));
	load_path(&l, DS_STDIO);
	ck_assert_int_eq(l.rc, 0);
	/* The README says 19, but the file holds 20 records: 19 newlines and a
	 * last record without one. */
	ck_assert_uint_eq(l.s.n, 20);
	ck_assert_uint_eq(l.s.skipped, 0);
	for (size_t i = 0; i < l.s.n; i++) {
		const struct ds_task *t = &l.s.v[i];
		char id[32];
		snprintf(id, sizeof id, "%zu", i);
		ck_assert_str_eq(t->id, id);
		ck_assert_int_eq(t->test_format, FMT_STDIO);
		ck_assert_ptr_null(t->reference);
		ck_assert(json_is_array(t->tests) && json_array_size(t->tests) >= 1);
		size_t j;
		json_t *c;
		json_array_foreach(t->tests, j, c)
		{
			ck_assert_uint_eq(json_object_size(c), 2);
			ck_assert(json_is_string(json_object_get(c, "input")));
			ck_assert(json_is_string(json_object_get(c, "output")));
		}
	}
	ck_assert_uint_eq(json_array_size(l.s.v[0].tests), 101);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(l.s.v[0].tests, 0), "output")),
	    "0\n1\n2\n");
	ck_assert(strncmp(l.s.v[0].prompt, "Alice and Johnny", 16) == 0);
	unload(&l);
}
END_TEST

/* ---- synthetic records ---- */

static const char bcb_file[] =
    "{\"task_id\": \"B/0\", \"instruct_prompt\": \"Do it.\", \"test\": \"class TestCases: pass\","
    " \"entry_point\": \"task_func\", \"code_prompt\": \"def task_func():\\n\","
    " \"canonical_solution\": \"    return 1\\n\", \"libs\": [\"os\"]}\n"
    "{\"task_id\": \"B/1\", \"instruct_prompt\": \"Two.\", \"test\": \"t\","
    " \"canonical_solution\": \"x = 1\\n\"}\n"
    "{\"task_id\": \"B/2\", \"instruct_prompt\": \"Three.\", \"test\": \"t\"}\n"
    "{\"task_id\": \"B/3\", \"test\": \"t\"}\n"
    "{\"task_id\": \"B/4\", \"instruct_prompt\": \"x\", \"test\": 5}\n"
    "{\"task_id\": \"B/5\", \"instruct_prompt\": \"x\", \"test\": \"t\", \"entry_point\": 7}\n"
    "{\"task_id\": \"B/6\", \"instruct_prompt\": \"x\", \"test\": \"  \"}\n"
    "{\"task_id\": [1], \"instruct_prompt\": \"x\", \"test\": \"t\"}\n"
    "{\"task_id\": \"B/8\", \"instruct_prompt\": \"x\", \"test\": \"t\", \"entry_point\": \"a "
    "b\"}\n";

static void check_bcb(bool gz)
{
	struct loaded l;
	load(&l, bcb_file, DS_BIGCODEBENCH, gz);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 3);
	ck_assert_uint_eq(l.s.skipped, 6);
	ck_assert_uint_eq(count_lines(l.warn), 6);
	const struct ds_task *t = &l.s.v[0];
	ck_assert_str_eq(t->id, "B/0");
	ck_assert_str_eq(t->prompt, "Do it.");
	ck_assert_str_eq(t->entry_point, "task_func");
	ck_assert_str_eq(t->reference, "def task_func():\n    return 1\n");
	ck_assert_str_eq(json_string_value(t->tests), "class TestCases: pass");
	ck_assert_int_eq(t->test_format, FMT_UNITTEST);
	t = &l.s.v[1];
	ck_assert_ptr_null(t->entry_point);
	ck_assert_str_eq(t->reference, "x = 1\n");
	ck_assert_uint_eq(t->line, 2);
	ck_assert_ptr_null(l.s.v[2].reference);
	ASSERT_WARNED(&l, 4, "missing \"instruct_prompt\"");
	ASSERT_WARNED(&l, 5, "\"test\" is not a string");
	ASSERT_WARNED(&l, 6, "\"entry_point\" is not a string");
	ASSERT_WARNED(&l, 7, "\"test\" is empty");
	ASSERT_WARNED(&l, 8, "\"task_id\"");
	ASSERT_WARNED(&l, 9, "not a Python identifier");
	unload(&l);
}

START_TEST(test_bigcodebench_plain)
{
	check_bcb(false);
}
END_TEST

START_TEST(test_bigcodebench_gzip)
{
	check_bcb(true);
}
END_TEST

static const char he_file[] =
    "{\"task_id\": \"H/0\", \"prompt\": \"def f(x):\\n\", \"canonical_solution\": \"    return "
    "x\\n\","
    " \"test\": \"def check(candidate): pass\", \"entry_point\": \"f\"}\n"
    "\n"
    "   \t \n"
    "{\"task_id\": \"H/1\", \"prompt\": \"def g():\\n\", \"test\": \"t\"}\n"
    "[1, 2]\n"
    "{\"task_id\": \"H/2\", \"prompt\": \"p\", \"test\": \"t\", \"entry_point\": \"g\"}\n"
    "{\"task_id\": \"H/0\", \"prompt\": \"p\", \"test\": \"t\", \"entry_point\": \"g\"}\n"
    "{\"task_id\": \"H/3\", \"prompt\": \n"
    "{\"task_id\": 4, \"prompt\": \"p\", \"test\": \"t\", \"entry_point\": \"h\"}\r\n"
    "{\"task_id\": \"H/5\", \"prompt\": \"p\", \"test\": \"t\", \"entry_point\": \"i\"}";

START_TEST(test_humaneval_records)
{
	struct loaded l;
	load(&l, he_file, DS_HUMANEVAL, false);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 4);
	ck_assert_uint_eq(l.s.skipped, 4);
	const struct ds_task *t = &l.s.v[0];
	ck_assert_str_eq(t->id, "H/0");
	ck_assert_str_eq(t->prompt, "def f(x):\n");
	ck_assert_str_eq(t->reference, "def f(x):\n    return x\n");
	ck_assert_str_eq(t->entry_point, "f");
	ck_assert_int_eq(t->test_format, FMT_HUMANEVAL);
	/* blank lines are skipped but still counted */
	t = &l.s.v[1];
	ck_assert_str_eq(t->id, "H/2");
	ck_assert_uint_eq(t->line, 6);
	ck_assert_ptr_null(t->reference);
	ck_assert_str_eq(l.s.v[2].id, "4");
	ck_assert_uint_eq(l.s.v[2].line, 9);
	/* the last line has no newline */
	ck_assert_str_eq(l.s.v[3].id, "H/5");
	ck_assert_uint_eq(l.s.v[3].line, 10);
	ASSERT_WARNED(&l, 4, "missing \"entry_point\"");
	ASSERT_WARNED(&l, 5, "not a JSON object");
	ASSERT_WARNED(&l, 7, "duplicate id \"H/0\" (first on line 1)");
	ASSERT_WARNED(&l, 8, "invalid JSON");
	ck_assert_uint_eq(count_lines(l.warn), 4);
	unload(&l);
}
END_TEST

static const char mbpp_file[] =
    "{\"task_id\": 11, \"text\": \"Write a python function to remove first and last occurrence"
    " of a given character from the string.\", \"code\": \"def remove_Occ(s,ch): \\r\\n    return"
    " s\", \"test_list\": [\"assert remove_Occ(\\\"hello\\\",\\\"l\\\") == \\\"heo\\\"\", \"assert"
    " remove_Occ(\\\"abcda\\\",\\\"a\\\") == \\\"bcd\\\"\"], \"test_setup_code\": \"\","
    " \"challenge_test_list\": []}\n"
    "{\"task_id\": 2, \"prompt\": \"Find the shared elements.\", \"text\": \"ignored\", \"code\":"
    " \"def similar_elements(a, b):\\n    return set(a) & set(b)\", \"test_list\": [\"assert"
    " set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\"], \"test_imports\": []}\n"
    "{\"task_id\": 3, \"text\": \"Area.\", \"test_list\": [\"assert math.isclose(area(\\\"f(\\\", "
    "2),"
    " 12.5)\"], \"test_setup_code\": \"import math\"}\n"
    "{\"task_id\": 4, \"text\": \"Nothing to call.\", \"test_list\": [\"assert True\"]}\n"
    "{\"task_id\": 5, \"text\": \"Empty.\", \"test_list\": []}\n"
    "{\"task_id\": 6, \"text\": \"Bad.\", \"test_list\": [\"assert f(1)\", 7]}\n"
    "{\"task_id\": \"Mbpp/7\", \"prompt\": \"def f(x):\\n\", \"test\": \"def check(c): pass\","
    " \"entry_point\": \"f\", \"canonical_solution\": \"    return x\\n\"}\n"
    "{\"task_id\": 8, \"code\": \"x\"}\n"
    "{\"task_id\": 9, \"test_list\": [\"assert f(1)\"]}\n";

START_TEST(test_mbpp_records)
{
	struct loaded l;
	load(&l, mbpp_file, DS_MBPP, true);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 5);
	ck_assert_uint_eq(l.s.skipped, 4);
	const struct ds_task *t = find(&l.s, "11");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->test_format, FMT_ASSERTS);
	ck_assert_str_eq(t->entry_point, "remove_Occ");
	ck_assert_str_eq(t->prompt,
			 "Write a python function to remove first and last occurrence of a given "
			 "character from the string.\nYour code should pass these tests:\n"
			 "assert remove_Occ(\"hello\",\"l\") == \"heo\"\n"
			 "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"");
	ck_assert_str_eq(t->reference, "def remove_Occ(s,ch): \r\n    return s");
	ck_assert(json_is_array(t->tests) && json_array_size(t->tests) == 2);
	ck_assert_str_eq(json_string_value(json_array_get(t->tests, 1)),
			 "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"");
	/* "prompt" wins over "text"; set( is a builtin, the reference defines
	 * similar_elements */
	t = find(&l.s, "2");
	ck_assert_str_eq(t->prompt,
			 "Find the shared elements.\nYour code should pass these tests:\n"
			 "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == "
			 "set((4, 5))");
	ck_assert_str_eq(t->entry_point, "similar_elements");
	/* a method (math.isclose) and a call inside a string do not count */
	t = find(&l.s, "3");
	ck_assert_str_eq(t->entry_point, "area");
	ck_assert_ptr_null(t->reference);
	/* MBPP's setup code is kept for the harness; an empty one is none */
	ck_assert_str_eq(t->test_setup, "import math");
	ck_assert_ptr_null(find(&l.s, "11")->test_setup);
	ck_assert_ptr_null(find(&l.s, "4")->entry_point);
	/* HumanEval-style records are HumanEval */
	t = find(&l.s, "Mbpp/7");
	ck_assert_int_eq(t->test_format, FMT_HUMANEVAL);
	ck_assert_str_eq(json_string_value(t->tests), "def check(c): pass");
	ck_assert_str_eq(t->reference, "def f(x):\n    return x\n");
	ASSERT_WARNED(&l, 5, "\"test_list\" is not a non-empty array");
	ASSERT_WARNED(&l, 6, "test_list[1]");
	ASSERT_WARNED(&l, 8, "missing \"test_list\"");
	ASSERT_WARNED(&l, 9, "missing \"text\"");
	unload(&l);
}
END_TEST

static const char stdio_file[] =
    /* SandboxFusion: test is a JSON string */
    "{\"id\": 0, \"content\": \"Add.\", \"labels\": \"{}\", \"test\": \"[{\\\"input\\\":"
    " {\\\"stdin\\\": \\\"1 2\\\\n\\\"}, \\\"output\\\": {\\\"stdout\\\": \\\"3\\\\n\\\"}}]\"}\n"
    /* an already-parsed list of plain strings */
    "{\"task_id\": \"s1\", \"prompt\": \"Echo.\", \"test\": [{\"input\": \"a\", \"output\": \"a\"},"
    " {\"input\": \"b\\u0000c\", \"output\": \"b\"}]}\n"
    /* original CodeContests: public + private, generated left out */
    "{\"name\": \"1548_A. Web\", \"description\": \"Graph.\", \"public_tests\": {\"input\":"
    " [\"p1\", \"p2\"], \"output\": [\"o1\", \"o2\"]}, \"private_tests\": {\"input\": [\"q1\"],"
    " \"output\": [\"r1\"]}, \"generated_tests\": {\"input\": [\"g\"], \"output\": [\"h\"]},"
    " \"solutions\": {\"language\": [2, 3, 3], \"solution\": [\"int main(){}\","
    " \"print(input())\", \"pass\"]}}\n"
    /* only generated tests: they are all there is */
    "{\"name\": \"gen only\", \"description\": \"G.\", \"public_tests\": {\"input\": [], "
    "\"output\":"
    " []}, \"private_tests\": {\"input\": [], \"output\": []}, \"generated_tests\": {\"input\":"
    " [\"g\"], \"output\": [\"h\"]}, \"solutions\": {\"language\": [1], \"solution\": [\"c\"]}}\n"
    "{\"name\": \"none\", \"description\": \"N.\", \"public_tests\": {\"input\": [], \"output\": "
    "[]}}\n"
    "{\"name\": \"uneven\", \"description\": \"U.\", \"public_tests\": {\"input\": [\"a\", \"b\"],"
    " \"output\": [\"c\"]}}\n"
    "{\"id\": 6, \"content\": \"Bad JSON.\", \"test\": \"[{\\\"input\\\": \"}\n"
    "{\"id\": 7, \"content\": \"No output.\", \"test\": [{\"input\": {\"stdin\": \"x\"}}]}\n"
    "{\"id\": 8, \"content\": \"No tests at all.\"}\n"
    "{\"id\": 9, \"test\": []}\n"
    "{\"content\": \"No id.\", \"test\": [{\"input\": \"a\", \"output\": \"a\"}]}\n"
    "{\"id\": \"s11\", \"question\": \"Q.\", \"test\": [{\"input\": \"a\", \"output\": \"a\"}],"
    " \"solutions\": [\"x\"]}\n";

START_TEST(test_stdio_records)
{
	struct loaded l;
	load(&l, stdio_file, DS_STDIO, false);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 4);
	ck_assert_uint_eq(l.s.skipped, 8);
	const struct ds_task *t = &l.s.v[0];
	ck_assert_str_eq(t->id, "0");
	ck_assert_str_eq(t->prompt, "Add.");
	ck_assert_int_eq(t->test_format, FMT_STDIO);
	ck_assert_ptr_null(t->entry_point);
	ck_assert_ptr_null(t->reference);
	json_t *want = json_loads("[{\"input\": \"1 2\\n\", \"output\": \"3\\n\"}]", 0, NULL);
	ck_assert(json_equal(t->tests, want));
	json_decref(want);
	t = &l.s.v[1];
	ck_assert_str_eq(t->id, "s1");
	ck_assert_uint_eq(json_array_size(t->tests), 2);
	/* stdin keeps its NUL byte */
	ck_assert_uint_eq(json_string_length(json_object_get(json_array_get(t->tests, 1), "input")),
			  3);
	t = &l.s.v[2];
	ck_assert_str_eq(t->id, "1548_A. Web");
	ck_assert_str_eq(t->prompt, "Graph.");
	want =
	    json_loads("[{\"input\": \"p1\", \"output\": \"o1\"}, {\"input\": \"p2\", \"output\":"
		       " \"o2\"}, {\"input\": \"q1\", \"output\": \"r1\"}]",
		       0, NULL);
	ck_assert(json_equal(t->tests, want));
	json_decref(want);
	ck_assert_str_eq(t->reference, "print(input())");
	t = &l.s.v[3];
	ck_assert_str_eq(t->id, "gen only");
	ck_assert_uint_eq(json_array_size(t->tests), 1);
	ck_assert_ptr_null(t->reference);
	ASSERT_WARNED(&l, 5, "no tests");
	ASSERT_WARNED(&l, 6, "\"public_tests\" is not {input: [...], output: [...]}");
	ASSERT_WARNED(&l, 7, "\"test\" is not valid JSON");
	ASSERT_WARNED(&l, 8, "test[0] has no input/output strings");
	ASSERT_WARNED(&l, 9, "missing \"test\"");
	ASSERT_WARNED(&l, 10, "missing \"content\"");
	ASSERT_WARNED(&l, 11, "missing \"id\"");
	ASSERT_WARNED(&l, 12, "\"solutions\"");
	unload(&l);
}
END_TEST

START_TEST(test_parse_record_directly)
{
	struct ds_task t;
	char err[256] = "";
	const char *rec =
	    "{\"task_id\": \"X\", \"prompt\": \"p\", \"test\": \"t\", \"entry_point\": \"f\"}";
	ck_assert_int_eq(ds_parse_record(rec, strlen(rec), DS_HUMANEVAL, &t, err, sizeof err), 0);
	ck_assert_str_eq(t.id, "X");
	ds_task_free(&t);
	ck_assert_ptr_null(t.id);
	ck_assert_int_eq(ds_parse_record(rec, strlen(rec), DS_BIGCODEBENCH, &t, err, sizeof err),
			 -1);
	ck_assert_str_eq(err, "missing \"instruct_prompt\"");
	ck_assert_ptr_null(t.id);
	ds_task_free(&t); /* harmless after a failure */
	ck_assert_int_eq(ds_parse_record("\"s\"", 3, DS_STDIO, &t, err, sizeof err), -1);
	ck_assert_str_eq(err, "not a JSON object");
	/* only len bytes count */
	ck_assert_int_eq(ds_parse_record(rec, 10, DS_HUMANEVAL, &t, err, sizeof err), -1);
}
END_TEST

START_TEST(test_format_names)
{
	ck_assert_int_eq(ds_parse_format("bigcodebench"), DS_BIGCODEBENCH);
	ck_assert_int_eq(ds_parse_format("humaneval"), DS_HUMANEVAL);
	ck_assert_int_eq(ds_parse_format("mbpp"), DS_MBPP);
	ck_assert_int_eq(ds_parse_format("stdio"), DS_STDIO);
	ck_assert_int_eq(ds_parse_format("nope"), -1);
	ck_assert_int_eq(ds_parse_format(""), -1);
	for (int f = 0; f < DS_COUNT; f++)
		ck_assert_int_eq(ds_parse_format(ds_format_name((enum ds_format)f)), f);
}
END_TEST

START_TEST(test_unreadable)
{
	struct ds_set s = {.n = 7};
	char err[256] = "";
	ck_assert_int_eq(
	    ds_load("/nonexistent/sbx/data.jsonl", DS_HUMANEVAL, NULL, &s, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/sbx/data.jsonl"));
	ck_assert_uint_eq(s.n, 0);
	ck_assert_ptr_null(s.v);
	err[0] = '\0';
	ck_assert_int_eq(ds_load("/tmp", DS_HUMANEVAL, NULL, &s, err, sizeof err), -1);
	ck_assert(err[0] != '\0');
	/* an empty file is a dataset with no tasks, not an error */
	struct loaded l;
	load(&l, "", DS_HUMANEVAL, true);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 0);
	unload(&l);
}
END_TEST

/* A gzip file cut short: what came before is kept, the loss is reported. */
START_TEST(test_truncated_gzip)
{
	size_t n = 3000, cap = n * 120;
	char *text = malloc(cap), *p = text;
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p,
			     "{\"task_id\": \"T/%zu\", \"prompt\": \"p%zu\", \"test\": \"t\","
			     " \"entry_point\": \"f\"}\n",
			     i, i * 7919);
	struct loaded l;
	memset(&l, 0, sizeof l);
	strcpy(l.path, "/tmp/sbx_test_dataset_XXXXXX");
	int fd = mkstemp(l.path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(l.path, text, (size_t)(p - text), true);
	struct stat st;
	ck_assert_int_eq(stat(l.path, &st), 0);
	ck_assert_int_eq(truncate(l.path, st.st_size / 2), 0);
	load_path(&l, DS_HUMANEVAL);
	unlink(l.path);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_gt(l.s.n, 0);
	ck_assert_uint_lt(l.s.n, n);
	ck_assert_uint_ge(l.s.skipped, 1);
	ck_assert_ptr_nonnull(strstr(l.warn, "read error"));
	unload(&l);
	free(text);
}
END_TEST

START_TEST(test_long_lines)
{
	/* a 1 MiB prompt after a byte order mark, then a line over the 64 MiB
	 * cap, then a normal record that must still be found */
	size_t big = 1 << 20, huge = (64u << 20) + 100;
	char *text = malloc(huge + big + 1000), *p = text;
	ck_assert_ptr_nonnull(text);
	p += sprintf(p, "\xEF\xBB\xBF{\"task_id\": \"L/0\", \"prompt\": \"");
	memset(p, 'x', big);
	p += big;
	p += sprintf(p, "\", \"test\": \"t\", \"entry_point\": \"f\"}\n");
	memset(p, ' ', huge);
	p += huge;
	p += sprintf(p,
		     "\n{\"task_id\": \"L/2\", \"prompt\": \"p\", \"test\": \"t\", \"entry_point\":"
		     " \"f\"}\n");
	struct loaded l;
	load_n(&l, text, (size_t)(p - text), DS_HUMANEVAL, false);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.s.n, 2);
	ck_assert_uint_eq(strlen(l.s.v[0].prompt), big);
	ck_assert_str_eq(l.s.v[1].id, "L/2");
	ck_assert_uint_eq(l.s.v[1].line, 3);
	ck_assert_uint_eq(l.s.skipped, 1);
	ASSERT_WARNED(&l, 2, "line longer than 64 MiB");
	unload(&l);
	free(text);
}
END_TEST

static Suite *dataset_suite(void)
{
	Suite *s = suite_create("dataset");
	TCase *real = tcase_create("real");
	tcase_set_timeout(real, 60);
	tcase_add_test(real, test_real_humaneval);
	tcase_add_test(real, test_real_bigcodebench);
	tcase_add_test(real, test_real_code_contests);
	suite_add_tcase(s, real);
	TCase *syn = tcase_create("synthetic");
	tcase_set_timeout(syn, 60);
	tcase_add_test(syn, test_bigcodebench_plain);
	tcase_add_test(syn, test_bigcodebench_gzip);
	tcase_add_test(syn, test_humaneval_records);
	tcase_add_test(syn, test_mbpp_records);
	tcase_add_test(syn, test_stdio_records);
	tcase_add_test(syn, test_parse_record_directly);
	tcase_add_test(syn, test_format_names);
	tcase_add_test(syn, test_unreadable);
	tcase_add_test(syn, test_truncated_gzip);
	tcase_add_test(syn, test_long_lines);
	suite_add_tcase(s, syn);
	return s;
}

int main(void)
{
	return tmain(dataset_suite, NULL);
}
