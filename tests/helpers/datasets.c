/* The shared benchmark data (see datasets.h). */
#include "tests/helpers/datasets.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

const char *tds_path(const char *name)
{
	static char bufs[4][PATH_MAX];
	static int k;
	char *p = bufs[k++ % 4];
	const char *dir = getenv("SBX_DATASETS");
	snprintf(p, PATH_MAX, "%s/%s", dir && *dir ? dir : "../shared/datasets", name);
	return p;
}

bool tds_have(const char *name, char *why, size_t len)
{
	const char *p = tds_path(name);
	if (access(p, R_OK) == 0)
		return true;
	int e = errno;
	char cwd[PATH_MAX];
	snprintf(why, len,
		 "data set %s not readable: %s (relative to %s; SBX_DATASETS=DIR names the "
		 "directory that holds the data sets)",
		 p, strerror(e), getcwd(cwd, sizeof cwd) ? cwd : "an unknown working directory");
	return false;
}

json_t **tds_load_jsonl_gz(const char *name, size_t *count)
{
	const char *path = tds_path(name);
	gzFile f = gzopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open dataset %s: %s (run from the repository root)", path,
		      strerror(errno));
	size_t n = 0, cap = 0, len = 0, lcap = 1 << 16;
	json_t **out = NULL;
	char *line = malloc(lcap);
	ck_assert_ptr_nonnull(line);
	for (;;) {
		if (lcap - len < 2) {
			lcap *= 2;
			line = realloc(line, lcap);
			ck_assert_ptr_nonnull(line);
		}
		char *got = gzgets(f, line + len, (int)(lcap - len));
		if (got)
			len += strlen(line + len);
		bool eol = len > 0 && line[len - 1] == '\n';
		if (!got || eol) {
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				len--;
			if (len > 0) {
				json_error_t je;
				json_t *o = json_loadb(line, len, 0, &je);
				ck_assert_msg(json_is_object(o), "%s record %zu: %s", path, n + 1,
					      je.text);
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					out = realloc(out, cap * sizeof *out);
					ck_assert_ptr_nonnull(out);
				}
				out[n++] = o;
			}
			len = 0;
			if (!got)
				break;
		}
	}
	int errnum = 0;
	const char *gerr = gzerror(f, &errnum);
	ck_assert_msg(errnum == Z_OK || errnum == Z_BUF_ERROR, "reading %s: %s", path, gerr);
	gzclose(f);
	free(line);
	*count = n;
	return out;
}

void tds_free_all(json_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(v[i]);
	free(v);
}
