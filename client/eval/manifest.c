/* manifest.json of `sbx eval` (manifest.h): building it, the keys two runs
 * must agree on, settling a resume against the one already in --out, and
 * checking that the directories `sbx score` merges are shards of one run.
 * SHA-256 is libmd's: the data set's content hash and the per-task seeds.
 * (OpenSSL's libcrypto did it before; loading and relocating it was about
 * 2 ms of every `sbx` command's start, `sbx run` included.) */
#include "client/eval/manifest.h"

#include "client/eval/atomic_file.h"

#include <errno.h>
#include <stdbool.h>
#include <sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/eval/fmt_limits.h"
#include "client/eval/gen.h"
#include "common/errfmt.h"

#define MANIFEST_VERSION 1
#define PYTHON_TIMEOUT_MS 10000
/* A value longer than this is named in a refusal, not printed. */
#define SHOWN_VALUE 60

/* What decides a run's results, so two runs (a resume and its run, or two
 * shards) must agree on it. Not compared: where the data set lies (its
 * content is), the model command's timeout, the daemon's worker count and
 * load, and the times. */
static const char *const compared[] = {
    "mode",	    "dataset.sha256",  "dataset.format",  "tasks",
    "shard",	    "settings",	       "turns",		  "model",
    "generator",    "verbal",	       "reference",	  "always_regenerate",
    "seed",	    "seed_per_task",   "limits",	  "daemon.version",
    "python",	    "reference_check", "expected_output", "expected_visible_chars",
    "partial_mode", "samples",	       "temperature",
};
#define NCOMPARED (sizeof compared / sizeof compared[0])

int manifest_sha256_file(const char *path, char hex[65], char *err, size_t errlen)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return errfmt(err, errlen, "cannot read %s: %s", path, errfmt_desc(errno));
	SHA2_CTX md;
	unsigned char buf[1 << 16], sum[SHA256_DIGEST_LENGTH];
	SHA256Init(&md);
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		SHA256Update(&md, buf, n);
	bool ok = !ferror(f);
	SHA256Final(sum, &md);
	fclose(f);
	if (!ok)
		return errfmt(err, errlen, "cannot hash %s", path);
	for (unsigned i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(hex + 2 * i, 3, "%02x", sum[i]);
	return 0;
}

/* The first 4 bytes (big-endian) of the SHA-256 of "SEED:TASK_ID", or of
 * "SEED:TASK_ID:SAMPLE" when sample >= 0. */
static uint32_t hash_seed(long long seed, const char *task_id, int sample)
{
	char *in = NULL;
	unsigned char sum[SHA256_DIGEST_LENGTH];
	int n = sample < 0 ? asprintf(&in, "%lld:%s", seed, task_id)
			   : asprintf(&in, "%lld:%s:%d", seed, task_id, sample);
	/* Out of memory: the base seed itself, still one fixed value. */
	if (n < 0)
		return (uint32_t)seed;
	SHA2_CTX md;
	SHA256Init(&md);
	SHA256Update(&md, (const unsigned char *)in, (size_t)n);
	SHA256Final(sum, &md);
	free(in);
	return (uint32_t)sum[0] << 24 | (uint32_t)sum[1] << 16 | (uint32_t)sum[2] << 8 | sum[3];
}

uint32_t manifest_task_seed(long long seed, const char *task_id)
{
	return hash_seed(seed, task_id, -1);
}

uint32_t manifest_sample_seed(long long seed, const char *task_id, int sample)
{
	return hash_seed(seed, task_id, sample < 0 ? 0 : sample);
}

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* `python3 --version`, the interpreter the host (and its jails) run, or
 * null when it cannot say. */
