/* The `sbx eval` and `sbx score` command lines: parse flags into eval_opts
 * or a list of paths, then hand over to eval.c / score.c. */
#include "client/cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/numparse.h"
#include "client/eval/eval.h"
#include "client/eval/manifest.h"
#include "client/eval/passk.h"
#include "client/eval/score.h"

static void eval_usage(FILE *f)
{
	fprintf(f,
		"usage: sbx [--socket PATH] [--busy-retry SEC] eval --dataset FILE[.gz]\n"
		"           --format bigcodebench|humaneval|mbpp|stdio --generator 'CMD'\n"
		"           --setting NAME [--setting NAME]... | --setting all\n"
		"           [--verbal 'CMD'] [--reference DIR] [--turns N] [--jobs N] [--out DIR]\n"
		"           [--shard I/N] [--tasks ID,...] [--seed N] [--always-regenerate]\n"
		"           [--model NAME] [--gen-timeout SEC] [--cpu SEC] [--wall SEC]\n"
		"           [--memory MB] [--no-progress] [--busy-retry SEC]\n"
		"           [--max-errors RATE|N] [--retry-errors | --no-retry-errors]\n"
		"           [--force-resume] [--check-reference [--keep-broken]]\n"
		"           [--show-expected | --expected-visible N]\n"
		"           [--partial-mode fixed|convcodeworld]\n"
		"           [--samples N] [--temperature T]\n"
		"settings: CF CF_EF_UNIT CF_EF_FULL CF_SNF CF_EF_UNIT_SNF CF_EF_FULL_SNF\n"
		"          CF_SEF CF_EF_UNIT_SEF CF_EF_FULL_SEF (SNF/SEF need --verbal)\n"
		"A sandbox run refused `busy` (a full daemon queue) is retried with backoff for\n"
		"up to --busy-retry SEC (default 600; 0: never); after that the run stops.\n"
		"The run stops (exit 1) once the generator and verbal commands failed in more\n"
		"than RATE of the turns asked and more than %d times (--max-errors %g), or more\n"
		"than N times (--max-errors N, a whole number). Rerun with the same --out to\n"
		"resume: turns whose model command failed are asked again (--retry-errors,\n"
		"the default) or kept (--no-retry-errors). --out gets a manifest.json (data set\n"
		"hash, settings, model, commands, seed, limits, daemon, Python); a resume whose\n"
		"manifest differs is refused, naming the keys, unless --force-resume (recorded).\n"
		"stdio feedback hides each case's expected output past its first N characters\n"
		"(--expected-visible N, default 0); --show-expected shows it whole.\n"
		"EF_UNIT settings show failures among the first 3 test methods; --partial-mode\n"
		"convcodeworld counts ConvCodeWorld's way (first 3 defs, setUp and helpers too).\n"
		"Without --seed, each task's test runs get a seed derived from %d and its id.\n"
		"--samples N (1..%d) runs N independent episodes per task and setting, the\n"
		"generator getting each one's \"sample\" and \"seed\"; sbx score then reports\n"
		"pass@k. --temperature T (0..%g) is passed to the generator as \"temperature\".\n"
		"Ctrl-C stops the run and prints how to resume.\n"
		"Without --cpu/--wall/--memory the format's default limits apply (bigcodebench:\n"
		"cpu 240 s, wall 480 s, memory 4096 MB, 256 pids; others: the daemon's), printed\n"
		"and kept in manifest.json. --check-reference first runs every task's reference\n"
		"solution (reference.jsonl in --out) and leaves out the tasks whose reference\n"
		"fails here, listing them with the reason; --keep-broken scores them anyway.\n"
		"Exit: 0 done, 1 failed or stopped, 2 usage, 3 sandboxd unreachable,\n"
		"4 sandboxd refused, 130 interrupted.\n",
		EVAL_MIN_ERRORS, EVAL_MAX_ERROR_RATE, EVAL_DEFAULT_SEED, PASSK_MAX_SAMPLES,
		EVAL_MAX_TEMPERATURE);
}

/* --max-errors: a fraction written with a point (0.1), or a whole count. */
static int parse_max_errors(const char *v, struct eval_opts *o)
{
	long n;
	if (strchr(v, '.')) {
		char *end;
		errno = 0;
		double x = strtod(v, &end);
		if (errno || *end || end == v || !(x >= 0 && x <= 1))
			return -1;
		o->max_error_rate = x;
		o->max_errors = -1;
		return 0;
	}
	if (num_parse_long(v, 0, 1L << 40, &n) < 0)
		return -1;
	o->max_errors = n;
	return 0;
}

