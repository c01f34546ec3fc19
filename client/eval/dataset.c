#include "client/eval/dataset.h"
#include "client/eval/dataset_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define fail ds_fail
#define BAD DS_BAD
#define OOM DS_OOM

static const char *const format_names[DS_COUNT] = {"bigcodebench", "humaneval", "mbpp", "stdio"};

int ds_parse_format(const char *name)
{
	for (int f = 0; name && f < DS_COUNT; f++)
		if (strcasecmp(name, format_names[f]) == 0)
			return f;
	return -1;
}

const char *ds_format_name(enum ds_format f)
{
	return (unsigned)f < DS_COUNT ? format_names[f] : "unknown";
}

int ds_fail(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

#define OUT_OF_MEMORY() fail(OOM, err, errlen, "out of memory")

/* ---- field access: a field that is absent or null is missing; one that is
 * present with the wrong type makes the record malformed, because guessing
 * what a broken record meant would change the benchmark silently. */

bool ds_blank_n(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(" \t\r\n\f\v", s[i]))
			return false;
	return true;
}

static bool blank(const char *s)
{
	return ds_blank_n(s, strlen(s));
}

static bool ident_char(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

/* The daemon's rule: ASCII, at most 128 characters, not starting with a digit. */
static bool is_identifier(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if (!ident_char(s[i], i == 0))
			return false;
	return n > 0 && n <= 128;
}

static json_t *field(const json_t *rec, const char *key)
{
	json_t *v = json_object_get(rec, key);
	return json_is_null(v) ? NULL : v;
}

/* Text fields must not hold NUL: everything downstream treats them as C strings. */
static int opt_str(const json_t *rec, const char *key, const char **out, char *err, size_t errlen)
{
	json_t *v = field(rec, key);
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v) || memchr(json_string_value(v), 0, json_string_length(v)))
		return fail(BAD, err, errlen, "\"%s\" is not a string", key);
	*out = json_string_value(v);
	return 0;
}

static int req_str(const json_t *rec, const char *key, const char **out, char *err, size_t errlen)
{
	if (opt_str(rec, key, out, err, errlen) < 0)
		return BAD;
	if (!*out)
		return fail(BAD, err, errlen, "missing \"%s\"", key);
	if (blank(*out))
		return fail(BAD, err, errlen, "\"%s\" is empty", key);
	return 0;
}

/* The first of keys that is present (formats disagree on the name). */
static const char *first_key(const json_t *rec, const char *const *keys)
{
	for (; *keys; keys++)
		if (field(rec, *keys))
			return *keys;
	return NULL;
}

/* Ids: a non-empty string, or an integer written in decimal. */
static int get_id(const json_t *rec, const char *key, char **out, char *err, size_t errlen)
{
	json_t *v = field(rec, key);
	const char *s;
	char num[32];
	if (!v)
		return fail(BAD, err, errlen, "missing \"%s\"", key);
	if (json_is_integer(v)) {
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		s = num;
	} else if (req_str(rec, key, &s, err, errlen) < 0) {
		return fail(BAD, err, errlen, "\"%s\" is not a non-empty string or an integer",
			    key);
	}
	*out = strdup(s);
	return *out ? 0 : OUT_OF_MEMORY();
}

static int dup_opt(const char *s, char **out, char *err, size_t errlen)
{
	*out = s ? strdup(s) : NULL;
	return s && !*out ? OUT_OF_MEMORY() : 0;
}

/* a + b, or NULL when b is missing (a missing a just leaves b). */
static int concat(const char *a, const char *b, char **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!b)
		return 0;
	if (!a)
		return dup_opt(b, out, err, errlen);
	size_t na = strlen(a), nb = strlen(b);
	if (!(*out = malloc(na + nb + 1)))
		return OUT_OF_MEMORY();
	memcpy(*out, a, na);
	memcpy(*out + na, b, nb + 1);
	return 0;
}

static int set_entry_point(const char *ep, struct ds_task *t, char *err, size_t errlen)
{
	if (!ep)
		return 0;
	if (!is_identifier(ep))
		return fail(BAD, err, errlen, "\"entry_point\" is not a Python identifier");
	return dup_opt(ep, &t->entry_point, err, errlen);
}

/* BigCodeBench and HumanEval: one record, one test string; they differ in
 * field names and in what the canonical solution (only a body) goes under:
 * BigCodeBench's code_prompt holds the imports and the signature,
 * HumanEval's prompt is the signature and docstring. */
struct text_layout {
	const char *prompt, *ref_head;
	bool ep_required;
	enum proto_format fmt;
};

static const struct text_layout bigcodebench = {"instruct_prompt", "code_prompt", false,
						FMT_UNITTEST};
static const struct text_layout humaneval = {"prompt", "prompt", true, FMT_HUMANEVAL};

