/* The hostile programs' files, headers and tables (see hostile.h and the top
 * of tests/integration/test_hostile.c): loading and substituting a program,
 * one job per table row, the request, and the response against the header's
 * expectations and requirements. */
#include "common/base64.h"
#include "tests/helpers/hostile.h"

#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/helpers/tcheck.h"
#include "tests/helpers/tfile.h"

/* --- small helpers -------------------------------------------------------- */

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	ck_assert_ptr_nonnull(d);
	return d;
}

/* s with every `from` replaced by `to` (new string). */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	char *out = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
	ck_assert_ptr_nonnull(out);
	for (const char *p = s, *q; *p; p = q + fl) {
		q = strstr(p, from);
		if (!q) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = '\0';
	return out;
}

void whyf(char *why, size_t len, const char *fmt, ...)
{
	size_t used = strlen(why);
	if (used + 4 >= len)
		return;
	if (used) {
		snprintf(why + used, len - used, "; ");
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why + used, len - used, fmt, ap);
	va_end(ap);
}

bool jhas(const json_t *o, const char *k, const char *needle)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_string(v))
		return false;
	return memmem(json_string_value(v), json_string_length(v), needle, strlen(needle)) != NULL;
}

bool one_of(const char *list, const char *value)
{
	size_t vl = strlen(value);
	for (const char *p = list; p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		if (n == vl && strncmp(p, value, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* --- the program files ---------------------------------------------------- */

void prog_free(struct prog *p)
{
	free(p->src);
	free(p->expect);
	free(p->limit_hit);
	free(p->violation);
	json_decref(p->limits);
	json_decref(p->files);
	json_decref(p->fetch);
	for (int i = 0; i < p->nfetched; i++)
		free(p->fetched[i]);
	for (int i = 0; i < p->nout; i++)
		free(p->out[i]);
	for (int i = 0; i < p->nhost; i++)
		free(p->host[i]);
	for (int i = 0; i < p->nreq; i++)
		free(p->req[i]);
	for (int i = 0; i < p->nprobe; i++)
		free(p->probe[i]);
	json_decref(p->resp);
	json_decref(p->victim_resp);
	memset(p, 0, sizeof *p);
}

/* s with @ROW@ (the row as JSON) and @ROW.KEY@ (each string or integer
 * field) substituted; frees s. */
static char *subst_row(char *s, const json_t *row)
{
	char *json = json_dumps(row, JSON_COMPACT | JSON_ENCODE_ANY);
	ck_assert_ptr_nonnull(json);
	char *n = replace_all(s, "@ROW@", json);
	free(json);
	free(s);
	s = n;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)row, key, v)
	{
		char tok[160], val[64];
		const char *text = NULL;
		if (json_is_string(v)) {
			text = json_string_value(v);
		} else if (json_is_integer(v)) {
			snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
			text = val;
		}
		if (!text || snprintf(tok, sizeof tok, "@ROW.%s@", key) >= (int)sizeof tok)
			continue;
		n = replace_all(s, tok, text);
		free(s);
		s = n;
	}
	return s;
}

/* The value of header `key` among the leading comment lines of src, into
 * out; false when there is none. */
static bool header_value(const char *src, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	for (const char *l = src; l && *l == '#';
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "# ", 2) != 0 || strncmp(l + 2, key, kl) != 0 || l[2 + kl] != ':')
			continue;
		const char *v = l + 3 + kl;
		v += strspn(v, " \t");
		snprintf(out, len, "%.*s", (int)strcspn(v, "\n"), v);
		return true;
	}
	return false;
}

/* A table row's name: letters, digits, '_', '.' and '-'. */
static bool row_name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 48)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

/* The rows of the table named by a "# table:" header (relative to the
 * program's directory), checked: a non-empty array of objects, each with a
 * unique name. NULL with why set when it cannot be used. */
