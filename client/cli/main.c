/* sbx: the command-line client. Exit codes: 0 a result arrived (whatever the
 * verdict), 2 usage error, 3 sandboxd unreachable, 4 sandboxd answered with
 * an error object. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/numparse.h"
#include "common/protocol.h"
#include "client/cli/cmd.h"
#include "common/exitcodes.h"
#include "client/lib/sbx.h"

#define MAX_INPUT (64u << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sbx [--socket PATH] [--busy-retry SEC] ping\n"
		"       sbx [--socket PATH] [--busy-retry SEC] eval --dataset FILE --format F "
		"--generator CMD\n"
		"               --setting NAME... [options]   (sbx eval --help)\n"
		"       sbx [--socket PATH] check-reference --format F [options] DATASET   "
		"(sbx check-reference --help)\n"
		"       sbx score [--json] [--plot FILE.svg] DIR|FILE...\n"
		"       sbx report [-o FILE.html | --output FILE.html] DIR|FILE...   (sbx report "
		"--help)\n"
		"       sbx [--socket PATH] [--busy-retry SEC] run [--stdin FILE] [--file "
		"NAME=PATH]... [--cpu SEC]\n"
		"               [--wall SEC] [--memory MB] [--pids N] [--output KB] [--tmpfs MB]\n"
		"               [--cpus N] [--policy NAME] [--id ID] [--pretty | --explain]\n"
		"               [--tests FILE --format unittest|humaneval|asserts|stdio]\n"
		"               [--entry-point NAME] [--coverage full|partial|none]\n"
		"               [--partial-tests N] [--partial-mode fixed|convcodeworld]\n"
		"               [--expected-output show|hide] [--expected-visible N]\n"
		"               [--test-timeout SEC] [--seed N]\n"
		"               [--float-tolerance X] [--case-cpu SEC] [--case-wall SEC]\n"
		"               [--fail-fast] [--isolation none|process] CODE_FILE\n"
		"The socket defaults to $SBX_SOCKET, else /run/sandboxd.sock. CODE_FILE may be -.\n"
		"A request the daemon refuses `busy` (its queue is full) is sent again with the\n"
		"same id after a random delay that doubles from 10 ms up to 1 s, for at most\n"
		"SEC seconds after its first `busy` (--busy-retry, default 600; 0: never).\n"
		"No other error is retried.\n"
		"For asserts and stdio, the tests FILE is a JSON array. --explain prints the\n"
		"feedback a model would see instead of the JSON.\n");
}

/* The model-facing view of a response. */
static void explain(json_t *resp)
{
	json_t *err = json_object_get(resp, R_ERROR);
	if (err) {
		printf("error (%s): %s\n", json_string_value(json_object_get(err, R_ERROR_CODE)),
		       json_string_value(json_object_get(err, R_ERROR_MESSAGE)));
		return;
	}
	const char *msg = json_string_value(json_object_get(resp, R_MESSAGE));
	printf("Verdict: %s%s%s%s\n", json_string_value(json_object_get(resp, R_VERDICT)),
	       msg && *msg ? " (" : "", msg ? msg : "", msg && *msg ? ")" : "");
	json_t *fb = json_object_get(resp, R_FEEDBACK);
	if (fb) {
		printf("\n== Compilation feedback ==\n%s\n",
		       json_string_value(json_object_get(fb, FB_COMPILATION)));
		printf("\n== Execution feedback ==\n%s\n",
		       json_string_value(json_object_get(fb, FB_EXECUTION)));
		return;
	}
	const char *out = json_string_value(json_object_get(resp, R_STDOUT));
	const char *errs = json_string_value(json_object_get(resp, R_STDERR));
	if (out && *out)
		printf("\n== stdout ==\n%s", out);
	if (errs && *errs)
		printf("\n== stderr ==\n%s", errs);
}

