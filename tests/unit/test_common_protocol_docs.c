/* docs/protocol.md must document every name the protocol header defines:
 * field names, limit keys, verdicts, limit_hit values and error codes; and
 * every name and cap of the runner's records (common/records.h), a cap with
 * its value. records.h's outcome names must be the protocol's. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol.h"
#include "common/records.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"

static void assert_documented_from(const char *doc, const char *name, const char *header)
{
	char quoted[128];
	snprintf(quoted, sizeof quoted, "`%s`", name);
	ck_assert_msg(strstr(doc, quoted) != NULL, "%s is in %s but not in docs/protocol.md",
		      quoted, header);
}

static void assert_documented(const char *doc, const char *name)
{
	assert_documented_from(doc, name, "protocol.h");
}

START_TEST(header_fields_documented)
{
	char *doc = tf_read("docs/protocol.md");
	FILE *h = fopen("common/protocol.h", "r");
	ck_assert_ptr_nonnull(h);
	char line[512];
	int seen = 0;
	while (fgets(line, sizeof line, h)) {
		char name[128], value[128];
		if (sscanf(line, "#define %127s \"%127[^\"]\"", name, value) == 2 &&
		    strcmp(name, "PROTO_VERSION") != 0) {
			assert_documented(doc, value);
			seen++;
		}
	}
	fclose(h);
	ck_assert_int_gt(seen, 20);
	free(doc);
}
END_TEST

START_TEST(enum_names_documented)
{
	char *doc = tf_read("docs/protocol.md");
	for (int v = 0; v < V_COUNT; v++)
		assert_documented(doc, proto_verdict_name((enum proto_verdict)v));
	for (int h = 1; h < HIT_COUNT; h++)
		assert_documented(doc, proto_limit_hit_name((enum proto_limit_hit)h));
	for (int e = 0; e < E_COUNT; e++)
		assert_documented(doc, proto_errcode_name((enum proto_errcode)e));
	free(doc);
}
END_TEST

/* Whether a line of doc holding `name` contains "| value |" (a table row
 * giving the cap its value). */
static bool cap_documented(const char *doc, const char *name, long value)
{
	char quoted[128], cell[64];
	snprintf(quoted, sizeof quoted, "`%s`", name);
	snprintf(cell, sizeof cell, "| %ld |", value);
	for (const char *at = strstr(doc, quoted); at; at = strstr(at + 1, quoted)) {
		const char *start = at, *end = strchr(at, '\n');
		while (start > doc && start[-1] != '\n')
			start--;
		size_t n = end ? (size_t)(end - start) : strlen(start);
		char *line = strndup(start, n);
		ck_assert_ptr_nonnull(line);
		bool ok = strstr(line, cell) != NULL;
		free(line);
		if (ok)
			return true;
	}
	return false;
}

START_TEST(records_documented)
{
	char *doc = tf_read("docs/protocol.md");
	FILE *h = fopen("common/records.h", "r");
	ck_assert_ptr_nonnull(h);
	char line[512];
	int strings = 0, caps = 0;
	while (fgets(line, sizeof line, h)) {
		char name[128], value[128];
		if (sscanf(line, "#define %127s %127s", name, value) != 2 ||
		    strncmp(name, "REC_", 4) != 0)
			continue;
		if (value[0] == '"') {
			ck_assert_int_eq(sscanf(line, "#define %127s \"%127[^\"]\"", name, value),
					 2);
			assert_documented_from(doc, value, "records.h");
			strings++;
		} else {
			char *end;
			long v = strtol(value, &end, 10);
			ck_assert_msg(*end == '\0', "%s: not a decimal cap", name);
			ck_assert_msg(cap_documented(doc, name, v),
				      "`%s` (%ld in records.h) has no row with its value in "
				      "docs/protocol.md",
				      name, v);
			caps++;
		}
	}
	fclose(h);
	ck_assert_int_gt(strings, 30);
	ck_assert_int_gt(caps, 10);
	free(doc);
}
END_TEST

/* The control: a cap missing, or documented with another value, is caught. */
START_TEST(cap_check_can_fail)
{
	const char *doc = "| `REC_X` | 12 | bytes |\n| `REC_Y` | 7 | tests |\n";
	ck_assert(cap_documented(doc, "REC_X", 12));
	ck_assert(!cap_documented(doc, "REC_Y", 12));
	ck_assert(!cap_documented(doc, "REC_Y", 1));
	ck_assert(!cap_documented(doc, "REC_Z", 12));
}
END_TEST

START_TEST(record_outcomes_are_the_protocols)
{
	static const struct {
		const char *name;
		enum proto_outcome o;
	} outs[] = {{REC_OUT_PASSED, OUT_PASSED},
		    {REC_OUT_FAILED, OUT_FAILED},
		    {REC_OUT_ERROR, OUT_ERROR},
		    {REC_OUT_TIMEOUT, OUT_TIMEOUT},
		    {REC_OUT_SKIPPED, OUT_SKIPPED}};
	ck_assert_int_eq(sizeof outs / sizeof *outs, OUT_COUNT);
	for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
		ck_assert_int_eq(proto_outcome_parse(outs[i].name), outs[i].o);
		ck_assert_str_eq(proto_outcome_name(outs[i].o), outs[i].name);
	}
}
END_TEST

static Suite *docs_suite(void)
{
	Suite *s = suite_create("docs");
	TCase *tc = tcase_create("protocol.md");
	tcase_add_test(tc, header_fields_documented);
	tcase_add_test(tc, enum_names_documented);
	tcase_add_test(tc, records_documented);
	tcase_add_test(tc, cap_check_can_fail);
	tcase_add_test(tc, record_outcomes_are_the_protocols);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(docs_suite, NULL);
}