static json_t *load_table(const char *path, const char *table, char *why, size_t wl)
{
	char file[512];
	const char *slash = strrchr(path, '/');
	snprintf(file, sizeof file, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, table);
	json_error_t je;
	json_t *rows = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
	if (!rows) {
		whyf(why, wl, "table %s: %s (line %d)", file, je.text, je.line);
		return NULL;
	}
	if (!json_is_array(rows) || json_array_size(rows) == 0)
		whyf(why, wl, "table %s: not a non-empty JSON array", file);
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row)
	{
		const char *name = json_string_value(json_object_get(row, "name"));
		if (!json_is_object(row) || !row_name_ok(name)) {
			whyf(why, wl, "table %s: row %zu has no usable \"name\"", file, i);
			continue;
		}
		for (size_t k = 0; k < i; k++) {
			const char *other =
			    json_string_value(json_object_get(json_array_get(rows, k), "name"));
			if (other && strcmp(name, other) == 0)
				whyf(why, wl, "table %s: two rows are named %s", file, name);
		}
	}
	if (why[0]) {
		json_decref(rows);
		return NULL;
	}
	return rows;
}

struct prog *prog_load_file(const char *path, const struct test_daemon *d, size_t *n)
{
	char table[256], why[1024] = "";
	char *raw = tf_slurp(path);
	bool has_table = raw && header_value(raw, "table", table, sizeof table);
	free(raw);
	json_t *rows = has_table ? load_table(path, table, why, sizeof why) : NULL;
	*n = rows ? json_array_size(rows) : 1;
	struct prog *ps = calloc(*n, sizeof *ps);
	ck_assert_ptr_nonnull(ps);
	if (rows) {
		for (size_t i = 0; i < *n; i++)
			prog_load(&ps[i], path, d, json_array_get(rows, i));
		json_decref(rows);
	} else if (has_table) {
		const char *base = strrchr(path, '/');
		snprintf(ps[0].name, sizeof ps[0].name, "%s", base ? base + 1 : path);
		ps[0].src = xstrdup("");
		whyf(ps[0].why, sizeof ps[0].why, "%s", why);
	} else {
		prog_load(&ps[0], path, d, NULL);
	}
	return ps;
}

