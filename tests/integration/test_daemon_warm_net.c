/* A fork server's pooled network namespace (sandboxd/jail/warm_net.h):
 * warm jobs of one server share one, one job at a time, only while each
 * leaves it as it was made.
 *   - jobs that leave nothing run in the same namespace (it is pooled, not
 *     made per job) and see it as new;
 *   - a job that leaves a TIME_WAIT connection (and lo's packet counters
 *     moved), or only moves a counter without a packet (a datagram with no
 *     route), or leaves sockets in flight: the next job sees a namespace as
 *     new, and for the first two a different one. The control: the job
 *     itself sees what it left.
 * Run as root from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/sbx.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define TIMEOUT_S 120
#define CALL_MS 60000

/* Prints "NS net:[inode]#cookie STATE pristine", or STATE and what is not
 * new. The cookie (SO_NETNS_COOKIE, Linux 5.14; 0 before) tells two
 * namespaces apart where the inode cannot: a freed namespace's inode
 * number is given to the next one made, which the VM tier saw once. The
 * socket that reads it is made after the counters are read: closing a unix
 * socket while any is in flight starts the kernel's collector (at once,
 * before close returns, on Linux 6.1), which would free what in_flight left
 * before its control looks. */
static const char STATE[] =
    "import os, socket, sys\n"
    "bad = []\n"
    "st = {}\n"
    "for line in open('/proc/net/sockstat'):\n"
    "    k, _, rest = line.partition(':')\n"
    "    f = rest.split()\n"
    "    st.update({k + '.' + f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)})\n"
    "if st['sockets.used'] or st['TCP.inuse'] or st['TCP.tw'] or st['UDP.inuse']:\n"
    "    bad.append('sockets')\n"
    "for line in open('/proc/net/dev'):\n"
    "    if line.strip().startswith('lo:'):\n"
    "        v = line.split(':', 1)[1].split()\n"
    "        if int(v[1]) or int(v[9]): bad.append('lo-packets')\n"
    "snmp = open('/proc/net/snmp').read().splitlines()\n"
    "ip = dict(zip(snmp[0].split()[1:], map(int, snmp[1].split()[1:])))\n"
    "if ip['OutNoRoutes']: bad.append('noroute')\n"
    "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
    "try:\n"
    "    ck = int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 71, 8), sys.byteorder)\n"
    "except OSError:\n"
    "    ck = 0\n"
    "s.close()\n"
    "print('NS', os.readlink('/proc/self/ns/net') + '#' + str(ck), 'STATE',\n"
    "      ' '.join(bad) or 'pristine')\n";

/* What each dirtying job leaves, and what the control must see. */
static const struct {
	const char *name, *code, *sees;
	bool replaced; /* the next job must be in another namespace */
	int tries;     /* runs until the control sees it (1: deterministic) */
} DIRT[] = {
    {"time_wait",
     "import socket\n"
     "s = socket.create_server(('127.0.0.1', 0))\n"
     "c = socket.create_connection(s.getsockname())\n"
     "a, _ = s.accept()\n"
     "c.close(); a.close(); s.close()\n",
     "sockets lo-packets", true, 1},
    {"noroute",
     "import socket\n"
     "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
     "try:\n"
     "    u.sendto(b'x', ('10.255.255.1', 9))\n"
     "except OSError:\n"
     "    pass\n"
     "u.close()\n",
     "noroute", true, 1},
    /* Each end sent over the pair itself: both live on in flight after
     * the job closes them, until the kernel's collector finds the cycle.
     * Any unix socket closed anywhere on the host may start it, so it can
     * free them before the job's own check (then the namespace is new
     * again and proves nothing): the job is run again until its control
     * sees them, and the next job is checked after that run. */
    {"in_flight",
     "import socket, array\n"
     "p, q = socket.socketpair()\n"
     "p.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,\n"
     "                    array.array('i', [p.fileno(), q.fileno()]))])\n"
     "p.close(); q.close()\n"
     "import os\n"
     "print('unix', len(open('/proc/net/unix').readlines()) - 1)\n",
     "sockets", false, 5},
};

static char *ns_of(json_t *r)
{
	const char *o = sget(r, "stdout"), *p = o ? strstr(o, "NS ") : NULL;
	char *ns = p ? strndup(p + 3, strcspn(p + 3, " ")) : NULL;
	ck_assert_msg(ns != NULL, "no NS line: %s", o ? o : "(none)");
	return ns;
}

static json_t *state(struct sbx_conn *c, const char *id)
{
	json_t *r = call(c, job(id, STATE), CALL_MS);
	CHECK_R(r, streq(sget(r, "verdict"), "pass"));
	CHECK_R(r, streq(sget(r, "path"), "warm"));
	return r;
}

START_TEST(test_pooled_while_clean)
{
	struct test_daemon d;
	START(d, "--workers", "1");
	ck_assert_msg(td_wait_warm(&d, 60000) == 0, "%s", d.err);
	struct sbx_conn *c = conn_open(&d);
	/* Pooled: two jobs in a row in the same namespace (the slot makes it
	 * while idle, so the very first jobs may still make their own). */
	char *prev = NULL;
	bool same = false;
	for (int i = 0; i < 10 && !same; i++) {
		json_t *r = state(c, "state");
		CHECK_R(r, strstr(sget(r, "stdout"), "STATE pristine") != NULL);
		char *ns = ns_of(r);
		same = prev && strcmp(prev, ns) == 0;
		free(prev);
		prev = ns;
		json_decref(r);
	}
	ck_assert_msg(same, "no two jobs in a row shared a network namespace");
	free(prev);
	for (size_t k = 0; k < sizeof DIRT / sizeof DIRT[0]; k++) {
		char code[4096];
		snprintf(code, sizeof code, "%s%s", DIRT[k].code, STATE);
		json_t *r = NULL;
		for (int t = 0; t < DIRT[k].tries; t++) {
			json_decref(r);
			r = call(c, job(DIRT[k].name, code), CALL_MS);
			CHECK_R(r, streq(sget(r, "path"), "warm"));
			const char *out = sget(r, "stdout");
			if (out && strstr(out, DIRT[k].sees))
				break;
		}
		/* The control: inside, the job sees what it left. */
		CHECK_RM(r, strstr(sget(r, "stdout"), DIRT[k].sees) != NULL,
			 "%s: wanted %s in %d run(s)", DIRT[k].name, DIRT[k].sees, DIRT[k].tries);
		char *dirty = ns_of(r);
		json_decref(r);
		r = state(c, "after");
		CHECK_RM(r, strstr(sget(r, "stdout"), "STATE pristine") != NULL, "after %s",
			 DIRT[k].name);
		char *next = ns_of(r);
		if (DIRT[k].replaced)
			ck_assert_msg(strcmp(dirty, next) != 0, "after %s: same namespace %s",
				      DIRT[k].name, next);
		free(dirty);
		free(next);
		json_decref(r);
	}
	sbx_close(c);
	ck_assert_int_eq(td_stop(&d, 10000), 0);
	td_cleanup(&d);
}
END_TEST

static Suite *warm_net_suite(void)
{
	Suite *s = suite_create("daemon_warm_net");
	TCase *t = tmain_tcase(s, "warm_net", TIMEOUT_S);
	tcase_add_test(t, test_pooled_while_clean);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .tmpdir = "sbx-warm-net"};
	return tmain(warm_net_suite, &opts);
}
