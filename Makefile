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

CFLAGS := -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror $(OPT) -g $(SAN) \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lz -lpthread -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

COMMON_SRC := $(wildcard common/*.c)
DAEMON_SRC := $(filter-out sandboxd/main.c,$(wildcard sandboxd/*.c))
CLIENT_SRC := $(filter-out client/main.c,$(wildcard client/*.c))
LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(COMMON_SRC) $(DAEMON_SRC) $(CLIENT_SRC))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
INTEG_SRC := $(wildcard tests/integration/test_*.c)
INTEG_BIN := $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(INTEG_SRC))
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(HELPER_SRC))

SHELL := /bin/bash
.SECONDARY: $(HELPER_OBJ)
.PHONY: all deps run bench install fuzz fuzz-deps fuzz-regress check unit runner-tests integration asan check-asan format lint clean
all: $(BUILD)/sandboxd $(BUILD)/sbx

deps:
	@missing=""; for p in $(DEB_PKGS) $(PY_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run as root to install:$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

$(BUILD)/obj/%.o: %.c $(wildcard common/*.h sandboxd/*.h client/*.h tests/helpers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libsbx.a: $(LIB_OBJ)
	ar rcs $@ $^

$(BUILD)/sandboxd: $(BUILD)/obj/sandboxd/main.o $(BUILD)/libsbx.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/sbx: $(BUILD)/obj/client/main.o $(BUILD)/libsbx.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libsbx.a $(HELPER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(HELPER_OBJ) $(BUILD)/libsbx.a $(LDLIBS) $(CHECK_LIBS)

$(BUILD)/tests/%: tests/integration/%.c $(BUILD)/libsbx.a $(HELPER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(HELPER_OBJ) $(BUILD)/libsbx.a $(LDLIBS) $(CHECK_LIBS)

# Each suite ends with "<suite>: N passed, N failed, N skipped"; a test whose
# subject is missing on this machine is skipped with its reason, listed above
# that line (tests/run_suite.sh, tests/helpers/skip.h).
unit: $(UNIT_BIN)
	@tests/run_suite.sh unit $(UNIT_BIN)

# The in-jail runner's own suite (Python's unittest, run outside the jail).
runner-tests:
	@PYTHON=/usr/bin/python3 tests/run_suite.sh runner tests/runner/test_runner.py

integration: all $(INTEG_BIN)
	@SBX_BUILD=$(BUILD) tests/run_suite.sh integration $(INTEG_BIN)

# Every suite runs even when an earlier one fails, so one failure never hides
# another; the closing table has one line per suite and the exit status is
# non-zero if any failed (or did not get to report).
CHECK_SUITES := unit:unit runner-tests:runner integration:integration
check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN) $(INTEG_BIN)
	@sum=$$(mktemp); trap 'rm -f "$$sum"' EXIT; rc=0; \
	for ts in $(CHECK_SUITES); do \
	  SBX_SUITE_SUMMARY=$$sum $(MAKE) --no-print-directory $${ts%%:*} || rc=1; \
	done; \
	echo; echo "== make check =="; \
	printf '%-12s %7s %7s %8s %9s\n' SUITE PASSED FAILED SKIPPED SECONDS; \
	for ts in $(CHECK_SUITES); do \
	  s=$${ts#*:}; line=$$(awk -v s="$$s" '$$1 == s' $$sum | tail -1); \
	  if [ -n "$$line" ]; then \
	    read -r _ p f k t <<< "$$line"; printf '%-12s %7s %7s %8s %9s\n' "$$s" $$p $$f $$k $$t; \
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

# libFuzzer targets over the parsers that read hostile bytes: requests, the
# runner's result records, and the policy loaders. FUZZ_SECONDS each; a crash
# stops the run and leaves its input in build-fuzz/ for a regression test.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := request profile records
FUZZ_LIB := common/protocol.c sandboxd/profile.c sandboxd/seccomp.c sandboxd/feedback.c \
	sandboxd/feedback_text.c
FUZZ_CFLAGS := -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

fuzz-deps:
	@for p in clang libclang-rt-14-dev; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; if [ -n "$$missing" ]; then apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(wildcard common/*.h sandboxd/*.h)
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
	install -m 0755 $(BUILD)/sandboxd $(BUILD)/sbx $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 policies/*.json $(DESTDIR)$(PREFIX)/share/sandboxd/policies/
	install -m 0644 sandboxd/runner/runner.py $(DESTDIR)$(PREFIX)/share/sandboxd/runner.py
	install -m 0644 README.md SECURITY.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/sandboxd/

format:
	clang-format -i common/*.[ch] sandboxd/*.[ch] client/*.[ch] tests/*/*.[ch]

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr -D_GNU_SOURCE --std=c11 common sandboxd client

clean:
	rm -rf build build-asan build-fuzz

# The kernel-VM tier (Debian 12's stock kernel on pure cgroup v2, under QEMU).
-include tests/vm/vm.mk