void prog_load(struct prog *p, const char *path, const struct test_daemon *d, const json_t *row)
{
	memset(p, 0, sizeof *p);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *rname = json_string_value(json_object_get(row, "name"));
	if (row)
		snprintf(p->name, sizeof p->name, "%s[%s]", base, rname ? rname : "?");
	else
		snprintf(p->name, sizeof p->name, "%s", base);
	char *raw = tf_slurp(path);
	if (!raw) {
		whyf(p->why, sizeof p->why, "cannot read %s", path);
		p->src = xstrdup("");
		return;
	}
	char port[16], pid[16];
	snprintf(port, sizeof port, "%d", g_port);
	snprintf(pid, sizeof pid, "%d", (int)d->pid);
	const char *subst[][2] = {{"@MARKER@", g_marker},
				  {"@PORT@", port},
				  {"@SOCK@", d->sock},
				  {"@STATEDIR@", d->state},
				  {"@DAEMONPID@", pid},
				  {"@SUBMOUNT@", g_submount},
				  {"@ASSUME_NO_IA32@", g_assume_no_ia32 ? "1" : "0"}};
	char *s = raw;
	for (size_t i = 0; i < sizeof subst / sizeof subst[0]; i++) {
		char *n = replace_all(s, subst[i][0], subst[i][1]);
		free(s);
		s = n;
	}
	if (row)
		s = subst_row(s, row);
	const char *left = strstr(s, "@ROW");
	if (left)
		whyf(p->why, sizeof p->why, "no value for %.*s %s",
		     (int)strcspn(left + 1, "@\n") + 2, left,
		     row ? "in the table row" : "outside a table program");
	p->src = s;

	/* The header: "# key: value" lines among the leading comment lines. */
	char *copy = xstrdup(s);
	for (char *line = copy, *next; line && *line == '#'; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char key[32];
		int off = 0;
		if (sscanf(line, "# %31[a-z_]:%n", key, &off) != 1 || off == 0)
			continue; /* prose */
		const char *val = line + off + strspn(line + off, " \t");
		json_error_t je;
		if (strcmp(key, "expect") == 0) {
			free(p->expect);
			p->expect = xstrdup(val);
		} else if (strcmp(key, "limit_hit") == 0) {
			free(p->limit_hit);
			p->limit_hit = xstrdup(val);
		} else if (strcmp(key, "violation") == 0) {
			free(p->violation);
			p->violation = xstrdup(val);
		} else if (strcmp(key, "limits") == 0 || strcmp(key, "files") == 0) {
			json_t *o = json_loads(val, 0, &je);
			if (!json_is_object(o))
				whyf(p->why, sizeof p->why, "header %s: not a JSON object (%s)",
				     key, je.text);
			else if (key[0] == 'l')
				p->limits = json_incref(o);
			else
				p->files = json_incref(o);
			json_decref(o);
		} else if (strcmp(key, "fetch") == 0) {
			json_t *a = json_loads(val, 0, &je);
			if (!json_is_array(a))
				whyf(p->why, sizeof p->why, "header fetch: not a JSON array");
			else
				p->fetch = json_incref(a);
			json_decref(a);
		} else if (strcmp(key, "fetched") == 0) {
			if (!strstr(val, " error") && !strstr(val, " = "))
				whyf(p->why, sizeof p->why, "header fetched: '%s'", val);
			else if (p->nfetched < MAX_HDR)
				p->fetched[p->nfetched++] = xstrdup(val);
		} else if (strcmp(key, "stdin_bytes") == 0) {
			char *end;
			p->stdin_bytes = strtol(val, &end, 10);
			if (*end || p->stdin_bytes <= 0 || p->stdin_bytes > (12L << 20))
				whyf(p->why, sizeof p->why, "header stdin_bytes: '%s'", val);
		} else if (strcmp(key, "table") == 0) {
			if (!row)
				whyf(p->why, sizeof p->why,
				     "a table program runs once per row of %s, never alone", val);
		} else if (strcmp(key, "setup") == 0) {
			if (strcmp(val, "usr-submount") == 0)
				p->setup_submount = true;
			else if (strcmp(val, "busy-neighbour") == 0)
				p->setup_neighbour = true;
			else
				whyf(p->why, sizeof p->why, "unknown setup '%s'", val);
		} else if (strcmp(key, "stdout") == 0) {
			if (strncmp(val, "contains ", 9) != 0 &&
			    strncmp(val, "not-contains ", 13) != 0)
				whyf(p->why, sizeof p->why, "header stdout: '%s'", val);
			else if (p->nout < MAX_HDR)
				p->out[p->nout++] = xstrdup(val);
		} else if (strcmp(key, "host") == 0) {
			if (!is_host_check(val))
				whyf(p->why, sizeof p->why, "unknown host check '%s'", val);
			else if (p->nhost < MAX_HDR)
				p->host[p->nhost++] = xstrdup(val);
		} else if (strcmp(key, "requires") == 0 || strcmp(key, "probe") == 0) {
			if (!is_requirement(val))
				whyf(p->why, sizeof p->why, "unknown requirement '%s'", val);
			else if (key[0] == 'r' && p->nreq < MAX_HDR)
				p->req[p->nreq++] = xstrdup(val);
			else if (key[0] == 'p' && p->nprobe < MAX_HDR)
				p->probe[p->nprobe++] = xstrdup(val);
		} else {
			whyf(p->why, sizeof p->why, "unknown header '%s'", key);
		}
	}
	free(copy);
	if (!p->expect)
		whyf(p->why, sizeof p->why, "no '# expect:' header");
	/* One job runs beside a program: its victim or its neighbour. */
	if (p->setup_neighbour && has_host(p, "victim-survived"))
		whyf(p->why, sizeof p->why,
		     "setup busy-neighbour and host victim-survived together");
}

