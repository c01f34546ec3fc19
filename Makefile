# sandboxd — build, test and demo. `make run` and `make check` are the two
# commands a new user needs; both install missing Debian packages first.
CC ?= gcc
BUILD ?= build
SAN ?=
OPT ?= -O2
PKGS := libseccomp libcap jansson
DEB_PKGS := gcc make pkg-config libseccomp-dev libcap-dev libjansson-dev check \
	libsubunit-dev zlib1g-dev python3 socat netcat-openbsd bc man-db groff-base libmicrohttpd-dev \
	libmd-dev python3-jsonschema musl-tools
# What the benchmark tasks (BigCodeBench) import inside the jail.
PY_PKGS := python3-numpy python3-pandas python3-matplotlib python3-scipy python3-sklearn \
	python3-seaborn python3-requests python3-bs4 python3-dateutil python3-tz

# Hardening for a daemon that runs as root (and, for simplicity, everything
# else): checked on the built ELF by tests/layout/check_hardening.sh.
# _FORTIFY_SOURCE needs optimisation and fights the sanitizers' interceptors.
HARDEN := -fstack-protector-strong -fstack-clash-protection -fcf-protection -fPIE
ifeq ($(SAN),)
HARDEN += -D_FORTIFY_SOURCE=3
endif
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
# Includes name their component from the tree's root ("sandboxd/jail/jail.h");
# -iquote keeps them from ever shadowing a system header.
CFLAGS := -std=c17 -D_GNU_SOURCE $(WARN) $(OPT) -g $(HARDEN) $(SAN) -iquote . -MMD -MP \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDFLAGS := -pie -Wl,-z,relro,-z,now
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lz -lpthread -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
# libmd, for SHA-256 (sbx eval's manifest: the dataset's content hash,
# per-task seeds): only what links client/eval gets it. (Not OpenSSL's
# libcrypto: relocating it was about 2 ms of every sbx command's start.)
CRYPTO_LIBS := $(shell pkg-config --libs libmd 2>/dev/null || echo -lmd)

