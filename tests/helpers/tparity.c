/* Test helper: the warm/cold parity driver (tparity.h). */
#include "tests/helpers/tparity.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define DRIVER "tests/parity/parity.py"
#define PYTHON "/usr/bin/python3"
#define MAX_ENV 16

int tparity_start(struct test_daemon *cold, struct test_daemon *warm, const char *workers,
		  const char *const *warm_extra, char *err, size_t errlen)
{
	const char *cargs[] = {"--cold", "--workers", workers, NULL};
	if (td_startv(cold, cargs) < 0) {
		snprintf(err, errlen, "starting the --cold daemon: %s", cold->err);
		return -1;
	}
	char base[32];
	snprintf(base, sizeof base, "%u", (unsigned)cold->uid_base);
	const char *wargs[TD_MAX_ARGS + 1] = {"--workers", workers, "--uid-base", base};
	int n = 4;
	for (int i = 0; warm_extra && warm_extra[i] && n < TD_MAX_ARGS; i++)
		wargs[n++] = warm_extra[i];
	wargs[n] = NULL;
	if (td_startv(warm, wargs) < 0) {
		snprintf(err, errlen, "starting the default daemon: %s", warm->err);
		td_cleanup(cold);
		return -1;
	}
	return 0;
}

int tparity_run(const struct test_daemon *cold, const struct test_daemon *warm, const char *part,
		const char *const *env, char **out)
{
	*out = strdup("");
	int pfd[2];
	if (!*out || pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	char ce[160], we[160];
	snprintf(ce, sizeof ce, "SBX_PARITY_COLD=%s", cold->sock);
	snprintf(we, sizeof we, "SBX_PARITY_WARM=%s", warm->sock);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		/* The driver dies with the test (a Check timeout kills the test). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(127);
		if (putenv(ce) != 0 || putenv(we) != 0)
			_exit(127);
		for (int i = 0; env && env[i]; i++)
			if (putenv((char *)env[i]) != 0)
				_exit(127);
		execl(PYTHON, PYTHON, "-B", DRIVER, part, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	size_t len = 0, cap = 0;
	char buf[8192];
	for (;;) {
		ssize_t r = read(pfd[0], buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		(void)!write(2, buf, (size_t)r);
		if (len + (size_t)r + 1 > cap) {
			size_t nc = (cap ? cap * 2 : 65536) + (size_t)r;
			char *n = realloc(*out, nc);
			if (!n)
				break;
			*out = n;
			cap = nc;
		}
		memcpy(*out + len, buf, (size_t)r);
		len += (size_t)r;
		(*out)[len] = '\0';
	}
	close(pfd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static bool wanted(const char *line, size_t n)
{
	static const char *const pre[] = {"DIFF ",     "OUTCOME ", "PATH ",  "SKIP", "parity ",
					  "Traceback", "  File ",  "usage:", NULL};
	for (int i = 0; pre[i]; i++)
		if (n >= strlen(pre[i]) && strncmp(line, pre[i], strlen(pre[i])) == 0)
			return true;
	return memmem(line, n, "Error", 5) != NULL; /* the driver's own exception */
}

char *tparity_why(const char *out, size_t max)
{
	char *w = calloc(1, max + 1);
	if (!w)
		return NULL;
	size_t len = 0;
	for (const char *l = out; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		if (wanted(l, n)) {
			size_t take = n > 300 ? 300 : n;
			if (len + take + 2 > max)
				break;
			memcpy(w + len, l, take);
			len += take;
			w[len++] = '\n';
		}
		l = e ? e + 1 : NULL;
	}
	return w;
}

bool tparity_part(const char *part, const char *workers, const char *const *env, char *skip,
		  size_t skiplen)
{
	struct test_daemon cold, warm;
	char err[2048];
	ck_assert_msg(tparity_start(&cold, &warm, workers, NULL, err, sizeof err) == 0, "%s", err);
	char *out;
	int rc = tparity_run(&cold, &warm, part, env, &out);
	td_cleanup(&warm);
	td_cleanup(&cold);
	char *why = tparity_why(out, 3500);
	free(out);
	if (rc == 77) {
		snprintf(skip, skiplen, "%s", why ? why : "(no output)");
		free(why);
		return false;
	}
	ck_assert_msg(rc == 0, "parity %s: the warm and cold paths differ (driver exit %d):\n%s",
		      part, rc, why ? why : "");
	free(why);
	return true;
}