static int parse_text(const json_t *rec, const struct text_layout *l, struct ds_task *t, char *err,
		      size_t errlen)
{
	const char *prompt = NULL, *test = NULL, *ep = NULL, *head = NULL, *solution = NULL;
	int rc;
	if ((rc = get_id(rec, "task_id", &t->id, err, errlen)) < 0)
		return rc;
	if (req_str(rec, l->prompt, &prompt, err, errlen) < 0 ||
	    req_str(rec, "test", &test, err, errlen) < 0 ||
	    (l->ep_required ? req_str : opt_str)(rec, "entry_point", &ep, err, errlen) < 0 ||
	    opt_str(rec, l->ref_head, &head, err, errlen) < 0 ||
	    opt_str(rec, "canonical_solution", &solution, err, errlen) < 0)
		return BAD;
	t->test_format = l->fmt;
	if ((rc = set_entry_point(ep, t, err, errlen)) < 0 ||
	    (rc = dup_opt(prompt, &t->prompt, err, errlen)) < 0 ||
	    (rc = concat(head, solution, &t->reference, err, errlen)) < 0)
		return rc;
	t->tests = json_string(test);
	return t->tests ? 0 : OUT_OF_MEMORY();
}

static int parse_bigcodebench(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	return parse_text(rec, &bigcodebench, t, err, errlen);
}

static int parse_humaneval(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	return parse_text(rec, &humaneval, t, err, errlen);
}

/* ---- MBPP ---- */

/* Whether code has "def NAME(" (spaces allowed before the parenthesis). */
static bool defines(const char *code, const char *name, size_t n)
{
	for (const char *p = code; code && (p = strstr(p, "def ")); p += 4) {
		const char *q = p + 4;
		while (*q == ' ')
			q++;
		if (strncmp(q, name, n) != 0 || ident_char(q[n], false))
			continue;
		for (q += n; *q == ' ';)
			q++;
		if (*q == '(')
			return true;
	}
	return false;
}

static bool is_builtin(const char *s, size_t n)
{
	static const char *const names[] = {
	    "abs",	  "all",    "any",  "bool",   "dict",  "float", "frozenset", "int",
	    "isinstance", "len",    "list", "map",    "max",   "min",	"not",	     "round",
	    "set",	  "sorted", "str",  "sum",    "tuple", "type",	"zip",	     "and",
	    "or",	  "in",	    "is",   "assert", "print", "repr",	"range",     NULL};
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0)
			return true;
	return false;
}

/* The function an MBPP assert calls: the first name called outside string
 * literals (and not as a method), preferring one the reference defines so
 * "assert set(f(x)) == ..." gives f rather than set. NULL when unsure. */
static int mbpp_entry_point(const char *assert_text, const char *code, char **out, char *err,
			    size_t errlen)
{
	const char *fallback = NULL, *p = assert_text;
	size_t fallback_n = 0;
	*out = NULL;
	while (*p) {
		if (*p == '\'' || *p == '"') {
			char q = *p++;
			while (*p && *p != q)
				p += (*p == '\\' && p[1]) ? 2 : 1;
			p += *p ? 1 : 0;
			continue;
		}
		if (!ident_char(*p, true) ||
		    (p > assert_text && (ident_char(p[-1], false) || p[-1] == '.'))) {
			p++;
			continue;
		}
		const char *name = p;
		while (ident_char(*p, false))
			p++;
		size_t n = (size_t)(p - name);
		const char *q = p;
		while (*q == ' ')
			q++;
		if (*q != '(' || is_builtin(name, n))
			continue;
		if (defines(code, name, n)) {
			fallback = name;
			fallback_n = n;
			break;
		}
		if (!fallback) {
			fallback = name;
			fallback_n = n;
		}
	}
	if (!fallback || fallback_n > 128)
		return 0;
	*out = strndup(fallback, fallback_n);
	return *out ? 0 : OUT_OF_MEMORY();
}

static int mbpp_prompt(const char *text, const json_t *asserts, char **out, char *err,
		       size_t errlen)
{
	static const char intro[] = "\nYour code should pass these tests:\n";
	size_t n = strlen(text) + sizeof intro, i;
	json_t *v;
	json_array_foreach(asserts, i, v) n += json_string_length(v) + 1;
	char *s = malloc(n);
	if (!s)
		return OUT_OF_MEMORY();
	char *p = stpcpy(stpcpy(s, text), intro);
	json_array_foreach(asserts, i, v)
	{
		if (i > 0)
			*p++ = '\n';
		p = stpcpy(p, json_string_value(v));
	}
	*out = s;
	return 0;
}

/* The original MBPP layout (task_id, text, code, test_list, test_setup_code).
 * challenge_test_list and test_imports are not used. */
