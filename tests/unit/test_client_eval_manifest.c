/* Unit tests for manifest.c: the SHA-256 of a data set and the per-task
 * seeds against known values, the keys two manifests must agree on, a
 * resume settled against the manifest in --out (refused, or forced and
 * recorded), and the shards check of `sbx score`. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/eval/manifest.h"
#include "tests/helpers/tfile.h"
#include "tests/helpers/tmain.h"

static char *tmpdir(void)
{
	char *d = strdup("/tmp/sbx-manifest-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static char *path_in(const char *dir, const char *name)
{
	char *p = NULL;
	ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

START_TEST(test_sha256_known_values)
{
	char *dir = tmpdir(), *f = path_in(dir, "abc"), hex[65], err[256];
	tf_write(f, "abc");
	ck_assert_int_eq(manifest_sha256_file(f, hex, err, sizeof err), 0);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	tf_write(f, "");
	ck_assert_int_eq(manifest_sha256_file(f, hex, err, sizeof err), 0);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	unlink(f);
	ck_assert_int_eq(manifest_sha256_file(f, hex, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, f));
	rmdir(dir);
	free(f);
	free(dir);
}
END_TEST

START_TEST(test_task_seeds)
{
	/* sha256("42:t/double") starts 0892c831, sha256("42:t/inc") a104516c
	 * (sha256sum(1)). */
	ck_assert_uint_eq(manifest_task_seed(42, "t/double"), 0x0892c831u);
	ck_assert_uint_eq(manifest_task_seed(42, "t/inc"), 0xa104516cu);
	ck_assert_uint_ne(manifest_task_seed(43, "t/double"), manifest_task_seed(42, "t/double"));
}
END_TEST

static json_t *base(void)
{
	json_t *m = json_pack("{s:i, s:s, s:{s:s, s:s, s:s}, s:n, s:s, s:[s], s:i, s:s, s:s, s:n, "
			      "s:n, s:b, s:i, s:b, "
			      "s:{}, s:i, s:{s:s, s:i}, s:s}",
			      "manifest_version", 1, "mode", "live", "dataset", "path", "a.jsonl",
			      "sha256", "00ff", "format", "bigcodebench", "tasks", "shard", "0/2",
			      "settings", "CF", "turns", 3, "model", "m/1", "generator", "gen.py",
			      "verbal", "reference", "always_regenerate", 0, "seed", 42,
			      "seed_per_task", 1, "limits", "gen_timeout_ms", 600000, "daemon",
			      "version", "0.1.0", "workers", 2, "python", "Python 3.11.2");
	ck_assert_ptr_nonnull(m);
	return m;
}

START_TEST(test_diff_names_what_decides)
{
	json_t *a = base(), *b = base();
	char keys[1024];
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 0);
	ck_assert_str_eq(keys, "");
	/* Not compared: the data set's path, the timeout, the daemon's workers. */
	json_object_set_new(json_object_get(b, "dataset"), "path", json_string("/elsewhere.jsonl"));
	json_object_set_new(b, "gen_timeout_ms", json_integer(5));
	json_object_set_new(json_object_get(b, "daemon"), "workers", json_integer(64));
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 0);
	/* Compared, nested ones by their path; long values only by name. */
	json_object_set_new(b, "seed", json_integer(7));
	json_object_set_new(json_object_get(b, "dataset"), "sha256", json_string("11ee"));
	char longcmd[200];
	memset(longcmd, 'x', sizeof longcmd - 1);
	longcmd[sizeof longcmd - 1] = '\0';
	json_object_set_new(b, "generator", json_string(longcmd));
	json_object_del(b, "python");
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 4);
	ck_assert_str_eq(keys,
			 "dataset.sha256 (was \"00ff\", now \"11ee\"), generator, seed (was 42, "
			 "now 7), python (was \"Python 3.11.2\", now none)");
	/* A skipped key does not count. */
	json_t *c = base();
	json_object_set_new(c, "shard", json_string("1/2"));
	ck_assert_uint_eq(manifest_diff(a, c, "shard", keys, sizeof keys), 0);
	ck_assert_uint_eq(manifest_diff(a, c, NULL, keys, sizeof keys), 1);
	ck_assert_str_eq(keys, "shard (was \"0/2\", now \"1/2\")");
	json_decref(a);
	json_decref(b);
	json_decref(c);
}
END_TEST

