/* Reading a benchmark file line by line (plain or gzip), handing each
 * record to the parser and reporting what is skipped with its line number. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "client/eval/dataset.h"
#include "client/eval/dataset_priv.h"
#include "common/errfmt.h"

#define MAX_LINE DS_MAX_LINE
#define READ_CHUNK DS_READ_CHUNK
#define OOM DS_OOM
#define fail ds_fail

/* Line reader over gzread (which passes plain files through): handles NUL
 * bytes and a last line without a newline, and drops lines over MAX_LINE
 * while still finding where the next one starts. */
struct reader {
	gzFile gz;
	char *buf;
	size_t cap, start, scan, end;
	bool eof, read_any;
};

#define READ_ERROR (-1)
#define READ_OOM (-2)

/* 1 with a line (too_long set when it was dropped), 0 at the end, or
 * READ_ERROR / READ_OOM. */
static int next_line(struct reader *r, const char **line, size_t *len, bool *too_long)
{
	*too_long = false;
	for (;;) {
		char *nl =
		    r->scan < r->end ? memchr(r->buf + r->scan, '\n', r->end - r->scan) : NULL;
		if (nl || (r->eof && r->start < r->end)) {
			size_t stop = nl ? (size_t)(nl - r->buf) : r->end;
			*line = r->buf + r->start;
			*len = stop - r->start;
			*too_long |= *len > MAX_LINE;
			r->start = r->scan = nl ? stop + 1 : stop;
			return 1;
		}
		if (r->eof && *too_long) {
			*line = r->buf + r->start;
			*len = 0;
			return 1;
		}
		if (r->eof)
			return 0;
		r->scan = r->end;
		if (r->end - r->start > MAX_LINE) {
			*too_long = true;
			r->start = r->scan = r->end;
		}
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->scan -= r->start;
			r->start = 0;
		}
		if (r->cap - r->end < READ_CHUNK) {
			size_t ncap = r->cap ? r->cap * 2 : READ_CHUNK * 2;
			char *nb = realloc(r->buf, ncap);
			if (!nb)
				return READ_OOM;
			r->buf = nb;
			r->cap = ncap;
		}
		int n = gzread(r->gz, r->buf + r->end, (unsigned)READ_CHUNK), errnum;
		/* zlib reports a gzip stream cut short as a quiet end of file
		 * with Z_BUF_ERROR; whole records would go missing unnoticed. */
		if (n < 0 || (n == 0 && (gzerror(r->gz, &errnum), errnum == Z_BUF_ERROR)))
			return READ_ERROR;
		r->eof = n == 0;
		r->end += (size_t)n;
		r->read_any |= n > 0;
	}
}

static int add_task(struct ds_set *s, const struct ds_task *t)
{
	/* ds_set has no capacity field: grow to 64, then double at powers of 2 */
	if (s->n == 0 || (s->n >= 64 && (s->n & (s->n - 1)) == 0)) {
		struct ds_task *nv = realloc(s->v, (s->n ? s->n * 2 : 64) * sizeof *nv);
		if (!nv)
			return -1;
		s->v = nv;
	}
	s->v[s->n++] = *t;
	return 0;
}

static void skip(const char *path, size_t lineno, const char *why, FILE *warn, struct ds_set *out)
{
	out->skipped++;
	if (warn)
		fprintf(warn, "%s:%zu: %s, skipped\n", path, lineno, why);
}

/* Handles one non-blank line: 0 (kept or skipped) or -1 out of memory. */
static int load_line(const char *path, size_t lineno, const char *line, size_t len,
		     enum ds_format fmt, json_t *seen, FILE *warn, struct ds_set *out)
{
	char why[512];
	struct ds_task t;
	int rc = ds_parse_record_rc(line, len, fmt, &t, why, sizeof why);
	if (rc == OOM)
		return -1;
	if (rc < 0) {
		skip(path, lineno, why, warn, out);
		return 0;
	}
	json_t *first = json_object_get(seen, t.id);
	if (first) {
		snprintf(why, sizeof why,
			 "duplicate id \"%s\" (first on line %" JSON_INTEGER_FORMAT ")", t.id,
			 json_integer_value(first));
		ds_task_free(&t);
		skip(path, lineno, why, warn, out);
		return 0;
	}
	t.line = lineno;
	if (json_object_set_new(seen, t.id, json_integer((json_int_t)lineno)) < 0 ||
	    add_task(out, &t) < 0) {
		ds_task_free(&t);
		return -1;
	}
	return 0;
}

/* zlib's message without the "PATH: " it puts in front. */
static const char *gz_message(gzFile gz, const char *path)
{
	int errnum;
	const char *msg = gzerror(gz, &errnum);
	size_t n = strlen(path);
	return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

static int read_lines(const char *path, struct reader *r, enum ds_format fmt, json_t *seen,
		      FILE *warn, struct ds_set *out)
{
	const char *line;
	size_t len, lineno = 0;
	bool too_long;
	int rc;
	char why[256];
	while ((rc = next_line(r, &line, &len, &too_long)) > 0) {
		lineno++;
		if (lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
			line += 3; /* an editor's byte order mark */
			len -= 3;
		}
		if (too_long) {
			snprintf(why, sizeof why, "line longer than %zu MiB", MAX_LINE >> 20);
			skip(path, lineno, why, warn, out);
		} else if (!ds_blank_n(line, len) &&
			   load_line(path, lineno, line, len, fmt, seen, warn, out) < 0) {
			return READ_OOM;
		}
	}
	if (rc == READ_ERROR && r->read_any) {
		/* Keep what was read (only an unreadable file is fatal) but
		 * count the loss so a summary shows it. */
		snprintf(why, sizeof why, "read error (%s), rest of file", gz_message(r->gz, path));
		skip(path, lineno + 1, why, warn, out);
		rc = 0;
	}
	return rc;
}

int ds_load(const char *path, enum ds_format fmt, FILE *warn, struct ds_set *out, char *err,
	    size_t errlen)
{
	struct reader r = {0};
	memset(out, 0, sizeof *out);
	if (!(r.gz = gzopen(path, "rb")))
		return fail(-1, err, errlen, "cannot open %s: %s", path,
			    errno ? errfmt_desc(errno) : "out of memory");
	/* Only a speed-up; it can fail only once reading has begun. */
	(void)gzbuffer(r.gz, 128 * 1024);
	json_t *seen = json_object(); /* id -> line: a hash set for duplicates */
	int rc = seen ? read_lines(path, &r, fmt, seen, warn, out) : READ_OOM;
	if (rc < 0) {
		fail(-1, err, errlen, "cannot read %s: %s", path,
		     rc == READ_OOM ? "out of memory" : gz_message(r.gz, path));
		ds_free(out);
	}
	(void)gzclose(r.gz); /* read-only: nothing can be lost on close */
	free(r.buf);
	json_decref(seen);
	return rc < 0 ? -1 : 0;
}
