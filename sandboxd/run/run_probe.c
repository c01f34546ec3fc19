/* What a job of each profile finds: its interpreter's version and the
 * distributions it can import (ping's "profiles"). Only a job can tell:
 * the interpreter, its sys.path and its packages are the jail's view, and
 * the daemon never runs the host's Python as root. So slot 0's worker, the
 * first time it finds no job waiting, runs one cold job per profile (as
 * the slot's second uid: nothing takes it for a client's job), a script
 * that only lists sys.path's *.dist-info and *.egg-info names (no import
 * of the packages: about as cheap as starting the interpreter), and its
 * output is read as
 * any job's: hostile, parsed with a bound, every name and version checked.
 * A profile whose probe failed keeps null, and the log says why. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "sandboxd/run/run.h"
#include "sandboxd/run/run_priv.h"

static const char PROBE[] =
    "import json, os, re, sys\n"
    "libs = {}\n"
    "for d in sys.path[1:]:\n" /* [0] is the job's own /work */
    "    try:\n"
    "        names = sorted(os.listdir(d))\n"
    "    except OSError:\n"
    "        continue\n"
    "    for n in names:\n"
    "        for suffix in ('.dist-info', '.egg-info'):\n"
    "            parts = n[:-len(suffix)].split('-') if n.endswith(suffix) else []\n"
    "            if len(parts) >= 2:\n"
    "                libs.setdefault(re.sub(r'[-_.]+', '-', parts[0]).lower(), parts[1])\n"
    "print(json.dumps({'python': sys.version.split()[0], 'libraries': libs}))\n";

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static json_t *g_found; /* profile name -> {interpreter_version, libraries} */

/* Only characters a name or version has (PEP 503/440, Debian's +dfsg and
 * epochs), and a bounded length. */
static bool run_probe_word(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s);
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(extra, c)))
			return false;
	}
	return true;
}

/* The job's report, rebuilt from what passes the checks; NULL when it is
 * not a report at all. */
static json_t *run_probe_parse(const char *out, size_t len)
{
	json_error_t e;
	json_t *o = json_loadb(out, len, JSON_REJECT_DUPLICATES, &e);
	const char *py = json_string_value(json_object_get(o, "python"));
	json_t *libs = json_object_get(o, "libraries");
	json_t *r = NULL;
	if (py && run_probe_word(py, PROTO_PING_VERSION_MAX, ".+_-") && json_is_object(libs)) {
		json_t *kept = json_object();
		const char *name;
		json_t *v;
		json_object_foreach(libs, name, v)
		{
			const char *ver = json_string_value(v);
			if (json_object_size(kept) >= PROTO_PING_LIBS_MAX)
				break;
			if (ver && run_probe_word(name, PROTO_PING_NAME_MAX, ".-_") &&
			    run_probe_word(ver, PROTO_PING_VERSION_MAX, ".+!_~:-"))
				json_object_set_new(kept, name, json_string(ver));
		}
		r = json_pack("{s:s,s:o}", P_INTERPRETER_VERSION, py, P_LIBRARIES, kept);
	}
	json_decref(o);
	return r;
}

static void run_probe_one(const struct config *cfg, int slot, const struct profile *p)
{
	struct job j;
	memset(&j, 0, sizeof j);
	j.req.id = (char *)"sandboxd-probe";
	j.req.code = (char *)PROBE;
	j.req.code_len = sizeof PROBE - 1;
	j.req.seed = -1;
	j.prof = p;
	j.lim = p->defaults;
	j.cancel_fd = -1;
	struct run_in in = {.seed = -1, .probe = true};
	struct run_facts f;
	struct run_verdict v;
	run_one(cfg, slot, &j, &in, &f);
	verdict_run(&f, &v);
	json_t *found = v.v == V_PASS ? run_probe_parse(f.r.out, f.r.out_len) : NULL;
	if (!found)
		log_msg("profile %s: what its jobs can import is not known (%s)", p->name,
			v.v == V_PASS ? "the probe's report did not parse" : v.msg);
	pthread_mutex_lock(&g_mu);
	if (!g_found)
		g_found = json_object();
	if (found)
		json_object_set_new(g_found, p->name, found);
	pthread_mutex_unlock(&g_mu);
	run_facts_free(&f);
}

void run_probe(const struct config *cfg, int slot)
{
	if (slot != 0)
		return;
	for (size_t i = 0; i < cfg->profiles.n; i++) {
		run_probe_one(cfg, slot, &cfg->profiles.v[i]);
		run_idle(cfg, slot); /* the probe's cgroup out of the first job's way */
	}
}

json_t *run_probe_json(const struct config *cfg)
{
	json_t *all = json_object();
	for (size_t i = 0; all && i < cfg->profiles.n; i++) {
		const struct profile *p = &cfg->profiles.v[i];
		pthread_mutex_lock(&g_mu);
		json_t *found = json_deep_copy(json_object_get(g_found, p->name));
		pthread_mutex_unlock(&g_mu);
		json_t *o = json_pack(
		    "{s:s,s:O,s:O}", P_INTERPRETER, p->interpreter, P_INTERPRETER_VERSION,
		    json_object_get(found, P_INTERPRETER_VERSION)
			? json_object_get(found, P_INTERPRETER_VERSION)
			: json_null(),
		    P_LIBRARIES,
		    json_object_get(found, P_LIBRARIES) ? json_object_get(found, P_LIBRARIES)
							: json_null());
		json_decref(found);
		if (!o || json_object_set_new(all, p->name, o) < 0) {
			json_decref(all);
			return NULL;
		}
	}
	return all;
}