bool has_host(const struct prog *p, const char *check)
{
	for (int i = 0; i < p->nhost; i++)
		if (strcmp(p->host[i], check) == 0)
			return true;
	return false;
}

json_t *prog_request(const struct prog *p)
{
	json_t *req = json_pack("{s:s,s:s}", "id", p->name, "code", p->src);
	ck_assert_ptr_nonnull(req);
	if (p->limits)
		json_object_set(req, "limits", p->limits);
	if (p->files)
		json_object_set(req, "files", p->files);
	if (p->fetch)
		json_object_set(req, "fetch_files", p->fetch);
	if (p->stdin_bytes > 0) {
		char *in = malloc((size_t)p->stdin_bytes);
		ck_assert_ptr_nonnull(in);
		for (long i = 0; i < p->stdin_bytes; i++)
			in[i] = i % 64 == 63 ? '\n' : 'x';
		json_object_set_new(req, "stdin", json_stringn(in, (size_t)p->stdin_bytes));
		free(in);
	}
	return req;
}

/* "# fetched: PATH error": the response's files[PATH] is an error object;
 * "# fetched: PATH = TEXT": it is base64 of exactly TEXT. */
static void check_fetched(const json_t *r, const char *spec, char *why, size_t wl)
{
	const char *eq = strstr(spec, " = ");
	size_t plen = eq ? (size_t)(eq - spec) : strcspn(spec, " ");
	char path[256];
	snprintf(path, sizeof path, "%.*s", (int)plen, spec);
	const json_t *f = json_object_get(json_object_get(r, "files"), path);
	const char *b64 = sget(f, "base64"), *err = sget(f, "error");
	if (!eq) {
		if (!err)
			whyf(why, wl, "files[%s]: expected an error, got %s", path,
			     b64 ? "content" : "nothing");
		return;
	}
	size_t n = 0;
	int bad = 0;
	unsigned char *dec = b64 ? b64_decode(b64, strlen(b64), &n, &bad) : NULL;
	if (!dec || n != strlen(eq + 3) || memcmp(dec, eq + 3, n) != 0)
		whyf(why, wl, "files[%s]: expected '%s', got %s%s", path, eq + 3,
		     err   ? "error "
		     : dec ? "other content"
			   : "nothing",
		     err ? err : "");
	free(dec);
}

