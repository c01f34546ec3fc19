/* docs/protocol.md must document every name the protocol header defines:
 * field names, limit keys, verdicts, limit_hit values and error codes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repo root)", path);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

static void assert_documented(const char *doc, const char *name)
{
	char quoted[128];
	snprintf(quoted, sizeof quoted, "`%s`", name);
	ck_assert_msg(strstr(doc, quoted) != NULL,
		      "%s is in protocol.h but not in docs/protocol.md", quoted);
}

START_TEST(header_fields_documented)
{
	char *doc = slurp("docs/protocol.md");
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
	char *doc = slurp("docs/protocol.md");
	for (int v = 0; v < V_COUNT; v++)
		assert_documented(doc, proto_verdict_name((enum proto_verdict)v));
	for (int h = 1; h < HIT_COUNT; h++)
		assert_documented(doc, proto_limit_hit_name((enum proto_limit_hit)h));
	for (int e = 0; e < E_COUNT; e++)
		assert_documented(doc, proto_errcode_name((enum proto_errcode)e));
	free(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("docs");
	TCase *tc = tcase_create("protocol.md");
	tcase_add_test(tc, header_fields_documented);
	tcase_add_test(tc, enum_names_documented);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