static int parse_mbpp_original(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	const char *text, *code, *setup;
	json_t *list = field(rec, "test_list"), *v;
	size_t i;
	int rc;
	if ((rc = get_id(rec, "task_id", &t->id, err, errlen)) < 0)
		return rc;
	if (req_str(rec, field(rec, "prompt") ? "prompt" : "text", &text, err, errlen) < 0 ||
	    opt_str(rec, "code", &code, err, errlen) < 0 ||
	    opt_str(rec, "test_setup_code", &setup, err, errlen) < 0)
		return BAD;
	if (setup && !blank(setup) && dup_opt(setup, &t->test_setup, err, errlen) < 0)
		return OOM;
	if (!json_is_array(list) || json_array_size(list) == 0)
		return fail(BAD, err, errlen, "\"test_list\" is not a non-empty array");
	json_array_foreach(list, i, v)
	{
		if (!json_is_string(v) || blank(json_string_value(v)) ||
		    memchr(json_string_value(v), 0, json_string_length(v)))
			return fail(BAD, err, errlen, "test_list[%zu] is not a non-empty string",
				    i);
	}
	t->test_format = FMT_ASSERTS;
	if ((rc = mbpp_prompt(text, list, &t->prompt, err, errlen)) < 0 ||
	    (rc = dup_opt(code, &t->reference, err, errlen)) < 0 ||
	    (rc = mbpp_entry_point(json_string_value(json_array_get(list, 0)), code,
				   &t->entry_point, err, errlen)) < 0)
		return rc;
	t->tests = json_deep_copy(list);
	return t->tests ? 0 : OUT_OF_MEMORY();
}

static int parse_mbpp(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	if (field(rec, "test_list"))
		return parse_mbpp_original(rec, t, err, errlen);
	if (field(rec, "test"))
		return parse_humaneval(rec, t, err, errlen);
	return fail(BAD, err, errlen, "missing \"test_list\" (or \"test\")");
}

/* ---- stdio (CodeContests) ---- */

/* A case side: a string, or {"stdin": s} / {"stdout": s} as SandboxFusion
 * packs them. NUL bytes are kept: stdin may legitimately hold them. */
static json_t *case_side(json_t *v, const char *inner)
{
	if (json_is_object(v))
		v = json_object_get(v, inner);
	return json_is_string(v) ? v : NULL;
}

static int add_case(json_t *tests, json_t *in, json_t *out, char *err, size_t errlen)
{
	json_t *c = json_pack("{s:s%,s:s%}", "input", json_string_value(in), json_string_length(in),
			      "output", json_string_value(out), json_string_length(out));
	if (!c || json_array_append_new(tests, c) < 0)
		return OUT_OF_MEMORY();
	return 0;
}

