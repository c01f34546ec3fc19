/* traces.jsonl: one line per task × setting in the common agent-trace
 * schema, built from an index of the run's turns.jsonl (recindex.c). */
#include "client/eval/eval_priv.h"
#include "common/errfmt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *str_or(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : dflt;
}

/* The model provider is what --model names before '/', as in
 * "openai/gpt-4o"; a bare name does not say. */
static json_t *provider_of(const char *model)
{
	const char *slash = strchr(model, '/');
	if (!slash || slash == model)
		return json_string("unknown");
	return json_stringn(model, (size_t)(slash - model));
}

/* The last turn's feedback as one text, the way `sbx run --explain` shows it. */
static json_t *verifier_output(const json_t *last)
{
	const json_t *fb = json_object_get(last, K_FEEDBACK);
	const char *comp = str_or(fb, K_FB_COMP, ""), *exec = str_or(fb, K_FB_EXEC, "");
	const char *verbal = str_or(fb, K_FB_VERBAL, "");
	size_t n = strlen(comp) + strlen(exec) + strlen(verbal) + 256;
	char *buf = malloc(n);
	if (!buf)
		return NULL;
	int w = snprintf(buf, n, "Verdict: %s\n\n== Compilation feedback ==\n%s\n",
			 str_or(last, K_VERDICT, "?"), comp);
	if (*exec)
		w += snprintf(buf + w, n - (size_t)w, "\n== Execution feedback ==\n%s\n", exec);
	if (*verbal)
		snprintf(buf + w, n - (size_t)w, "\n== Verbal feedback ==\n%s\n", verbal);
	json_t *s = json_string(buf);
	free(buf);
	return s;
}

static int add_message(json_t *conv, const char *role, const char *content)
{
	json_t *m = json_pack("{s:s, s:s}", "role", role, "content", content ? content : "");
	return m ? json_array_append_new(conv, m) : -1;
}

/* The answer of a turn whose generator failed: no message (an empty one
 * would read as the model's), but the mark and the reason. */
static int add_failed(json_t *conv, const char *why)
{
	json_t *m = json_pack("{s:s, s:n, s:b, s:s}", "role", "assistant", "content", "failed", 1,
			      "error", why);
	return m ? json_array_append_new(conv, m) : -1;
}

/* One trace line for one task × setting (× sample, with --samples: then
 * the trial name ends in __sN and "sample" says N), from its records in turn
 * order. */
static json_t *trace_of(const struct rec_index *ri, const char *setting, const char *task,
			int sample, bool samples)
{
	json_t *conv = json_array(), *first = NULL, *last = NULL;
	json_int_t first_pass = -1;
	json_t *r;
	for (int t = 0; conv && (r = ri_get(ri, setting, task, sample, t)); t++) {
		if (!json_is_true(json_object_get(r, K_CARRIED)) &&
		    json_is_string(json_object_get(r, K_USER_MSG))) {
			const char *failed = json_string_value(json_object_get(r, K_GEN_ERROR));
			add_message(conv, "user", str_or(r, K_USER_MSG, ""));
			if (failed)
				add_failed(conv, failed);
			else
				add_message(conv, "assistant", str_or(r, K_ASSISTANT_MSG, ""));
		}
		if (first_pass < 0 && strcmp(str_or(r, K_VERDICT, ""), "pass") == 0)
			first_pass = t;
		if (!first)
			first = json_incref(r);
		json_decref(last);
		last = r;
	}
	json_t *tr = NULL;
	if (conv && first && last) {
		const char *model = str_or(first, K_MODEL, "unknown");
		char trial[1024];
		if (samples)
			snprintf(trial, sizeof trial, "%s__%s__s%d", task, setting, sample);
		else
			snprintf(trial, sizeof trial, "%s__%s", task, setting);
		tr = json_pack(
		    "{s:O, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:{s:b, s:o, s:s}, s:o}",
		    "conversations", conv, "agent", "sbx-eval", "model", model, "model_provider",
		    provider_of(model), "date", str_or(first, K_TIME, ""), "task", task, "episode",
		    setting, "run_id", str_or(first, K_RUN_ID, ""), "trial_name", trial, "result",
		    "solved", first_pass >= 0, "first_pass_turn",
		    first_pass >= 0 ? json_integer(first_pass) : json_null(), "verdict",
		    str_or(last, K_VERDICT, ""), "verifier_output", verifier_output(last));
		if (tr && samples && json_object_set_new(tr, K_SAMPLE, json_integer(sample)) < 0) {
			json_decref(tr);
			tr = NULL;
		}
	}
	json_decref(conv);
	json_decref(first);
	json_decref(last);
	return tr;
}

int trace_write(const struct rec_index *ri, const char *path, char *err, size_t errlen)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	if (!f)
		return errfmt(err, errlen, "cannot create %s: %s", tmp, errfmt_desc(errno));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < ri_items(ri); i++) {
		const char *setting, *task;
		int sample;
		ri_item_key(ri, i, &setting, &task, &sample);
		json_t *tr = trace_of(ri, setting, task, sample, ri_max_sample(ri) > 0);
		if (!tr)
			continue; /* an item with no turn-0 record has nothing to show */
		rc = json_dumpf(tr, f, JSON_COMPACT) == 0 && fputc('\n', f) != EOF ? 0 : -1;
		json_decref(tr);
	}
	/* Whole or not at all: the old traces stay until the new ones are on disk. */
	bool ok = rc == 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
	int e = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && rename(tmp, path) == 0)
		return 0;
	e = ok ? errno : e;
	unlink(tmp);
	return errfmt(err, errlen, "cannot write %s: %s", path, errfmt_desc(e));
}