void check_response(struct prog *p)
{
	const json_t *r = p->resp;
	char *why = p->why;
	size_t wl = sizeof p->why;
	if (!r) {
		whyf(why, wl, "no response");
		return;
	}
	const char *verdict = sget(r, "verdict");
	const char *code = sget(json_object_get(r, "error"), "code");
	char got[96];
	if (code)
		snprintf(got, sizeof got, "error:%s", code);
	else
		snprintf(got, sizeof got, "%s", verdict ? verdict : "(none)");
	if (!one_of(p->expect, got)) {
		char out[200] = "";
		const char *o = sget(r, "stdout");
		for (size_t i = 0, j = 0; o && o[i] && j + 3 < sizeof out; i++)
			out[j++] = o[i] == '\n' ? '|' : o[i];
		whyf(why, wl, "verdict %s, expected %s (message '%s', memory_kb %lld, stdout '%s')",
		     got, p->expect,
		     code ? sget(json_object_get(r, "error"), "message") : sget(r, "message"),
		     (long long)json_integer_value(
			 json_object_get(json_object_get(r, "usage"), "memory_kb")),
		     out);
		return;
	}
	if (code)
		return;
	const json_t *lh = json_object_get(r, "limit_hit");
	if (p->limit_hit) {
		bool ok = strcmp(p->limit_hit, "any") == 0 ? json_is_string(lh)
			  : json_is_null(lh)		   ? one_of(p->limit_hit, "none")
			  : json_is_string(lh) ? one_of(p->limit_hit, json_string_value(lh))
					       : false;
		if (!ok)
			whyf(why, wl, "limit_hit %s, expected %s",
			     json_is_string(lh) ? json_string_value(lh) : "null", p->limit_hit);
	}
	const json_t *v = json_object_get(r, "violation");
	if (p->violation) {
		const char *sc = sget(v, "syscall");
		bool ok = strcmp(p->violation, "any") == 0 ? json_is_object(v)
			  : sc				   ? one_of(p->violation, sc)
			       : json_is_null(v) && one_of(p->violation, "none");
		if (!ok)
			whyf(why, wl, "violation.syscall %s, expected %s", sc ? sc : "null",
			     p->violation);
	}
	for (int i = 0; i < p->nout; i++) {
		bool neg = strncmp(p->out[i], "not-", 4) == 0;
		const char *text = p->out[i] + (neg ? 13 : 9);
		bool has = jhas(r, "stdout", text);
		if (neg && has)
			whyf(why, wl, "stdout contains '%s'", text);
		else if (!neg && !has)
			whyf(why, wl, "stdout lacks '%s'", text);
	}
	for (int i = 0; i < p->nfetched; i++)
		check_fetched(r, p->fetched[i], why, wl);
}

/* --- requirements ----------------------------------------------------------- */

static const char *const g_reqs[] = {"ia32-abi",   "mount-setattr", "cgroup-memory", "cgroup-pids",
				     "cgroup-cpu", "socket-memcg",  "ipv6",	     NULL};

bool is_requirement(const char *name)
{
	for (int i = 0; g_reqs[i]; i++)
		if (strcmp(g_reqs[i], name) == 0)
			return true;
	return false;
}

/* The driver's own probe of a requirement: 1 present, 0 absent (*why says
 * why), -1 when the requirement is not decided by a host probe. */
static int host_probe(const char *name, const char **why)
{
	if (strcmp(name, "ia32-abi") == 0) {
		*why = g_ia32_why;
		return g_have_ia32;
	}
	if (strcmp(name, "mount-setattr") == 0) {
		*why = g_mount_setattr_why;
		return g_have_mount_setattr;
	}
	if (strcmp(name, "socket-memcg") == 0) {
		*why = g_socket_memcg_why;
		return g_have_socket_memcg;
	}
	if (strcmp(name, "ipv6") == 0) {
		*why = g_ipv6_why;
		return g_have_ipv6;
	}
	return -1;
}

/* cgroup-*: how the daemon says it enforced the limit on this very run. 1:
 * by a cgroup; 0: not (why set); -1: the response has no enforcement (an
 * error object, or none at all), which the usual checks then report. */
static int cgroup_enforced(const json_t *r, const char *name, char *why, size_t wl)
{
	static const struct {
		const char *req, *limit, *consequence;
	} m[] = {
	    {"cgroup-memory", "memory_mb",
	     "no memory cgroup, so the limit is per process, nothing charges the job as a "
	     "whole (tmpfs, SysV shm, many processes) and no OOM counter tells a memory_limit"},
	    {"cgroup-pids", "pids", "no pids cgroup, so no job-wide count of processes"},
	    {"cgroup-cpu", "cpu_ms",
	     "no CPU accounting cgroup, so CPU time is limited per process (RLIMIT_CPU), not "
	     "summed over the job"},
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		if (strcmp(name, m[i].req) != 0)
			continue;
		const char *e = r ? sget(json_object_get(r, "enforcement"), m[i].limit) : NULL;
		if (!e)
			return -1;
		if (strstr(e, "cgroup"))
			return 1;
		snprintf(why, wl, "the daemon enforced %s with \"%s\": %s", m[i].limit, e,
			 m[i].consequence);
		return 0;
	}
	return -1;
}