START_TEST(test_settle_refuses_or_records)
{
	json_t *old = base(), *cur = base();
	json_object_set_new(old, "created", json_string("2025-01-01T00:00:00Z"));
	char err[2048];
	/* The same run, longer: fine, and it keeps its creation time. */
	json_object_set_new(cur, "turns", json_integer(5));
	ck_assert_int_eq(manifest_settle(cur, old, false, err, sizeof err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(cur, "created")),
			 "2025-01-01T00:00:00Z");
	ck_assert_ptr_null(json_object_get(cur, "forced_resumes"));
	/* Another seed: refused, naming it. */
	json_object_set_new(cur, "seed", json_integer(7));
	ck_assert_int_eq(manifest_settle(cur, old, false, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "seed (was 42, now 7)") && strstr(err, "--force-resume") &&
			  !strstr(err, "turns"),
		      "%s", err);
	/* Forced: recorded with the old value; an earlier record is kept. */
	json_object_set_new(old, "forced_resumes", json_pack("[{s:s}]", "time", "earlier"));
	ck_assert_int_eq(manifest_settle(cur, old, true, err, sizeof err), 0);
	json_t *f = json_object_get(cur, "forced_resumes");
	ck_assert_uint_eq(json_array_size(f), 2);
	json_t *last = json_array_get(f, 1);
	ck_assert_uint_eq(json_array_size(json_object_get(last, "keys")), 1);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(last, "keys"), 0)),
			 "seed");
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(last, "previous"), "seed")), 42);
	/* No manifest before: a new run gets a creation time. */
	json_t *fresh = base();
	ck_assert_int_eq(manifest_settle(fresh, NULL, false, err, sizeof err), 0);
	ck_assert_int_eq(strlen(json_string_value(json_object_get(fresh, "created"))), 20);
	json_decref(fresh);
	json_decref(old);
	json_decref(cur);
}
END_TEST

START_TEST(test_check_merge)
{
	char *root = tmpdir(), *d0 = path_in(root, "s0"), *d1 = path_in(root, "s1"),
	     *d2 = path_in(root, "s2"), *d3 = path_in(root, "old"), err[2048];
	const char *dirs[] = {d0, d1, d2, d3};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(mkdir(dirs[i], 0755), 0);
	json_t *m = base();
	ck_assert_int_eq(manifest_write(d0, m, err, sizeof err), 0);
	json_object_set_new(m, "shard", json_string("1/2"));
	ck_assert_int_eq(manifest_write(d1, m, err, sizeof err), 0);
	json_object_set_new(m, "model", json_string("m/2"));
	ck_assert_int_eq(manifest_write(d2, m, err, sizeof err), 0);
	json_decref(m);
	/* Shards of one run. */
	const char *ok[] = {d0, d1};
	ck_assert_int_eq(manifest_check_merge(ok, 2, NULL, err, sizeof err), 0);
	/* Another run's shard: refused, naming the model and both directories. */
	const char *bad[] = {d0, d1, d2};
	ck_assert_int_eq(manifest_check_merge(bad, 3, NULL, err, sizeof err), -1);
	ck_assert_msg(strstr(err, d0) && strstr(err, d2) && strstr(err, "model") &&
			  !strstr(err, "shard ("),
		      "%s", err);
	/* A directory without a manifest is merged with a warning. */
	char *warn = NULL;
	size_t wl = 0;
	FILE *w = open_memstream(&warn, &wl);
	const char *old[] = {d0, d3};
	ck_assert_int_eq(manifest_check_merge(old, 2, w, err, sizeof err), 0);
	fclose(w);
	ck_assert_msg(strstr(warn, d3) && strstr(warn, "no manifest.json"), "%s", warn);
	free(warn);
	/* A manifest that is not JSON is an error. */
	char *broken = path_in(d3, "manifest.json");
	tf_write(broken, "{not json");
	ck_assert_int_eq(manifest_check_merge(old, 2, NULL, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "manifest.json"));
	unlink(broken);
	free(broken);
	for (int i = 0; i < 3; i++) {
		char *p = path_in(dirs[i], "manifest.json");
		unlink(p);
		free(p);
	}
	for (int i = 0; i < 4; i++)
		rmdir(dirs[i]);
	rmdir(root);
	free(d0);
	free(d1);
	free(d2);
	free(d3);
	free(root);
}
END_TEST

