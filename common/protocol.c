/* Request parsing and validation. Every byte here came from a client the
 * daemon does not trust: sizes are bounded before use, every field is
 * type-checked, unknown fields are refused, and nothing is half-accepted. */
#include "common/protocol.h"

#include "common/base64.h"
#include "common/jsonmem.h"
#include "common/protocol_priv.h"
#include "common/text.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proto_check_path(const char *path, const struct proto_bounds *b, char *msg, size_t msglen)
{
	size_t len = strlen(path), depth = 0;
	const char *why = NULL;
	if (len == 0)
		why = "empty path";
	else if (len > b->max_path)
		why = "path too long";
	else if (path[0] == '/')
		why = "absolute path";
	else if (path[len - 1] == '/')
		why = "path ends with '/'";
	for (const char *p = path; !why && *p;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			why = "empty path component";
		else if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			why = "'.' or '..' component";
		for (size_t i = 0; !why && i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				why = "control character in path";
		if (++depth > b->max_depth)
			why = "path too deep";
		p = end ? end + 1 : p + n;
	}
	if (!why && (strcmp(path, "main.py") == 0 || strncmp(path, "main.py/", 8) == 0))
		why = "main.py is reserved for the code";
	if (why)
		snprintf(msg, msglen, "%s", why);
	return why ? -1 : 0;
}

/* Copies a JSON string, keeping embedded NULs (stdin and files may be binary-ish). */

static int parse_limits(const json_t *o, struct proto_limits *l, struct proto_error *err)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o))
		return proto_fail(err, E_BAD_REQUEST, "\"limits\" must be an object");
	json_object_foreach((json_t *)o, key, v)
	{
		int i = 0;
		while (i < PROTO_NLIMITS && strcmp(key, proto_limit_names[i]) != 0)
			i++;
		if (i == PROTO_NLIMITS)
			return proto_fail(err, E_BAD_LIMITS, "unknown limit \"%.64s\"", key);
		if (!json_is_integer(v))
			return proto_fail(err, E_BAD_LIMITS, "limit \"%s\" must be an integer",
					  key);
		json_int_t x = json_integer_value(v);
		if (x <= 0)
			return proto_fail(err, E_BAD_LIMITS, "limit \"%s\" must be positive", key);
		/* Absurd values are clamped later to the profile maximum; keep them representable.
		 */
		*proto_limit_ref(l, i) = x > (json_int_t)(1L << 40) ? (1L << 40) : (long)x;
	}
	return 0;
}

static int parse_files(const json_t *o, const struct proto_bounds *b, struct proto_request *r,
		       struct proto_error *err)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o))
		return proto_fail(err, E_BAD_REQUEST,
				  "\"files\" must be an object of path -> content");
	size_t n = json_object_size(o);
	if (n > b->max_files)
		return proto_fail(err, E_TOO_LARGE, "too many files (%zu > %zu)", n, b->max_files);
	r->files = calloc(n ? n : 1, sizeof *r->files);
	if (!r->files)
		return proto_fail(err, E_INTERNAL, "out of memory");
	json_object_foreach((json_t *)o, key, v)
	{
		char why[64];
		if (proto_check_path(key, b, why, sizeof why) < 0)
			return proto_fail(err, E_BAD_PATH, "file \"%.100s\": %s", key, why);
		json_t *b64 = json_is_object(v) && json_object_size(v) == 1
				  ? json_object_get(v, F_FILE_BASE64)
				  : NULL;
		if (!json_is_string(v) && !json_is_string(b64))
			return proto_fail(err, E_BAD_REQUEST,
					  "file \"%.100s\": content must be a string or "
					  "{\"%s\": string}",
					  key, F_FILE_BASE64);
		/* A path that is a prefix directory of another is a conflict the
		 * jail would have to resolve; refuse it here instead. */
		for (size_t i = 0; i < r->nfiles; i++) {
			const char *a = r->files[i].path, *s = strlen(a) < strlen(key) ? a : key,
				   *l = s == a ? key : a;
			if (strncmp(s, l, strlen(s)) == 0 && l[strlen(s)] == '/')
				return proto_fail(err, E_BAD_PATH,
						  "file \"%.100s\" is also a directory", s);
		}
		struct proto_file *f = &r->files[r->nfiles];
		f->path = strdup(key);
		r->nfiles++;
		if (!f->path)
			return proto_fail(err, E_INTERNAL, "out of memory");
		if (b64) {
			int bad;
			f->data = (char *)b64_decode(json_string_value(b64),
						     json_string_length(b64), &f->len, &bad);
			if (!f->data && bad)
				return proto_fail(err, E_BAD_REQUEST,
						  "file \"%.100s\": \"%s\" is not padded base64",
						  key, F_FILE_BASE64);
		} else {
			f->data = proto_dup_string(v, &f->len);
		}
		if (!f->data)
			return proto_fail(err, E_INTERNAL, "out of memory");
	}
	return 0;
}

