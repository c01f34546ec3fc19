/* Unit tests for cgroup placement (sandboxd/jail/cgroup_place.c): where
 * cg_place puts the daemon and its jobs (its own delegated cgroup, a session
 * scope, a --cgroup-parent, a rejoin, two instances) on fake v1/v2 trees in
 * a temp dir (tests/helpers/fakecg.h). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandboxd/jail/cgroup.h"
#include "tests/helpers/fakecg.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tmain.h"

/* ---- placement (cg_place) ------------------------------------------------ */

#define MNT "sys/fs/cgroup"

static void place_ok(struct cg_root *r, const char *parent, const char *prev, char *note)
{
	err[0] = '\0';
	ck_assert_msg(cg_place(r, parent, prev, note, 1024, err, sizeof err) == 0, "cg_place: %s",
		      err);
}

/* Alone in a delegated unit's cgroup: the own cgroup is the home. */
START_TEST(test_place_own_delegated)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), P("%d\n", (int)getpid()));
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s1");
	place_ok(&r, NULL, NULL, note);
	ck_assert_str_eq(note, "");
	ck_assert(!r.v2_made_home);
	ck_assert_str_eq(r.v2_home, P("%s/" V2_OWN, t));
	ck_assert_str_eq(r.v2_jobs, P("%s/" V2_OWN "/sandboxd", t));
}
END_TEST

/* Started from a login shell: the scope holds the shell, so the daemon makes
 * /sandboxd/<instance>, delegating from the root down, and moves there. */
START_TEST(test_place_session_scope)
{
	char t[PATH_MAX], h[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), P("4242\n%d\n", (int)getpid()));
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s1");
	place_ok(&r, NULL, NULL, note);
	set(h, P("%s/" MNT "/sandboxd/s1", t));
	ck_assert(r.v2_made_home);
	ck_assert_str_eq(r.v2_home, h);
	ck_assert_str_eq(r.v2_daemon, P("%s/sandboxd-daemon", h));
	ck_assert_str_eq(r.v2_jobs, P("%s/sandboxd", h));
	ck_assert_msg(strstr(note, "holds other processes") && strstr(note, h), "note: %s", note);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	ck_assert_str_eq(get(P("%s/" MNT "/cgroup.subtree_control", t)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/" MNT "/sandboxd/cgroup.subtree_control", t)),
			 "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/sandboxd-daemon/cgroup.procs", h)), P("%d", (int)getpid()));
	ck_assert_str_eq(get(P("%s/cgroup.subtree_control", h)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/sandboxd/cgroup.subtree_control", h)), "+memory +pids +cpu");
	/* The scope itself was left alone. */
	ck_assert(!exists(P("%s/" V2_OWN "/sandboxd-daemon", t)));
	ck_assert(!exists(P("%s/" V2_OWN "/cgroup.subtree_control", t)));

	/* A clean stop moves back and removes the home and the empty parent. */
	ck_assert_msg(cg_teardown(&r, err, sizeof err) == 0, "cg_teardown: %s", err);
	ck_assert_str_eq(get(P("%s/" V2_OWN "/cgroup.procs", t)), P("%d", (int)getpid()));
	ck_assert(!exists(h));
	ck_assert(!exists(P("%s/" MNT "/sandboxd", t)));
}
END_TEST

/* A parent that does not delegate memory and pids is seen in the daemon's
 * own cgroup.controllers, even though the root offers them. */
START_TEST(test_place_nondelegating_parent)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.controllers", t), "cpu io\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	ck_assert_int_eq(r.version, CG_V2);
	snprintf(r.instance, sizeof r.instance, "s2");
	place_ok(&r, NULL, NULL, note);
	ck_assert(r.v2_made_home);
	ck_assert_str_eq(r.v2_home, P("%s/" MNT "/sandboxd/s2", t));
	ck_assert_msg(strstr(note, "not offered the memory and pids"), "note: %s", note);
}
END_TEST

