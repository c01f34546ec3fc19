/* ping tells what a job runs on (docs/protocol.md, "Responses"): the
 * daemon's version beside the protocol's, and per profile its interpreter,
 * that interpreter's version and the distributions a job can import, as a
 * job of the profile found them at start. Each value is checked against
 * what a job itself prints on the same daemon: sys.version, and
 * numpy.__version__ and pandas.__version__ when they are installed.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "common/protocol.h"
#include "sandboxd/config.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define CALL_MS 60000

static const char VERSIONS[] = "import sys\n"
			       "print(sys.version.split()[0])\n"
			       "for name in ('numpy', 'pandas'):\n"
			       "    try:\n"
			       "        print(__import__(name).__version__)\n"
			       "    except ImportError:\n"
			       "        print('-')\n";

/* The python profile's entry once its probe has reported (polled). */
static json_t *python_profile(struct sbx_conn *c, json_t **ping_out)
{
	for (int i = 0; i < 300; i++) {
		json_t *p = ping(c, "p");
		json_t *prof = json_object_get(json_object_get(p, P_PROFILES), "python");
		CHECK_R(p, json_is_object(prof));
		if (!json_is_null(json_object_get(prof, P_INTERPRETER_VERSION))) {
			*ping_out = p;
			return prof;
		}
		json_decref(p);
		td_sleep_ms(100);
	}
	ck_abort_msg("the python profile's interpreter version never came");
	return NULL;
}

START_TEST(test_ping_versions_are_what_a_job_sees)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	struct sbx_conn *c = conn_open(&d);
	json_t *p, *prof = python_profile(c, &p);
	CHECK_R(p, streq(sget(p, P_VERSION), PROTO_VERSION));
	CHECK_R(p, streq(sget(p, P_DAEMON_VERSION), SANDBOXD_VERSION));
	CHECK_R(p, streq(sget(prof, P_INTERPRETER), "/usr/bin/python3"));
	json_t *libs = json_object_get(prof, P_LIBRARIES);
	CHECK_R(p, json_is_object(libs) && json_object_size(libs) <= PROTO_PING_LIBS_MAX);
	json_t *r = call(c, job("v", VERSIONS), CALL_MS);
	CHECK_R(r, streq(sget(r, R_VERDICT), "pass"));
	char py[64], np[64], pd[64];
	CHECK_R(r, sscanf(sget(r, R_STDOUT), "%63s %63s %63s", py, np, pd) == 3);
	CHECK_RM(p, streq(sget(prof, P_INTERPRETER_VERSION), py), "a job's sys.version says %s",
		 py);
	const char *names[] = {"numpy", "pandas"}, *seen[] = {np, pd};
	for (int i = 0; i < 2; i++) {
		const char *v = json_string_value(json_object_get(libs, names[i]));
		if (streq(seen[i], "-"))
			CHECK_RM(p, !v, "%s is listed but a job cannot import it", names[i]);
		else
			CHECK_RM(p, v && streq(v, seen[i]), "a job's %s is %s", names[i], seen[i]);
	}
	/* Every entry is a bounded name and version. */
	const char *name;
	json_t *v;
	json_object_foreach(libs, name, v)
	{
		CHECK_RM(p, strlen(name) <= PROTO_PING_NAME_MAX && json_is_string(v), "%s", name);
		CHECK_RM(p, strlen(json_string_value(v)) <= PROTO_PING_VERSION_MAX, "%s", name);
	}
	json_decref(r);
	json_decref(p);
	sbx_close(c);
	stop_ok(&d);
}
END_TEST

static Suite *ping_suite(void)
{
	Suite *s = suite_create("daemon_ping");
	TCase *t = tmain_tcase(s, "ping", 90);
	tcase_add_test(t, test_ping_versions_are_what_a_job_sees);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-ping", .max_msg = 16 * 1024};
	return tmain(ping_suite, &opts);
}