/* Only names: whether each path exists, and what it is, is read from the
 * job's /work after the run, as hostile (sandboxd/jail/workfiles.c). */
static int parse_fetch(const json_t *a, const struct proto_bounds *b, struct proto_request *r,
		       struct proto_error *err)
{
	if (!json_is_array(a))
		return proto_fail(err, E_BAD_REQUEST, "\"%s\" must be an array of paths",
				  F_FETCH_FILES);
	size_t n = json_array_size(a);
	if (n > PROTO_FETCH_MAX_FILES)
		return proto_fail(err, E_TOO_LARGE, "too many \"%s\" (%zu > %d)", F_FETCH_FILES, n,
				  PROTO_FETCH_MAX_FILES);
	r->fetch = calloc(n ? n : 1, sizeof *r->fetch);
	if (!r->fetch)
		return proto_fail(err, E_INTERNAL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(a, i);
		char why[64];
		if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
			return proto_fail(err, E_BAD_REQUEST,
					  "\"%s\" entries must be strings without NUL",
					  F_FETCH_FILES);
		const char *p = json_string_value(v);
		/* main.py is the code, reserved for writing only: reading it back
		 * is harmless, so it may be fetched. */
		if (strcmp(p, "main.py") != 0 && proto_check_path(p, b, why, sizeof why) < 0)
			return proto_fail(err, E_BAD_PATH, "fetch \"%.100s\": %s", p, why);
		for (size_t k = 0; k < r->nfetch; k++)
			if (strcmp(r->fetch[k], p) == 0)
				return proto_fail(err, E_BAD_REQUEST,
						  "fetch \"%.100s\" is listed twice", p);
		if (!(r->fetch[r->nfetch] = strdup(p)))
			return proto_fail(err, E_INTERNAL, "out of memory");
		r->nfetch++;
	}
	return 0;
}

static int parse_policy(const json_t *v, struct proto_request *r, struct proto_error *err)
{
	if (!json_is_string(v))
		return proto_fail(err, E_BAD_REQUEST, "\"policy\" must be a string");
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n == 0 || n > 63 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-") != n)
		return proto_fail(err, E_UNKNOWN_POLICY, "invalid policy name");
	r->policy = strdup(s);
	return r->policy ? 0 : proto_fail(err, E_INTERNAL, "out of memory");
}

/* Only the charset and length: whether the peer may name a tenant is the
 * daemon's decision (--trust-uid). */
static int parse_tenant(const json_t *v, struct proto_request *r, struct proto_error *err)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (!s || n == 0 || n > PROTO_TENANT_MAX ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return proto_fail(err, E_BAD_REQUEST, "\"tenant\" must be 1-%d of [A-Za-z0-9_.-]",
				  PROTO_TENANT_MAX);
	r->tenant = strdup(s);
	return r->tenant ? 0 : proto_fail(err, E_INTERNAL, "out of memory");
}