START_TEST(test_place_parent)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, false);
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s3");
	place_ok(&r, "/ci/sbx-test", NULL, note);
	ck_assert(r.v2_made_home);
	ck_assert_str_eq(r.v2_home, P("%s/" MNT "/ci/sbx-test/s3", t));
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "cg_setup: %s", err);
	/* What the root offers (cpu too) is handed down the whole chain. */
	ck_assert_str_eq(get(P("%s/" MNT "/ci/cgroup.subtree_control", t)), "+memory +pids +cpu");
	ck_assert_str_eq(get(P("%s/" MNT "/ci/sbx-test/cgroup.subtree_control", t)),
			 "+memory +pids +cpu");
	ck_assert(exists(P("%s/" MNT "/ci/sbx-test/s3/sandboxd", t)));
	/* The operator's parent stays after a clean stop. */
	ck_assert_msg(cg_teardown(&r, err, sizeof err) == 0, "cg_teardown: %s", err);
	ck_assert(!exists(P("%s/" MNT "/ci/sbx-test/s3", t)));
	ck_assert(exists(P("%s/" MNT "/ci/sbx-test", t)));

	/* Names that could leave the hierarchy, or are not paths, are refused. */
	const char *bad[] = {"relative", "/a/../b", "/..",  "/a/.",  "//a",
			     "/a/",	 "/",	    "/a b", "/a\nb", NULL};
	for (int i = 0; bad[i]; i++) {
		detect_ok(&r, MI_V2, SELF_V2, t);
		snprintf(r.instance, sizeof r.instance, "s3");
		ck_assert_msg(cg_place(&r, bad[i], NULL, note, sizeof note, err, sizeof err) == -1,
			      "accepted --cgroup-parent '%s'", bad[i]);
		ck_assert_msg(strstr(err, "--cgroup-parent"), "err: %s", err);
	}

	/* A parent below a cgroup that holds processes cannot be delegated to. */
	put(P("%s/" MNT "/busy/cgroup.procs", t), "777\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s3");
	place_ok(&r, "/busy/x", NULL, note);
	ck_assert_int_eq(cg_setup(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "holds processes") && strstr(err, "/busy"), "err: %s", err);
}
END_TEST

/* A crashed run recorded its home; a restart from a shell rejoins it when
 * its daemon leaf is empty, and only then. */
START_TEST(test_place_rejoin)
{
	char t[PATH_MAX], prev[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), "4242\n");
	set(prev, P("%s/" MNT "/system.slice/sandboxd.service", t));
	put(P("%s/cgroup.subtree_control", prev), "memory pids cpu\n");
	put(P("%s/sandboxd-daemon/cgroup.procs", prev), "");
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s4");
	place_ok(&r, NULL, prev, note);
	ck_assert_str_eq(r.v2_home, prev);
	ck_assert_msg(strstr(note, "rejoining"), "note: %s", note);

	/* A live daemon in the leaf: not ours to join. */
	put(P("%s/sandboxd-daemon/cgroup.procs", prev), "999\n");
	detect_ok(&r, MI_V2, SELF_V2, t);
	snprintf(r.instance, sizeof r.instance, "s4");
	place_ok(&r, NULL, prev, note);
	ck_assert_str_eq(r.v2_home, P("%s/" MNT "/sandboxd/s4", t));

	/* A recorded path outside the hierarchy, or with .., is ignored. */
	put(P("%s/sandboxd-daemon/cgroup.procs", prev), "");
	const char *bad[] = {"/etc", P("%s/" MNT "/../" MNT "/system.slice/sandboxd.service", t),
			     NULL};
	for (int i = 0; bad[i]; i++) {
		detect_ok(&r, MI_V2, SELF_V2, t);
		snprintf(r.instance, sizeof r.instance, "s4");
		place_ok(&r, NULL, bad[i], note);
		ck_assert_str_eq(r.v2_home, P("%s/" MNT "/sandboxd/s4", t));
	}
}
END_TEST

/* Two instances in the default place each get their own home, and one's
 * teardown leaves the other's alone. */
START_TEST(test_place_two_instances)
{
	char t[PATH_MAX], note[1024];
	struct cg_root a, b;
	set(t, new_tree());
	fake_v2(t, true);
	put(P("%s/" V2_OWN "/cgroup.procs", t), "4242\n");
	detect_ok(&a, MI_V2, SELF_V2, t);
	snprintf(a.instance, sizeof a.instance, "sa");
	place_ok(&a, NULL, NULL, note);
	ck_assert_msg(cg_setup(&a, err, sizeof err) == 0, "%s", err);
	detect_ok(&b, MI_V2, SELF_V2, t);
	snprintf(b.instance, sizeof b.instance, "sb");
	place_ok(&b, NULL, NULL, note);
	ck_assert_msg(cg_setup(&b, err, sizeof err) == 0, "%s", err);
	ck_assert_str_ne(a.v2_jobs, b.v2_jobs);
	put(P("%s/sb-0-1/cgroup.procs", b.v2_jobs), "");
	ck_assert_msg(cg_teardown(&a, err, sizeof err) == 0, "%s", err);
	ck_assert(!exists(a.v2_home));
	ck_assert(exists(P("%s/sb-0-1", b.v2_jobs)));
	ck_assert(exists(P("%s/" MNT "/sandboxd", t)));
}
END_TEST

