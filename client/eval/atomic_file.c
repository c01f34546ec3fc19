/* See atomic_file.h. The temporary file is PATH.tmpXXXXXX (mkstemp): beside
 * PATH, so the rename stays on one file system, and unique, so two writers
 * of the same PATH never share one. */
#include "client/eval/atomic_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errfmt.h"

int atomic_file_write(const char *path, atomic_fill_fn fill, void *ctx, char *err, size_t errlen)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + sizeof ".tmpXXXXXX");
	if (!tmp) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sprintf(tmp, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "cannot create a file beside %s: %s", path,
			 errfmt_desc(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return -1;
	}
	fchmod(fd, 0644); /* mkstemp's 0600 would hide the file from others */
	bool bad = false;
	int werr = 0;
	if (fill(f, ctx, err, errlen) < 0) {
		fclose(f);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	/* errno may be stale or 0 after ferror, hence the flag and EIO. */
	errno = 0;
	bad = fflush(f) || ferror(f) || fsync(fd);
	werr = errno;
	if (fclose(f) && !bad)
		bad = true, werr = errno;
	if (!bad && rename(tmp, path) < 0)
		bad = true, werr = errno;
	if (bad) {
		snprintf(err, errlen, "cannot write %s: %s", path, errfmt_desc(werr ? werr : EIO));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static int fill_json(FILE *f, void *j, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	json_dumpf(j, f, JSON_INDENT(2));
	fputc('\n', f);
	return 0; /* write errors: atomic_file_write checks the stream */
}

int atomic_file_write_json(const char *path, const json_t *j, char *err, size_t errlen)
{
	return atomic_file_write(path, fill_json, (void *)j, err, errlen);
}
