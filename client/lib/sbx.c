#include "client/lib/sbx.h"
#include "common/errfmt.h"
#include "common/clock.h"
#include "common/file.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESPONSE (1u << 30)

struct sbx_conn {
	int fd;
	char *buf;
	size_t len, cap;
	json_t *held; /* responses received while waiting for another id */
};

const char *sbx_default_socket(void)
{
	const char *s = getenv("SBX_SOCKET");
	return s && *s ? s : "/run/sandboxd.sock";
}

struct sbx_conn *sbx_connect(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		errfmt(err, errlen, "socket path too long: %s", path);
		return NULL;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		errfmt(err, errlen, "cannot reach sandboxd at %s: %s", path, errfmt_desc(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct sbx_conn *c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		errfmt(err, errlen, "out of memory");
		return NULL;
	}
	c->fd = fd;
	c->held = json_array();
	return c;
}

void sbx_close(struct sbx_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->buf);
	json_decref(c->held);
	free(c);
}

int sbx_submit(struct sbx_conn *c, const json_t *req, char *err, size_t errlen)
{
	char *s = json_dumps(req, JSON_COMPACT);
	size_t n = s ? strlen(s) : 0, off = 0;
	char *line = s ? realloc(s, n + 2) : NULL;
	if (!line) {
		free(s);
		errfmt(err, errlen, "cannot encode the request");
		return -1;
	}
	line[n++] = '\n';
	line[n] = '\0';
	while (off < n) {
		ssize_t w = send(c->fd, line + off, n - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errfmt(err, errlen, "send: %s", errfmt_desc(errno));
			free(line);
			return -1;
		}
		off += (size_t)w;
	}
	free(line);
	return 0;
}

/* Reads the next line from the socket as JSON. */
static json_t *read_line(struct sbx_conn *c, int timeout_ms, char *err, size_t errlen)
{
	long long deadline = timeout_ms < 0 ? -1 : (long long)clock_mono_ms() + timeout_ms;
	for (;;) {
		char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - c->buf);
			json_error_t je;
			json_t *o = json_loadb(c->buf, n, JSON_ALLOW_NUL, &je);
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			if (!o)
				errfmt(err, errlen, "bad response from sandboxd: %s", je.text);
			return o;
		}
		if (c->len == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 65536;
			char *nb = ncap <= MAX_RESPONSE ? realloc(c->buf, ncap) : NULL;
			if (!nb) {
				errfmt(err, errlen, "response too large");
				return NULL;
			}
			c->buf = nb;
			c->cap = ncap;
		}
		int wait = deadline < 0 ? -1 : (int)(deadline - (long long)clock_mono_ms());
		if (deadline >= 0 && wait <= 0) {
			errfmt(err, errlen, "timed out waiting for sandboxd");
			return NULL;
		}
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int pr = poll(&p, 1, wait);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			errfmt(err, errlen, "sandboxd closed the connection%s%s", r < 0 ? ": " : "",
			       r < 0 ? errfmt_desc(errno) : "");
			return NULL;
		}
		c->len += (size_t)r;
	}
}

json_t *sbx_next(struct sbx_conn *c, int timeout_ms, char *err, size_t errlen)
{
	if (json_array_size(c->held)) {
		json_t *o = json_incref(json_array_get(c->held, 0));
		json_array_remove(c->held, 0);
		return o;
	}
	return read_line(c, timeout_ms, err, errlen);
}

json_t *sbx_wait(struct sbx_conn *c, const char *id, int timeout_ms, char *err, size_t errlen)
{
	size_t i;
	json_t *o;
	json_array_foreach(c->held, i, o)
	{
		const char *oid = json_string_value(json_object_get(o, "id"));
		if (oid && strcmp(oid, id) == 0) {
			json_incref(o);
			json_array_remove(c->held, i);
			return o;
		}
	}
	for (;;) {
		o = read_line(c, timeout_ms, err, errlen);
		if (!o)
			return NULL;
		const char *oid = json_string_value(json_object_get(o, "id"));
		/* An error about an unreadable request has no id: it is ours. */
		if (!oid || strcmp(oid, id) == 0)
			return o;
		json_array_append_new(c->held, o);
	}
}

json_t *sbx_call(struct sbx_conn *c, const json_t *req, int timeout_ms, char *err, size_t errlen)
{
	const char *id = json_string_value(json_object_get(req, "id"));
	if (!id) {
		errfmt(err, errlen, "request without a string id");
		return NULL;
	}
	if (sbx_submit(c, req, err, errlen) < 0)
		return NULL;
	return sbx_wait(c, id, timeout_ms, err, errlen);
}

char *sbx_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	return file_read_all(path, max, len, err, errlen);
}
