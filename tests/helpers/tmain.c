/* The main() of every Check binary (see tmain.h). */
#include "tests/helpers/tmain.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers/daemon.h"

extern char *program_invocation_short_name;

/* SBX_TEST_POLICIES for td_start: the absolute path of the profiles
 * without preloads, which must have been built. */
static int set_test_policies(const char *me)
{
	char dir[4096], abs[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/test-policies", td_build_dir());
	if (!realpath(dir, abs)) {
		fprintf(stderr, "%s: %s: %s (make builds it)\n", me, dir, strerror(errno));
		return -1;
	}
	setenv("SBX_TEST_POLICIES", abs, 1);
	return 0;
}

int tmain(Suite *(*make_suite)(void), const struct tmain_opts *opts)
{
	static const struct tmain_opts none;
	const struct tmain_opts *o = opts ? opts : &none;
	const char *me = program_invocation_short_name;
	if (o->root && geteuid() != 0) {
		fprintf(stderr, "%s: must run as root (sandboxd does)\n", me);
		return 1;
	}
	if (o->daemon && access(td_binary(), X_OK) < 0) {
		fprintf(stderr, "%s: %s: %s\n", me, td_binary(), strerror(errno));
		return 1;
	}
	if (o->no_preload && set_test_policies(me) < 0)
		return 1;
	if (o->max_msg > 0)
		check_set_max_msg_size(o->max_msg);
	if (o->ignore_sigpipe)
		signal(SIGPIPE, SIG_IGN);
	char base[256] = "";
	if (o->tmpdir) {
		snprintf(base, sizeof base, "/tmp/%s.XXXXXX", o->tmpdir);
		if (!mkdtemp(base)) {
			fprintf(stderr, "%s: mkdtemp %s: %s\n", me, base, strerror(errno));
			return 1;
		}
		setenv("SBX_TEST_TMPDIR", base, 1);
	}
	int failed = 1;
	if (!o->setup || o->setup() == 0) {
		SRunner *sr = srunner_create(make_suite());
		srunner_run_all(sr, CK_ENV);
		failed = srunner_ntests_failed(sr);
		srunner_free(sr);
	}
	if (o->teardown)
		o->teardown();
	const char *keep = getenv("SBX_TEST_KEEP");
	if (base[0] && !(keep && strcmp(keep, "1") == 0))
		td_rmtree(base);
	else if (base[0])
		fprintf(stderr, "%s: kept %s (SBX_TEST_KEEP=1)\n", me, base);
	return failed ? 1 : 0;
}

TCase *tmain_tcase(Suite *s, const char *name, double timeout)
{
	TCase *t = tcase_create(name);
	if (timeout > 0)
		tcase_set_timeout(t, timeout);
	suite_add_tcase(s, t);
	return t;
}