static int parse_fields(json_t *root, const struct proto_bounds *b, struct proto_request *r,
			struct proto_error *err)
{
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v)
	{
		int rc = 0;
		if (strcmp(key, F_ID) == 0 || strcmp(key, F_OP) == 0 || proto_is_test_field(key)) {
			continue; /* handled by the caller / parse_tests */
		} else if (strcmp(key, F_CODE) == 0 || strcmp(key, F_STDIN) == 0) {
			if (!json_is_string(v))
				return proto_fail(err, E_BAD_REQUEST, "\"%s\" must be a string",
						  key);
			bool is_code = strcmp(key, F_CODE) == 0;
			if (is_code) {
				if (memchr(json_string_value(v), 0, json_string_length(v)))
					return proto_fail(err, E_BAD_REQUEST,
							  "\"code\" contains a NUL byte");
				r->code = proto_dup_string(v, &r->code_len);
			} else {
				r->stdin_data = proto_dup_string(v, &r->stdin_len);
			}
			if (!(is_code ? r->code : r->stdin_data))
				return proto_fail(err, E_INTERNAL, "out of memory");
		} else if (strcmp(key, F_FILES) == 0) {
			rc = parse_files(v, b, r, err);
		} else if (strcmp(key, F_FETCH_FILES) == 0) {
			rc = parse_fetch(v, b, r, err);
		} else if (strcmp(key, F_LIMITS) == 0) {
			rc = parse_limits(v, &r->limits, err);
		} else if (strcmp(key, F_POLICY) == 0) {
			rc = parse_policy(v, r, err);
		} else if (strcmp(key, F_TENANT) == 0) {
			rc = parse_tenant(v, r, err);
		} else if (strcmp(key, F_TIMING) == 0) {
			if (!json_is_boolean(v))
				return proto_fail(err, E_BAD_REQUEST, "\"%s\" must be a boolean",
						  key);
			r->timing = json_is_true(v);
		} else {
			return proto_fail(err, E_BAD_REQUEST, "unknown field \"%.64s\"", key);
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

int proto_parse_request(const char *line, size_t len, const struct proto_bounds *b,
			struct proto_request *r, char **id_out, struct proto_error *err)
{
	json_error_t jerr;
	struct proto_limits unset = PROTO_LIMITS_UNSET;
	memset(r, 0, sizeof *r);
	r->limits = unset;
	*id_out = NULL;
	if (len > b->max_line)
		return proto_fail(err, E_TOO_LARGE, "request of %zu bytes exceeds %zu", len,
				  b->max_line);
	bool over = false;
	size_t budget = jsonmem_budget(len);
	json_t *root = jsonmem_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &budget,
				     &jerr, &over);
	if (!root && over)
		return proto_fail(err, E_TOO_LARGE, "request of %zu bytes: %s", len, jerr.text);
	if (!root)
		return proto_fail(err, E_BAD_JSON, "invalid JSON at column %d: %s", jerr.column,
				  jerr.text);
	int rc = -1;
	if (!json_is_object(root)) {
		proto_fail(err, E_BAD_JSON, "a request must be a JSON object");
		goto out;
	}
	json_t *id = json_object_get(root, F_ID);
	if (!json_is_string(id) || json_string_length(id) == 0 ||
	    json_string_length(id) > b->max_id ||
	    memchr(json_string_value(id), 0, json_string_length(id))) {
		proto_fail(err, E_BAD_REQUEST,
			   "\"id\" must be a non-empty string of at most %zu bytes", b->max_id);
		goto out;
	}
	*id_out = strdup(json_string_value(id));
	r->id = strdup(json_string_value(id));
	if (!*id_out || !r->id) {
		proto_fail(err, E_INTERNAL, "out of memory");
		goto out;
	}
	json_t *op = json_object_get(root, F_OP);
	if (op &&
	    (!json_is_string(op) || strlen(json_string_value(op)) != json_string_length(op))) {
		proto_fail(err, E_BAD_REQUEST, "\"op\" must be a string without NUL bytes");
		goto out;
	}
	if (!op || strcmp(json_string_value(op), "run") == 0) {
		r->op = OP_RUN;
	} else if (strcmp(json_string_value(op), "ping") == 0) {
		r->op = OP_PING;
		if (json_object_size(root) != 2) {
			proto_fail(err, E_BAD_REQUEST, "\"ping\" takes only \"id\" and \"op\"");
			goto out;
		}
	} else {
		proto_fail(err, E_BAD_REQUEST, "unknown op \"%.32s\"", json_string_value(op));
		goto out;
	}
	if (parse_fields(root, b, r, err) < 0 || proto_parse_tests(root, b, r, err) < 0)
		goto out;
	if (r->op == OP_RUN && !r->code) {
		proto_fail(err, E_BAD_REQUEST, "missing \"code\"");
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	if (rc < 0)
		proto_request_free(r);
	return rc;
}

void proto_request_free(struct proto_request *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		free(r->files[i].data);
	}
	free(r->files);
	for (size_t i = 0; i < r->nfetch; i++)
		free(r->fetch[i]);
	free(r->fetch);
	for (size_t i = 0; i < r->nasserts; i++)
		free(r->asserts[i]);
	free(r->asserts);
	for (size_t i = 0; i < r->ncases; i++) {
		free(r->cases[i].input);
		free(r->cases[i].output);
	}
	free(r->cases);
	free(r->tests_text);
	free(r->entry_point);
	free(r->id);
	free(r->code);
	free(r->stdin_data);
	free(r->policy);
	free(r->tenant);
	memset(r, 0, sizeof *r);
}

char *proto_error_line(const char *id, enum proto_errcode code, const char *message)
{
	json_t *o = json_pack("{s:o,s:{s:s,s:o}}", F_ID, id ? json_string(id) : json_null(),
			      R_ERROR, R_ERROR_CODE, proto_errcode_name(code), R_ERROR_MESSAGE,
			      proto_json_bytes(message, strlen(message)));
	if (!o)
		return NULL;
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

json_t *proto_json_bytes(const char *data, size_t len)
{
	size_t n;
	char *clean = text_utf8_clean(data, len, &n);
	if (!clean)
		return json_string("");
	json_t *s = json_stringn_nocheck(clean, n);
	free(clean);
	return s;
}
