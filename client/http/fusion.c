/* SandboxFusion's POST /run_code on sandboxd, as verl and SkyRL call it.
 * Its request becomes a native run; the native response becomes its
 * {status, message, compile_result, run_result, files} shape, with the
 * native response beside it in "sandboxd" for what that shape cannot say
 * (docs/http.md has the mapping, verdict by verdict). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "client/http/http.h"
#include "common/protocol.h"

/* A timeout in seconds (SandboxFusion takes floats) as whole ms; 0 when
 * absent or not positive (the profile's default then applies). */
static long fusion_ms(const json_t *v)
{
	if (!json_is_number(v))
		return 0;
	double s = json_number_value(v);
	if (!(s > 0) || s > 86400)
		return s > 86400 ? 86400000 : 0;
	return (long)ceil(s * 1000.0);
}

static int fusion_str(const json_t *in, const char *key, const char **out, char *why, size_t wl)
{
	const json_t *v = json_object_get(in, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(why, wl, "\"%s\" must be a string", key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

/* files: {path: base64}, as SandboxFusion takes them; each becomes the
 * native {"base64": …} (the daemon checks the paths and the encoding). */
static json_t *fusion_files(const json_t *files, char *why, size_t wl)
{
	json_t *out = json_object();
	const char *path;
	json_t *v;
	json_object_foreach((json_t *)files, path, v)
	{
		if (json_is_null(v))
			continue; /* SandboxFusion skips null contents */
		if (!json_is_string(v)) {
			snprintf(why, wl, "files[\"%.100s\"] must be a base64 string", path);
			json_decref(out);
			return NULL;
		}
		json_object_set_new(out, path, json_pack("{s:O}", F_FILE_BASE64, v));
	}
	return out;
}

json_t *fusion_request(const json_t *in, bool *unsupported, char *why, size_t wl)
{
	const char *code, *lang, *in_stdin;
	*unsupported = false;
	if (!json_is_object(in)) {
		snprintf(why, wl, "the body must be a JSON object");
		return NULL;
	}
	if (fusion_str(in, "code", &code, why, wl) < 0 ||
	    fusion_str(in, "language", &lang, why, wl) < 0 ||
	    fusion_str(in, "stdin", &in_stdin, why, wl) < 0)
		return NULL;
	if (!code) {
		snprintf(why, wl, "missing \"code\"");
		return NULL;
	}
	if (lang && strcmp(lang, "python") != 0) {
		/* Not a 400: SandboxFusion answers an unsupported language as a
		 * SandboxError, which verl scores as a sandbox failure (-1). */
		snprintf(why, wl, "language \"%.40s\" is not supported: sandboxd runs python only",
			 lang);
		*unsupported = true;
		return NULL;
	}
	json_t *req = json_pack("{s:s}", F_CODE, code);
	if (in_stdin)
		json_object_set_new(req, F_STDIN, json_string(in_stdin));
	json_t *lim = json_object();
	long run = fusion_ms(json_object_get(in, "run_timeout"));
	if (run > 0) {
		/* run_timeout is wall time; CPU is held to it too, so the job's
		 * cpu_ms default never cuts a run the client allowed. */
		json_object_set_new(lim, L_WALL_MS, json_integer(run));
		json_object_set_new(lim, L_CPU_MS, json_integer(run));
	}
	const json_t *mem = json_object_get(in, "memory_limit_MB");
	if (json_is_integer(mem) && json_integer_value(mem) > 0)
		json_object_set_new(lim, L_MEMORY_MB, json_integer(json_integer_value(mem)));
	if (json_object_size(lim))
		json_object_set_new(req, F_LIMITS, lim);
	else
		json_decref(lim);
	const json_t *files = json_object_get(in, "files");
	if (files && !json_is_null(files)) {
		json_t *f = json_is_object(files) ? fusion_files(files, why, wl) : NULL;
		if (!f) {
			if (!json_is_object(files))
				snprintf(why, wl, "\"files\" must be an object of path -> base64");
			json_decref(req);
			return NULL;
		}
		if (json_object_size(f))
			json_object_set_new(req, F_FILES, f);
		else
			json_decref(f);
	}
	const json_t *fetch = json_object_get(in, "fetch_files");
	if (fetch && !json_is_null(fetch)) {
		if (!json_is_array(fetch)) {
			snprintf(why, wl, "\"fetch_files\" must be an array of paths");
			json_decref(req);
			return NULL;
		}
		if (json_array_size(fetch))
			json_object_set(req, F_FETCH_FILES, (json_t *)fetch);
	}
	/* The phases feed /metrics. */
	json_object_set_new(req, F_TIMING, json_true());
	return req;
}

static const char *fusion_s(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

json_t *fusion_error(const char *message, const json_t *native)
{
	json_t *o = json_pack("{s:s,s:s,s:n,s:{s:s,s:n,s:n,s:s,s:s},s:n,s:{}}", "status",
			      "SandboxError", "message", message, "compile_result", "run_result",
			      "status", "Error", "execution_time", "return_code", "stdout", "",
			      "stderr", "", "executor_pod_name", "files");
	if (o && native)
		json_object_set(o, "sandboxd", (json_t *)native);
	return o;
}

json_t *fusion_response(const json_t *native)
{
	const json_t *err = json_object_get(native, R_ERROR);
	if (err)
		return fusion_error(fusion_s(err, R_ERROR_MESSAGE), native);
	const char *v = fusion_s(native, R_VERDICT);
	if (strcmp(v, "error") == 0 || !v[0])
		return fusion_error(v[0] ? fusion_s(native, R_MESSAGE) : "no verdict", native);
	bool pass = strcmp(v, "pass") == 0, tle = strcmp(v, "timeout") == 0;
	const json_t *ec = json_object_get(native, R_EXIT_CODE);
	const json_t *sig = json_object_get(native, R_SIGNAL);
	json_t *rc;
	if (tle)
		rc = json_null(); /* SandboxFusion has no exit status for a TLE */
	else if (json_is_integer(ec) && (pass || json_integer_value(ec) != 0))
		rc = json_integer(json_integer_value(ec));
	else if (json_is_integer(sig))
		rc = json_integer(-json_integer_value(sig)); /* as Python's subprocess */
	else
		/* A limit verdict on a job that itself exited 0 (the OOM killer
		 * hit another of its processes): SIGKILL is what stopped it, and a
		 * zero would read as a success to SandboxFusion's clients. */
		rc = json_integer(-9);
	double secs = (double)json_integer_value(
			  json_object_get(json_object_get(native, R_USAGE), U_WALL_MS)) /
		      1000.0;
	json_t *files = json_object();
	const char *path;
	json_t *f;
	json_object_foreach(json_object_get(native, R_FILES), path, f)
	{
		json_t *b = json_object_get(f, F_FILE_BASE64);
		if (json_is_string(b))
			json_object_set(files, path, b);
	}
	/* SandboxFusion's message is for SandboxError only; the native
	 * response in "sandboxd" says why a run failed. */
	return json_pack("{s:s,s:s,s:n,s:{s:s,s:f,s:o,s:s,s:s},s:n,s:o,s:O}", "status",
			 pass ? "Success" : "Failed", "message", "", "compile_result", "run_result",
			 "status", tle ? "TimeLimitExceeded" : "Finished", "execution_time", secs,
			 "return_code", rc, "stdout", fusion_s(native, R_STDOUT), "stderr",
			 fusion_s(native, R_STDERR), "executor_pod_name", "files", files,
			 "sandboxd", native);
}
