/* manifest.json: what a run of `sbx eval` is, written in --out at its start
 * (docs/eval.md lists the keys), so that it can be reproduced, and so that
 * a resume into the same --out, or `sbx score` over shards, can refuse runs
 * that are not the same one. */
#ifndef SBX_MANIFEST_H
#define SBX_MANIFEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "client/eval/eval.h"

#define MANIFEST_FILE "manifest.json"

/* The SHA-256 of a file's bytes, as 64 lowercase hex digits. 0 or -1. */
int manifest_sha256_file(const char *path, char hex[65], char *err, size_t errlen);
/* The seed of a task's test runs: the first 4 bytes (big-endian) of the
 * SHA-256 of "SEED:TASK_ID", so it depends on nothing but the two. */
uint32_t manifest_task_seed(long long seed, const char *task_id);
/* The seed a generator gets for one episode of --samples: the same of
 * "SEED:TASK_ID:SAMPLE", so episodes differ from each other and from
 * tasks, and a resume or a shard gives each the same one. */
uint32_t manifest_sample_seed(long long seed, const char *task_id, int sample);

/* The manifest of a run with these options, settings (entries of
 * eval_settings(), in any order), the daemon's ping answer and the data
 * set's hash; the caller adds "run_id", manifest_settle "created". NULL when
 * out of memory. */
json_t *manifest_build(const struct eval_opts *o, const struct eval_setting **sets, size_t nsets,
		       const json_t *ping, const char *dataset_sha256);
/* DIR/manifest.json: the object, or NULL: *absent when there is no file,
 * else err says why (unreadable, not a JSON object). */
json_t *manifest_load(const char *dir, bool *absent, char *err, size_t errlen);
/* The keys that must agree between two manifests of one run and differ,
 * but skip (a key name, or NULL): "seed (42, now 7), model, ..." in keys.
 * How many differ. */
size_t manifest_diff(const json_t *old, const json_t *cur, const char *skip, char *keys,
		     size_t keyslen);
/* A run about to start in a directory that holds old (NULL: none): 0 when
 * it may (cur then keeps old's creation time, "created", and its
 * "forced_resumes"; with force, this one's differing keys and their old
 * values are added there), -1 with err naming the differing keys. "turns"
 * may differ (a longer run continues: the records decide). */
int manifest_settle(json_t *cur, const json_t *old, bool force, char *err, size_t errlen);
/* Writes DIR/manifest.json whole (tmp file + rename). 0 or -1. */
int manifest_write(const char *dir, const json_t *m, char *err, size_t errlen);
/* `sbx score` over several paths: the directories among them that hold a
 * manifest must be shards of one run (their manifests differ at most in
 * "shard"). 0, or -1 with err naming the directories and keys. Directories
 * without one are reported to warn. */
int manifest_check_merge(const char *const *paths, size_t n, FILE *warn, char *err, size_t errlen);

#endif
