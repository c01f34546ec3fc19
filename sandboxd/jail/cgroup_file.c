/* File helpers the cgroup files share: paths, small reads and writes, and
 * errors reported the same way (cgroup_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup_internal.h"
#include "common/errfmt.h"

int cg_err(char *err, size_t errlen, int e, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		if (e && n >= 0 && (size_t)n < errlen)
			errfmt(err + n, errlen - (size_t)n, ": %s", errfmt_desc(e));
	}
	errno = e ? e : EINVAL;
	return -1;
}

int cg_errno(int e)
{
	errno = e;
	return -1;
}

int cg_join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
	return n < 0 || n >= PATH_MAX ? cg_errno(ENAMETOOLONG) : 0;
}

bool cg_exists(const char *dir, const char *file)
{
	char p[PATH_MAX];
	return cg_join(p, dir, file) == 0 && access(p, F_OK) == 0;
}

int cg_write(const char *dir, const char *file, const char *val, char *err, size_t errlen)
{
	char p[PATH_MAX];
	if (cg_join(p, dir, file) < 0)
		return cg_err(err, errlen, ENAMETOOLONG, "%s/%s", dir, file);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return cg_err(err, errlen, errno, "open %s", p);
	size_t len = strlen(val);
	ssize_t n = write(fd, val, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (close(fd) < 0 && !e)
		e = errno;
	return e ? cg_err(err, errlen, e, "write %s to %s", val, p) : 0;
}

/* Reads a whole small file NUL-terminated; EFBIG if it does not fit. */
ssize_t cg_read_path(const char *p, char *buf, size_t size)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	ssize_t n = 1;
	while (n > 0 && len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n > 0)
			len += (size_t)n;
		else if (n < 0 && errno == EINTR)
			n = 1;
	}
	int e = n < 0 ? errno : n > 0 ? EFBIG : 0;
	close(fd);
	buf[len] = '\0';
	return e ? cg_errno(e) : (ssize_t)len;
}

ssize_t cg_read(const char *dir, const char *file, char *buf, size_t size)
{
	char p[PATH_MAX];
	return cg_join(p, dir, file) < 0 ? -1 : cg_read_path(p, buf, size);
}

/* Whole-word test in lists split by spaces, commas or newlines. */
bool cg_has_token(const char *s, const char *tok)
{
	size_t tl = strlen(tok);
	for (const char *p = s; (p = strstr(p, tok)) != NULL; p += tl)
		if ((p == s || strchr(" ,\n", p[-1])) && strchr(" ,\n", p[tl]))
			return true;
	return false;
}