/* The program's "PROBE NAME: present|absent ..." line: 1 present, 0 absent,
 * -1 missing or neither (the line, when there is one, in line). */
static int program_probe(const json_t *r, const char *name, char *line, size_t ll)
{
	const char *o = r ? sget(r, "stdout") : NULL;
	char head[64];
	int hl = snprintf(head, sizeof head, "PROBE %s: ", name);
	line[0] = '\0';
	for (const char *l = o; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, head, (size_t)hl) != 0)
			continue;
		snprintf(line, ll, "%.*s", (int)strcspn(l, "\n"), l);
		if (strncmp(l + hl, "present", 7) == 0)
			return 1;
		if (strncmp(l + hl, "absent", 6) == 0)
			return 0;
		return -1;
	}
	return -1;
}

void check_requirements(struct prog *p)
{
	char line[512];
	const char *hw;
	for (int i = 0; i < p->nprobe; i++) {
		int mine = program_probe(p->resp, p->probe[i], line, sizeof line);
		int host = host_probe(p->probe[i], &hw);
		if (mine < 0)
			whyf(p->why, sizeof p->why,
			     "no 'PROBE %s: present|absent ...' line in stdout%s%s", p->probe[i],
			     line[0] ? ", got: " : "", line);
		else if (host >= 0 && host != mine)
			whyf(p->why, sizeof p->why,
			     "the program's probe in the jail ('%s') disagrees with the driver's "
			     "on the host (%s%s)",
			     line, host ? "present" : "absent: ", host ? "" : hw);
	}
	for (int i = 0; i < p->nreq; i++) {
		char why[512] = "";
		int ok = host_probe(p->req[i], &hw);
		if (ok == 0)
			snprintf(why, sizeof why, "%s", hw);
		else if (ok < 0 && cgroup_enforced(p->resp, p->req[i], why, sizeof why) != 0)
			why[0] = '\0';
		if (!why[0])
			continue;
		size_t used = strlen(p->skip);
		snprintf(p->skip + used, sizeof p->skip - used, "%srequires %s: %s",
			 used ? "; " : "", p->req[i], why);
	}
	/* A skip is for what the machine lacks, never for a daemon that did not
	 * run the job. */
	if (p->skip[0] && (!p->resp || !sget(p->resp, "verdict")))
		whyf(p->why, sizeof p->why, "no run result (%s)",
		     p->resp ? sget(json_object_get(p->resp, "error"), "code") : "no response");
}

/* --- choosing the programs -------------------------------------------------- */

bool selected(const char *name)
{
	const char *only = getenv("SBX_HOSTILE_ONLY");
	return !only || !*only || strstr(name, only);
}

glob_t list_programs(void)
{
	char pat[128];
	snprintf(pat, sizeof pat, "%s/*.py", g_dir);
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	ck_assert_msg(rc == 0 && g.gl_pathc > 0, "no hostile programs match %s", pat);
	/* client_*.py are hostile clients run on the host by their own driver
	 * (test_hostile_clients), not job programs. */
	size_t k = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (is_client_script(g.gl_pathv[i]))
			free(g.gl_pathv[i]);
		else
			g.gl_pathv[k++] = g.gl_pathv[i];
	}
	g.gl_pathc = k;
	g.gl_pathv[k] = NULL;
	return g;
}

bool is_persist(const char *path)
{
	const char *base = strrchr(path, '/');
	return strncmp(base ? base + 1 : path, "persist_", 8) == 0;
}

bool is_client_script(const char *path)
{
	const char *base = strrchr(path, '/');
	return strncmp(base ? base + 1 : path, "client_", 7) == 0;
}

bool has_requires(const char *path)
{
	char *src = tf_slurp(path);
	bool found = false;
	for (char *l = src; l && *l == '#' && !found;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		found = strncmp(l, "# requires:", 11) == 0;
	free(src);
	return found;
}