/* --temperature: a finite number 0..EVAL_MAX_TEMPERATURE. */
static int parse_temperature(const char *v, double *t)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || *end || end == v || !(x >= 0 && x <= EVAL_MAX_TEMPERATURE))
		return -1;
	*t = x;
	return 0;
}

/* Characters a shell leaves alone outside quotes. */
#define SHELL_SAFE "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%"

static void print_quoted(FILE *f, const char *s)
{
	if (*s && strspn(s, SHELL_SAFE) == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* After Ctrl-C: the command line that resumes the run (the same one, which
 * names the same --out), and the directory its relative paths are from. */
static void print_resume(char **cmdline, const char *out_dir, bool have_out)
{
	char cwd[4096];
	bool known = getcwd(cwd, sizeof cwd) != NULL;
	fprintf(stderr, "sbx eval: to resume, run the same command with the same --out%s%s%s:\n ",
		known ? " (from " : "", known ? cwd : "", known ? ")" : "");
	for (char **a = cmdline; *a; a++) {
		fputc(' ', stderr);
		print_quoted(stderr, *a);
	}
	if (!have_out) {
		fputs(" --out ", stderr);
		print_quoted(stderr, out_dir);
	}
	fputc('\n', stderr);
}

static int exit_code(int status)
{
	switch (status) {
	case EVAL_OK:
		return 0;
	case EVAL_UNREACHABLE:
		return EXIT_UNREACHABLE;
	case EVAL_DAEMON_ERROR:
		return EXIT_DAEMON_ERROR;
	case EVAL_INTERRUPTED:
		return EXIT_INTERRUPTED;
	default:
		return EXIT_FAILED;
	}
}

int cmd_parse_busy_retry(const char *v, struct sbx_retry *r)
{
	long ms = 0;
	if (strcmp(v, "0") != 0 && (num_parse_seconds_ms(v, &ms) < 0 || ms > 86400000L))
		return -1;
	r->total_ms = (int)ms;
	return 0;
}

/* Splits "a,b,c" in place into a NULL-terminated array (caller frees the array). */
static const char **split_ids(char *s, size_t *n)
{
	size_t cap = 1;
	for (const char *p = s; *p; p++)
		cap += *p == ',';
	const char **v = calloc(cap + 1, sizeof *v);
	if (!v)
		return NULL;
	*n = 0;
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
		if (*tok)
			v[(*n)++] = tok;
	return v;
}

static int add_setting(struct eval_opts *o, const char *name)
{
	size_t n;
	const struct eval_setting *all = eval_settings(&n);
	if (strcmp(name, "all") == 0) {
		o->nsettings = 0;
		for (size_t i = 0; i < n; i++)
			o->settings[o->nsettings++] = all[i].name;
		return 0;
	}
	if (!eval_setting_find(name)) {
		fprintf(stderr, "sbx eval: unknown setting %s\n", name);
		return -1;
	}
	for (size_t i = 0; i < o->nsettings; i++)
		if (strcmp(o->settings[i], name) == 0)
			return 0;
	if (o->nsettings == EVAL_MAX_SETTINGS)
		return -1;
	o->settings[o->nsettings++] = name;
	return 0;
}

int cmd_eval(const char *sock, const struct sbx_retry *retry, int argc, char **argv, char **cmdline)
{
	struct eval_opts o;
	eval_opts_default(&o);
	o.socket = sock;
	o.retry = *retry;
	o.catch_sigint = true;
	bool have_out = false;
	const char **ids = NULL;
	char *tasks_arg = NULL;
	bool have_format = false;
	int rc = EXIT_USAGE;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n;
		if (strcmp(a, "--always-regenerate") == 0) {
			o.always_regenerate = true;
			continue;
		}
		if (strcmp(a, "--no-progress") == 0) {
			o.progress = false;
			continue;
		}
		if (strcmp(a, "--force-resume") == 0) {
			o.force_resume = true;
			continue;
		}
		if (strcmp(a, "--check-reference") == 0 || strcmp(a, "--keep-broken") == 0) {
			*(a[2] == 'c' ? &o.check_reference : &o.keep_broken) = true;
			continue;
		}
		if (strcmp(a, "--show-expected") == 0) {
			o.show_expected = true;
			continue;
		}
		if (strcmp(a, "--retry-errors") == 0 || strcmp(a, "--no-retry-errors") == 0) {
			o.retry_errors = a[2] == 'r';
			continue;
		}
		if (strcmp(a, "--help") == 0) {
			eval_usage(stdout);
			rc = 0;
			goto out;
		}
		if (!v) {
			fprintf(stderr, "sbx eval: %s needs a value\n", a);
			goto bad;
		}
		i++;
		if (strcmp(a, "--dataset") == 0) {
			o.dataset = v;
		} else if (strcmp(a, "--format") == 0) {
			int f = ds_parse_format(v);
			if (f < 0) {
				fprintf(stderr, "sbx eval: unknown format %s\n", v);
				goto bad;
			}
			o.format = (enum ds_format)f;
			have_format = true;
		} else if (strcmp(a, "--generator") == 0) {
			o.generator = v;
		} else if (strcmp(a, "--verbal") == 0) {
			o.verbal = v;
		} else if (strcmp(a, "--reference") == 0) {
			o.reference = v;
		} else if (strcmp(a, "--setting") == 0) {
			if (add_setting(&o, v) < 0)
				goto bad;
		} else if (strcmp(a, "--turns") == 0 && num_parse_long(v, 0, 100, &n) == 0) {
			o.turns = (int)n;
		} else if (strcmp(a, "--jobs") == 0 && num_parse_long(v, 1, 1024, &n) == 0) {
			o.jobs = (int)n;
		} else if (strcmp(a, "--out") == 0) {
			o.out_dir = v;
			have_out = true;
		} else if (strcmp(a, "--shard") == 0) {
			int si, sn, used = 0;
			if (sscanf(v, "%d/%d%n", &si, &sn, &used) != 2 || v[used] || sn < 1 ||
			    si < 0 || si >= sn) {
				fprintf(stderr, "sbx eval: --shard wants I/N with 0 <= I < N\n");
				goto bad;
			}
			o.shard_i = si;
			o.shard_n = sn;
		} else if (strcmp(a, "--tasks") == 0) {
			free(tasks_arg);
			free(ids);
			tasks_arg = strdup(v);
			ids = tasks_arg ? split_ids(tasks_arg, &o.ntasks) : NULL;
			o.tasks = ids;
		} else if (strcmp(a, "--seed") == 0 && num_parse_long(v, 0, 4294967295L, &n) == 0) {
			o.seed = n;
		} else if (strcmp(a, "--busy-retry") == 0) {
			if (cmd_parse_busy_retry(v, &o.retry) < 0) {
				fprintf(stderr, "sbx eval: --busy-retry wants 0 or seconds\n");
				goto bad;
			}
		} else if (strcmp(a, "--max-errors") == 0) {
			if (parse_max_errors(v, &o) < 0) {
				fprintf(stderr, "sbx eval: --max-errors wants a fraction 0.0..1.0 "
						"or a whole number\n");
				goto bad;
			}
		} else if (strcmp(a, "--expected-visible") == 0 &&
			   num_parse_long(v, 0, PROTO_VISIBLE_CHARS_MAX, &n) == 0) {
			o.expected_visible = n;
		} else if (strcmp(a, "--partial-mode") == 0) {
			if (strcmp(v, PARTIAL_MODE_FIXED) != 0 &&
			    strcmp(v, PARTIAL_MODE_CONVCODEWORLD) != 0) {
				fprintf(stderr, "sbx eval: --partial-mode wants %s or %s\n",
					PARTIAL_MODE_FIXED, PARTIAL_MODE_CONVCODEWORLD);
				goto bad;
			}
			o.partial_mode =
			    strcmp(v, PARTIAL_MODE_FIXED) == 0 ? PM_FIXED : PM_CONVCODEWORLD;
		} else if (strcmp(a, "--samples") == 0 &&
			   num_parse_long(v, 1, PASSK_MAX_SAMPLES, &n) == 0) {
			o.samples = (int)n;
		} else if (strcmp(a, "--temperature") == 0) {
			if (parse_temperature(v, &o.temperature) < 0) {
				fprintf(stderr, "sbx eval: --temperature wants 0..%g\n",
					EVAL_MAX_TEMPERATURE);
				goto bad;
			}
		} else if (strcmp(a, "--model") == 0) {
			o.model = v;
		} else if (strcmp(a, "--gen-timeout") == 0 && num_parse_seconds_ms(v, &n) == 0) {
			o.gen_timeout_ms = (int)n;
		} else if (strcmp(a, "--cpu") == 0 && num_parse_seconds_ms(v, &n) == 0) {
			o.limits.cpu_ms = n;
		} else if (strcmp(a, "--wall") == 0 && num_parse_seconds_ms(v, &n) == 0) {
			o.limits.wall_ms = n;
		} else if (strcmp(a, "--memory") == 0 && num_parse_long(v, 1, 1 << 20, &n) == 0) {
			o.limits.memory_mb = n;
		} else {
			fprintf(stderr, "sbx eval: bad option or value: %s %s\n", a, v);
			goto bad;
		}
	}
	if (o.keep_broken && !o.check_reference) {
		fprintf(stderr, "sbx eval: --keep-broken needs --check-reference\n");
		goto bad;
	}
	if (!o.dataset || !o.generator || o.nsettings == 0 || !have_format) {
		fprintf(stderr, "sbx eval: --dataset, --format, --generator and --setting are "
				"required\n");
		goto bad;
	}
	char err[2048];
	int status = eval_run(&o, err, sizeof err);
	rc = exit_code(status);
	if (rc)
		fprintf(stderr, "sbx eval: %s\n", err);
	if (status == EVAL_INTERRUPTED)
		print_resume(cmdline, o.out_dir, have_out);
	goto out;
bad:
	eval_usage(stderr);
out:
	free(ids);
	free(tasks_arg);
	return rc;
}

static void score_usage(FILE *f)
{
	fprintf(f, "usage: sbx score [--json] [--plot FILE.svg] DIR|FILE...\n"
		   "Pass@1 per turn, MRR and Recall per setting over the turns.jsonl of each\n"
		   "DIR (an `sbx eval --out`) or FILE, merged; GenErr and VerbErr count the\n"
		   "turns whose generator or verbal command failed. Directories whose\n"
		   "manifest.json differ in more than their shard are refused (give their\n"
		   "turns.jsonl files to merge them anyway). Exit 1 when there is no record.\n"
		   "With episodes of sbx eval --samples N: the metrics are averaged over the\n"
		   "episodes, and the unbiased pass@k per turn is added for k = 1, 2, 4, ... and\n"
		   "the fewest episodes of a task.\n");
}

int cmd_score(int argc, char **argv)
{
	const char *plot = NULL;
	bool as_json = false;
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	size_t n = 0;
	if (!paths)
		return EXIT_FAILED;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			as_json = true;
		} else if (strcmp(argv[i], "--plot") == 0 && i + 1 < argc) {
			plot = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			score_usage(stdout);
			free(paths);
			return 0;
		} else if (argv[i][0] == '-') {
			score_usage(stderr);
			free(paths);
			return EXIT_USAGE;
		} else {
			paths[n++] = argv[i];
		}
	}
	if (n == 0) {
		score_usage(stderr);
		free(paths);
		return EXIT_USAGE;
	}
	struct score_table t;
	char err[1024];
	int rc = 0;
	if (manifest_check_merge(paths, n, stderr, err, sizeof err) < 0 ||
	    score_load(paths, n, stderr, &t, err, sizeof err) < 0) {
		fprintf(stderr, "sbx score: %s\n", err);
		free(paths);
		return EXIT_FAILED;
	}
	if (t.n == 0) {
		/* A table of nothing would read as a score of nothing. */
		fprintf(stderr,
			"sbx score: no turn records in %s%s (an evaluation that has not run "
			"a turn yet, or the wrong directory)\n",
			paths[0], n > 1 ? " and the others" : "");
		score_free(&t);
		free(paths);
		return EXIT_FAILED;
	}
	score_finish(&t);
	if (as_json) {
		json_t *j = score_to_json(&t);
		char *s = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
		if (s)
			puts(s);
		free(s);
		json_decref(j);
	} else {
		score_print(&t, stdout);
	}
	if (plot && score_plot_svg(&t, plot, err, sizeof err) < 0) {
		fprintf(stderr, "sbx score: %s\n", err);
		rc = EXIT_FAILED;
	}
	score_free(&t);
	free(paths);
	return rc;
}
