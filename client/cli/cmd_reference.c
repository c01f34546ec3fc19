/* `sbx check-reference`: runs every selected task's reference solution
 * through the daemon and writes reference.jsonl, so a data set's tasks that
 * cannot pass in this environment are known before a model is scored on
 * them (client/eval/reference_run.c runs the references). */
#include "client/cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/eval/eval.h"
#include "client/eval/eval_priv.h"
#include "client/eval/reference.h"
#include "common/errfmt.h"
#include "common/numparse.h"

static void check_reference_usage(FILE *f)
{
	fprintf(f,
		"usage: sbx [--socket PATH] [--busy-retry SEC] check-reference\n"
		"           --format bigcodebench|humaneval|mbpp|stdio [--out DIR] [--jobs N]\n"
		"           [--tasks ID,...] [--shard I/N] [--seed N] [--cpu SEC] [--wall SEC]\n"
		"           [--memory MB] DATASET\n"
		"Runs each task's reference solution against its tests, with the limits and\n"
		"seeds `sbx eval` would use (the format's defaults unless given), and writes one\n"
		"record per task to DIR/reference.jsonl (default DIR: sbx-reference). Records of\n"
		"an earlier check made the same way (data set, format, limits, seeds, daemon) are\n"
		"reused. Prints the tasks whose reference fails here, with the reason.\n"
		"Exit: 0 checked (failing references included), 1 failed, 2 usage,\n"
		"3 sandboxd unreachable, 4 sandboxd refused.\n");
}

static int check_mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return errfmt(err, errlen, "path too long: %s", path);
	for (char *p = buf + 1;; p++) {
		bool end = *p == '\0';
		if (*p != '/' && !end)
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return errfmt(err, errlen, "cannot create %s: %s", buf, errfmt_desc(errno));
		if (end)
			return 0;
		*p = '/';
	}
}

/* The table: one line per task that does not pass, then the counts. */
static void check_print(const json_t *byid, const struct ds_task **tasks, size_t n,
			const char *path)
{
	size_t pass = 0, none = 0, broken = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *r = json_object_get(byid, tasks[i]->id);
		const char *v = json_string_value(json_object_get(r, "verdict"));
		if (!reference_broken(r)) {
			pass += v && strcmp(v, "pass") == 0;
			none += !v || strcmp(v, REF_NONE) == 0;
			continue;
		}
		broken++;
		printf("%-24s %-14s %s\n", tasks[i]->id, v ? v : "?",
		       json_string_value(json_object_get(r, "reason")));
	}
	printf("%zu task%s: %zu reference%s pass, %zu fail here, %zu without a reference "
	       "(records in %s)\n",
	       n, n == 1 ? "" : "s", pass, pass == 1 ? "" : "s", broken, none, path);
}

/* The check as a command: an enum eval_status, err set when not EVAL_OK. */
static int check_run(const struct eval_opts *opts, char *err, size_t errlen)
{
	int status = EVAL_FAILED;
	json_t *ping =
	    eval_daemon_ping(opts->socket, &opts->retry, opts->jobs <= 0, &status, err, errlen);
	if (!ping)
		return status;
	struct eval_opts o = *opts;
	fmt_limits_opts(&o, ping, "sbx check-reference");
	struct ds_set ds = {0};
	const struct ds_task **tasks = NULL;
	size_t n = 0;
	status = EVAL_FAILED;
	if (ds_load(o.dataset, o.format, stderr, &ds, err, errlen) == 0 &&
	    eval_select_tasks(&o, &ds, &tasks, &n, err, errlen) == 0 &&
	    check_mkdirs(o.out_dir, err, errlen) == 0) {
		int jobs =
		    o.jobs > 0 ? o.jobs : (int)json_integer_value(json_object_get(ping, P_WORKERS));
		json_t *byid = reference_run_check(&o, tasks, n, ping, jobs, &status, err, errlen);
		if (byid) {
			char path[4200];
			snprintf(path, sizeof path, "%s/%s", o.out_dir, REFERENCE_FILE);
			check_print(byid, tasks, n, path);
		}
		json_decref(byid);
	}
	free(tasks);
	ds_free(&ds);
	json_decref(ping);
	return status;
}

