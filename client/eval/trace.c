/* traces.jsonl: one line per call of the model (a turn that asked the
 * generator) in the common agent-trace schema (docs/traces.schema.json),
 * built from an index of the run's turns.jsonl (recindex.c). */
#include "client/eval/atomic_file.h"
#include "client/eval/eval_priv.h"
#include "common/errfmt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* A turn's feedback as one text, the way `sbx run --explain` shows it. */
static json_t *verifier_output(const json_t *r)
{
	const char *failed = json_string_value(json_object_get(r, K_GEN_ERROR));
	if (failed) {
		char buf[1024];
		snprintf(buf, sizeof buf, "No code was run: the generator failed (%s)", failed);
		return json_string(buf);
	}
	const json_t *fb = json_object_get(r, K_FEEDBACK);
	const char *comp = str_or(fb, K_FB_COMP, ""), *exec = str_or(fb, K_FB_EXEC, "");
	const char *verbal = str_or(fb, K_FB_VERBAL, "");
	size_t n = strlen(comp) + strlen(exec) + strlen(verbal) + 256;
	char *buf = malloc(n);
	if (!buf)
		return NULL;
	int w = snprintf(buf, n, "Verdict: %s\n\n== Compilation feedback ==\n%s\n",
			 str_or(r, K_VERDICT, "?"), comp);
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
	json_t *m = json_pack("{s:s, s:s}", "role", role, "content", content);
	return m ? json_array_append_new(conv, m) : -1;
}

/* What was sent to the model in this one call and what it answered: each
 * turn's prompt holds the task, the previous code and its feedback, so a
 * turn is a conversation of its own, never a continuation of the last. A
 * failed call has no answer: its conversation ends with the user message
 * (an empty answer would read as the model's). Records of an older sbx
 * have no system message. */
static json_t *conversation_of(const json_t *r)
{
	json_t *conv = json_array();
	const char *sys = json_string_value(json_object_get(r, K_SYSTEM_MSG));
	int rc = conv ? 0 : -1;
	if (rc == 0 && sys)
		rc = add_message(conv, "system", sys);
	if (rc == 0)
		rc = add_message(conv, "user", str_or(r, K_USER_MSG, ""));
	if (rc == 0 && !json_is_string(json_object_get(r, K_GEN_ERROR)))
		rc = add_message(conv, "assistant", str_or(r, K_ASSISTANT_MSG, ""));
	if (rc < 0) {
		json_decref(conv);
		return NULL;
	}
	return conv;
}

/* One trace line for one turn that asked the model (a record with a
 * user_message), or NULL. With --samples (samples true) the trial name ends
 * in __sN and "sample" says N. */
static json_t *trace_of(const json_t *r, const char *setting, const char *task, int turn,
			int sample, bool samples)
{
	const char *model = str_or(r, K_MODEL, "unknown");
	const char *failed = json_string_value(json_object_get(r, K_GEN_ERROR));
	char trial[1024], episode[32], source[32];
	if (samples)
		snprintf(trial, sizeof trial, "%s__%s__s%d", task, setting, sample);
	else
		snprintf(trial, sizeof trial, "%s__%s", task, setting);
	snprintf(episode, sizeof episode, "episode-%d", turn);
	snprintf(source, sizeof source, "sbx-eval/%s", str_or(r, K_MODE, MODE_LIVE));
	json_t *tr = json_pack(
	    "{s:o, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:i, s:o*}",
	    "conversations", conversation_of(r), "agent", "sbx-eval", "model", model,
	    "model_provider", provider_of(model), "date", str_or(r, K_TIME, ""), "task", task,
	    "episode", episode, "run_id", str_or(r, K_RUN_ID, ""), "trial_name", trial, "result",
	    failed ? "generator_error" : str_or(r, K_VERDICT, "error"), "verifier_output",
	    verifier_output(r), "trace_source", source, "setting", setting, "turn", turn, "error",
	    failed ? json_string(failed) : NULL);
	if (tr && samples && json_object_set_new(tr, K_SAMPLE, json_integer(sample)) < 0) {
		json_decref(tr);
		tr = NULL;
	}
	return tr;
}

/* The lines of one task × setting (× sample), in turn order. */
static int trace_item(const struct rec_index *ri, const char *setting, const char *task, int sample,
		      bool samples, FILE *f)
{
	json_t *r;
	int rc = 0;
	for (int t = 0; rc == 0 && (r = ri_get(ri, setting, task, sample, t)); t++) {
		bool asked = !json_is_true(json_object_get(r, K_CARRIED)) &&
			     json_is_string(json_object_get(r, K_USER_MSG));
		json_t *tr = asked ? trace_of(r, setting, task, t, sample, samples) : NULL;
		if (tr)
			rc = json_dumpf(tr, f, JSON_COMPACT) == 0 && fputc('\n', f) != EOF ? 0 : -1;
		else if (asked)
			rc = -1; /* out of memory: no trace file rather than a short one */
		json_decref(tr);
		json_decref(r);
	}
	return rc;
}

static int fill_traces(FILE *f, void *ri_, char *err, size_t errlen)
{
	const struct rec_index *ri = ri_;
	for (size_t i = 0; i < ri_items(ri); i++) {
		const char *setting, *task;
		int sample;
		ri_item_key(ri, i, &setting, &task, &sample);
		/* A write error is left to atomic_file_write, which names it. */
		if (trace_item(ri, setting, task, sample, ri_max_sample(ri) > 0, f) < 0)
			return ferror(f) ? 0 : errfmt(err, errlen, "traces: out of memory");
	}
	return 0;
}

/* Whole or not at all: the old traces stay until the new ones are on disk. */
int trace_write(const struct rec_index *ri, const char *path, char *err, size_t errlen)
{
	return atomic_file_write(path, fill_traces, (void *)ri, err, errlen);
}
