/* The `sbx report` command line: paths and -o, then report.c. */
#include "client/cli/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/eval/report.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: sbx report [-o FILE.html | --output FILE.html] DIR|FILE...\n"
		"Writes one self-contained HTML page (inline CSS, JavaScript and SVG; nothing\n"
		"loaded from anywhere) from sbx eval outputs: the score table and Pass@1 curves\n"
		"of `sbx score` (several DIRs or FILEs are shards, merged as sbx score merges\n"
		"them), and for every task and setting its turns: verdict, code diff from the\n"
		"turn before, feedback, generator errors; filters by setting and outcome.\n"
		"A DIR stands for DIR/turns.jsonl. Without -o the page is DIR/report.html (one\n"
		"DIR only). Each text keeps at most %u KiB, and the page at most %u MiB of\n"
		"record text (past that each kind of text is cut to a length that fits); the\n"
		"page says what was cut. The file is replaced atomically.\n"
		"Exit status: 0 written; 1 no records, unreadable input or unwritable output;\n"
		"2 usage.\n",
		REPORT_TEXT_CAP >> 10, REPORT_BUDGET >> 20);
}

int cmd_report(int argc, char **argv)
{
	const char *out = NULL;
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	size_t n = 0;
	if (!paths)
		return EXIT_FAILED;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			report_usage(stdout);
			free(paths);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 == argc) {
				fprintf(stderr, "sbx report: %s needs a FILE\n", argv[i]);
				report_usage(stderr);
				free(paths);
				return EXIT_USAGE;
			}
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "sbx report: unknown option %s\n", argv[i]);
			report_usage(stderr);
			free(paths);
			return EXIT_USAGE;
		} else {
			paths[n++] = argv[i];
		}
	}
	char *def = NULL;
	struct stat st;
	if (!out && n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode) &&
	    asprintf(&def, "%s/report.html", paths[0]) > 0)
		out = def;
	if (n == 0 || !out) {
		fprintf(stderr, "sbx report: %s\n",
			n ? "-o FILE is needed unless the input is one directory"
			  : "no DIR or FILE given");
		report_usage(stderr);
		free(paths);
		free(def);
		return EXIT_USAGE;
	}
	char err[1024];
	struct report_stats s;
	int rc = EXIT_OK;
	if (report_write(paths, n, out, NULL, stderr, &s, err, sizeof err) < 0) {
		fprintf(stderr, "sbx report: %s\n", err);
		rc = EXIT_FAILED;
	} else {
		printf("wrote %s (%zu tasks, %zu timelines, %zu records%s)\n", out, s.tasks, s.rows,
		       s.records, s.trimmed || s.cut ? "; texts cut to fit, see the page" : "");
	}
	free(paths);
	free(def);
	return rc;
}