static json_t *python_version(void)
{
	struct gen_result r;
	json_t *v = NULL;
	if (gen_run("python3 --version", "", PYTHON_TIMEOUT_MS, 4096, &r) == 0 && !r.error[0]) {
		size_t n = strlen(r.output);
		while (n && strchr(" \r\n", r.output[n - 1]))
			n--;
		v = json_stringn(r.output, n);
	}
	gen_result_free(&r);
	return v ? v : json_null();
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* --tasks as a set: its order and repeats do not change the selection. */
static json_t *task_list(const struct eval_opts *o)
{
	if (!o->tasks)
		return json_null();
	const char **v = calloc(o->ntasks + 1, sizeof *v);
	json_t *a = json_array();
	if (!v || !a) {
		free(v);
		json_decref(a);
		return NULL;
	}
	memcpy(v, o->tasks, o->ntasks * sizeof *v);
	qsort(v, o->ntasks, sizeof *v, cmp_str);
	for (size_t i = 0; i < o->ntasks; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
			json_array_append_new(a, json_string(v[i]));
	free(v);
	return a;
}

/* Settings are entries of eval.c's one table, in ConvCodeWorld's order:
 * their addresses sort them in it (and manifest.c need not call eval.c,
 * which calls it). */
static int cmp_setting(const void *a, const void *b)
{
	const struct eval_setting *x = *(const struct eval_setting *const *)a,
				  *y = *(const struct eval_setting *const *)b;
	return x < y ? -1 : x > y;
}

/* Which limits the format's defaults gave, and whether (and how) the
 * references were checked first: left out without --check-reference, so a
 * manifest of an older sbx compares equal. */
static json_t *manifest_add_reference(json_t *m, const struct eval_opts *o)
{
	json_t *names = m ? fmt_limits_names(o->limits_defaulted) : NULL;
	int rc = !names || json_object_set_new(m, "limits_defaulted", names) < 0;
	if (!rc && o->check_reference)
		rc = json_object_set_new(m, "reference_check",
					 json_pack("{s:b}", "keep_broken", o->keep_broken)) < 0;
	if (rc) {
		json_decref(m);
		return NULL;
	}
	return m;
}

static json_t *build(const struct eval_opts *o, const struct eval_setting **sets, size_t nsets,
		     const json_t *ping, const char *dataset_sha256)
{
	const struct eval_setting *sorted[EVAL_MAX_SETTINGS];
	size_t n = nsets < EVAL_MAX_SETTINGS ? nsets : EVAL_MAX_SETTINGS;
	memcpy(sorted, sets, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_setting);
	json_t *names = json_array(), *limits = json_object();
	bool verbal = false;
	for (size_t i = 0; names && i < n; i++) {
		json_array_append_new(names, json_string(sorted[i]->name));
		verbal |= sorted[i]->verbal != VERBAL_NONE;
	}
	for (int i = 0; limits && i < PROTO_NLIMITS; i++)
		if (proto_limit_get(&o->limits, i) > 0)
			json_object_set_new(limits, proto_limit_names[i],
					    json_integer(proto_limit_get(&o->limits, i)));
	char shard[64];
	snprintf(shard, sizeof shard, "%d/%d", o->shard_i, o->shard_n);
	json_t *ping_copy = json_deep_copy(ping);
	json_object_del(ping_copy, "id");
	/* The verbal command matters only where a setting asks it. */
	json_t *m = json_pack(
	    "{s:i, s:s, s:{s:s, s:s, s:s}, s:o, s:s, s:o, s:i, s:s, s:s, s:s?, s:s?, "
	    "s:b, s:I, s:b, "
	    "s:o, s:i, s:o, s:o}",
	    "manifest_version", MANIFEST_VERSION, "mode", o->reference ? "static" : "live",
	    "dataset", "path", o->dataset, "sha256", dataset_sha256, "format",
	    ds_format_name(o->format), "tasks", task_list(o), "shard", shard, "settings", names,
	    "turns", o->turns, "model", o->model && *o->model ? o->model : "unknown", "generator",
	    o->generator, "verbal", verbal ? o->verbal : NULL, "reference", o->reference,
	    "always_regenerate", o->always_regenerate, "seed",
	    (json_int_t)(o->seed >= 0 ? o->seed : EVAL_DEFAULT_SEED), "seed_per_task", o->seed < 0,
	    "limits", limits, "gen_timeout_ms", o->gen_timeout_ms, "daemon",
	    ping_copy ? ping_copy : json_null(), "python", python_version());
	/* What stdio feedback shows of expected outputs decides what the model
	 * can act on (recorded for every format; only stdio uses it). */
	if (m &&
	    (json_object_set_new(m, "expected_output",
				 json_string(o->show_expected ? EXPECTED_SHOW : EXPECTED_HIDE)) ||
	     json_object_set_new(m, "partial_mode",
				 json_string(o->partial_mode == PM_CONVCODEWORLD
						 ? PARTIAL_MODE_CONVCODEWORLD
						 : PARTIAL_MODE_FIXED)) ||
	     json_object_set_new(m, "expected_visible_chars",
				 json_integer(o->show_expected		? 0
					      : o->expected_visible > 0 ? o->expected_visible
									: 0)))) {
		json_decref(m);
		return NULL;
	}
	return manifest_add_reference(m, o);
}

/* --samples and --temperature, run configuration like the seed. */
static json_t *add_sampling(json_t *m, const struct eval_opts *o)
{
	if (m &&
	    (json_object_set_new(m, "samples", json_integer(o->samples > 0 ? o->samples : 1)) < 0 ||
	     json_object_set_new(m, "temperature",
				 o->temperature >= 0 ? json_real(o->temperature) : json_null()) <
		 0)) {
		json_decref(m);
		return NULL;
	}
	return m;
}

/* A key a manifest of an older sbx lacks reads as its default then:
 * "samples" 1, "temperature" null (what that sbx did). */
static bool default_value(const char *key, const json_t *v)
{
	if (!strcmp(key, "samples"))
		return !v || (json_is_integer(v) && json_integer_value(v) == 1);
	if (!strcmp(key, "temperature"))
		return !v || json_is_null(v);
	return false;
}

static bool same_value(const char *key, const json_t *a, const json_t *b)
{
	if (a == b || (a && b && json_equal(a, b)))
		return true;
	return (!a || !b) && default_value(key, a) && default_value(key, b);
}

json_t *manifest_build(const struct eval_opts *o, const struct eval_setting **sets, size_t nsets,
		       const json_t *ping, const char *dataset_sha256)
{
	return add_sampling(build(o, sets, nsets, ping, dataset_sha256), o);
}

json_t *manifest_load(const char *dir, bool *absent, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_FILE);
	*absent = false;
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		*absent = true;
		return NULL;
	}
	json_error_t je;
	json_t *m = json_load_file(path, 0, &je);
	if (!json_is_object(m)) {
		errfmt(err, errlen, "%s: %s", path, m ? "not a JSON object" : je.text);
		json_decref(m);
		return NULL;
	}
	return m;
}

