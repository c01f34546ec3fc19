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
.PHONY: all deps run bench check unit runner-tests integration asan check-asan format lint clean
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

unit: $(UNIT_BIN)
	@tests/run_suite.sh unit $(UNIT_BIN)

# The in-jail runner's own suite (Python's unittest, run outside the jail).
runner-tests:
	@start=$$(date +%s); /usr/bin/python3 tests/runner/test_runner.py 2>&1 | tail -4; rc=$${PIPESTATUS[0]}; \
	  echo "[runner] suite took $$(( $$(date +%s) - start )) s"; exit $$rc

integration: all $(INTEG_BIN)
	@SBX_BUILD=$(BUILD) tests/run_suite.sh integration $(INTEG_BIN)

check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN) $(INTEG_BIN)
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory runner-tests
	@$(MAKE) --no-print-directory integration

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  all $(patsubst $(BUILD)/%,build-asan/%,$(UNIT_BIN) $(INTEG_BIN))

check-asan: deps asan
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  unit integration

# Speed against bare python3 and bubblewrap, side by side (ratios, no pass/fail).
bench: deps
	@$(MAKE) --no-print-directory all
	@command -v bwrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
	@/usr/bin/python3 tests/bench/bench.py $(BUILD)

run: deps
	@$(MAKE) --no-print-directory all
	@examples/demo.sh $(BUILD)

format:
	clang-format -i common/*.[ch] sandboxd/*.[ch] client/*.[ch] tests/*/*.[ch]

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr -D_GNU_SOURCE --std=c11 common sandboxd client

clean:
	rm -rf build build-asan