static int cases_from_array(const json_t *list, json_t *tests, char *err, size_t errlen)
{
	json_t *c;
	size_t i;
	if (!json_is_array(list))
		return fail(BAD, err, errlen, "\"test\" is not a list of cases");
	json_array_foreach(list, i, c)
	{
		json_t *in = case_side(json_object_get(c, "input"), "stdin");
		json_t *out = case_side(json_object_get(c, "output"), "stdout");
		if (!in || !out)
			return fail(BAD, err, errlen, "test[%zu] has no input/output strings", i);
		int rc = add_case(tests, in, out, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "test": a list of cases, or that list as a JSON string (SandboxFusion). */
static int cases_from_list(const json_t *rec, json_t *tests, char *err, size_t errlen)
{
	json_t *v = field(rec, "test");
	if (!json_is_string(v))
		return cases_from_array(v, tests, err, errlen);
	json_error_t je;
	json_t *parsed =
	    json_loadb(json_string_value(v), json_string_length(v), JSON_ALLOW_NUL, &je);
	if (!parsed)
		return fail(BAD, err, errlen, "\"test\" is not valid JSON: %s", je.text);
	int rc = cases_from_array(parsed, tests, err, errlen);
	json_decref(parsed);
	return rc;
}

/* The original CodeContests layout: {"input": [...], "output": [...]}. */
static int cases_from_columns(const json_t *rec, const char *key, json_t *tests, char *err,
			      size_t errlen)
{
	json_t *v = field(rec, key);
	if (!v)
		return 0;
	json_t *in = json_object_get(v, "input"), *out = json_object_get(v, "output");
	if (!json_is_array(in) || !json_is_array(out) ||
	    json_array_size(in) != json_array_size(out))
		return fail(BAD, err, errlen, "\"%s\" is not {input: [...], output: [...]}", key);
	for (size_t i = 0; i < json_array_size(in); i++) {
		json_t *a = json_array_get(in, i), *b = json_array_get(out, i);
		if (!json_is_string(a) || !json_is_string(b))
			return fail(BAD, err, errlen, "%s[%zu] is not a pair of strings", key, i);
		int rc = add_case(tests, a, b, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int stdio_tests(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	int rc;
	if (!(t->tests = json_array()))
		return OUT_OF_MEMORY();
	if (field(rec, "test"))
		rc = cases_from_list(rec, t->tests, err, errlen);
	else if (!first_key(rec, (const char *const[]){"public_tests", "private_tests",
						       "generated_tests", NULL}))
		return fail(BAD, err, errlen, "missing \"test\" (or \"public_tests\")");
	else if ((rc = cases_from_columns(rec, "public_tests", t->tests, err, errlen)) == 0 &&
		 (rc = cases_from_columns(rec, "private_tests", t->tests, err, errlen)) == 0 &&
		 json_array_size(t->tests) == 0)
		/* Generated cases come from mutated inputs and are only trusted
		 * when the problem has nothing better. */
		rc = cases_from_columns(rec, "generated_tests", t->tests, err, errlen);
	if (rc == 0 && json_array_size(t->tests) == 0)
		rc = fail(BAD, err, errlen, "no tests");
	return rc;
}

/* CodeContests' solutions: {"language": [...], "solution": [...]}, where
 * language 3 is PYTHON3 (some exports spell the enum out). */
static int stdio_reference(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	json_t *v = field(rec, "solutions");
	if (!v)
		return 0;
	json_t *lang = json_object_get(v, "language"), *sol = json_object_get(v, "solution");
	if (!json_is_array(lang) || !json_is_array(sol) ||
	    json_array_size(lang) != json_array_size(sol))
		return fail(BAD, err, errlen,
			    "\"solutions\" is not {language: [...], solution: [...]}");
	for (size_t i = 0; i < json_array_size(lang); i++) {
		json_t *l = json_array_get(lang, i), *s = json_array_get(sol, i);
		bool py3 = (json_is_integer(l) && json_integer_value(l) == 3) ||
			   (json_is_string(l) && strcasecmp(json_string_value(l), "python3") == 0);
		if (py3 && json_is_string(s) &&
		    !memchr(json_string_value(s), 0, json_string_length(s)))
			return dup_opt(json_string_value(s), &t->reference, err, errlen);
	}
	return 0;
}

static int parse_stdio(const json_t *rec, struct ds_task *t, char *err, size_t errlen)
{
	const char *id_key = first_key(rec, (const char *const[]){"id", "name", "task_id", NULL});
	const char *prompt_key = first_key(
	    rec, (const char *const[]){"content", "description", "prompt", "question", NULL});
	const char *prompt;
	int rc;
	if (!id_key)
		return fail(BAD, err, errlen, "missing \"id\" (or \"name\", \"task_id\")");
	if (!prompt_key)
		return fail(BAD, err, errlen,
			    "missing \"content\" (or \"description\", \"prompt\")");
	if ((rc = get_id(rec, id_key, &t->id, err, errlen)) < 0)
		return rc;
	if (req_str(rec, prompt_key, &prompt, err, errlen) < 0)
		return BAD;
	t->test_format = FMT_STDIO;
	if ((rc = dup_opt(prompt, &t->prompt, err, errlen)) < 0 ||
	    (rc = stdio_tests(rec, t, err, errlen)) < 0)
		return rc;
	return stdio_reference(rec, t, err, errlen);
}

/* ---- records and files ---- */

int ds_parse_record_rc(const char *line, size_t len, enum ds_format fmt, struct ds_task *t,
		       char *err, size_t errlen)
{
	static int (*const parsers[DS_COUNT])(const json_t *, struct ds_task *, char *, size_t) = {
	    parse_bigcodebench, parse_humaneval, parse_mbpp, parse_stdio};
	json_error_t je;
	memset(t, 0, sizeof *t);
	if ((unsigned)fmt >= DS_COUNT)
		return fail(BAD, err, errlen, "unknown dataset format %d", (int)fmt);
	/* NUL is allowed so stdio cases keep it; text fields reject it above. */
	json_t *rec = json_loadb(line, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &je);
	if (!rec)
		return fail(BAD, err, errlen, "invalid JSON at column %d: %s", je.column, je.text);
	int rc = json_is_object(rec) ? parsers[fmt](rec, t, err, errlen)
				     : fail(BAD, err, errlen, "not a JSON object");
	json_decref(rec);
	if (rc < 0)
		ds_task_free(t);
	return rc;
}

int ds_parse_record(const char *line, size_t len, enum ds_format fmt, struct ds_task *t, char *err,
		    size_t errlen)
{
	return ds_parse_record_rc(line, len, fmt, t, err, errlen) < 0 ? -1 : 0;
}

void ds_task_free(struct ds_task *t)
{
	if (!t)
		return;
	free(t->id);
	free(t->prompt);
	free(t->entry_point);
	free(t->reference);
	free(t->test_setup);
	json_decref(t->tests);
	memset(t, 0, sizeof *t);
}

void ds_free(struct ds_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		ds_task_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}