/* obj["a"]["b"] for "a.b". */
static const json_t *get_path(const json_t *obj, const char *path)
{
	char key[64];
	const char *dot;
	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
		obj = json_object_get(obj, key);
		path = dot + 1;
	}
	return json_object_get(obj, path);
}

/* Appends ", KEY (was OLD, now NEW)" (the values when short). */
static void name_key(char *keys, size_t len, const char *key, const json_t *a, const json_t *b)
{
	char *sa = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("none");
	char *sb = b ? json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("none");
	size_t l = strlen(keys);
	if (sa && sb && strlen(sa) <= SHOWN_VALUE && strlen(sb) <= SHOWN_VALUE)
		snprintf(keys + l, len - l, "%s%s (was %s, now %s)", l ? ", " : "", key, sa, sb);
	else
		snprintf(keys + l, len - l, "%s%s", l ? ", " : "", key);
	free(sa);
	free(sb);
}

size_t manifest_diff(const json_t *old, const json_t *cur, const char *skip, char *keys,
		     size_t keyslen)
{
	size_t n = 0;
	keys[0] = '\0';
	for (size_t i = 0; i < NCOMPARED; i++) {
		if (skip && strcmp(compared[i], skip) == 0)
			continue;
		const json_t *a = get_path(old, compared[i]), *b = get_path(cur, compared[i]);
		if (same_value(compared[i], a, b))
			continue;
		n++;
		name_key(keys, keyslen, compared[i], a, b);
	}
	return n;
}

