#!/usr/bin/env python3
"""The tree's shape, checked on the built objects (run by `make layout`,
part of `make check`):

- no link-level cycle between source files, and no call against the
  component order of docs/architecture.md;
- no source file over the size rule;
- a C harness links against libsbx.a and jansson alone, and nm shows no
  daemon symbol in it;
- the daemon ELF is hardened: PIE, BIND_NOW, RELRO, stack protector and
  _FORTIFY_SOURCE checks;
- the job init (sandboxd-init) is static, hardened the same way, and links
  only the jail's layer code and common pieces: nothing of the server, run,
  feedback or policy components, and no library the daemon uses;
- the warm jobs' reaper (sandboxd-reaper) is static, built against musl
  (not glibc, whose start-up it exists to avoid), hardened the same way but
  for _FORTIFY_SOURCE, which musl does not implement, and links the reaper
  and the three jail files it needs, nothing else of ours.

Each check is shown able to fail by a control that feeds it a bad input.
Environment: SBX_BUILD (default build), the tree's root is the cwd.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

BUILD = os.environ.get("SBX_BUILD", "build")
# Components in dependency order: each may use only those after it.
DAEMON_ORDER = ["sandboxd/server", "sandboxd/run", "sandboxd/feedback", "sandboxd/policy",
                "sandboxd/jail", "common"]
CLIENT_ORDER = ["client/cli", "client/http", "client/eval", "client/lib", "common"]
# sandboxd-init: its own program above the jail (objects in BUILD/init-obj).
INIT_ORDER = ["sandboxd/init", "sandboxd/jail", "common"]
# What may never be linked into the job's init: every symbol the daemon's
# components above the jail define, the jail's daemon-side files (cgroups,
# probing, the filter compiler, the supervisor) and the daemon's libraries
# (libseccomp, jansson, libcap, zlib), so the jail holds none of it.
INIT_FORBIDDEN_DIRS = ["sandboxd/server", "sandboxd/run", "sandboxd/feedback", "sandboxd/policy"]
INIT_FORBIDDEN_FILES = ["sandboxd/jail/%s.c" % f for f in (
    "cgroup", "cgroup_detect", "cgroup_file", "cgroup_place", "kfeat", "seccomp", "supervise",
    "warm", "warm_fork", "warm_hot", "warm_spec")]
INIT_FORBIDDEN_LIBS = ("seccomp_", "json_", "cap_", "deflate", "inflate")
SOURCE_LIMIT = 600
# Files that may be longer, with the reason (kept short on purpose).
SIZE_EXEMPT = {}
# What only the daemon defines: none of it may reach a harness.
DAEMON_PREFIXES = ("jail_", "cg_", "run_", "scmp_", "fb_", "verdict_", "plan_", "response_",
                   "server_", "runq_", "worker", "profile_", "mounts_", "ns_", "net_",
                   "uid_", "caps_", "rlimits_", "kfeat_", "stdio_match", "runner_job",
                   "workfiles_", "fetch_")


def component_of(path, order):
    for c in order:
        if path.startswith(c + "/"):
            return c
    return None


def nm_symbols_many(objs):
    """{obj: (defined, undefined)} global symbol sets of object files, from
    one nm per 200 of them (a process per file took most of this suite's
    time where starting one costs a few milliseconds)."""
    objs = list(dict.fromkeys(objs))
    syms = {o: (set(), set()) for o in objs}
    for i in range(0, len(objs), 200):
        chunk = objs[i:i + 200]
        # -A: every line starts with its file's name and a colon, also when
        # only one file is given.
        out = subprocess.run(["nm", "-g", "-A"] + chunk, capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            obj, sep, rest = line.partition(":")
            if not sep or obj not in syms:
                continue
            defined, undefined = syms[obj]
            parts = rest.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRVWC":
                defined.add(parts[2])
    return syms


def defined_in(objs):
    """Every global symbol the object files define."""
    out = set()
    for d, _ in nm_symbols_many(objs).values():
        out |= d
    return out


def link_graph(objs):
    """Edges source -> source where the first uses a symbol the second defines."""
    defs, uses = {}, {}
    syms = nm_symbols_many(objs.values())
    for src, obj in objs.items():
        d, u = syms[obj]
        uses[src] = u
        for s in d:
            defs[s] = src
    graph = {src: set() for src in objs}
    for src, u in uses.items():
        for s in u:
            if s in defs and defs[s] != src:
                graph[src].add(defs[s])
    return graph


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def against_the_grain(graph, order):
    bad = []
    for a, targets in graph.items():
        ca = component_of(a, order)
        for b in targets:
            cb = component_of(b, order)
            if ca and cb and order.index(cb) < order.index(ca):
                bad.append("%s -> %s (%s may not use %s)" % (a, b, ca, cb))
    return sorted(bad)


def objects(order, objdir="obj"):
    objs = {}
    for c in order:
        for f in sorted(os.listdir(c)):
            if f.endswith(".c"):
                src = "%s/%s" % (c, f)
                obj = "%s/%s/%s.o" % (BUILD, objdir, src[:-2])
                if os.path.exists(obj):
                    objs[src] = obj
    return objs


class Layout(unittest.TestCase):
    def test_no_cycles_and_one_way(self):
        for order in (DAEMON_ORDER, CLIENT_ORDER):
            objs = objects(order)
            self.assertGreater(len(objs), 5, "no objects under %s: build first" % BUILD)
            g = link_graph(objs)
            self.assertEqual(cycles(g), [], "link-level cycles between source files")
            self.assertEqual(against_the_grain(g, order), [],
                             "calls against the component order")

    def test_cycle_detection_can_fail(self):
        g = {"a.c": {"b.c"}, "b.c": {"c.c"}, "c.c": {"a.c"}, "d.c": {"a.c"}}
        self.assertEqual(cycles(g), [["a.c", "b.c", "c.c"]])
        g = {"sandboxd/jail/x.c": {"sandboxd/run/y.c"}, "sandboxd/run/y.c": set()}
        self.assertEqual(len(against_the_grain(g, DAEMON_ORDER)), 1)

    def test_source_sizes(self):
        long = []
        for root in ("common", "sandboxd", "client"):
            for d, _, files in os.walk(root):
                for f in files:
                    if f.endswith((".c", ".h", ".py")):
                        p = os.path.join(d, f)
                        n = sum(1 for _ in open(p, encoding="utf-8", errors="replace"))
                        if n > SOURCE_LIMIT and p not in SIZE_EXEMPT:
                            long.append("%s: %d lines" % (p, n))
        self.assertEqual(long, [], "source files over %d lines" % SOURCE_LIMIT)

    def test_harness_links_libsbx_alone(self):
        lib = "%s/libsbx.a" % BUILD
        self.assertTrue(os.path.exists(lib), "build %s first" % lib)
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "harness")
            jansson = subprocess.run(["pkg-config", "--cflags", "--libs", "jansson"],
                                     capture_output=True, text=True).stdout.split()
            subprocess.run(["cc", "-std=c17", "-Wall", "-Werror", "-Iclient/lib",
                            "examples/harness/harness.c", lib] + jansson + ["-o", exe],
                           check=True)
            syms = subprocess.run(["nm", exe], capture_output=True, text=True,
                                  check=True).stdout
            names = {l.split()[-1] for l in syms.splitlines() if l.split()}
            leaked = sorted(n for n in names if n.startswith(DAEMON_PREFIXES))
            self.assertEqual(leaked, [], "daemon symbols in a libsbx harness")
            self.assertIn("sbx_connect", names)
        # The control: a daemon object in the link is caught.
        fake = {"jail_run", "sbx_connect"}
        self.assertEqual(sorted(n for n in fake if n.startswith(DAEMON_PREFIXES)),
                         ["jail_run"])

    def hardening(self, elf, static=False):
        """What the ELF lacks of the hardening flags (empty: all there). A static
        ELF has no dynamic symbols: its own symbol table is read instead."""
        missing = []
        hdr = subprocess.run(["readelf", "-h", "-d", "-l", "-W", elf], capture_output=True,
                             text=True, check=True).stdout
        if not re.search(r"Type:\s+DYN", hdr) or "PIE" not in hdr:
            missing.append("PIE")
        if "BIND_NOW" not in hdr and not re.search(r"FLAGS_1.*NOW", hdr):
            missing.append("BIND_NOW")
        if "GNU_RELRO" not in hdr:
            missing.append("RELRO")
        syms = subprocess.run(["nm", elf] if static else ["nm", "-D", elf],
                              capture_output=True, text=True, check=True).stdout
        if "__stack_chk_fail" not in syms:
            missing.append("stack protector")
        if not re.search(r"__\w+_chk\b", syms):
            missing.append("fortify")
        return missing

    def test_daemon_hardened(self):
        elf = "%s/sandboxd" % BUILD
        self.assertTrue(os.path.exists(elf), "build %s first" % elf)
        if os.environ.get("SBX_SAN"):
            self.skipTest("sanitizer build: _FORTIFY_SOURCE is off under sanitizers")
        self.assertEqual(self.hardening(elf), [])

    def test_http_front_no_daemon_code(self):
        """sandboxd-http links libsbx and common only: no daemon symbol, and
        hardened like the daemon (it faces a network)."""
        elf = "%s/sandboxd-http" % BUILD
        self.assertTrue(os.path.exists(elf), "build %s first" % elf)
        syms = subprocess.run(["nm", "-g", "--defined-only", elf], capture_output=True,
                              text=True, check=True).stdout
        names = {l.split()[-1] for l in syms.splitlines() if l.split()}
        self.assertEqual(sorted(n for n in names if n.startswith(DAEMON_PREFIXES)), [],
                         "daemon symbols in sandboxd-http")
        self.assertIn("sbx_connect", names)
        if not os.environ.get("SBX_SAN"):
            self.assertEqual(self.hardening(elf), [])

    def test_hardening_check_can_fail(self):
        with tempfile.TemporaryDirectory() as tmp:
            src, exe = os.path.join(tmp, "p.c"), os.path.join(tmp, "p")
            with open(src, "w") as f:
                f.write("int main(void) { return 0; }\n")
            subprocess.run(["cc", "-O0", "-no-pie", "-fno-stack-protector", src, "-o", exe],
                           check=True)
            got = self.hardening(exe)
            for want in ("PIE", "BIND_NOW", "stack protector", "fortify"):
                self.assertIn(want, got)


    def static_symbols(self, prog="sandboxd-init"):
        """Every symbol of a program of the build (its own table, not its
        libraries')."""
        elf = "%s/%s" % (BUILD, prog)
        self.assertTrue(os.path.exists(elf), "build %s first" % elf)
        out = subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout
        return {l.split()[-1] for l in out.splitlines() if len(l.split()) >= 2}

    @staticmethod
    def forbidden(names):
        objs = objects(INIT_FORBIDDEN_DIRS)
        objs.update({f: "%s/obj/%s.o" % (BUILD, f[:-2]) for f in INIT_FORBIDDEN_FILES})
        daemon = defined_in(objs.values())
        return sorted(n for n in names if n in daemon or n.startswith(INIT_FORBIDDEN_LIBS))

    def test_init_links_jail_layers_only(self):
        names = self.static_symbols()
        self.assertEqual(self.forbidden(names), [], "daemon code in sandboxd-init")
        for want in ("jail_child_main", "mounts_apply", "scmp_apply", "jail_wire_decode"):
            self.assertIn(want, names)
        objs = objects(INIT_ORDER, "init-obj")
        self.assertGreater(len(objs), 5, "no objects under %s/init-obj" % BUILD)
        g = link_graph(objs)
        self.assertEqual(cycles(g), [])
        self.assertEqual(against_the_grain(g, INIT_ORDER), [])
        # The control: what the daemon links is caught.
        dnames = self.static_symbols("sandboxd")
        bad = self.forbidden(dnames)
        for want in ("run_one", "jail_run", "scmp_load_file", "seccomp_init"):
            self.assertIn(want, bad)
        # The other way round: the daemon links none of the layers, so its
        # clone child can run none of them before the exec of sandboxd-init
        # (rlimits.c and ns.c come along for rlimits_prepare and
        # ns_clone_flags, which the daemon calls).
        layers = ("jail_child_main", "mounts_apply", "net_apply", "uid_apply", "caps_drop_all",
                  "caps_drop_bounding", "scmp_apply")
        self.assertEqual([f for f in layers if f in dnames], [])
        self.assertIn("jail_exec_init", dnames)

    def assert_static(self, name, missing=()):
        """BUILD/name is static: it asks for no dynamic loader and no library,
        and has every hardening flag but those in `missing`."""
        elf = "%s/%s" % (BUILD, name)
        self.assertTrue(os.path.exists(elf), "build %s first" % elf)
        hdr = subprocess.run(["readelf", "-l", "-d", "-W", elf], capture_output=True,
                             text=True, check=True).stdout
        self.assertNotIn("INTERP", hdr, "%s asks for a dynamic loader" % name)
        self.assertNotIn("NEEDED", hdr)
        self.assertEqual(self.hardening(elf, static=True), list(missing))

    def test_init_static_and_hardened(self):
        # Built without sanitizers even in SAN builds: always checked in full.
        self.assert_static("sandboxd-init")
        # The control: the dynamic daemon has an interpreter.
        hdr = subprocess.run(["readelf", "-l", "-W", "%s/sandboxd" % BUILD],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("INTERP", hdr)

    def test_client_static_and_hardened(self):
        """sbx is a process per `sbx run`: static, so it maps and resolves no
        library at start, and hardened like the daemon (Makefile, SBX_LINK)."""
        if os.environ.get("SBX_SAN"):
            self.skipTest("sanitizer build: sbx links dynamically for the sanitizer runtime")
        self.assert_static("sbx")

    def test_reaper_static_musl_and_hardened(self):
        self.assert_static("sandboxd-reaper", ["fortify"])
        names = self.static_symbols("sandboxd-reaper")
        init_names = self.static_symbols()
        # musl's start-up, not glibc's (the control: the init is glibc's).
        self.assertIn("__init_libc", names)
        self.assertNotIn("__libc_setup_tls", names)
        self.assertIn("__libc_setup_tls", init_names)
        self.assertEqual(self.forbidden(names), [], "daemon code in sandboxd-reaper")
        # Of the jail's files, only the reaper and the three it needs.
        mine = ["reaper", "caps", "warm_msg", "jail_msg"]
        other = defined_in(obj for src, obj in objects(["sandboxd/jail"]).items()
                           if os.path.basename(src)[:-2] not in mine)
        self.assertEqual(sorted(names & other), [], "other jail code in sandboxd-reaper")
        for want in ("reaper_main", "caps_drop_all", "warm_msg_recv", "jail_msg_set_usage"):
            self.assertIn(want, names)
        # The control: the init links the layers this check looks for.
        self.assertIn("mounts_apply", init_names & other)

if __name__ == "__main__":
    unittest.main(verbosity=1)