# One static archive per component (docs/architecture.md). Link order is the
# dependency order: a component may use only those after it, so a call
# against the grain fails to link.
obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
DAEMON_COMPONENTS := sandboxd/server sandboxd/run sandboxd/feedback sandboxd/policy sandboxd/jail common
CLIENT_COMPONENTS := client/eval client/lib common
lib = $(BUILD)/lib/$(subst /,_,$(1)).a
DAEMON_LIBS := $(foreach c,$(DAEMON_COMPONENTS),$(call lib,$(c)))
CLIENT_LIBS := $(call lib,client/eval) $(BUILD)/libsbx.a
ALL_SRC := $(foreach c,$(sort $(DAEMON_COMPONENTS) $(CLIENT_COMPONENTS)),$(wildcard $(c)/*.c))

# Test programs: every tests/unit/test_*.c and tests/integration/test_*.c is
# one binary, build/tests/<name> (unit and integration names never repeat).
# A file is named after what it tests: tests/unit/ by the component, its path
# without "sandboxd/" and with "_" for "/" (test_jail_cgroup_place.c tests
# sandboxd/jail/cgroup_place.c; test_client_eval_score.c, client/eval/score.c).
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
# The stress tier (make check-stress, its own budget in .ci/run): floods of
# connections and of jobs from hostile clients, and the daemon's RSS and
# descriptors over thousands of jobs; and the integration suites that run
# whole data sets or long evaluations (process isolation over HumanEval,
# the shared BigCodeBench and dataset agreement runs, resumed, multi-setting
# and multi-sample evaluations), which make check's five minutes do not hold.
# They take minutes, not seconds.
STRESS_SRC := tests/integration/test_hostile_clients.c tests/integration/test_daemon_load.c \
	tests/integration/test_daemon_isolation.c tests/integration/test_eval_resume.c \
	tests/integration/test_eval_settings.c tests/integration/test_daemon_bigcodebench.c \
	tests/integration/test_daemon_datasets.c tests/integration/test_eval_samples.c
STRESS_BIN := $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(STRESS_SRC))
# The parity tier (make check-parity, its own budget in .ci/run): the warm
# and cold paths compared on the hostile corpus and the data sets, minutes.
PARITY_SRC := tests/integration/test_parity_data.c
PARITY_BIN := $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(PARITY_SRC))
INTEG_SRC := $(filter-out $(STRESS_SRC) $(PARITY_SRC),$(wildcard tests/integration/test_*.c))
INTEG_BIN := $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(INTEG_SRC))
# The shared test code (tests/helpers/*.c, all but failalloc.c) as one
# archive: each test binary links the helpers it uses.
HELPER_SRC := $(filter-out tests/helpers/failalloc.c,$(wildcard tests/helpers/*.c))
HELPER_OBJ := $(call obj,$(HELPER_SRC))
HELPER_LIB := $(BUILD)/lib/tests_helpers.a
$(HELPER_LIB): $(HELPER_OBJ)
# Unit tests that run the code under a fault-injection allocator
# (tests/helpers/failalloc.h), every tests/unit/test_*_oom.c: every
# allocation goes through it.
OOM_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*_oom.c))
OOM_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=strdup,--wrap=strndup
$(OOM_TESTS): HELPER_PRE := $(call obj,tests/helpers/failalloc.c)
$(OOM_TESTS): LDFLAGS += $(OOM_WRAP)
$(OOM_TESTS): $(call obj,tests/helpers/failalloc.c)
TEST_LIBS := $(DAEMON_LIBS) $(CLIENT_LIBS)

SHELL := /bin/bash
# A bare `make` builds the programs (the first rule above is a helper archive).
.DEFAULT_GOAL := all
.SECONDARY: $(HELPER_OBJ)
.PHONY: all deps deps-bigcodebench run bench install uninstall install-python uninstall-python pyclient \
	check-cluster-local browser browser-deps check-browser fuzz fuzz-deps lint-deps fuzz-regress check unit runner-tests tsan check-tsan \
	stress check-stress ops k8s-schemas cluster cluster-deps apt-node check-cluster http check-http parity check-parity \
	integration asan check-asan format format-check lint layout clean
all: $(BUILD)/sandboxd $(BUILD)/sandboxd-init $(BUILD)/sandboxd-reaper $(BUILD)/libsbxwarm.so $(BUILD)/sbx $(BUILD)/runner.pyz $(BUILD)/sandboxd-http

deps:
	@missing=""; for p in $(DEB_PKGS) $(PY_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run as root to install:$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The Debian packages BigCodeBench's tasks import, where Debian has one; it
# prints the libraries that have none (README, "Benchmark data").
deps-bigcodebench: deps
	@/usr/bin/python3 examples/datasets/bigcodebench_deps.py

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(foreach c,$(DAEMON_COMPONENTS) $(CLIENT_COMPONENTS),\
  $(eval $(call lib,$(c)): $(call obj,$(wildcard $(c)/*.c))))

# What a harness links: the client library and the shared code, nothing of
# the daemon (tests/layout/check_libsbx.sh checks it with nm).
$(BUILD)/libsbx.a: $(call obj,$(wildcard client/lib/*.c common/*.c))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/sandboxd: $(BUILD)/obj/sandboxd/main.o $(DAEMON_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The job's init (sandboxd/init/main.c): the daemon's clone child execs it
# before any layer, so a jail holds no daemon memory. It links the jail's
# layer files and the little of common they use, nothing above the jail
# (tests/layout checks it). Static, so it needs no library inside or outside
# the jail, and hardened like the daemon; never built with sanitizers (it is
# another program, and runs where their runtimes could not start).
LAYER_SRC := $(addprefix sandboxd/jail/,jail_child.c jail_wire.c jail_msg.c \
	mounts.c procview.c fdio.c net.c ns.c caps.c uid.c rlimits.c fdpass.c seccomp_apply.c)
INIT_SRC := sandboxd/init/main.c sandboxd/jail/zygote.c sandboxd/jail/reaper.c sandboxd/jail/warm_msg.c \
	$(LAYER_SRC)
INIT_OBJ := $(patsubst %.c,$(BUILD)/init-obj/%.o,$(INIT_SRC))
INIT_CFLAGS := -std=c17 -D_GNU_SOURCE $(WARN) -O2 -g -fstack-protector-strong \
	-fstack-clash-protection -fcf-protection -fPIE -D_FORTIFY_SOURCE=3 -iquote . -MMD -MP
$(BUILD)/init-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(INIT_CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD)/init-obj -name '*.d' 2>/dev/null)

$(BUILD)/sandboxd-init: $(INIT_OBJ)
	$(CC) $(INIT_CFLAGS) -static-pie -Wl,-z,relro,-z,now -o $@ $^

# Each warm job's pid 1 (sandboxd/init/reaper_main.c, sandboxd/jail/reaper.c),
# which a fork server execs once per job: static, built against musl (musl-gcc,
# Debian's musl-tools), whose start-up takes about a tenth of the CPU of
# glibc's static one on a virtual machine, where each of the dozens of cpuid
# instructions glibc's runs traps to the hypervisor. Static PIE, RELRO,
# BIND_NOW and the stack protector as for the init; not _FORTIFY_SOURCE,
# which musl's headers do not implement (tests/layout checks the rest).
# The kernel's uapi headers come from Debian's linux-libc-dev, as for glibc.
MULTIARCH = $(shell $(CC) -print-multiarch)
MUSL_LIB = /usr/lib/$(subst -gnu,-musl,$(MULTIARCH))
REAPER_SRC := sandboxd/init/reaper_main.c sandboxd/jail/reaper.c sandboxd/jail/caps.c \
	sandboxd/jail/warm_msg.c sandboxd/jail/jail_msg.c
REAPER_OBJ := $(patsubst %.c,$(BUILD)/reaper-obj/%.o,$(REAPER_SRC))
REAPER_CFLAGS := $(filter-out -D_FORTIFY_SOURCE=%,$(INIT_CFLAGS)) -isystem $(BUILD)/musl-include
$(BUILD)/musl-include/.made:
	@mkdir -p $(dir $@)
	ln -sfn /usr/include/linux $(dir $@)linux
	ln -sfn /usr/include/asm-generic $(dir $@)asm-generic
	ln -sfn /usr/include/$(MULTIARCH)/asm $(dir $@)asm
	@touch $@
$(BUILD)/reaper-obj/%.o: %.c | $(BUILD)/musl-include/.made
	@mkdir -p $(dir $@)
	musl-gcc $(REAPER_CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD)/reaper-obj -name '*.d' 2>/dev/null)

$(BUILD)/sandboxd-reaper: $(REAPER_OBJ)
	$(CC) -nostdlib -static-pie -Wl,-z,relro,-z,now -o $@ $(MUSL_LIB)/rcrt1.o \
	  $(MUSL_LIB)/crti.o $(shell $(CC) -print-file-name=crtbeginS.o) $^ -L$(MUSL_LIB) -lc \
	  $(shell $(CC) -print-libgcc-file-name) $(shell $(CC) -print-file-name=crtendS.o) \
	  $(MUSL_LIB)/crtn.o

# The fork server's C half (sandboxd/jail/warm_fork.c), loaded by the
# server's Python with ctypes: the same layer files as the init, so a warm
# job gets the layers from the same code. Only its warmfork_* entry points
# are visible (nothing can clash with a library the server imports), and
# never built with sanitizers, like the init.
WARM_ONLY_SRC := sandboxd/jail/warm_fork.c sandboxd/jail/warm_hot.c sandboxd/jail/warm_spec.c
WARM_SRC := $(WARM_ONLY_SRC) sandboxd/jail/warm_msg.c common/clock.c $(LAYER_SRC)
WARM_OBJ := $(patsubst %.c,$(BUILD)/warm-obj/%.o,$(WARM_SRC))
$(BUILD)/warm-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(INIT_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

-include $(shell find $(BUILD)/warm-obj -name '*.d' 2>/dev/null)

$(BUILD)/libsbxwarm.so: $(WARM_OBJ)
	$(CC) $(INIT_CFLAGS) -fPIC -shared -Wl,-Bsymbolic -Wl,-z,relro,-z,now -o $@ $^

# The client, static PIE outside sanitizer builds (whose runtimes need the
# dynamic loader): `sbx run` is a process per job, and mapping its four
# libraries and resolving their symbols was half of its CPU (0.5 of 1.0 ms
# on the 2-core machine; 0.15 to 0.25 ms of a trivial job end to end).
# It uses no NSS or dlopen, which a static glibc program cannot.
SBX_LINK := $(if $(SAN),$(LDFLAGS),-static-pie -Wl,-z,relro,-z,now)
$(BUILD)/sbx: $(call obj,$(wildcard client/cli/*.c)) $(CLIENT_LIBS)
	$(CC) $(CFLAGS) $(SBX_LINK) -o $@ $^ $(LDLIBS) $(CRYPTO_LIBS)

# The HTTP front (docs/http.md): libsbx and libmicrohttpd, no daemon code
# (tests/layout checks it). Its objects get libmicrohttpd's flags.
HTTP_OBJ := $(call obj,$(wildcard client/http/*.c))
$(HTTP_OBJ): CFLAGS += $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
$(BUILD)/sandboxd-http: $(HTTP_OBJ) $(BUILD)/libsbx.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs libmicrohttpd 2>/dev/null)

# The in-jail test runner as one file, beside the daemon (which looks there
# first): a zipapp of sandboxd/feedback/runner/ (__main__.py and the sbx_runner
# package) with the record names generated from common/records.h. Reproducible:
# sorted entries, fixed timestamps (build_pyz.py). Built by the jail's
# interpreter (policies/python.json), whose version its bytecode is for.
RUNNER_PYTHON ?= /usr/bin/python3
RUNNER_SRC := $(wildcard sandboxd/feedback/runner/*.py sandboxd/feedback/runner/sbx_runner/*.py)
$(BUILD)/runner.pyz: $(RUNNER_SRC) common/records.h
	@mkdir -p $(dir $@)
	$(RUNNER_PYTHON) -B sandboxd/feedback/runner/build_pyz.py common/records.h \
	  sandboxd/feedback/runner $@

# The shipped profiles with an empty preload list, for the suites that ask
# for them (tmain_opts.no_preload): what a job sees differs only in
# sys.modules, and a test daemon starts without importing numpy and pandas.
TEST_POLICIES := $(BUILD)/test-policies/.built
$(TEST_POLICIES): $(wildcard policies/*.json)
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	@$(RUNNER_PYTHON) -c 'import json, os, sys; \
	  [json.dump(dict(p, preload=[]) if isinstance(p, dict) and "preload" in p else p, \
	   open(os.path.join(sys.argv[1], os.path.basename(f)), "w"), indent=1) \
	   for f in sys.argv[2:] for p in [json.load(open(f))]]' $(dir $@) $^
	@touch $@

$(BUILD)/tests/%: tests/unit/%.c $(TEST_LIBS) $(HELPER_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(HELPER_PRE) $(HELPER_LIB) $(TEST_LIBS) $(LDLIBS) \
	  $(CRYPTO_LIBS) $(CHECK_LIBS)

# It runs the built reaper (order-only: not linked in).
$(BUILD)/tests/test_jail_jail_msg: | $(BUILD)/sandboxd-reaper

$(BUILD)/tests/%: tests/integration/%.c $(TEST_LIBS) $(HELPER_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(HELPER_LIB) $(TEST_LIBS) $(LDLIBS) $(CRYPTO_LIBS) \
	  $(CHECK_LIBS)

# Header dependencies of the test binaries (each is compiled with -MMD).
-include $(wildcard $(BUILD)/tests/*.d)

# Each suite ends with "<suite>: N passed, N failed, N skipped"; a test whose
# subject is missing on this machine is skipped with its reason, listed above
# that line (tests/run_suite.sh, tests/helpers/skip.h).
unit: $(UNIT_BIN)
	@tests/run_suite.sh unit $(UNIT_BIN)

# The in-jail runner's own suite (Python's unittest, run outside the jail), on
# the bundle the jail runs.
runner-tests: $(BUILD)/runner.pyz
	@SBX_RUNNER=$(BUILD)/runner.pyz PYTHON=/usr/bin/python3 tests/run_suite.sh runner \
	  $(sort $(wildcard tests/runner/test_*.py))

# make check-tsan runs a subset (INTEG_RUN). The programs run two at a time
# on a machine with two CPUs or more (INTEG_JOBS; each test daemon keeps to
# its own uid range, state and cgroups): they wait on jobs and timers more
# than they compute, so the suite takes about 70% of its serial time. Not
# more than two: with three, a request's wall time overshot its limit by
# over a second on the 2-core machine. The programs in INTEG_ALONE measure
# CPU shares or host-wide counters and run by themselves after the rest;
# TSan's slower daemons run one program at a time (check-tsan).
INTEG_RUN ?= $(INTEG_BIN)
INTEG_JOBS ?= $(shell n=$$(nproc); [ $$n -gt 2 ] && n=2; echo $$n)
INTEG_ALONE := test_daemon_cpus test_daemon_sockmem test_hostile
integration: all $(INTEG_RUN) $(TEST_POLICIES)
	@SBX_BUILD=$(BUILD) SBX_SAN="$(SAN)" SBX_SUITE_JOBS=$(INTEG_JOBS) \
	  SBX_SUITE_ALONE="$(INTEG_ALONE)" tests/run_suite.sh integration $(INTEG_RUN)

# The HTTP front against a real daemon (tests/http/, Python's unittest with
# Debian's python3-requests), both in make check-http (its own budget in
# .ci/run; make http runs the fast one alone): the fast suite, then the heavy
# one (a flood, 64 concurrent HumanEval clients), then both again against an
# ASan + UBSan front.
HTTP_FAST := tests/http/test_http_api.py
HTTP_HEAVY := tests/http/test_http_load.py
http: all
	@SBX_BUILD=$(BUILD) tests/run_suite.sh http $(HTTP_FAST)

HTTP_ASAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
check-http: deps
	@$(MAKE) --no-print-directory http
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 SAN="$(HTTP_ASAN)" build-asan/sandboxd-http
	@SBX_BUILD=$(BUILD) tests/run_suite.sh http-load $(HTTP_HEAVY)
	@SBX_BUILD=$(BUILD) SBX_HTTP_BIN=$(CURDIR)/build-asan/sandboxd-http \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 tests/run_suite.sh http-asan \
	  $(HTTP_FAST) $(HTTP_HEAVY)

# The browser tier (make check-browser, its own budget in .ci/run): the page
# of `sbx report` rendered by headless Chromium (Debian's chromium): a
# screenshot, and the DOM after the page's script ran checked against the
# records, filters given in the URL (tests/browser/). A chromium that cannot
# be installed is no error here: those tests skip and say why.
BROWSER_TESTS := tests/browser/test_report_browser.py
browser-deps:
	-$(call apt_need,chromium)

browser: $(BUILD)/sbx
	@SBX_BUILD=$(BUILD) tests/run_suite.sh browser $(BROWSER_TESTS)

check-browser: deps browser-deps
	@$(MAKE) --no-print-directory browser

# Two at a time as in the integration suite (INTEG_JOBS), but the hostile
# clients (they judge the daemon by its CPU time and answer times) and the
# load tests (floods, and RSS over thousands of jobs) have the machine to
# themselves, after the rest.
STRESS_ALONE := test_hostile_clients test_daemon_load
stress: all $(STRESS_BIN) $(BUILD)/runner.pyz $(TEST_POLICIES)
	@SBX_BUILD=$(BUILD) SBX_SUITE_JOBS=$(INTEG_JOBS) SBX_SUITE_ALONE="$(STRESS_ALONE)" \
	  tests/run_suite.sh stress $(STRESS_BIN)
	@SBX_RUNNER=$(BUILD)/runner.pyz SBX_RUNNER_FULL=1 PYTHON=/usr/bin/python3 \
	  tests/run_suite.sh runner-full tests/runner/test_runner_isolation.py

check-stress: deps
	@$(MAKE) --no-print-directory stress

# Operating it (tests/ops/): the man pages render without a warning and
# document every flag; make install/uninstall into a staging tree, the
# installed daemon running a job; systemd-analyze verify on the units.
ops: all
	@SBX_BUILD=$(BUILD) PYTHONPATH=tests/ops tests/run_suite.sh ops $(sort $(wildcard tests/ops/test_*.py))

# The Python client (client/python) against real daemons: its own unit tests
# over the socket and over HTTP (a stdlib test double of the front), and the
# harness drop-ins. About 15 s.
PYCLIENT_TESTS := tests/pyclient/test_client_socket.py tests/pyclient/test_client_http.py \
	tests/pyclient/test_client_adapters.py
pyclient: all
	@SBX_BUILD=$(BUILD) PYTHON=/usr/bin/python3 tests/run_suite.sh pyclient $(PYCLIENT_TESTS)

# Heavier (its own budget in .ci/run, 1-3 minutes): three daemons, 1,000
# jobs from the Python client over their sockets, one daemon killed mid-run,
# and the same through three sandboxd-http fronts when it is built;
# the package installed offline into a venv and by make install-python
# (needs Debian's venv, pip and setuptools); the harness examples on tasks of
# the shared datasets.
check-cluster-local: deps
	$(call apt_need,python3-venv python3-pip python3-setuptools python3-wheel)
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory pyclient
	@SBX_BUILD=$(BUILD) PYTHON=/usr/bin/python3 tests/run_suite.sh cluster-local \
	  tests/pyclient/cluster_local.py tests/pyclient/test_client_install.py \
	  tests/pyclient/test_client_examples.py

# The cluster tier (make check-cluster, its own budget in .ci/run):
# examples/slurm/ on a one-node Slurm cluster the test starts (Debian's
# slurmctld, slurmd and munge), and examples/kubernetes/ offline: the
# manifests against the Kubernetes schemas (npm's kubernetes-models, pinned
# by tests/cluster/k8s-schemas/package-lock.json, installed into
# $(BUILD)/k8s-schemas: the only step that needs the network) and sbx eval
# through the eval Job's HTTP bridge. What cannot be installed or started
# here is skipped with the reason (tests/cluster/*.py).
CLUSTER_TESTS := tests/cluster/test_kubernetes.py tests/cluster/test_slurm.py
K8S_SCHEMAS := $(BUILD)/k8s-schemas/node_modules/.installed
$(K8S_SCHEMAS): tests/cluster/k8s-schemas/package.json tests/cluster/k8s-schemas/package-lock.json
	@mkdir -p $(BUILD)/k8s-schemas && cp $^ $(BUILD)/k8s-schemas/
	@if ! command -v npm >/dev/null; then \
	  echo "k8s-schemas: no npm; the manifest schema tests will skip" >&2; \
	else cd $(BUILD)/k8s-schemas && npm ci --no-audit --no-fund --ignore-scripts \
	  --loglevel=error && touch node_modules/.installed || \
	  echo "k8s-schemas: npm ci failed; the manifest schema tests will skip" >&2; fi

k8s-schemas: $(K8S_SCHEMAS)

# Debian's node and npm only when there is no node at all (a newer one from
# elsewhere is kept). A package that cannot be installed is not an error
# here: its tests skip and say why.
cluster-deps:
	-$(call apt_need,slurmctld slurmd slurm-client munge python3-yaml)
	@command -v npm >/dev/null || $(MAKE) --no-print-directory apt-node

apt-node:
	-$(call apt_need,nodejs npm)

cluster: all $(K8S_SCHEMAS)
	@SBX_BUILD=$(BUILD) tests/run_suite.sh cluster $(CLUSTER_TESTS)

check-cluster: deps cluster-deps
	@$(MAKE) --no-print-directory cluster

parity: all $(PARITY_BIN) $(TEST_POLICIES)
	@SBX_BUILD=$(BUILD) tests/run_suite.sh parity $(PARITY_BIN)

check-parity: deps
	@$(MAKE) --no-print-directory parity

# The tree's shape on the built objects: no link-level cycle, calls only down
# the component order, the size rule, libsbx without daemon symbols, and a
# hardened daemon ELF (tests/layout/test_layout.py).
layout: all
	@SBX_BUILD=$(BUILD) SBX_SAN="$(SAN)" tests/run_suite.sh layout tests/layout/test_layout.py

# Every suite runs even when an earlier one fails, so one failure never hides
# another; the closing table has one line per suite and the exit status is
# non-zero if any failed (or did not get to report).
# The Python client's and the HTTP front's own suites run in their tiers
# (check-cluster-local; check-http, against an ASan front), beside their
# heavier tests.
CHECK_SUITES := unit:unit runner-tests:runner layout:layout ops:ops integration:integration
# Assertion statements in each suite's own files (a static count: what a
# restructuring of the tests must not lose), printed beside the results.
count_asserts = $(shell cat $(1) /dev/null | grep -cE '$(2)')
C_ASSERT := ck_assert|CHECK_R|ck_abort
PY_ASSERT := self\.assert|self\.fail
ASSERTS_unit = $(call count_asserts,$(UNIT_SRC),$(C_ASSERT))
ASSERTS_runner = $(call count_asserts,$(wildcard tests/runner/*.py),$(PY_ASSERT))
ASSERTS_layout = $(call count_asserts,$(wildcard tests/layout/*.py),$(PY_ASSERT))
ASSERTS_ops = $(call count_asserts,$(wildcard tests/ops/*.py),$(PY_ASSERT))
ASSERTS_integration = $(call count_asserts,$(INTEG_SRC),$(C_ASSERT))
ASSERTS_pyclient = $(call count_asserts,$(PYCLIENT_TESTS),$(PY_ASSERT))
ASSERTS_http = $(call count_asserts,$(HTTP_FAST),$(PY_ASSERT))
# To keep within its five minutes, make check builds on every CPU, and runs
# the runner's suite (plain Python on the runner's bundle: no daemon, no
# cgroup, no job uid) beside the unit, layout and ops suites; its output is
# shown when it ends, and the integration suite, which times jobs and reads
# host-wide counters, runs alone after both.
CHECK_BESIDE := runner-tests
check: deps
	@$(MAKE) --no-print-directory -j$$(nproc) all $(UNIT_BIN) $(INTEG_BIN)
	@sum=$$(mktemp); out=$$(mktemp); trap 'rm -f "$$sum" "$$out"' EXIT; rc=0; \
	SBX_SUITE_SUMMARY=$$sum $(MAKE) --no-print-directory $(CHECK_BESIDE) >"$$out" 2>&1 & bg=$$!; \
	for ts in $(CHECK_SUITES); do \
	  t=$${ts%%:*}; \
	  [ "$$t" = $(CHECK_BESIDE) ] && continue; \
	  if [ "$$t" = integration ] && [ -n "$$bg" ]; then \
	    wait $$bg || rc=1; bg=; cat "$$out"; \
	  fi; \
	  SBX_SUITE_SUMMARY=$$sum $(MAKE) --no-print-directory $$t || rc=1; \
	done; \
	if [ -n "$$bg" ]; then wait $$bg || rc=1; cat "$$out"; fi; \
	echo; echo "== make check =="; \
	printf '%-12s %7s %7s %8s %9s %8s\n' SUITE PASSED FAILED SKIPPED SECONDS ASSERTS; \
	for ts in $(CHECK_SUITES); do \
	  s=$${ts#*:}; line=$$(awk -v s="$$s" '$$1 == s' $$sum | tail -1); \
	  if [ -n "$$line" ]; then \
	    read -r _ p f k t <<< "$$line"; \
	    case $$s in unit) a=$(ASSERTS_unit);; runner) a=$(ASSERTS_runner);; \
	      layout) a=$(ASSERTS_layout);; ops) a=$(ASSERTS_ops);; \
	      integration) a=$(ASSERTS_integration);; pyclient) a=$(ASSERTS_pyclient);; \
	      http) a=$(ASSERTS_http);; *) a=-;; esac; \
	    printf '%-12s %7s %7s %8s %9s %8s\n' "$$s" $$p $$f $$k $$t $$a; \
	  else \
	    printf '%-12s did not report a summary (see its output above)\n' "$$s"; rc=1; \
	  fi; \
	done; \
	if [ $$rc -eq 0 ]; then echo "check: every suite passed"; else echo "check: FAILED"; fi; \
	exit $$rc

# Built on every CPU, as make check builds (a fresh ASan build: 82 -> 46 to 54 s
# on the 2-core machine).
asan:
	@$(MAKE) --no-print-directory -j$$(nproc) BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  all $(patsubst $(BUILD)/%,build-asan/%,$(UNIT_BIN) $(INTEG_BIN))

check-asan: deps asan
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  unit integration

# ThreadSanitizer on the daemon and its integration suites. The job's clone
# child is a raw clone() of the daemon that TSan cannot follow: the file whose
# code runs there before it execs sandboxd-init is built without
# instrumentation (TSAN_PLAIN), and that code makes only plain syscalls
# (docs/architecture.md).
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
TSAN_PLAIN := sandboxd/jail/jail.c sandboxd/jail/jail_msg.c
$(patsubst %.c,build-tsan/obj/%.o,$(TSAN_PLAIN)): CFLAGS += -fno-sanitize=thread
# TSan looks for races between threads: it runs the suites that drive the
# daemon's threads from many sides at once (concurrent clients and workers,
# cancels, restarts, faults, refusals, the warm slots) and the eval client's
# threads. The suites whose subject is what one job does or prints (the
# hostile programs, feedback and stdio texts, seeds, files, parity) run
# under ASan + UBSan (make check-asan) and plain (make check): under TSan
# they only repeated the same thread paths, at half the CI's TSan time.
TSAN_SUITES := test_client_retry test_daemon_activation test_daemon_auth test_daemon_bad_input \
	test_daemon_faults test_daemon_fdlimit test_daemon_init test_daemon_jobs \
	test_daemon_lifecycle test_daemon_partial_mode test_daemon_peers test_daemon_ping \
	test_daemon_protocol test_daemon_timing test_daemon_warm test_eval_commands \
	test_hostile_controls
TSAN_BIN := $(patsubst %,build-tsan/tests/%,$(TSAN_SUITES))
tsan:
	@$(MAKE) --no-print-directory -j$$(nproc) BUILD=build-tsan OPT=-O1 SAN="$(TSAN_FLAGS)" all $(TSAN_BIN)

check-tsan: deps tsan
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 $(TSAN_OPTIONS)" \
	  $(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN="$(TSAN_FLAGS)" \
	  INTEG_RUN="$(TSAN_BIN)" INTEG_JOBS=1 integration

# libFuzzer targets over the parsers that read hostile bytes: requests, the
# runner's result records, and the policy loaders. FUZZ_SECONDS each, one
# target per CPU at a time (tests/fuzz/run_fuzz.sh); a crash fails the run
# and leaves its input in build-fuzz/ for a regression test.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := request profile records stdio
# Every daemon component's sources (the linker keeps what a target uses), so
# the list follows the layout; but the fork server's C half, which only
# libsbxwarm.so links and which calls the interpreter's own fork hooks.
FUZZ_LIB := $(filter-out $(WARM_ONLY_SRC),$(foreach c,$(DAEMON_COMPONENTS),$(wildcard $(c)/*.c)))
FUZZ_CFLAGS := -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -iquote . \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

# Installs the Debian packages named in $(1) that are missing.
apt_need = @missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; if [ -n "$$missing" ]; then echo "installing:$$missing"; apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi

fuzz-deps:
	$(call apt_need,clang libclang-rt-14-dev)

lint-deps:
	$(call apt_need,cppcheck clang-format)

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(shell find common sandboxd -name "*.h")
	@mkdir -p build-fuzz
	clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB) $(LDLIBS)

fuzz: deps fuzz-deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(patsubst %,build-fuzz/fuzz_%,$(FUZZ_TARGETS))
	@tests/fuzz/run_fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Replays the committed corpus (including inputs of past crashes): no fuzzing.
fuzz-regress: fuzz-deps
	@$(MAKE) --no-print-directory $(patsubst %,build-fuzz/fuzz_%,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do ./build-fuzz/fuzz_$$t -runs=0 tests/fuzz/corpus/$$t 2>&1 | \
	  tail -1 || exit 1; done

# Speed against bare python3 and bubblewrap, side by side (ratios, no pass/fail).
bench: deps
	@$(MAKE) --no-print-directory all
	@command -v bwrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
	@/usr/bin/python3 tests/bench/bench.py $(BUILD)

run: deps
	@$(MAKE) --no-print-directory all
	@examples/demo.sh $(BUILD)

# Installs the daemon, its job init, the client, libsbx, the policies, the
# in-jail runner, the man pages and the systemd units; `make uninstall`
# removes exactly the same list. DESTDIR is honoured (staging for a
# package). The daemon finds its policies and runner at
# $(BINDIR)/../share/sandboxd/ from its own path, so BINDIR and the data
# stay together under PREFIX; the units get $(BINDIR) substituted.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
DATADIR := $(PREFIX)/share/sandboxd
DOCDIR := $(PREFIX)/share/doc/sandboxd
MANDIR ?= $(PREFIX)/share/man
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MAN_PAGES := $(sort $(wildcard docs/man/*.[1-8]))
UNITS := sandboxd.socket sandboxd.service sandboxd-http.service
POLICY_FILES := $(notdir $(wildcard policies/*.json))
DOC_FILES := README.md SECURITY.md $(wildcard docs/*.md)
# Every file `make install` may write, relative to $(DESTDIR): the same
# list is what `make uninstall` removes (sandboxd-http only when built).
INSTALLED := $(addprefix $(BINDIR)/,sandboxd sandboxd-init sandboxd-reaper sbx sandboxd-http) \
	$(LIBDIR)/libsbx.a $(INCLUDEDIR)/sbx.h \
	$(addprefix $(DATADIR)/policies/,$(POLICY_FILES)) $(DATADIR)/runner.pyz \
	$(DATADIR)/libsbxwarm.so \
	$(addprefix $(DOCDIR)/,$(notdir $(DOC_FILES))) \
	$(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	$(addprefix $(UNITDIR)/,$(UNITS)) $(SYSUSERSDIR)/sandboxd.conf
# Directories of sandboxd's own, removed by uninstall when empty.
OWN_DIRS := $(DATADIR)/policies $(DATADIR) $(DOCDIR)
# sandboxd-init and sandboxd-reaper must stay root's and writable by root
# alone (the daemon refuses them otherwise): installed as root, they are made
# so explicitly.
ROOT_OWN := $(shell [ "$$(id -u)" = 0 ] && echo "-o 0 -g 0")
install: all install-python
	install -d $(addprefix $(DESTDIR),$(BINDIR) $(DATADIR)/policies $(DOCDIR) $(LIBDIR) \
	  $(INCLUDEDIR) $(UNITDIR) $(SYSUSERSDIR) \
	  $(sort $(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m))))))
	install -m 0755 $(ROOT_OWN) $(BUILD)/sandboxd $(BUILD)/sandboxd-init \
	  $(BUILD)/sandboxd-reaper $(BUILD)/sbx $(DESTDIR)$(BINDIR)/
	if [ -x $(BUILD)/sandboxd-http ]; then \
	  install -m 0755 $(BUILD)/sandboxd-http $(DESTDIR)$(BINDIR)/; fi
	install -m 0644 $(BUILD)/libsbx.a $(DESTDIR)$(LIBDIR)/libsbx.a
	install -m 0644 client/lib/sbx.h $(DESTDIR)$(INCLUDEDIR)/sbx.h
	install -m 0644 $(addprefix policies/,$(POLICY_FILES)) $(DESTDIR)$(DATADIR)/policies/
	install -m 0644 $(BUILD)/runner.pyz $(DESTDIR)$(DATADIR)/runner.pyz
	install -m 0644 $(BUILD)/libsbxwarm.so $(DESTDIR)$(DATADIR)/libsbxwarm.so
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	for m in $(MAN_PAGES); do s=$${m##*.}; \
	  install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; done
	for u in $(UNITS); do \
	  sed 's|/usr/local/bin/|$(BINDIR)/|g' examples/systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && \
	  chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	install -m 0644 examples/systemd/sandboxd.sysusers $(DESTDIR)$(SYSUSERSDIR)/sandboxd.conf

uninstall: uninstall-python
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	for d in $(OWN_DIRS); do [ ! -d $(DESTDIR)$$d ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$$d || exit 1; done

# The Python client, plain files where Debian's python3 imports them
# ($(PREFIX)/lib/python3.X/dist-packages; PEP 668 keeps pip out of the system
# interpreter). A venv install is `pip install ./client/python` (README).
PY_SITE = $(PREFIX)/lib/$(shell /usr/bin/python3 -c \
	'import sys; print("python%d.%d" % sys.version_info[:2])')/dist-packages
install-python:
	install -d $(DESTDIR)$(PY_SITE)/sandboxd
	install -m 0644 client/python/sandboxd/*.py $(DESTDIR)$(PY_SITE)/sandboxd/

uninstall-python:
	rm -rf $(DESTDIR)$(PY_SITE)/sandboxd

SOURCES := $(shell find common sandboxd client tests examples -name '*.[ch]' 2>/dev/null)
format:
	clang-format -i $(SOURCES)

# Fails on any file clang-format would change (CI runs it).
format-check: lint-deps
	@clang-format --dry-run -Werror $(SOURCES) && echo "format: $(words $(SOURCES)) files clean"

lint: lint-deps
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr -D_GNU_SOURCE --std=c17 -I. common sandboxd client

clean:
	rm -rf build build-asan build-fuzz

# The kernel-VM tier (Debian 12's stock kernel on pure cgroup v2, under QEMU).
-include tests/vm/vm.mk