/* cur's "forced_resumes": old's, and this one: when, which keys, and what
 * they were. */
static int record_force(json_t *cur, const json_t *old, const char *now)
{
	json_t *list = json_deep_copy(json_object_get(old, "forced_resumes"));
	json_t *keys = json_array(), *previous = json_object();
	if (!json_is_array(list)) {
		json_decref(list);
		list = json_array();
	}
	for (size_t i = 0; keys && previous && i < NCOMPARED; i++) {
		const char *k = compared[i];
		const json_t *a = get_path(old, k), *b = get_path(cur, k);
		if (!strcmp(k, "turns") || same_value(k, a, b))
			continue;
		json_array_append_new(keys, json_string(k));
		json_object_set_new(previous, k, a ? json_deep_copy(a) : json_null());
	}
	json_t *entry =
	    json_pack("{s:s, s:o, s:o}", "time", now, "keys", keys, "previous", previous);
	if (!list || !entry || json_array_append_new(list, entry) < 0) {
		json_decref(list);
		return -1;
	}
	return json_object_set_new(cur, "forced_resumes", list);
}

int manifest_settle(json_t *cur, const json_t *old, bool force, char *err, size_t errlen)
{
	char now[32], keys[1536];
	now_iso(now, sizeof now);
	const json_t *created = json_object_get(old, "created");
	if (old && manifest_diff(old, cur, "turns", keys, sizeof keys) > 0) {
		if (!force)
			return errfmt(err, errlen,
				      "its %s is of another run: %s differ. Use another --out, or "
				      "--force-resume to continue it anyway",
				      MANIFEST_FILE, keys);
		if (record_force(cur, old, now) < 0)
			return errfmt(err, errlen, "out of memory");
	} else if (json_object_get(old, "forced_resumes")) {
		json_object_set_new(cur, "forced_resumes",
				    json_deep_copy(json_object_get(old, "forced_resumes")));
	}
	int rc = json_object_set_new(
	    cur, "created", json_is_string(created) ? json_deep_copy(created) : json_string(now));
	return rc ? errfmt(err, errlen, "out of memory") : 0;
}

int manifest_write(const char *dir, const json_t *m, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_FILE);
	return atomic_file_write_json(path, m, err, errlen);
}

int manifest_check_merge(const char *const *paths, size_t n, FILE *warn, char *err, size_t errlen)
{
	json_t *first = NULL;
	const char *first_dir = NULL;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue; /* a turns.jsonl given itself: merged unchecked, on purpose */
		bool absent;
		json_t *m = manifest_load(paths[i], &absent, err, errlen);
		if (!m && absent && warn)
			fprintf(warn,
				"sbx score: %s has no %s (a run of an older sbx): not checked\n",
				paths[i], MANIFEST_FILE);
		if (!m) {
			rc = absent ? 0 : -1;
			continue;
		}
		char keys[1536];
		if (!first) {
			first = m;
			first_dir = paths[i];
			continue;
		}
		if (manifest_diff(first, m, "shard", keys, sizeof keys) > 0)
			rc = errfmt(
			    err, errlen,
			    "%s and %s are not shards of one run: their %s differ in %s (give "
			    "their turns.jsonl files to merge them anyway)",
			    first_dir, paths[i], MANIFEST_FILE, keys);
		json_decref(m);
	}
	json_decref(first);
	return rc;
}