static int print_response(json_t *resp, int mode)
{
	char *s = mode == 2 ? NULL : json_dumps(resp, mode == 1 ? JSON_INDENT(2) : JSON_COMPACT);
	if (mode == 2)
		explain(resp);
	if (s) {
		puts(s);
		free(s);
	}
	int rc = json_object_get(resp, R_ERROR) ? EXIT_DAEMON_ERROR : 0;
	json_decref(resp);
	return rc;
}

static struct sbx_retry g_retry; /* --busy-retry */

/* A `busy` without an id: the daemon refused the request unread, or the
 * whole connection (at --max-connections, or the uid's --max-conn-per-peer;
 * it then closes it). Nothing of the request ran, and libsbx cannot send it
 * again on a closed connection: call() does, on a new one. */
static bool refused_unread(const json_t *resp)
{
	const char *code =
	    json_string_value(json_object_get(json_object_get(resp, R_ERROR), R_ERROR_CODE));
	return code && strcmp(code, ERROR_BUSY) == 0 &&
	       !json_string_value(json_object_get(resp, F_ID));
}

static int call(const char *sock, json_t *req, int pretty)
{
	char err[512];
	json_t *resp = NULL;
	long long first = 0;
	for (unsigned attempt = 0;; attempt++) {
		struct sbx_conn *c = sbx_connect(sock, err, sizeof err);
		if (!c) {
			fprintf(stderr, "sbx: %s\n", err);
			json_decref(req);
			return EXIT_UNREACHABLE;
		}
		sbx_set_retry(c, &g_retry);
		resp = sbx_call(c, req, -1, err, sizeof err);
		sbx_close(c);
		if (!resp || !refused_unread(resp))
			break;
		/* The same schedule and bound as libsbx's own retries. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
		first = attempt ? first : ms;
		long d = sbx_retry_delay(&g_retry, attempt, ms - first, (uint32_t)rand());
		if (d < 0)
			break;
		json_decref(resp);
		resp = NULL;
		nanosleep(&(struct timespec){.tv_sec = d / 1000, .tv_nsec = d % 1000 * 1000000},
			  NULL);
	}
	json_decref(req);
	if (!resp) {
		fprintf(stderr, "sbx: %s (socket %s)\n", err, sock);
		return EXIT_UNREACHABLE;
	}
	return print_response(resp, pretty);
}

static int add_file(json_t *files, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1]) {
		snprintf(err, errlen, "--file wants NAME=PATH, got \"%s\"", spec);
		return -1;
	}
	size_t len;
	char *data = sbx_read_file(eq + 1, MAX_INPUT, &len, err, errlen);
	if (!data)
		return -1;
	char *name = strndup(spec, (size_t)(eq - spec));
	json_object_set_new(files, name, json_stringn(data, len));
	free(name);
	free(data);
	return 0;
}

/* --tests FILE: a string for unittest/humaneval, a JSON array for the others. */
static int add_tests(json_t *req, const char *path, char *err, size_t errlen)
{
	const char *fmt = json_string_value(json_object_get(req, F_FORMAT));
	if (!fmt) {
		snprintf(err, errlen, "--tests needs --format");
		return -1;
	}
	size_t len;
	char *data = sbx_read_file(path, MAX_INPUT, &len, err, errlen);
	if (!data)
		return -1;
	json_t *tests;
	if (strcmp(fmt, "asserts") == 0 || strcmp(fmt, "stdio") == 0) {
		json_error_t je;
		tests = json_loadb(data, len, 0, &je);
		if (!json_is_array(tests)) {
			snprintf(err, errlen, "%s: a JSON array is needed for %s (%s)", path, fmt,
				 tests ? "not an array" : je.text);
			json_decref(tests);
			free(data);
			return -1;
		}
	} else {
		tests = json_stringn(data, len);
	}
	free(data);
	json_object_set_new(req, F_TESTS, tests);
	return 0;
}

static int cmd_run(const char *sock, int argc, char **argv)
{
	json_t *req = json_object(), *limits = json_object(), *files = json_object();
	const char *code_path = NULL, *stdin_path = NULL, *id = NULL, *tests_path = NULL;
	int pretty = 0;
	char err[512] = "";
	int rc = EXIT_USAGE;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n;
		static const struct {
			const char *flag, *key;
			bool seconds;
		} lim[] = {{"--cpu", L_CPU_MS, true},
			   {"--wall", L_WALL_MS, true},
			   {"--memory", L_MEMORY_MB, false},
			   {"--pids", L_PIDS, false},
			   {"--output", L_OUTPUT_KB, false},
			   {"--tmpfs", L_TMPFS_MB, false},
			   {"--case-cpu", L_CASE_CPU_MS, true},
			   {"--case-wall", L_CASE_WALL_MS, true},
			   {"--cpus", L_CPUS, false}};
		size_t k = 0;
		while (k < sizeof lim / sizeof lim[0] && strcmp(a, lim[k].flag) != 0)
			k++;
		if (strcmp(a, "--pretty") == 0 || strcmp(a, "--explain") == 0) {
			pretty = strcmp(a, "--pretty") == 0 ? 1 : 2;
			continue;
		}
		if (strcmp(a, "--fail-fast") == 0) {
			json_object_set_new(req, F_FAIL_FAST, json_true());
			continue;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (code_path) {
				snprintf(err, sizeof err, "more than one CODE_FILE");
				goto out;
			}
			code_path = a;
			continue;
		}
		if (!v) {
			snprintf(err, sizeof err, "%s needs a value", a);
			goto out;
		}
		i++;
		if (k < sizeof lim / sizeof lim[0]) {
			if ((lim[k].seconds ? num_parse_seconds_ms(v, &n)
					    : num_parse_long(v, 1, 0x7fffffffL, &n)) < 0) {
				snprintf(err, sizeof err, "%s: not a positive number: %s", a, v);
				goto out;
			}
			json_object_set_new(limits, lim[k].key, json_integer(n));
		} else if (strcmp(a, "--stdin") == 0) {
			stdin_path = v;
		} else if (strcmp(a, "--file") == 0) {
			if (add_file(files, v, err, sizeof err) < 0)
				goto out;
		} else if (strcmp(a, "--policy") == 0) {
			json_object_set_new(req, F_POLICY, json_string(v));
		} else if (strcmp(a, "--id") == 0) {
			id = v;
		} else if (strcmp(a, "--tests") == 0) {
			tests_path = v;
		} else if (strcmp(a, "--format") == 0 || strcmp(a, "--entry-point") == 0 ||
			   strcmp(a, "--coverage") == 0 || strcmp(a, "--isolation") == 0 ||
			   strcmp(a, "--partial-mode") == 0 ||
			   strcmp(a, "--expected-output") == 0) {
			/* The daemon checks the values (and which formats take them). */
			const char *field = strcmp(a, "--format") == 0	       ? F_FORMAT
					    : strcmp(a, "--entry-point") == 0  ? F_ENTRY_POINT
					    : strcmp(a, "--isolation") == 0    ? F_ISOLATION
					    : strcmp(a, "--partial-mode") == 0 ? F_PARTIAL_MODE
					    : strcmp(a, "--expected-output") == 0
						? F_EXPECTED_OUTPUT
						: F_COVERAGE;
			json_object_set_new(req, field, json_string(v));
		} else if (strcmp(a, "--partial-tests") == 0 || strcmp(a, "--seed") == 0 ||
			   strcmp(a, "--expected-visible") == 0) {
			/* seeds and visible characters may be 0; the daemon
			 * range-checks all three */
			bool seed = strcmp(a, "--seed") == 0,
			     vis = strcmp(a, "--expected-visible") == 0;
			if (num_parse_long(v, seed || vis ? 0 : 1, 0x7fffffffL, &n) < 0) {
				snprintf(err, sizeof err, "%s: not a valid number: %s", a, v);
				goto out;
			}
			json_object_set_new(req,
					    seed  ? F_SEED
					    : vis ? F_EXPECTED_VISIBLE_CHARS
						  : F_PARTIAL_TESTS,
					    json_integer(n));
		} else if (strcmp(a, "--test-timeout") == 0) {
			if (num_parse_seconds_ms(v, &n) < 0) {
				snprintf(err, sizeof err, "%s: not a positive number: %s", a, v);
				goto out;
			}
			json_object_set_new(req, F_TEST_TIMEOUT_MS, json_integer(n));
		} else if (strcmp(a, "--float-tolerance") == 0) {
			char *end;
			double x = strtod(v, &end);
			if (*end || end == v || x < 0) {
				snprintf(err, sizeof err, "%s: not a number >= 0: %s", a, v);
				goto out;
			}
			json_object_set_new(req, F_FLOAT_TOLERANCE, json_real(x));
		} else {
			snprintf(err, sizeof err, "unknown option %s", a);
			goto out;
		}
	}
	if (!code_path) {
		snprintf(err, sizeof err, "missing CODE_FILE");
		goto out;
	}
	size_t len;
	char *code = sbx_read_file(code_path, MAX_INPUT, &len, err, sizeof err);
	if (!code)
		goto out;
	json_object_set_new(req, F_CODE, json_stringn(code, len));
	free(code);
	if (stdin_path) {
		char *in = sbx_read_file(stdin_path, MAX_INPUT, &len, err, sizeof err);
		if (!in)
			goto out;
		json_object_set_new(req, F_STDIN, json_stringn(in, len));
		free(in);
	}
	if (tests_path && add_tests(req, tests_path, err, sizeof err) < 0)
		goto out;
	char idbuf[64];
	snprintf(idbuf, sizeof idbuf, "sbx-%ld", (long)getpid());
	json_object_set_new(req, F_ID, json_string(id ? id : idbuf));
	if (json_object_size(limits))
		json_object_set(req, F_LIMITS, limits);
	if (json_object_size(files))
		json_object_set(req, F_FILES, files);
	rc = call(sock, json_incref(req), pretty);
out:
	if (err[0]) {
		fprintf(stderr, "sbx run: %s\n", err);
		if (rc == EXIT_USAGE)
			usage(stderr);
	}
	json_decref(req);
	json_decref(limits);
	json_decref(files);
	return rc;
}

int main(int argc, char **argv)
{
	const char *sock = sbx_default_socket();
	sbx_retry_default(&g_retry);
	srand((unsigned)getpid() ^ (unsigned)time(NULL)); /* the jitter of reconnects */
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
			sock = argv[++i];
		} else if (strcmp(argv[i], "--busy-retry") == 0 && i + 1 < argc) {
			if (cmd_parse_busy_retry(argv[++i], &g_retry) < 0) {
				fprintf(stderr,
					"sbx: --busy-retry wants 0 or seconds up to a day\n");
				return EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[i], "ping") == 0 && i + 1 == argc) {
		json_t *req = json_pack("{s:s,s:s}", F_ID, "ping", F_OP, "ping");
		return call(sock, req, false);
	}
	if (strcmp(argv[i], "run") == 0)
		return cmd_run(sock, argc - i - 1, argv + i + 1);
	if (strcmp(argv[i], "eval") == 0)
		return cmd_eval(sock, &g_retry, argc - i - 1, argv + i + 1, argv);
	if (strcmp(argv[i], "check-reference") == 0)
		return cmd_check_reference(sock, &g_retry, argc - i - 1, argv + i + 1);
	if (strcmp(argv[i], "score") == 0)
		return cmd_score(argc - i - 1, argv + i + 1);
	if (strcmp(argv[i], "report") == 0)
		return cmd_report(argc - i - 1, argv + i + 1);
	usage(stderr);
	return EXIT_USAGE;
}