/* v1: --cgroup-parent puts the jobs dirs below the parent in each hierarchy. */
START_TEST(test_place_v1_parent)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	snprintf(r.instance, sizeof r.instance, "s5");
	place_ok(&r, "/ci", NULL, note);
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/ci/s5/sandboxd", t));
	ck_assert_str_eq(r.v1_pids, P("%s/sys/fs/cgroup/pids/ci/s5/sandboxd", t));
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	ck_assert(exists(r.v1_memory) && exists(r.v1_pids));
	/* Without a parent, v1 keeps the own-cgroup layout. */
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	snprintf(r.instance, sizeof r.instance, "s5");
	place_ok(&r, NULL, NULL, note);
	ck_assert_str_eq(r.v1_memory, P("%s/sys/fs/cgroup/memory/process_api/abc/sandboxd", t));
}
END_TEST

/* A clean stop removes every cgroup of its instance even when one will not
 * go: the rest of that hierarchy and the other hierarchies are still swept,
 * and the failure is reported. It once stopped at the first busy cgroup,
 * and daemons left thousands of empty ones (each slowing the kernel's next
 * CPU quota write). */
START_TEST(test_teardown_sweeps_past_a_busy_cgroup)
{
	char t[PATH_MAX], note[1024];
	struct cg_root r;
	set(t, new_tree());
	fake_v1(t, false);
	detect_ok(&r, MI_HOST, SELF_HOST, t);
	snprintf(r.instance, sizeof r.instance, "s6");
	place_ok(&r, NULL, NULL, note);
	ck_assert_msg(cg_setup(&r, err, sizeof err) == 0, "%s", err);
	const char *dirs[] = {r.v1_memory, r.v1_pids, r.v1_cpuacct, r.v1_cpu};
	for (int i = 0; i < 4; i++) {
		put(P("%s/s6-0-1/cgroup.procs", dirs[i]), "");
		put(P("%s/s6-0-2/cgroup.procs", dirs[i]), "");
		put(P("%s/s7-0-1/cgroup.procs", dirs[i]), ""); /* another instance's */
	}
	/* Busy: a child cgroup, which no rmdir of the parent removes. */
	mkdirs(P("%s/s6-0-1/child", r.v1_memory));
	ck_assert_int_eq(cg_teardown(&r, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "s6-0-1"), "err: %s", err);
	ck_assert(exists(P("%s/s6-0-1", r.v1_memory)));
	ck_assert(!exists(P("%s/s6-0-2", r.v1_memory)));
	for (int i = 1; i < 4; i++) {
		ck_assert_msg(!exists(P("%s/s6-0-1", dirs[i])), "left in %s", dirs[i]);
		ck_assert_msg(!exists(P("%s/s6-0-2", dirs[i])), "left in %s", dirs[i]);
	}
	for (int i = 0; i < 4; i++)
		ck_assert(exists(P("%s/s7-0-1", dirs[i])));
}
END_TEST

static Suite *cgroup_place_suite(void)
{
	Suite *s = suite_create("cgroup_place");
	TCase *tc = tcase_create("fake");
	tcase_add_unchecked_fixture(tc, top_setup, top_teardown);
	tcase_add_test(tc, test_place_own_delegated);
	tcase_add_test(tc, test_place_session_scope);
	tcase_add_test(tc, test_place_nondelegating_parent);
	tcase_add_test(tc, test_place_parent);
	tcase_add_test(tc, test_place_rejoin);
	tcase_add_test(tc, test_place_two_instances);
	tcase_add_test(tc, test_place_v1_parent);
	tcase_add_test(tc, test_teardown_sweeps_past_a_busy_cgroup);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tmain(cgroup_place_suite, NULL);
}