/* --samples episodes' seeds: sha256("42:t/double:0") starts 2555f905,
 * sha256("42:t/double:1") 5726242c (sha256sum(1)). */
START_TEST(test_sample_seeds)
{
	ck_assert_uint_eq(manifest_sample_seed(42, "t/double", 0), 0x2555f905u);
	ck_assert_uint_eq(manifest_sample_seed(42, "t/double", 1), 0x5726242cu);
	ck_assert_uint_ne(manifest_sample_seed(42, "t/double", 0),
			  manifest_task_seed(42, "t/double"));
	ck_assert_uint_ne(manifest_sample_seed(42, "t/inc", 1),
			  manifest_sample_seed(42, "t/double", 1));
}
END_TEST

/* samples and temperature are compared; a manifest of an older sbx, which
 * has neither, equals a run with 1 and null, and no other. */
START_TEST(test_diff_samples)
{
	json_t *old = base(), *a = base(), *b = base();
	char keys[1024];
	json_object_set_new(a, "samples", json_integer(1));
	json_object_set_new(a, "temperature", json_null());
	ck_assert_uint_eq(manifest_diff(old, a, NULL, keys, sizeof keys), 0);
	ck_assert_uint_eq(manifest_diff(a, old, NULL, keys, sizeof keys), 0);
	json_object_set_new(b, "samples", json_integer(4));
	json_object_set_new(b, "temperature", json_real(0.5));
	ck_assert_uint_eq(manifest_diff(old, b, NULL, keys, sizeof keys), 2);
	ck_assert_str_eq(keys, "samples (was none, now 4), temperature (was none, now 0.5)");
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 2);
	ck_assert_str_eq(keys, "samples (was 1, now 4), temperature (was null, now 0.5)");
	json_decref(old);
	json_decref(a);
	json_decref(b);
}
END_TEST

/* What the model is shown and which tasks are scored decide the results:
 * the reference check, the partial rule and the hiding of expected outputs
 * are compared, each named. */
START_TEST(test_diff_feedback_and_references)
{
	json_t *a = base(), *b = base();
	char keys[1024];
	json_object_set_new(b, "reference_check", json_pack("{s:b}", "keep_broken", 0));
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 1);
	ck_assert_str_eq(keys, "reference_check (was none, now {\"keep_broken\":false})");
	json_object_set_new(a, "reference_check", json_pack("{s:b}", "keep_broken", 1));
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 1);
	json_object_set_new(a, "reference_check", json_pack("{s:b}", "keep_broken", 0));
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 0);
	json_object_set_new(a, "partial_mode", json_string("fixed"));
	json_object_set_new(b, "partial_mode", json_string("convcodeworld"));
	json_object_set_new(a, "expected_output", json_string("hide"));
	json_object_set_new(b, "expected_output", json_string("show"));
	json_object_set_new(a, "expected_visible_chars", json_integer(0));
	json_object_set_new(b, "expected_visible_chars", json_integer(20));
	ck_assert_uint_eq(manifest_diff(a, b, NULL, keys, sizeof keys), 3);
	ck_assert_msg(strstr(keys, "partial_mode (was \"fixed\", now \"convcodeworld\")") &&
			  strstr(keys, "expected_output (was \"hide\", now \"show\")") &&
			  strstr(keys, "expected_visible_chars (was 0, now 20)"),
		      "%s", keys);
	json_decref(a);
	json_decref(b);
}
END_TEST

static Suite *manifest_suite(void)
{
	Suite *s = suite_create("manifest");
	TCase *t = tcase_create("manifest");
	tcase_add_test(t, test_sha256_known_values);
	tcase_add_test(t, test_task_seeds);
	tcase_add_test(t, test_diff_names_what_decides);
	tcase_add_test(t, test_settle_refuses_or_records);
	tcase_add_test(t, test_check_merge);
	tcase_add_test(t, test_sample_seeds);
	tcase_add_test(t, test_diff_samples);
	tcase_add_test(t, test_diff_feedback_and_references);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(manifest_suite, NULL);
}