static int exit_of(int status)
{
	switch (status) {
	case EVAL_OK:
		return 0;
	case EVAL_UNREACHABLE:
		return EXIT_UNREACHABLE;
	case EVAL_DAEMON_ERROR:
		return EXIT_DAEMON_ERROR;
	default:
		return EXIT_FAILED;
	}
}

/* One option with its value; 0, or -1 when it is unknown or bad. */
static int parse_opt(struct eval_opts *o, const char *a, const char *v, char **tasks_arg,
		     const char ***ids, bool *have_format)
{
	long n;
	if (strcmp(a, "--format") == 0) {
		int f = ds_parse_format(v);
		if (f < 0)
			return -1;
		o->format = (enum ds_format)f;
		*have_format = true;
	} else if (strcmp(a, "--dataset") == 0) {
		o->dataset = v;
	} else if (strcmp(a, "--out") == 0 && *v) {
		o->out_dir = v;
	} else if (strcmp(a, "--jobs") == 0 && num_parse_long(v, 1, 1024, &n) == 0) {
		o->jobs = (int)n;
	} else if (strcmp(a, "--seed") == 0 && num_parse_long(v, 0, 4294967295L, &n) == 0) {
		o->seed = n;
	} else if (strcmp(a, "--cpu") == 0 && num_parse_seconds_ms(v, &n) == 0) {
		o->limits.cpu_ms = n;
	} else if (strcmp(a, "--wall") == 0 && num_parse_seconds_ms(v, &n) == 0) {
		o->limits.wall_ms = n;
	} else if (strcmp(a, "--memory") == 0 && num_parse_long(v, 1, 1 << 20, &n) == 0) {
		o->limits.memory_mb = n;
	} else if (strcmp(a, "--busy-retry") == 0) {
		return cmd_parse_busy_retry(v, &o->retry);
	} else if (strcmp(a, "--shard") == 0) {
		int si, sn, used = 0;
		if (sscanf(v, "%d/%d%n", &si, &sn, &used) != 2 || v[used] || sn < 1 || si < 0 ||
		    si >= sn)
			return -1;
		o->shard_i = si;
		o->shard_n = sn;
	} else if (strcmp(a, "--tasks") == 0) {
		free(*tasks_arg);
		free(*ids);
		*ids = NULL;
		o->ntasks = 0;
		if (!(*tasks_arg = strdup(v)))
			return -1;
		size_t cap = 1;
		for (const char *p = v; *p; p++)
			cap += *p == ',';
		if (!(*ids = calloc(cap + 1, sizeof **ids)))
			return -1;
		for (char *tok = strtok(*tasks_arg, ","); tok; tok = strtok(NULL, ","))
			if (*tok)
				(*ids)[o->ntasks++] = tok;
		o->tasks = *ids;
	} else {
		return -1;
	}
	return 0;
}

int cmd_check_reference(const char *sock, const struct sbx_retry *retry, int argc, char **argv)
{
	struct eval_opts o;
	eval_opts_default(&o);
	o.socket = sock;
	o.retry = *retry;
	o.out_dir = "sbx-reference";
	char *tasks_arg = NULL;
	const char **ids = NULL;
	bool have_format = false;
	int rc = EXIT_USAGE;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			check_reference_usage(stdout);
			rc = 0;
			goto out;
		}
		if (a[0] != '-' && !o.dataset) {
			o.dataset = a;
			continue;
		}
		if (i + 1 >= argc ||
		    parse_opt(&o, a, argv[i + 1], &tasks_arg, &ids, &have_format) < 0) {
			fprintf(stderr, "sbx check-reference: bad option or value: %s%s%s\n", a,
				i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
			goto bad;
		}
		i++;
	}
	if (!o.dataset || !have_format) {
		fprintf(stderr, "sbx check-reference: a DATASET and --format are required\n");
		goto bad;
	}
	char err[2048] = "";
	rc = exit_of(check_run(&o, err, sizeof err));
	if (rc)
		fprintf(stderr, "sbx check-reference: %s\n", err);
	goto out;
bad:
	check_reference_usage(stderr);
out:
	free(ids);
	free(tasks_arg);
	return rc;
}
