# sandboxd — build, test and demo. `make run` and `make check` are the two
# commands a new user needs; both install missing Debian packages first.
CC ?= gcc
BUILD ?= build
SAN ?=
OPT ?= -O2
PKGS := libseccomp libcap jansson
DEB_PKGS := gcc make pkg-config libseccomp-dev libcap-dev libjansson-dev check \
	libsubunit-dev zlib1g-dev python3 socat netcat-openbsd bc
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
# descriptors over thousands of jobs. They take minutes, not seconds.
STRESS_SRC := tests/integration/test_hostile_clients.c tests/integration/test_daemon_load.c
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
.SECONDARY: $(HELPER_OBJ)
.PHONY: all deps run bench install uninstall fuzz fuzz-deps lint-deps fuzz-regress check unit runner-tests tsan check-tsan \
	stress check-stress parity check-parity \
	integration asan check-asan format format-check lint layout clean
all: $(BUILD)/sandboxd $(BUILD)/sandboxd-init $(BUILD)/sbx $(BUILD)/runner.pyz

deps:
	@missing=""; for p in $(DEB_PKGS) $(PY_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run as root to install:$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

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
INIT_SRC := sandboxd/init/main.c $(addprefix sandboxd/jail/,jail_child.c jail_wire.c jail_msg.c \
	mounts.c procview.c fdio.c net.c ns.c caps.c uid.c rlimits.c fdpass.c seccomp_apply.c)
INIT_OBJ := $(patsubst %.c,$(BUILD)/init-obj/%.o,$(INIT_SRC))
INIT_CFLAGS := -std=c17 -D_GNU_SOURCE $(WARN) -O2 -g -fstack-protector-strong \
	-fstack-clash-protection -fcf-protection -fPIE -D_FORTIFY_SOURCE=3 -iquote . -MMD -MP
$(BUILD)/init-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(INIT_CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD)/init-obj -name '*.d' 2>/dev/null)

$(BUILD)/sandboxd-init: $(INIT_OBJ)
	$(CC) $(INIT_CFLAGS) -static-pie -Wl,-z,relro,-z,now -o $@ $^

$(BUILD)/sbx: $(call obj,$(wildcard client/cli/*.c)) $(CLIENT_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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

$(BUILD)/tests/%: tests/unit/%.c $(TEST_LIBS) $(HELPER_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(HELPER_PRE) $(HELPER_LIB) $(TEST_LIBS) $(LDLIBS) \
	  $(CHECK_LIBS)

$(BUILD)/tests/%: tests/integration/%.c $(TEST_LIBS) $(HELPER_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(HELPER_LIB) $(TEST_LIBS) $(LDLIBS) $(CHECK_LIBS)

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

integration: all $(INTEG_BIN)
	@SBX_BUILD=$(BUILD) tests/run_suite.sh integration $(INTEG_BIN)

stress: all $(STRESS_BIN)
	@SBX_BUILD=$(BUILD) tests/run_suite.sh stress $(STRESS_BIN)

check-stress: deps
	@$(MAKE) --no-print-directory stress

parity: all $(PARITY_BIN)
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
CHECK_SUITES := unit:unit runner-tests:runner layout:layout integration:integration
# Assertion statements in each suite's own files (a static count: what a
# restructuring of the tests must not lose), printed beside the results.
count_asserts = $(shell cat $(1) /dev/null | grep -cE '$(2)')
C_ASSERT := ck_assert|CHECK_R|ck_abort
PY_ASSERT := self\.assert|self\.fail
ASSERTS_unit = $(call count_asserts,$(UNIT_SRC),$(C_ASSERT))
ASSERTS_runner = $(call count_asserts,$(wildcard tests/runner/*.py),$(PY_ASSERT))
ASSERTS_layout = $(call count_asserts,$(wildcard tests/layout/*.py),$(PY_ASSERT))
ASSERTS_integration = $(call count_asserts,$(INTEG_SRC),$(C_ASSERT))
check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN) $(INTEG_BIN)
	@sum=$$(mktemp); trap 'rm -f "$$sum"' EXIT; rc=0; \
	for ts in $(CHECK_SUITES); do \
	  SBX_SUITE_SUMMARY=$$sum $(MAKE) --no-print-directory $${ts%%:*} || rc=1; \
	done; \
	echo; echo "== make check =="; \
	printf '%-12s %7s %7s %8s %9s %8s\n' SUITE PASSED FAILED SKIPPED SECONDS ASSERTS; \
	for ts in $(CHECK_SUITES); do \
	  s=$${ts#*:}; line=$$(awk -v s="$$s" '$$1 == s' $$sum | tail -1); \
	  if [ -n "$$line" ]; then \
	    read -r _ p f k t <<< "$$line"; \
	    case $$s in unit) a=$(ASSERTS_unit);; runner) a=$(ASSERTS_runner);; \
	      layout) a=$(ASSERTS_layout);; integration) a=$(ASSERTS_integration);; *) a=-;; esac; \
	    printf '%-12s %7s %7s %8s %9s %8s\n' "$$s" $$p $$f $$k $$t $$a; \
	  else \
	    printf '%-12s did not report a summary (see its output above)\n' "$$s"; rc=1; \
	  fi; \
	done; \
	if [ $$rc -eq 0 ]; then echo "check: every suite passed"; else echo "check: FAILED"; fi; \
	exit $$rc

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
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
tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN="$(TSAN_FLAGS)" \
	  all $(patsubst $(BUILD)/%,build-tsan/%,$(INTEG_BIN))

check-tsan: deps tsan
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 $(TSAN_OPTIONS)" \
	  $(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN="$(TSAN_FLAGS)" integration

# libFuzzer targets over the parsers that read hostile bytes: requests, the
# runner's result records, and the policy loaders. FUZZ_SECONDS each; a crash
# stops the run and leaves its input in build-fuzz/ for a regression test.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := request profile records stdio
# Every daemon component's sources (the linker keeps what a target uses), so
# the list follows the layout.
FUZZ_LIB := $(foreach c,$(DAEMON_COMPONENTS),$(wildcard $(c)/*.c))
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
	@$(MAKE) --no-print-directory $(patsubst %,build-fuzz/fuzz_%,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus-$$t && cp tests/fuzz/corpus/$$t/* build-fuzz/corpus-$$t/; \
	  start=$$(date +%s); \
	  ASAN_OPTIONS=detect_leaks=1 ./build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=65536 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=build-fuzz/ \
	    -close_fd_mask=3 build-fuzz/corpus-$$t tests/fuzz/corpus/$$t > build-fuzz/$$t.log 2>&1 \
	    || { tail -30 build-fuzz/$$t.log; echo "[fuzz] $$t: CRASH (input in build-fuzz/)"; exit 1; }; \
	  grep -E '^Done|^#[0-9]+.*DONE' build-fuzz/$$t.log | tail -1; \
	  echo "[fuzz] $$t: $$(( $$(date +%s) - start )) s"; \
	done

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

# Installs the daemon, the client, the policies and the in-jail runner (the
# daemon looks for them there when not run from a build tree).
PREFIX ?= /usr/local
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/sandboxd/policies \
	  $(DESTDIR)$(PREFIX)/share/doc/sandboxd
	install -m 0755 $(BUILD)/sandboxd $(BUILD)/sandboxd-init $(BUILD)/sbx $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 policies/*.json $(DESTDIR)$(PREFIX)/share/sandboxd/policies/
	install -m 0644 $(BUILD)/runner.pyz $(DESTDIR)$(PREFIX)/share/sandboxd/runner.pyz
	install -m 0644 README.md SECURITY.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/sandboxd/

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
