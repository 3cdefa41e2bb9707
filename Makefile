# SPDX-License-Identifier: MIT
# throng: every build, test and bench entry point.
#
#   make                 library (static and shared) and the bench programs
#   make test            build and run the test program (FILTER=name runs some,
#                        FILTER=a,b,!c those naming a or b but not c;
#                        TEST_SHARDS=n runs it as n processes side by side)
#   make bench           build and run the default benchmark
#   make soak            long churning run with invariant checks (minutes)
#   make soak-smoke      the same for about 20 seconds, for CI
#   make bench-nav       navigation field build times (1000 x 1000 cells)
#   make cross-test      the aarch64 (NEON) build's tests under qemu-aarch64
#   make clean
#
# Options (Make variables):
#   CC=clang             compiler (default cc); a cross compiler, such as
#                        CC=aarch64-linux-gnu-gcc, builds for its target
#   OPENMP=0             build without OpenMP (steps run on one thread)
#   SIMD=scalar          force the plain scalar kernels (default: auto, the
#                        widest path the CPU offers, chosen at run time)
#   SAN=address,undefined  sanitizer build, no recovery
#   DEBUG=1              -O0, for stepping through with gdb
#   VALIDATE=1           the validation sweep after every step stage
#                        (src/validate.c); a failed check refuses the
#                        step with THRONG_ERR_INTERNAL
#   SQLITE=0             build without SQLite: the trajectory recorder
#                        (src/recorder.c) then refuses to open with
#                        THRONG_ERR_UNSUPPORTED; by default (auto) it is
#                        on when the compiler finds sqlite3.h and
#                        -lsqlite3 (Debian: libsqlite3-dev), off with a
#                        note when not; SQLITE=1 insists
#
# Non-default configurations build into build/<config>/ so they never mix
# objects with the default build in build/.

CC ?= cc
OPENMP ?= 1
SIMD ?= auto
SAN ?=
DEBUG ?= 0
VALIDATE ?= 0
SQLITE ?= auto
comma := ,

config :=
ifneq ($(SIMD),auto)
config := $(config)simd-$(SIMD)-
endif
ifneq ($(OPENMP),1)
config := $(config)noomp-
endif
ifneq ($(SAN),)
config := $(config)san-$(subst $(comma),-,$(SAN))-
endif
ifneq ($(DEBUG),0)
config := $(config)debug-
endif
ifneq ($(VALIDATE),0)
config := $(config)validate-
endif
ifeq ($(SQLITE),0)
config := $(config)nosqlite-
endif
ifneq ($(notdir $(CC)),cc)
config := $(config)$(notdir $(CC))-
endif

ifeq ($(config),)
BUILD ?= build
else
BUILD ?= build/$(patsubst %-,%,$(config))
endif

OPT := -O2
ifneq ($(DEBUG),0)
OPT := -O0
endif

WARNINGS := -Wall -Wextra -Wpedantic -Wshadow -Wdouble-promotion \
	-Wstrict-prototypes -Wmissing-prototypes -Wvla -Wcast-qual -Wundef \
	-Wformat=2 -Wfloat-conversion -Wpointer-arith -Wwrite-strings

CPPFLAGS += -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L -MMD -MP
# -ffp-contract=off keeps a * b + c two roundings everywhere, so every
# path rounds alike. -fno-math-errno (sqrtf need not set errno) and
# -fno-trapping-math (exception flags are never read, so both arms of a
# select may be computed) let branch-free loops vectorise; neither changes
# the value of any operation, unlike -ffast-math, which is never used.
CFLAGS += -std=c11 $(OPT) -g -fPIC -ffp-contract=off -fno-fast-math \
	-fno-math-errno -fno-trapping-math -fno-strict-aliasing $(WARNINGS)
LDLIBS += -lm

ifeq ($(OPENMP),1)
CFLAGS += -fopenmp
LDFLAGS += -fopenmp
else
CFLAGS += -fopenmp-simd
endif

# SQLite, for the trajectory recorder. auto: on when a program that calls
# it compiles and links with this compiler (a cross compiler finds no
# SQLite of its target here, so its builds go without); the library then
# links -lsqlite3 and starts the recorder's writer thread with pthreads.
SQLITE_PROBE = printf '\043include <sqlite3.h>\nint main(void) { return sqlite3_libversion_number() > 0 ? 0 : 1; }\n' \
	| $(CC) -x c - -o /dev/null -lsqlite3 >/dev/null 2>&1 && echo 1 || echo 0
ifeq ($(SQLITE),auto)
SQLITE_ON := $(shell $(SQLITE_PROBE))
ifeq ($(SQLITE_ON),0)
$(shell printf 'throng: building without SQLite: sqlite3.h or -lsqlite3 not found for %s (Debian: libsqlite3-dev); the recorder refuses to open (THRONG_ERR_UNSUPPORTED)\n' '$(CC)' >&2)
endif
else ifeq ($(SQLITE),0)
SQLITE_ON := 0
$(shell printf 'throng: building without SQLite (SQLITE=0): the recorder refuses to open (THRONG_ERR_UNSUPPORTED)\n' >&2)
else ifeq ($(SQLITE),1)
SQLITE_ON := $(shell $(SQLITE_PROBE))
ifeq ($(SQLITE_ON),0)
$(error SQLITE=1, but $(CC) finds no sqlite3.h or -lsqlite3 (Debian: libsqlite3-dev))
endif
else
$(error SQLITE must be auto, 0 or 1, got '$(SQLITE)')
endif
ifeq ($(SQLITE_ON),1)
CPPFLAGS += -DTHRONG_HAVE_SQLITE=1
CFLAGS += -pthread
LDFLAGS += -pthread
LDLIBS += -lsqlite3
endif

# The vector kernels of the target's architecture: SSE2, AVX2 and AVX-512
# on x86-64 (the CPU's widest, chosen at run time), NEON on aarch64 (part
# of the base architecture), SIMD128 on WebAssembly (make web). Elsewhere,
# or with SIMD=scalar, the plain scalar kernel is the only path.
ARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
SIMD_X86_SRC := src/steer_flock_sse2.c src/steer_flock_avx2.c src/steer_flock_avx512.c \
	src/integrate_sse2.c src/integrate_avx2.c src/integrate_avx512.c \
	src/steer_env_sse2.c src/steer_env_avx2.c src/steer_env_avx512.c \
	src/orca_lanes_sse2.c src/orca_lanes_avx2.c src/orca_lanes_avx512.c
SIMD_ARM_SRC := src/steer_flock_neon.c src/integrate_neon.c src/steer_env_neon.c \
	src/orca_lanes_neon.c
SIMD_WASM_SRC := src/steer_flock_wasm.c src/integrate_wasm.c src/steer_env_wasm.c \
	src/orca_lanes_wasm.c
SIMD_SRC := $(SIMD_X86_SRC) $(SIMD_ARM_SRC) $(SIMD_WASM_SRC)
SIMD_KERNELS :=
ifneq ($(SIMD),scalar)
ifneq ($(findstring x86_64,$(ARCH)),)
SIMD_KERNELS := $(SIMD_X86_SRC)
else ifneq ($(findstring aarch64,$(ARCH)),)
SIMD_KERNELS := $(SIMD_ARM_SRC)
else ifneq ($(findstring wasm32,$(ARCH)),)
# A WebAssembly engine validates a module whole, so SIMD128 cannot be
# chosen at run time as x86-64's sets are: the module is built with it
# throughout (the scalar kernels then compile to SIMD128 where they
# vectorise, as x86-64's do to SSE2) and runs only where it is offered.
SIMD_KERNELS := $(SIMD_WASM_SRC)
CFLAGS += -msimd128
endif
endif
ifneq ($(SIMD_KERNELS),)
CPPFLAGS += -DTHRONG_HAVE_SIMD_KERNELS=1
endif

# A cross compiler searches its target's headers, never /usr/include, where
# Debian's uthash-dev puts uthash.h. uthash is plain C, the same for every
# target, so a cross build reaches that one header through a directory
# holding only a link to it: all of /usr/include would also offer the
# build machine's own headers wherever the target's are missing.
UTHASH_H ?= /usr/include/uthash.h
CROSS :=
ifneq ($(ARCH),)
ifeq ($(filter $(shell uname -m)-%,$(ARCH)),)
CROSS := 1
CPPFLAGS += -I$(BUILD)/uthash
endif
endif
UTHASH_LINK := $(if $(CROSS),mkdir -p $(BUILD)/uthash && ln -sf $(UTHASH_H) $(BUILD)/uthash/uthash.h;)

ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer
# gcc's variable tracking over the sanitized neighbour kernels outgrows its
# limit and starts again without it, a quarter of their compile time
# (steer_flock_avx512.c: 132 s to 102 s); reports keep their line numbers.
# Only where the compiler knows the option (clang does not).
ifneq ($(shell $(CC) -fno-var-tracking-assignments -E -x c /dev/null >/dev/null 2>&1 && echo yes),)
CFLAGS += -fno-var-tracking-assignments
endif
# libFuzzer's coverage counters in every loop keep clang from vectorising
# the grid's `omp simd` loops, and it says so for each; the loops are
# vectorised in every other build.
ifneq ($(findstring fuzzer,$(SAN)),)
CFLAGS += -Wno-pass-failed
endif
LDFLAGS += -fsanitize=$(SAN)
# Leak checking (on by default with ASan on Linux) and stopping at the
# first report, said out loud so a CI environment cannot turn them off
# unnoticed; options given in the environment still come last and win.
SAN_ENV := ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:$$ASAN_OPTIONS" \
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:$$UBSAN_OPTIONS"
endif

ifneq ($(VALIDATE),0)
CPPFLAGS += -DTHRONG_VALIDATE=1
endif

# The internal invariants (src/check.h) are checked in the library the
# tests link, and compiled out of the one `make` builds, installs and
# benchmarks: the tests link a second build of the library, with
# THRONG_CHECKS, from $(BUILD)/obj-checked/. A build that is never
# released (SAN, VALIDATE) checks throughout, and its tests link its one
# library.
ifeq ($(SAN)$(filter-out 0,$(VALIDATE)),)
CHECKED_DIR := $(BUILD)/obj-checked
else
CPPFLAGS += -DTHRONG_CHECKS
CHECKED_DIR :=
endif

# The slowest objects first (the vector kernels, the neighbour kernels
# first of all: over a minute of CPU each where most files take seconds),
# so that make -j starts them at once and compiles the rest beside them
# instead of ending on one of them alone. The programs name their library
# before their own objects for the same reason.
LIB_SRC := $(filter src/steer_flock_%,$(SIMD_KERNELS)) \
	$(filter-out src/steer_flock_%,$(SIMD_KERNELS)) \
	$(filter-out $(SIMD_SRC),$(wildcard src/*.c))
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/obj/src/%.o)
SCEN_SRC := bench/scenarios.c
SCEN_OBJ := $(BUILD)/obj/bench/scenarios.o
# The regression gate's tool and modules (see the block at the end); the
# tests link the modules.
GATE_SRC := bench/compare.c bench/results.c
# What the bench's programs share: the command-line reader, the JSON
# writer, the result files written whole and the statistics (the tests
# link them too).
BENCH_COMMON_SRC := bench/cli.c bench/json.c bench/outfile.c bench/stats.c
BENCH_COMMON_OBJ := $(BENCH_COMMON_SRC:bench/%.c=$(BUILD)/obj/bench/%.o)
GATE_LIB_OBJ := $(BUILD)/obj/bench/results.o $(BENCH_COMMON_OBJ)
# The soak program has its own main() (see the block at the end), and so
# has the navigation field bench (beside it).
SOAK_SRC := bench/soak.c
NAVBENCH_SRC := bench/navbench.c
BENCH_SRC := $(filter-out $(SCEN_SRC) $(GATE_SRC) $(SOAK_SRC) $(NAVBENCH_SRC) $(BENCH_COMMON_SRC),$(wildcard bench/*.c))
BENCH_OBJ := $(BENCH_SRC:bench/%.c=$(BUILD)/obj/bench/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:tests/%.c=$(BUILD)/obj/tests/%.o)
# The tests check rendered frames byte for byte (see the block at the end).
TEST_OBJ += $(BUILD)/obj/tools/render_frame.o
# The allocator, generator and world builders the tests, the fuzz
# harnesses and the soak share (testsupport/support.h).
SUPPORT_OBJ := $(BUILD)/obj/testsupport/support.o
TEST_OBJ += $(SUPPORT_OBJ)

# The version lives in include/throng.h; the shared library is named
# after it. Its soname names the versions that share one ABI (README,
# "Versions and ABI"): major.minor while the major is 0, where every ABI
# change moves the minor; the major alone from 1.0 on.
version_part = $(shell sed -n 's/^\#define THRONG_VERSION_$(1) \([0-9]*\)/\1/p' include/throng.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(call version_part,PATCH)
SONAME := libthrong.so.$(VERSION_MAJOR)$(if $(filter 0,$(VERSION_MAJOR)),.$(VERSION_MINOR))

STATIC := $(BUILD)/libthrong.a
TEST_LIB_OBJ := $(if $(CHECKED_DIR),$(LIB_SRC:src/%.c=$(CHECKED_DIR)/src/%.o))
TEST_LIB := $(if $(CHECKED_DIR),$(BUILD)/libthrong-checked.a,$(STATIC))
SHARED_REAL := $(BUILD)/libthrong.so.$(VERSION)
SHARED := $(BUILD)/libthrong.so
BENCH := $(BUILD)/throng-bench
NAVBENCH := $(BUILD)/throng-navbench
TESTS := $(BUILD)/throng-tests
DEPS_OK := $(BUILD)/.deps-ok

.PHONY: all lib test bench clean deps bench-bin check-builds install uninstall \
	check-exports check-examples python-test python-asan print-build
all: $(STATIC) $(SHARED) $(BENCH) $(NAVBENCH)
lib: $(STATIC) $(SHARED)
bench-bin: $(BENCH)

# uthash is header-only and comes from Debian's uthash-dev. Install it when
# we can (root with apt-get); otherwise stop with one line naming it.
deps: $(DEPS_OK)
$(DEPS_OK):
	@mkdir -p $(@D)
	@$(UTHASH_LINK) if ! printf '#include <uthash.h>\n' | $(CC) $(CPPFLAGS) -MF /dev/null -E -x c - >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "throng: installing uthash-dev (uthash.h is missing)"; \
	    (apt-get update -qq && apt-get install -y -qq uthash-dev) >/dev/null || exit 1; \
	    $(UTHASH_LINK) \
	  else \
	    echo "throng: uthash.h is missing: install the Debian package uthash-dev (sudo apt-get install uthash-dev)" >&2; \
	    exit 1; \
	  fi; \
	fi
	@touch $@

$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Each vector kernel object is built for its own instruction set; the
# library picks one at run time from what the CPU reports.
$(BUILD)/obj/src/steer_flock_avx2.o $(BUILD)/obj/src/integrate_avx2.o $(CHECKED_DIR)/src/steer_flock_avx2.o $(CHECKED_DIR)/src/integrate_avx2.o: CFLAGS += -mavx2
$(BUILD)/obj/src/steer_flock_avx512.o $(BUILD)/obj/src/integrate_avx512.o $(CHECKED_DIR)/src/steer_flock_avx512.o $(CHECKED_DIR)/src/integrate_avx512.o: CFLAGS += -mavx512f
$(BUILD)/obj/src/steer_env_avx2.o $(CHECKED_DIR)/src/steer_env_avx2.o: CFLAGS += -mavx2
$(BUILD)/obj/src/steer_env_avx512.o $(CHECKED_DIR)/src/steer_env_avx512.o: CFLAGS += -mavx512f
$(BUILD)/obj/src/orca_lanes_avx2.o $(CHECKED_DIR)/src/orca_lanes_avx2.o: CFLAGS += -mavx2
$(BUILD)/obj/src/orca_lanes_avx512.o $(CHECKED_DIR)/src/orca_lanes_avx512.o: CFLAGS += -mavx512f

# A sanitizer build instruments the AVX-512 kernels only where the CPU it
# is built on runs them: elsewhere the library never picks that path and
# the tests skip it, so an instrumented copy would check nothing, and a
# sanitized neighbour kernel is by far the slowest object of the build
# (gcc 12, SAN=address,undefined: steer_flock_avx2.c about 5 minutes of
# CPU on a busy Zen 1, UBSan alone over steer_flock_sse2.c over 3, each
# other file under 15 s). They are still compiled and linked, plainly. A
# sanitizer build is never released: build it on the machine that runs
# it. Compiled at -O0, as nothing runs them (gcc: steer_flock_avx512.c
# at -O2 over a minute of CPU).
SAN_SKIP_AVX512 := $(if $(SAN),$(if $(CROSS),,$(if $(findstring x86_64,$(ARCH)),$(shell test -r /proc/cpuinfo && ! grep -qw avx512f /proc/cpuinfo && echo 1))))
ifneq ($(SAN_SKIP_AVX512),)
$(filter %_avx512.o,$(LIB_OBJ)): CFLAGS += -fno-sanitize=all -O0
endif
# The neighbour kernels narrower than the CPU's widest (SSE2, and AVX2
# where the CPU has AVX-512) run only where a test asks for their path by
# name, never in the library's own choice: a sanitizer build compiles them
# sanitized, as every other file, but at -O0 (gcc 12,
# SAN=address,undefined, steer_flock_sse2.c: 72 s of CPU against 310 s
# at -O2; -O1 is no quicker, and no -fsanitize= subset or compiler gains
# much: ASan alone 290 s, UBSan alone 220 s, clang 14 230 s). Every access
# and operation in them is still checked, on every run the suite makes of
# them; the kernel the CPU picks (AVX2 here) stays at -O2, the suite's
# speed. -O0 ends in the same bits (make DEBUG=1 runs the golden hashes).
SAN_WIDEST := $(if $(SAN),$(if $(CROSS),,$(if $(findstring x86_64,$(ARCH)),$(shell test -r /proc/cpuinfo && { grep -qw avx512f /proc/cpuinfo && echo avx512 || { grep -qw avx2 /proc/cpuinfo && echo avx2 || echo sse2; }; }))))
SAN_O0_KERNELS := $(if $(filter avx512,$(SAN_WIDEST)),sse2 avx2,$(if $(filter avx2,$(SAN_WIDEST)),sse2))
ifneq ($(SAN_O0_KERNELS),)
$(foreach i,$(SAN_O0_KERNELS),$(BUILD)/obj/src/steer_flock_$(i).o): OPT := -O0
endif
# The CPU's widest neighbour kernel, the one the suite runs, is built at
# -O1 under AddressSanitizer (its customary level; fuzzing and
# ThreadSanitizer builds keep -O2): the same source, instruction set and
# path, every access and operation still checked on every run, in the
# same bits (-O0 and -O2 end alike: make DEBUG=1). gcc 12,
# SAN=address,undefined VALIDATE=1, steer_flock_avx2.c on a Zen 1:
# 331 s of CPU at -O2, 221 s at -O1; the flock-heaviest tests
# (bench_flocks_flock, flock_, wander_, tasks_flock2d) 84 s of CPU
# against 90 s, so most of the saving stays.
SAN_O1_WIDEST := $(if $(findstring fuzzer,$(SAN)),,$(if $(findstring address,$(SAN)),$(SAN_WIDEST)))
ifneq ($(SAN_O1_WIDEST),)
$(BUILD)/obj/src/steer_flock_$(SAN_O1_WIDEST).o: OPT := -O1
endif

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# Only what include/throng.h marks THRONG_API leaves the shared library.
$(LIB_OBJ) $(TEST_LIB_OBJ): CFLAGS += -fvisibility=hidden
$(LIB_OBJ) $(TEST_LIB_OBJ): CPPFLAGS += -DTHRONG_BUILDING

ifneq ($(CHECKED_DIR),)
$(CHECKED_DIR)/src/%.o: src/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DTHRONG_CHECKS $(CFLAGS) -c $< -o $@

$(TEST_LIB): $(TEST_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The vector kernels state no invariant of their own, so THRONG_CHECKS
# changes nothing in them, and they are the slowest objects of a build
# (gcc 12 -O2: each neighbour kernel over a minute of CPU): the checked
# library takes the plain library's kernel objects, copied, and the
# default build compiles them once for the tests and the bench, not
# twice. Only while that holds: a kernel whose preprocessed text calls
# invariant_broken() (an INVARIANT, src/check.h) is compiled with the
# checks like every other file.
CHECKED_KERNEL_OBJ := $(SIMD_KERNELS:src/%.c=$(CHECKED_DIR)/src/%.o)
$(CHECKED_KERNEL_OBJ): $(CHECKED_DIR)/src/%.o: $(BUILD)/obj/src/%.o src/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	@if $(CC) $(filter-out -MMD -MP,$(CPPFLAGS)) -DTHRONG_CHECKS $(CFLAGS) -E src/$*.c \
	  | grep -q 'invariant_broken *( *"'; then \
	  echo "$(CC) $(CPPFLAGS) -DTHRONG_CHECKS $(CFLAGS) -c src/$*.c -o $@"; \
	  $(CC) $(CPPFLAGS) -DTHRONG_CHECKS $(CFLAGS) -c src/$*.c -o $@; \
	else cp $< $@; fi
endif

# Relinked when the Makefile changes too: that is where the soname is made.
$(SHARED_REAL): $(LIB_OBJ) Makefile
	$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SONAME) -o $@ $(LIB_OBJ) $(LDLIBS)

$(SHARED): $(SHARED_REAL)
	ln -sf $(notdir $(SHARED_REAL)) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BENCH): $(STATIC) $(BENCH_OBJ) $(BENCH_COMMON_OBJ) $(SCEN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(BENCH_COMMON_OBJ) $(SCEN_OBJ) $(STATIC) $(LDLIBS)

# The bench on the library the tests link (THRONG_CHECKS on, the same
# results): where only the tests' build is wanted, as for make cross-test,
# one build of the library serves both programs.
$(BUILD)/throng-bench-checked: $(TEST_LIB) $(BENCH_OBJ) $(BENCH_COMMON_OBJ) $(SCEN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(BENCH_COMMON_OBJ) $(SCEN_OBJ) $(TEST_LIB) $(LDLIBS)

# The task hook tests run the example's pthread pool. The tests also
# check the bench's verdicts on its results (pass ranges, flock2d ratios),
# so they link the modules that make them.
BENCH_VERDICT_OBJ := $(BUILD)/obj/bench/quality.o $(BUILD)/obj/bench/run.o \
	$(BUILD)/obj/bench/options.o
$(TESTS): $(TEST_LIB) $(TEST_OBJ) $(SCEN_OBJ) $(GATE_LIB_OBJ) $(BENCH_VERDICT_OBJ)
	$(CC) $(LDFLAGS) -pthread -o $@ $(TEST_OBJ) $(SCEN_OBJ) $(GATE_LIB_OBJ) $(BENCH_VERDICT_OBJ) $(TEST_LIB) $(LDLIBS)

# TEST_SHARDS=n runs the suite as n processes side by side
# (tests/run_shards.sh: each takes the next test none has taken, so the
# slow tests of a build, such as the allocation-failure sweeps under the
# sanitizers, do not leave one process running long after the others),
# then prints their outputs in turn and the sum: for the slow builds (the
# sanitizers, make tsan too), whose tests mostly run one thread, on a
# machine with n cores. TEST_FIRST (a filter) names tests to hand out
# before the rest: a build's slowest, so none starts late and runs on
# alone.
TEST_SHARDS ?= 1
TEST_FIRST ?=

test: $(TESTS)
ifeq ($(TEST_SHARDS),1)
	$(SAN_ENV) $(TESTS) $(FILTER)
else
	$(SAN_ENV) THRONG_TEST_FIRST='$(TEST_FIRST)' \
	  tests/run_shards.sh $(TEST_SHARDS) $(BUILD)/test-shard $(TESTS) $(FILTER)
endif

# The test program, the fuzz harnesses and their support build without a
# single warning, with every compiler and configuration CI runs (gcc 12
# and clang 14; -O2 and -O0; SIMD=scalar; OPENMP=0; the sanitizers): a
# new warning fails the build where it is written. TEST_WERROR= turns
# that off, for a newer compiler with warnings of its own.
TEST_WERROR ?= -Werror
$(TEST_OBJ) $(SUPPORT_OBJ) $(BUILD)/obj/tests/fuzz/%.o: CFLAGS += $(TEST_WERROR)

# The bench records the flags it was built with in its JSON.
$(BUILD)/obj/bench/machine.o: CPPFLAGS += -DTHRONG_BENCH_CFLAGS='"$(CFLAGS)"'

# The default sweep, a few minutes on the 2-CPU development machine: the
# flocks at two sizes, the clustered flock and the crowd scenes at 10k,
# the velocity stage's scenes (the ORCA crossing, Blocks, RVO2's Circle
# at 10k and the dense random crowd at 100k: under 2 minutes), and the
# evacuation of a building at 10k (the first 22 s of it, the crowd still
# leaving its rooms: about 3 of the minutes).
# Table on stdout; JSON, CSV and SVG in bench/results/<machine>/.
# BENCH_ARGS adds or overrides options (later ones win).
BENCH_SWEEP ?= --scenario flock2d,flock3d,cluster2d@10k,crossing2d_steer@10k,pursuit2d@10k,path2d@10k,obstacles2d@10k,leader2d@10k,crossing2d@2000,blocks2d@400,circle2d@10k,orca_dense2d@100k,evac2d@10k \
	--agents 10k,100k --threads 1,2 --steps 200 --warmup 20 --repeats 7
bench: $(BENCH)
	@machine=$$(BENCH_MACHINE='$(BENCH_MACHINE)' $(BENCH) --machine) && \
	out=bench/results/$$machine && mkdir -p "$$out" && \
	BENCH_MACHINE='$(BENCH_MACHINE)' $(BENCH) $(BENCH_SWEEP) --json "$$out/bench.json" \
	  --csv "$$out/bench.csv" --plot "$$out/bench.svg" $(BENCH_ARGS)

# The determinism contract across builds: the default build (run-time
# SIMD dispatch, OpenMP) and the scalar-only build without OpenMP and
# without SQLite (the one CI tests that way) must end a random-wander
# flock and the behaviour scenes in the same state, to the bit, and so
# must the evacuation (navigation fields built, counted and rebuilt,
# their directions normalised on vector lanes with OpenMP, in plain C
# without).
SCALAR_ONLY := SIMD=scalar OPENMP=0 SQLITE=0
SCALAR_ONLY_BUILD := build/simd-scalar-noomp-nosqlite
CHECK_ARGS := --scenario wander2d,wander3d,every2d,every3d,evac2d@1000 --agents 3000 --steps 300 \
	--warmup 0 --threads 1,2 --json -
check-builds:
	@$(MAKE) --no-print-directory bench-bin
	@$(MAKE) --no-print-directory $(SCALAR_ONLY) bench-bin
	@set -e; for b in build/throng-bench $(SCALAR_ONLY_BUILD)/throng-bench; do \
	  $$b $(CHECK_ARGS) 2>/dev/null | grep -o '"state_hash": "[0-9a-f]*"' \
	    | cut -d'"' -f4 | tr '\n' ' ' > $$b.hashes; \
	  echo "$$b: $$(cat $$b.hashes)"; \
	done; \
	for b in $(SCALAR_ONLY_BUILD); do \
	  if ! cmp -s $$b/throng-bench.hashes build/throng-bench.hashes; then \
	    echo "check-builds: $$b ends in a different state" >&2; exit 1; fi; \
	done; echo "check-builds: every build ends in the same state"

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(TEST_LIB_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) \
	$(BENCH_COMMON_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(SCEN_OBJ:.o=.d)

# ------------------------------------------------------------------------
# Installing, and what an embedding program sees
# ------------------------------------------------------------------------

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The licence goes with the library, where Debian and others look for it.
DOCDIR ?= $(PREFIX)/share/doc/throng
PC := $(BUILD)/throng.pc

# What a static link needs beside libthrong.a, for the build at hand: the
# OpenMP runtime only when the library was compiled with it, SQLite and
# pthreads only when the recorder was, and libm.
PC_LIBS_PRIVATE := $(if $(filter 1,$(OPENMP)),-fopenmp )$(if $(filter 1,$(SQLITE_ON)),-lsqlite3 -pthread )-lm

# Written afresh every time (the prefix and the options may differ from
# the last run while BUILD stays the same), but only replaced when its
# text changes, so what depends on it does not rebuild for nothing.
.PHONY: pc-always
$(PC): pc-always
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' \
	  'includedir=$(INCLUDEDIR)' '' 'Name: throng' \
	  'Description: data-oriented crowd engine (steering behaviours)' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lthrong' 'Libs.private: $(PC_LIBS_PRIVATE)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# The CMake package (cmake/*.cmake.in; README, "Installing, and linking
# from C"): throngConfig.cmake, which defines the imported targets
# throng::throng (libthrong.so) and, with the component `static`,
# throng::throng_static (libthrong.a, with OpenMP when this build has it,
# and libm), and throngConfigVersion.cmake, the versions it answers. Their
# paths to the library and the header are written relative to CMAKEDIR,
# so an installed tree may be staged or moved whole. Written afresh for
# every install, like throng.pc, for the options at hand.
CMAKEDIR ?= $(LIBDIR)/cmake/throng
CMAKE_FILES := $(BUILD)/cmake/throngConfig.cmake $(BUILD)/cmake/throngConfigVersion.cmake
# $(call relpath,TO,FROM): TO relative to FROM, as written (no links
# followed: the paths are those of the installed tree, not of this
# machine).
relpath = $(shell realpath -s -m --relative-to='$(2)' '$(1)')
SIZEOF_POINTER = $(shell $(CC) -dM -E -x c /dev/null | sed -n 's/^\#define __SIZEOF_POINTER__ //p')
CMAKE_SUBST = -e 's|@THRONG_VERSION@|$(VERSION)|g' \
	-e 's|@THRONG_VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	-e 's|@THRONG_SONAME@|$(SONAME)|g' \
	-e 's|@THRONG_SHARED_FILE@|libthrong.so.$(VERSION)|g' \
	-e 's|@THRONG_LIBDIR_FROM_HERE@|$(call relpath,$(LIBDIR),$(CMAKEDIR))|g' \
	-e 's|@THRONG_INCLUDEDIR_FROM_HERE@|$(call relpath,$(INCLUDEDIR),$(CMAKEDIR))|g' \
	-e 's|@THRONG_OPENMP@|$(if $(filter 1,$(OPENMP)),ON,OFF)|g' \
	-e 's|@THRONG_SIZEOF_VOID_P@|$(SIZEOF_POINTER)|g'

.PHONY: cmake-always
$(BUILD)/cmake/%.cmake: cmake/%.cmake.in cmake-always
	@mkdir -p $(@D)
	@sed $(CMAKE_SUBST) $< > $@.tmp
	@if grep -n '@[A-Z_]*@' $@.tmp >&2; then \
	  echo "$@: a placeholder of $< is left (see CMAKE_SUBST)" >&2; rm -f $@.tmp; exit 1; fi
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

install: $(STATIC) $(SHARED) $(PC) $(CMAKE_FILES)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 include/throng.h $(DESTDIR)$(INCLUDEDIR)/throng.h
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/libthrong.a
	install -m 755 $(SHARED_REAL) $(DESTDIR)$(LIBDIR)/libthrong.so.$(VERSION)
	ln -sf libthrong.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libthrong.so
	install -m 644 $(PC) $(DESTDIR)$(PKGCONFIGDIR)/throng.pc
	install -d $(DESTDIR)$(CMAKEDIR)
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(CMAKEDIR)/
	install -d $(DESTDIR)$(DOCDIR)
	install -m 644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/throng.h $(DESTDIR)$(LIBDIR)/libthrong.a \
	  $(DESTDIR)$(LIBDIR)/libthrong.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	  $(DESTDIR)$(LIBDIR)/libthrong.so $(DESTDIR)$(PKGCONFIGDIR)/throng.pc \
	  $(DESTDIR)$(DOCDIR)/LICENSE $(DESTDIR)$(CMAKEDIR)/throngConfig.cmake \
	  $(DESTDIR)$(CMAKEDIR)/throngConfigVersion.cmake
	@rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

# The shared library exports exactly the committed list of symbols: an
# accidental export, or a removal, fails here.
EXPORTS := tests/exports.txt
# The layers of src/ point one way (tools/check_layers.sh holds the
# table): no object calls up into a higher layer, no files call each
# other in a circle. The script first proves it catches a planted breach.
.PHONY: check-layers
check-layers: $(LIB_OBJ)
	@sh tools/check_layers.sh --self-test
	@HEADERS="$(wildcard src/*.h)" sh tools/check_layers.sh $(LIB_OBJ)

check-exports: $(SHARED)
	@nm -D --defined-only $(SHARED_REAL) | awk '$$2 ~ /^[TDBRVW]$$/ {print $$3}' \
	  | sort > $(BUILD)/exports.txt
	@if diff -u $(EXPORTS) $(BUILD)/exports.txt; then \
	  echo "check-exports: $$(wc -l < $(EXPORTS)) symbols, as committed"; \
	else echo "check-exports: exported symbols differ from $(EXPORTS)" >&2; exit 1; fi

# Installs into a staging folder and builds every example against it the
# way an embedding program would: pkg-config, then run.
STAGE := $(abspath $(BUILD)/stage)
EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))
check-examples:
	@rm -rf $(STAGE)
	@$(MAKE) --no-print-directory install DESTDIR=$(STAGE) PREFIX=/usr >/dev/null
	@set -e; for e in $(EXAMPLES); do \
	  PKG_CONFIG_SYSROOT_DIR=$(STAGE) PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig \
	    sh -c '$(CC) -std=c11 -Wall -Wextra -Werror -o $(BUILD)/example-'$$e' examples/'$$e'.c $$(pkg-config --cflags --libs throng) -lm -pthread'; \
	  LD_LIBRARY_PATH=$(STAGE)/usr/lib $(BUILD)/example-$$e > $(BUILD)/example-$$e.out; \
	  echo "check-examples: $$e built with pkg-config and ran ($$(wc -l < $(BUILD)/example-$$e.out) lines)"; \
	done

# throng.pc must describe the build it comes from: installs one build
# under several prefixes and library folders in turn and checks that each
# throng.pc names its own (and that uninstall removes everything); installs
# the OpenMP and the OPENMP=0 builds into staging folders, checks that
# -fopenmp is in Libs.private exactly when OpenMP was on, and links
# examples/minimal.c statically with what pkg-config --static says
# (tests/check_pkgconfig.sh).
.PHONY: check-pkgconfig
check-pkgconfig:
	@MAKE='$(MAKE)' CC='$(CC)' sh tests/check_pkgconfig.sh

# The CMake package: examples/cmake (find_package(throng 0.3 REQUIRED))
# configured, built and run against a staged install, through the shared
# library and the static component; the version rule asked what it must
# take and refuse; the package found when staged, moved, and through a
# link, with the targets naming the files where they are; an incomplete
# tree refused (tests/check_cmake.sh). Needs cmake (Debian: cmake).
.PHONY: check-cmake
check-cmake:
	@MAKE='$(MAKE)' CC='$(CC)' sh tests/check_cmake.sh

# The ABI gate (README, "Versions and ABI"). abi/libthrong-<version>.abi is
# the ABI of the last release, as abidw reads it from the debug
# information of the shared library; the default build carries -g.
#
#   make check-abi       compare this build's library with that record
#                        (abidiff): fails when the ABI changed and
#                        THRONG_VERSION did not move past the record's
#                        version as the policy asks, or when the soname
#                        is not the one the version calls for
#   make abi-baseline    at a release: record this build's ABI as
#                        abi/libthrong-<version>.abi, replacing the older
#                        record
#   make check-abi-gate  the gate's own test: builds variants of the
#                        library with planted ABI changes (a struct
#                        field, an enum value, a function) in a copy of
#                        the tree and checks the gate fails on each until
#                        the version moves on
#
# Needs abidw and abidiff (Debian: abigail-tools) and readelf (binutils).
ABI_ENV = LIB=$(SHARED_REAL) HEADER=include/throng.h ABI_DIR=abi \
	ABI_WORK=$(BUILD)/check-abi
.PHONY: check-abi abi-baseline check-abi-gate
check-abi: $(SHARED_REAL)
	@$(ABI_ENV) sh tests/check_abi.sh check

abi-baseline: $(SHARED_REAL)
	@$(ABI_ENV) sh tests/check_abi.sh baseline

check-abi-gate: $(SHARED_REAL)
	@MAKE='$(MAKE)' CC='$(CC)' LIB=$(SHARED_REAL) sh tests/check_abi_gate.sh

# ------------------------------------------------------------------------
# Regression gates
# ------------------------------------------------------------------------
#
#   make bench-check     rerun the configurations of this machine's baseline
#                        (bench/baselines/<machine>.json) and fail on a
#                        significant slowdown of more than 10%
#   make bench-baseline  write that baseline anew (BENCH_CONFIGS lists what)
#   make perf-check      instruction counts of small fixed scenes under
#                        callgrind against bench/baselines/perf-counts.txt:
#                        fails on growth above 2%, noise-free, for CI
#   make perf-update     rewrite the counts on purpose
#   make bench-interrupt-check  an interrupted run leaves no result file,
#                        a finished one whole files
#
# BENCH_MACHINE=name overrides the machine name (throng-bench --machine,
# from the CPU); BENCH_REPEATS sets the samples per configuration (>= 5);
# BENCH_SPLIT=repeats takes them from one process per configuration
# (see bench/bench_check.sh for why the default is one per process).

COMPARE := $(BUILD)/throng-compare
COMPARE_OBJ := $(BUILD)/obj/bench/compare.o $(GATE_LIB_OBJ)
BENCH_MACHINE ?=
BENCH_REPEATS ?= 7
BENCH_SPLIT ?= processes
BENCH_CONFIGS ?= bench/baselines/bench-configs.txt
PERF_COUNTS ?= bench/baselines/perf-counts.txt

.PHONY: bench-check bench-baseline perf-check perf-update compare-bin
compare-bin: $(COMPARE)

$(COMPARE): $(COMPARE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $(COMPARE_OBJ) $(LDLIBS)

GATE_ENV = BENCH=$(BENCH) COMPARE=$(COMPARE) BENCH_MACHINE='$(BENCH_MACHINE)' \
	BENCH_REPEATS=$(BENCH_REPEATS) BENCH_CONFIGS=$(BENCH_CONFIGS) \
	BENCH_SPLIT=$(BENCH_SPLIT) BENCH_WORK=$(BUILD)/bench-check

bench-check: $(BENCH) $(COMPARE)
	@$(GATE_ENV) sh bench/bench_check.sh check

bench-baseline: $(BENCH) $(COMPARE)
	@$(GATE_ENV) sh bench/bench_check.sh baseline

perf-check: $(BENCH)
	@BENCH=$(BENCH) PERF_COUNTS=$(PERF_COUNTS) PERF_WORK=$(BUILD)/perf-check \
	  sh bench/perf_check.sh check

# Result files are written whole: an interrupted run leaves none, a
# finished one complete ones (bench/interrupt_check.sh).
.PHONY: bench-interrupt-check
bench-interrupt-check: $(BENCH) $(COMPARE)
	@BENCH=$(BENCH) COMPARE=$(COMPARE) WORK=$(BUILD)/interrupt-check \
	  sh bench/interrupt_check.sh

perf-update: $(BENCH)
	@BENCH=$(BENCH) PERF_COUNTS=$(PERF_COUNTS) PERF_WORK=$(BUILD)/perf-check \
	  sh bench/perf_check.sh update

-include $(COMPARE_OBJ:.o=.d)

# ------------------------------------------------------------------------
# Pictures: throng-render and the demo
# ------------------------------------------------------------------------
#
#   make demo            render flock2d and crossing2d (2000 agents),
#                        circle2d (250) and blocks2d (400) as SVG
#                        frames into $(BUILD)/demo/<scenario>/, GIFs beside
#                        them when ffmpeg is on PATH, and copy one frame of
#                        each to bench/results/epyc-zen5-2c/ for the README
#   make demo-nav        render evac2d (2000 agents) at step 300 with its
#                        navigation field drawn (travel time as colour,
#                        direction as arrows) and write it as the README's
#                        PNG, bench/results/epyc-zen5-2c/frame-evac2d.png
#
# $(BUILD)/throng-render --help lists its options. The program lives in
# tools/ so the bench's wildcard over bench/*.c never picks up its main().

RENDER := $(BUILD)/throng-render
RENDER_OBJ := $(BUILD)/obj/tools/render.o $(BUILD)/obj/tools/render_frame.o \
	$(BUILD)/obj/tools/render_replay.o
DEMO_DIR := $(BUILD)/demo
DEMO_FRAMES := bench/results/epyc-zen5-2c
# Steps, frame interval and the frame copied for the README, per scene:
# the flock once it has settled; the two crowds where they meet.
DEMO_FLOCK := --steps 600 --every 10
DEMO_FLOCK_FRAME := 0060
DEMO_CROSSING := --steps 2400 --every 30
DEMO_CROSSING_FRAME := 0020
# circle2d's 250 agents (coloured by where they started) at step 1,000
# of about 1,930, wheeling round the centre.
DEMO_CIRCLE := --steps 2000 --every 50
DEMO_CIRCLE_FRAME := 0020
# blocks2d's four corners (a colour each) at step 2,400 of 7,162, meeting
# between the blocks.
DEMO_BLOCKS := --steps 7200 --every 200
DEMO_BLOCKS_FRAME := 0012

.PHONY: render-bin demo
render-bin: $(RENDER)

$(RENDER): $(RENDER_OBJ) $(SCEN_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(RENDER_OBJ) $(SCEN_OBJ) $(STATIC) $(LDLIBS)

# The evacuation 30 s in: queues at the rooms' doors, the corridors
# flowing to both ends. tools/ppm_to_png.py turns the raster into a PNG
# with Python's standard library alone.
DEMO_NAV := --steps 300 --every 300 --nav-fields 14 --ppm 1 --threads 1

.PHONY: demo-nav
demo-nav: $(RENDER)
	@set -e; \
	rm -rf $(DEMO_DIR)/evac2d; \
	$(RENDER) --scenario evac2d --agents 2000 $(DEMO_NAV) \
	  --out $(DEMO_DIR)/evac2d; \
	mkdir -p $(DEMO_FRAMES); \
	$(PYTHON) tools/ppm_to_png.py $(DEMO_DIR)/evac2d/frame_0001.ppm \
	  $(DEMO_FRAMES)/frame-evac2d.png; \
	echo "demo-nav: README frame $(DEMO_FRAMES)/frame-evac2d.png"

demo: $(RENDER)
	@set -e; \
	rm -rf $(DEMO_DIR); \
	$(RENDER) --scenario flock2d --agents 2000 $(DEMO_FLOCK) \
	  --out $(DEMO_DIR)/flock2d --gif $(DEMO_DIR)/flock2d.gif; \
	$(RENDER) --scenario crossing2d --agents 2000 $(DEMO_CROSSING) \
	  --out $(DEMO_DIR)/crossing2d --gif $(DEMO_DIR)/crossing2d.gif; \
	$(RENDER) --scenario circle2d --agents 250 $(DEMO_CIRCLE) \
	  --out $(DEMO_DIR)/circle2d --gif $(DEMO_DIR)/circle2d.gif; \
	$(RENDER) --scenario blocks2d --agents 400 $(DEMO_BLOCKS) \
	  --out $(DEMO_DIR)/blocks2d --gif $(DEMO_DIR)/blocks2d.gif; \
	mkdir -p $(DEMO_FRAMES); \
	cp $(DEMO_DIR)/flock2d/frame_$(DEMO_FLOCK_FRAME).svg $(DEMO_FRAMES)/frame-flock2d.svg; \
	cp $(DEMO_DIR)/crossing2d/frame_$(DEMO_CROSSING_FRAME).svg $(DEMO_FRAMES)/frame-crossing2d.svg; \
	cp $(DEMO_DIR)/circle2d/frame_$(DEMO_CIRCLE_FRAME).svg $(DEMO_FRAMES)/frame-circle2d.svg; \
	cp $(DEMO_DIR)/blocks2d/frame_$(DEMO_BLOCKS_FRAME).svg $(DEMO_FRAMES)/frame-blocks2d.svg; \
	echo "demo: frames in $(DEMO_DIR)/flock2d/, $(DEMO_DIR)/crossing2d/, $(DEMO_DIR)/circle2d/ and $(DEMO_DIR)/blocks2d/"; \
	for g in $(DEMO_DIR)/flock2d.gif $(DEMO_DIR)/crossing2d.gif $(DEMO_DIR)/circle2d.gif $(DEMO_DIR)/blocks2d.gif; do \
	  if [ -f "$$g" ]; then echo "demo: $$g"; fi; done; \
	echo "demo: README frames $(DEMO_FRAMES)/frame-flock2d.svg, $(DEMO_FRAMES)/frame-crossing2d.svg, $(DEMO_FRAMES)/frame-circle2d.svg, $(DEMO_FRAMES)/frame-blocks2d.svg"

-include $(RENDER_OBJ:.o=.d)

# ------------------------------------------------------------------------
# Recording trajectories (src/recorder.c)
# ------------------------------------------------------------------------
#
#   make record-kill-check  a process recording a churning crowd is
#                        killed with SIGKILL mid-run; the file it leaves
#                        must open, pass SQLite's integrity check and hold
#                        every frame it reported committed, each as the
#                        run had it (tests/record/kill_check.sh)
#   make record-check    that; then throng-bench records a run, Python's
#                        sqlite3 reads it back and throng-render draws
#                        frames from the file instead of simulating (CI)
#
# Both need a build with SQLite (see SQLITE above).

RECORD_KILL := $(BUILD)/throng-record-kill
RECORD_WORK := $(BUILD)/record-check

.PHONY: record-kill-check record-check
$(RECORD_KILL): $(BUILD)/obj/tests/record/record_kill.o $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

record-kill-check: $(RECORD_KILL)
ifneq ($(SQLITE_ON),1)
	@echo "record-kill-check: this build has no SQLite (SQLITE=$(SQLITE))" >&2; exit 1
endif
	@sh tests/record/kill_check.sh $(RECORD_KILL) $(BUILD)/record-kill-check

record-check: record-kill-check $(BENCH) $(RENDER)
	@rm -rf $(RECORD_WORK) && mkdir -p $(RECORD_WORK)
	$(BENCH) --scenario obstacles2d --agents 2000 --threads 1 --steps 60 \
	  --warmup 0 --record $(RECORD_WORK)/obstacles2d.sqlite --record-every 5 \
	  --quiet --json $(RECORD_WORK)/bench.json > /dev/null
	@$(PYTHON) -c 'import sys; sys.path.insert(0, "python"); import throng; \
	  r = throng.read_recording("$(RECORD_WORK)/obstacles2d.sqlite"); \
	  n = len(r.frames[0]); assert n == 12 and len(r.frame) == 12 * 2000, (n, len(r.frame)); \
	  assert abs(r.fps - 6.0) < 1e-4 and r.metadata["version"] == "1", r.metadata; \
	  assert r.geometry.startswith("POLYGON (("), r.geometry[:80]; \
	  print("record-check: Python reads %d frames, %d rows, fps %g, geometry %s..." \
	        % (n, len(r.frame), r.fps, r.geometry[:40]))'
	$(RENDER) --replay $(RECORD_WORK)/obstacles2d.sqlite --every 4 \
	  --out $(RECORD_WORK)/frames
	@n=$$(ls $(RECORD_WORK)/frames/frame_*.svg | wc -l); [ "$$n" -eq 3 ] || \
	  { echo "record-check: throng-render drew $$n frames, not 3" >&2; exit 1; }
	@echo "record-check: throng-render drew 3 frames from the recording"

-include $(BUILD)/obj/tests/record/record_kill.d

# The Python binding (python/throng.py) against this build's shared
# library: the NumPy tests run when the interpreter has NumPy, the
# memoryview path always (and once more in a child without NumPy).
PYTHON ?= python3
python-test: $(SHARED) $(BUILD)/schema-layout
	THRONG_LIBRARY=$(abspath $(SHARED)) THRONG_SCHEMA_LAYOUT=$(abspath $(SCHEMA_LAYOUT)) $(PYTHON) -m unittest discover -s python/tests

# The Python package (pyproject.toml, setup.py) as a new user installs
# it: pip install --no-build-isolation . into a fresh virtual environment
# of $(PYTHON) that sees the system's NumPy, setuptools and wheel; the
# installed module and library must be the environment's, and the Python
# tests pass against them from a folder outside the tree; the wheel and
# the source distribution hold what they must; pip uninstall removes it
# all (tests/check_python_install.sh). The package's build runs make for
# this build's library, which is then up to date.
.PHONY: python-install-test
python-install-test: $(SHARED) $(BUILD)/schema-layout
	@PYTHON='$(PYTHON)' LIB=$(abspath $(SHARED_REAL)) \
	  SCHEMA_LAYOUT=$(abspath $(BUILD)/schema-layout) \
	  sh tests/check_python_install.sh

# The same tests against the sanitizer build of the library (the folder
# `make SAN=address,undefined` uses, so CI's sanitizer gate has built it
# already). The interpreter is not built with
# ASan, so its runtime is preloaded: it then serves every malloc of the
# process, and a read of freed memory by the library, or by a copy out of
# a view (tobytes(), which the tests use), is reported and ends the run.
# Leak checking is off: CPython keeps memory until exit by design.
PY_ASAN_LIB = $(shell $(CC) -print-file-name=libasan.so)
PY_ASAN_ENV = LD_PRELOAD=$(PY_ASAN_LIB) \
	ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:$$ASAN_OPTIONS" \
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:$$UBSAN_OPTIONS"
PY_SAN := address,undefined
print-build:
	@echo $(BUILD)
python-asan:
	@case '$(PY_ASAN_LIB)' in /*) ;; *) \
	  echo "python-asan: $(CC) has no libasan.so (it needs gcc's shared ASan runtime)" >&2; exit 1;; esac
	@$(MAKE) --no-print-directory SAN=$(PY_SAN) lib
	@build=$$($(MAKE) -s --no-print-directory SAN=$(PY_SAN) print-build) && \
	  case "$$build" in /*) ;; *) build="$(CURDIR)/$$build";; esac && \
	  echo "THRONG_LIBRARY=$$build/libthrong.so $(PY_ASAN_ENV) $(PYTHON) -m unittest discover -s python/tests" && \
	  THRONG_LIBRARY="$$build/libthrong.so" $(PY_ASAN_ENV) \
	  $(PYTHON) -m unittest discover -s python/tests

# ------------------------------------------------------------------------
# Sanitizers and static checkers
# ------------------------------------------------------------------------
#
#   make tsan            ThreadSanitizer over the OpenMP code: the tests and
#                        a short bench run at 2 and 4 threads, built with
#                        clang against LLVM's libomp
#   make memcheck        valgrind memcheck (errors and leaks) over the
#                        scalar build: some tests and a short bench run
#   make lint            cppcheck and clang-tidy (.clang-tidy) over src/,
#                        bench/, tools/ and tests/: any finding fails
#
# Each fails on the first finding. `make SAN=address,undefined test` is
# the fourth: AddressSanitizer with LeakSanitizer and UBSan, no recovery.
# Packages (Debian): clang and libomp-dev for tsan, valgrind for
# memcheck, cppcheck and clang-tidy for lint.

.PHONY: tsan memcheck lint lint-cppcheck lint-tidy

# TSan cannot see the synchronisation inside an OpenMP runtime, so every
# barrier looks like a race. LLVM's libomp tells it through Archer, an OMPT
# tool (libarcher.so, shipped beside libomp) loaded via OMP_TOOL_LIBRARIES;
# GCC's libgomp has no such tool, hence clang. ignore_noninstrumented_modules
# keeps the runtime's own (uninstrumented) memsets out of the reports, as
# Archer asks; halt_on_error stops at the first real report.
TSAN_CC ?= clang
TSAN_BUILD := build/san-thread-$(notdir $(TSAN_CC))
ARCHER ?= $(abspath $(shell $(TSAN_CC) -print-resource-dir 2>/dev/null)/../../libarcher.so)
TSAN_ENV := OMP_TOOL_LIBRARIES=$(ARCHER) \
	TSAN_OPTIONS='halt_on_error=1 ignore_noninstrumented_modules=1 second_deadlock_stack=1'
TSAN_BENCH_ARGS := --scenario flock2d,flock3d,wander2d,wander3d,cluster2d,crossing2d_steer,pursuit2d,path2d,obstacles2d,leader2d,every2d,every3d \
	--agents 2000 --threads 2,4 --steps 20 --warmup 2 --quiet

tsan:
	@if [ ! -f '$(ARCHER)' ]; then \
	  echo "tsan: libarcher.so not found (Debian: libomp-dev); set ARCHER=/path/to/libarcher.so" >&2; \
	  exit 1; fi
	@$(MAKE) --no-print-directory CC=$(TSAN_CC) SAN=thread \
	  $(TSAN_BUILD)/throng-tests $(TSAN_BUILD)/throng-bench
	@if ! ldd $(TSAN_BUILD)/throng-tests | grep -q 'libomp\.so'; then \
	  echo "tsan: $(TSAN_BUILD)/throng-tests is not linked to LLVM's libomp" >&2; exit 1; fi
ifeq ($(TEST_SHARDS),1)
	$(TSAN_ENV) $(TSAN_BUILD)/throng-tests $(FILTER)
else
	$(TSAN_ENV) tests/run_shards.sh $(TEST_SHARDS) $(TSAN_BUILD)/test-shard \
	  $(TSAN_BUILD)/throng-tests $(FILTER)
endif
	$(TSAN_ENV) $(TSAN_BUILD)/throng-bench $(TSAN_BENCH_ARGS) > $(TSAN_BUILD)/tsan-bench.txt
	@echo "tsan: no data race reported"

# Valgrind cannot decode AVX-512, so memcheck runs the scalar build (the
# one without OpenMP and SQLite that CI's suite and check-builds build). The
# modules below are the ones that allocate, free and serialise (worlds,
# groups, objects, snapshots, the bench's JSON reader); the heavy numeric
# tests add nothing under memcheck but minutes.
MEMCHECK_BUILD := $(SCALAR_ONLY_BUILD)
MEMCHECK_TESTS ?= world errors grid snapshot steer_route bench_stats
# Left out of those runs: the brute-force comparisons of the grid's
# queries (thousands of agents against an O(n^2) scan, arithmetic the
# native builds check; under valgrind the grid run took 500 s, the
# longest of the gate's runs by far, world next at 180 s). The grid is
# still built, queried, permuted and freed under memcheck by every other
# grid test.
MEMCHECK_SKIP ?= !grid_sparse_matches_brute_force,!grid_query_3d_unbounded,!orca3d_random_against_grid
MEMCHECK := valgrind --tool=memcheck --error-exitcode=1 --leak-check=full \
	--suppressions=tests/valgrind.supp \
	--errors-for-leak-kinds=definite,indirect,possible --quiet
MEMCHECK_BENCH_ARGS := --scenario flock2d,every2d,every3d,crossing2d_steer \
	--agents 500 --threads 1,2 --steps 10 --warmup 1 --quiet

# Each test module and the bench is its own run, so make -j runs them
# side by side (valgrind runs a program on one core at a time).
MEMCHECK_RUNS := $(MEMCHECK_TESTS:%=memcheck-test-%) memcheck-bench
.PHONY: memcheck memcheck-bin $(MEMCHECK_RUNS)

memcheck-bin:
	@command -v valgrind >/dev/null || { echo "memcheck: valgrind is missing (Debian: valgrind)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(SCALAR_ONLY) \
	  $(MEMCHECK_BUILD)/throng-tests $(MEMCHECK_BUILD)/throng-bench

$(MEMCHECK_TESTS:%=memcheck-test-%): memcheck-test-%: memcheck-bin
	@echo "$(MEMCHECK) $(MEMCHECK_BUILD)/throng-tests '$*,$(MEMCHECK_SKIP)'"
	@out=$(MEMCHECK_BUILD)/memcheck-$*.txt; \
	OMP_NUM_THREADS=2 $(MEMCHECK) $(MEMCHECK_BUILD)/throng-tests '$*,$(MEMCHECK_SKIP)' > $$out \
	  || { cat $$out; exit 1; }; \
	echo "memcheck $*: $$(tail -n 1 $$out)"

memcheck-bench: memcheck-bin
	OMP_NUM_THREADS=2 $(MEMCHECK) $(MEMCHECK_BUILD)/throng-bench $(MEMCHECK_BENCH_ARGS) \
	  --json $(MEMCHECK_BUILD)/memcheck-bench.json > $(MEMCHECK_BUILD)/memcheck-bench.txt

memcheck: $(MEMCHECK_RUNS)
	@echo "memcheck: no memory error or leak"

# Lint checks one configuration, the default build's (OpenMP, the vector
# kernels with their instruction sets); cppcheck also walks the #if
# branches itself.
CPPCHECK ?= cppcheck
CLANG_TIDY ?= clang-tidy
LINT_BUILD := build/lint
LINT_SRC := $(wildcard src/*.c bench/*.c tools/*.c tests/*.c testsupport/*.c examples/web/*.c)
LINT_HDR := $(wildcard include/*.h src/*.h src/*.inc bench/*.h tools/*.h tests/*.h \
	testsupport/*.h examples/web/*.h)
LINT_FLAGS := -std=c11 -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L \
	-DTHRONG_HAVE_SIMD_KERNELS=1 -fopenmp $(WARNINGS)
CPPCHECK_FLAGS := --std=c11 --enable=warning,performance,portability \
	--error-exitcode=1 --inline-suppr --quiet -Iinclude -Isrc

lint: lint-cppcheck lint-tidy
	@echo "lint: cppcheck and clang-tidy found nothing"

# Every C file of the tree is as the house .clang-format lays it out.
.PHONY: check-format check-spdx
check-format: check-spdx
	@git ls-files '*.c' '*.h' '*.inc' | xargs clang-format --dry-run --Werror
	@echo "check-format: $$(git ls-files '*.c' '*.h' '*.inc' | wc -l) files in the house format"

# Every source file says its licence (LICENSE, MIT) in an SPDX line among
# its first two lines (the second after a #! line).
SPDX_FILES = git ls-files '*.c' '*.h' '*.inc' '*.py' '*.sh' '*.js' '*.cmake' \
	'*.html' '*.in' '*.toml' '*CMakeLists.txt' Makefile .ci/run
check-spdx:
	@missing=$$($(SPDX_FILES) | while read -r f; do \
	  head -n 2 "$$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$$f"; done); \
	if [ -n "$$missing" ]; then \
	  echo "check-spdx: no SPDX-License-Identifier line in:" $$missing >&2; exit 1; fi
	@echo "check-spdx: $$($(SPDX_FILES) | wc -l) source files name their licence"

# Two runs, side by side under make -j: the library and the test support
# with every #if configuration cppcheck finds (the vector kernels' 11);
# the programs and the tests in one configuration (--max-configs=1): the
# configurations of a test file are those of the library headers it
# includes, which the first run walks where they are written (walking
# them again from every test file was half of cppcheck's 10 minutes).
LINT_CPPCHECK_RUNS := lint-cppcheck-lib lint-cppcheck-progs
# Each vector kernel's four-lane builds (SSE2, NEON, WebAssembly) are one
# text to cppcheck: their files define SIMD_WIDTH 4 and a name suffix,
# then include the same .inc, and cppcheck walks the #if configurations
# itself (no target's macros), so it reads the same code three times
# over, about 37 s of CPU each time (steer_flock_*.c 28 s of it). The
# library run checks the SSE2 file of each; the eight-lane (AVX2) and
# sixteen-lane (AVX-512) files, whose lane counts open their own #if
# branches (W == 8 && __AVX2__, W == 16 && __AVX512F__), are checked
# too. clang-tidy still checks every one, each for its own target.
LINT_CPPCHECK_SAME := $(wildcard src/*_neon.c src/*_wasm.c)
.PHONY: $(LINT_CPPCHECK_RUNS)
lint-cppcheck: $(LINT_CPPCHECK_RUNS)
lint-cppcheck-lib lint-cppcheck-progs:
	@command -v $(CPPCHECK) >/dev/null || { echo "lint: cppcheck is missing (Debian: cppcheck)" >&2; exit 1; }
	@mkdir -p $(LINT_BUILD)/$@
	$(CPPCHECK) $(CPPCHECK_FLAGS) --cppcheck-build-dir=$(LINT_BUILD)/$@ \
	  $(if $(findstring progs,$@),--max-configs=1 bench tools tests examples/web,$(LINT_CPPCHECK_SAME:%=-i%) src testsupport)

# The NEON kernel is checked as aarch64 code, against clang's own
# arm_neon.h and the C headers of Debian's libc6-dev-arm64-cross; without
# those headers, as host code, which leaves its NEON lines unchecked.
LINT_NEON_TARGET = $(if $(wildcard /usr/aarch64-linux-gnu/include/string.h),--target=aarch64-linux-gnu)
# The wasm kernels and the browser page's C side (examples/web, built
# only for the browser) likewise as WebAssembly with SIMD128, against the
# C headers of Debian's emscripten; without them, as host code.
EM_SYSROOT ?= /usr/share/emscripten/cache/sysroot
LINT_WASM_TARGET = $(if $(wildcard $(EM_SYSROOT)/include/string.h),--target=wasm32-unknown-emscripten --sysroot=$(EM_SYSROOT) -msimd128)

# One stamp per file, so a rerun checks only what changed (any header or
# the configuration changing rechecks everything). The test files are
# checked without the static analyser (clang-analyzer-*, nine tenths of
# clang-tidy's time: tests/test_finish.c 9.1 s of CPU with it, 0.6 s
# without): it explores the paths of the library, the bench and the
# tools, whose code ships; the tests' own paths run, every one, under
# AddressSanitizer, UBSan and valgrind. Every other check covers them.
LINT_TIDY_OK := $(LINT_SRC:%.c=$(LINT_BUILD)/tidy/%.ok)
lint-tidy: $(LINT_TIDY_OK)
$(LINT_TIDY_OK): $(LINT_BUILD)/tidy/%.ok: %.c $(LINT_HDR) .clang-tidy Makefile
	@command -v $(CLANG_TIDY) >/dev/null || { echo "lint: clang-tidy is missing (Debian: clang-tidy)" >&2; exit 1; }
	@mkdir -p $(@D)
	@echo "$(CLANG_TIDY) $<"
	$(if $(and $(findstring neon,$<),$(if $(LINT_NEON_TARGET),,1)),@echo "lint: $< checked as host code (aarch64 headers missing: libc6-dev-arm64-cross)")
	$(if $(and $(findstring _wasm,$<)$(findstring examples/web/,$<),$(if $(LINT_WASM_TARGET),,1)),@echo "lint: $< checked as host code (WebAssembly headers missing: emscripten)")
	@$(CLANG_TIDY) --quiet $(if $(filter tests/%,$<),'--checks=-clang-analyzer-*') $< -- $(LINT_FLAGS) \
	  $(if $(findstring src/,$<),-DTHRONG_BUILDING) \
	  $(if $(findstring avx2,$<),-mavx2)$(if $(findstring avx512,$<),-mavx512f) \
	  $(if $(findstring neon,$<),$(LINT_NEON_TARGET)) \
	  $(if $(findstring _wasm,$<)$(findstring examples/web/,$<),$(LINT_WASM_TARGET)) \
	  > $(@:.ok=.log) 2>&1 || { grep -v 'warnings\? generated\.$$' $(@:.ok=.log); exit 1; }
	@touch $@

# ------------------------------------------------------------------------
# Soak: a long run under churn that checks invariants as it goes
# ------------------------------------------------------------------------
#
#   make soak            SOAK_ARGS in 2D, then in 3D (a few minutes each)
#   make soak-smoke      about 10 seconds each in 2D and 3D, for CI
#
# $(BUILD)/throng-soak --help lists the options; SOAK_ARGS replaces the
# defaults. Each run ends with a "soak: summary" line and exits non-zero
# on any violation (NaN, a limit broken, memory growth, a lost handle, a
# snapshot that does not reload to the same state).

SOAK := $(BUILD)/throng-soak
SOAK_OBJ := $(BUILD)/obj/bench/soak.o $(BUILD)/obj/bench/cli.o $(SUPPORT_OBJ)
SOAK_ARGS ?= --agents 10k --seconds 150 --check-every 100
# The smoke run is small enough to pass its warm-up (two snapshots, two
# periods of the agent band, 400 steps) well inside 10 s on a busy
# 2-CPU machine, so its memory checks run too.
SOAK_SMOKE_ARGS ?= --agents 3k --seconds 10 --check-every 20 \
	--snapshot-every 100 --progress 5

.PHONY: soak soak-smoke soak-bin
soak-bin: $(SOAK)

$(SOAK): $(SOAK_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(SOAK_OBJ) $(STATIC) $(LDLIBS)

soak: $(SOAK)
	$(SOAK) --dim 2 $(SOAK_ARGS)
	$(SOAK) --dim 3 $(SOAK_ARGS)

soak-smoke: $(SOAK)
	$(SOAK) --dim 2 $(SOAK_SMOKE_ARGS)
	$(SOAK) --dim 3 $(SOAK_SMOKE_ARGS)

-include $(SOAK_OBJ:.o=.d)

# ------------------------------------------------------------------------
# Navigation fields: how long a build takes
# ------------------------------------------------------------------------
#
#   make bench-nav       full and incremental builds of 1000 x 1000 cell
#                        fields (open floor, a maze) and a 100^3 voxel
#                        field, on 1 and 2 threads (under a minute)
#
# $(BUILD)/throng-navbench --help lists the options; NAVBENCH_ARGS
# replaces the defaults (bench/navbench.c says what each case builds).

NAVBENCH_OBJ := $(BUILD)/obj/bench/navbench.o $(BUILD)/obj/bench/cli.o
NAVBENCH_ARGS ?=

.PHONY: bench-nav
$(NAVBENCH): $(NAVBENCH_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(NAVBENCH_OBJ) $(STATIC) $(LDLIBS)

bench-nav: $(NAVBENCH)
	$(NAVBENCH) $(NAVBENCH_ARGS)

-include $(NAVBENCH_OBJ:.o=.d)

# ------------------------------------------------------------------------
# Fuzzing (libFuzzer; clang only)
# ------------------------------------------------------------------------
#
#   make fuzz            build both harnesses and run each for FUZZ_TIME
#                        seconds (default 60) on one worker, side by side
#                        (tests/fuzz/run_harnesses.sh), over a copy of the
#                        committed seed corpus; fails when a harness
#                        crashes, trips a sanitizer or leaks
#   make fuzz-regress    run the harnesses once over every committed input
#                        (seconds; for CI)
#   make fuzz-corpus     rewrite the generated seeds in tests/fuzz/corpus/
#                        (regression inputs kept there are left alone)
#
# The library is built for the harnesses with ASan, UBSan (no recovery)
# and libFuzzer's coverage into build/fuzz/, without OpenMP: a step's
# result does not depend on threads, libFuzzer's run loop is
# single-threaded, and an idle OpenMP pool would only spin. New inputs and
# crash reproducers go to build/fuzz/, never into the committed corpus.
# Needs clang and its compiler runtime (Debian: clang libclang-rt-14-dev).
# A reproducer is rerun with build/fuzz/fuzz_api <file>.

FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_DIR := build/fuzz
FUZZ_SEEDS := tests/fuzz/corpus
FUZZ_HARNESSES := api snapshot
# Longest input each harness takes: an API program of a few hundred
# operations; the seed snapshots with room for growth.
FUZZ_MAX_LEN_api := 4096
FUZZ_MAX_LEN_snapshot := 65536
FUZZ_FLAGS ?= -timeout=30 -rss_limit_mb=2048 -print_final_stats=1

.PHONY: fuzz fuzz-bin fuzz-regress fuzz-corpus

# The harness programs, built by the recursive make below, where BUILD is
# build/fuzz and SAN carries libFuzzer's instrumentation.
FUZZ_OBJ := $(FUZZ_HARNESSES:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o)
.SECONDARY: $(FUZZ_OBJ)
$(BUILD)/fuzz_%: $(STATIC) $(BUILD)/obj/tests/fuzz/fuzz_%.o $(SUPPORT_OBJ)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $(BUILD)/obj/tests/fuzz/fuzz_$*.o $(SUPPORT_OBJ) $(STATIC) $(LDLIBS)

# The per-instruction-set neighbour kernels are built without UBSan here:
# clang's UBSan over their many inlined specialisations takes minutes per
# file (steer_flock_avx512.c: 180 s against 50 s with ASan alone), and the
# SAN=address,undefined suite runs them under UBSan already.
FUZZ_NO_UBSAN := $(foreach i,sse2 avx2 avx512,$(FUZZ_DIR)/obj/src/steer_flock_$(i).o)
$(FUZZ_NO_UBSAN): CFLAGS += -fno-sanitize=undefined

fuzz-bin:
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) OPENMP=0 \
	  SAN=fuzzer-no-link,address,undefined BUILD=$(FUZZ_DIR) \
	  $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/fuzz_%)

fuzz: fuzz-bin
	@tests/fuzz/run_harnesses.sh $(FUZZ_DIR) $(FUZZ_SEEDS) $(FUZZ_TIME) \
	  '$(FUZZ_FLAGS)' $(foreach h,$(FUZZ_HARNESSES),$(h):$(FUZZ_MAX_LEN_$(h)))

fuzz-regress: fuzz-bin
	@status=0; for h in $(FUZZ_HARNESSES); do \
	  log=$(FUZZ_DIR)/regress-$$h.log; \
	  if $(FUZZ_DIR)/fuzz_$$h -runs=1 $(FUZZ_SEEDS)/$$h/* > $$log 2>&1; then \
	    echo "fuzz-regress: fuzz_$$h ran $$(ls $(FUZZ_SEEDS)/$$h | wc -l) committed inputs"; \
	  else status=1; tail -n 40 $$log; echo "fuzz-regress: fuzz_$$h FAILED (log $$log)" >&2; fi; \
	done; exit $$status

GEN_CORPUS := $(BUILD)/gen_corpus
$(GEN_CORPUS): $(BUILD)/obj/tests/fuzz/gen_corpus.o $(SUPPORT_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $< $(SUPPORT_OBJ) $(STATIC) $(LDLIBS)

fuzz-corpus: $(GEN_CORPUS)
	@mkdir -p $(FUZZ_SEEDS)/api $(FUZZ_SEEDS)/snapshot
	$(GEN_CORPUS) $(FUZZ_SEEDS)/api $(FUZZ_SEEDS)/snapshot
	@echo "fuzz-corpus: $$(ls $(FUZZ_SEEDS)/api | wc -l) API programs," \
	  "$$(ls $(FUZZ_SEEDS)/snapshot | wc -l) snapshots," \
	  "$$(du -sk $(FUZZ_SEEDS) | cut -f1) KiB"

-include $(FUZZ_OBJ:.o=.d) $(BUILD)/obj/tests/fuzz/gen_corpus.d

# ------------------------------------------------------------------------
# aarch64: the NEON path, cross-built and run under emulation
# ------------------------------------------------------------------------
#
#   make cross-test      build the tests and the bench for aarch64 with
#                        CROSS_CC (the NEON build, whose scalar path is
#                        the scalar build's), run a focused set of tests
#                        under qemu-aarch64 (CROSS_JOBS at a time), and
#                        check that its bench ends the determinism scenes
#                        on the NEON path and on the scalar path
#                        (THRONG_SIMD=scalar) in the state this machine's
#                        own build ends them in; then the golden hashes
#                        (tests/test_golden.c) with clang at -O2, for
#                        aarch64 too (gcc and clang at -O0 run them on
#                        this machine: make DEBUG=1)
#
# `make CC=aarch64-linux-gnu-gcc` alone builds everything for aarch64 into
# build/aarch64-linux-gnu-gcc/. Under emulation a step runs tens of times
# slower, so CROSS_TESTS (name filters, one run each) are those that pin
# down the arithmetic, each NEON kernel against the scalar path: the
# flock kernel and the paths' bits over the behaviour scenes
# (determinism_simd_variants), the integrator (integrate_), the
# environment kernel (obstacle avoidance's lanes, avoid_; the recipe
# finish on the lanes, finish_lanes and finish_path_lanes), ORCA's lanes
# (orca_lanes_), the velocity stage's halves of the integration on the
# lanes with the rows they leave to the scalar code
# (velocity_threads_and_paths), the cap's lanes and its lane counting,
# the float limits on every path, the grid's permutation, cell
# coordinates and 2D queries, snapshots, and the dispatch (simd_auto,
# simd_named). Left out, at tens of seconds to
# minutes each under emulation: the thread sweeps (determinism_threads
# and the cap's, which test OpenMP rather than the architecture), the
# many-scene path comparison (determinism_simd_paths, a minute; golden
# and the lane tests compare the same kernels), the brute-force grid
# checks and 3D queries, the world's bookkeeping and the error
# sentences (integer and scalar code the native builds cover), and the
# large degenerate crowds. The scalar path of this build is the code a
# SIMD=scalar build runs (the same sources, compiler and flags), so one
# build serves both; the native scalar-only build covers the build
# without vector kernels. The golden hashes (every path the build has, on
# 1 and 2 threads: 3.7 minutes under emulation) run once, in clang's
# aarch64 build; gcc's aarch64 build is held to this machine's bits by
# its bench (the determinism scenes, every behaviour, on the NEON and the
# scalar path, below), ORCA's pinned bits (orca3d_bits_golden) and its
# paths against each other (determinism_simd_variants). The bench links the tests' library
# (throng-bench-checked), so the library is built for aarch64 once.
# The emulated tests run with THRONG_TEST_SHORT=1 (tests/runner.h), as
# the sanitizer suite does: the lane sweeps over many worlds
# (finish_lanes_match_scalar, degenerate_cap_lanes_match_scalar) step
# each world, on the NEON and the scalar path, a third as often, still
# removing and reusing agents mid-run and ending in the scalar path's
# bits; the native builds run them whole.
# The whole suite passes under qemu too, in about half an hour.
# Packages (Debian): gcc-aarch64-linux-gnu (it brings libgomp1-arm64-cross),
# libc6-dev-arm64-cross (the aarch64 C library, which qemu-aarch64 -L
# loads too), qemu-user. uthash comes from the build machine's
# uthash-dev (see UTHASH_H above).

CROSS_CC ?= aarch64-linux-gnu-gcc
CROSS_RUN ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
CROSS_BUILD := build/$(notdir $(CROSS_CC))
# Emulated test runs side by side (each filter is one qemu process).
CROSS_JOBS ?= 2
CROSS_TESTS ?= simd_auto simd_named determinism_simd_variants orca3d_bits_golden \
	finish_lanes finish_path_lanes avoid_ flock_ orca_lanes_ \
	integrate_ degenerate_cap_lanes degenerate_cap_nearest cap_count_below \
	degenerate_float_limits grid_permute grid_query_2d snapshot_ contact_crowd \
	velocity_threads_and_paths velocity_hold_rows_paths grid_coord \
	verlet_lists_cover_neighbours verlet_frame_keeps_every_pair
CROSS_CHECK_ARGS := --scenario wander2d,wander3d,every2d,every3d --agents 1000 \
	--steps 200 --warmup 0 --threads 2 --json -

# The programs cross-test runs, both aarch64 builds (gcc's, with OpenMP,
# and clang's for the golden hashes), built and not run: nothing in them
# reads this machine's build/, so CI builds them beside its native gates.
CROSS_GOLDEN_CC := clang
CROSS_GOLDEN_BUILD := build/aarch64-golden-$(CROSS_GOLDEN_CC)-O2
.PHONY: cross-test cross-bin
cross-bin:
	@command -v $(CROSS_CC) >/dev/null || { echo "cross-test: $(CROSS_CC) is missing (Debian: gcc-aarch64-linux-gnu libc6-dev-arm64-cross)" >&2; exit 1; }
	@$(MAKE) --no-print-directory CC=$(CROSS_CC) BUILD=$(CROSS_BUILD) \
	  $(CROSS_BUILD)/throng-tests $(CROSS_BUILD)/throng-bench-checked
	@# The golden hashes with the other compiler (clang cross-builds
	@# without OpenMP: there is no aarch64 libomp here).
	@mkdir -p $(CROSS_GOLDEN_BUILD)
	@$(MAKE) --no-print-directory CC='$(CROSS_GOLDEN_CC) --target=aarch64-linux-gnu' \
	  OPENMP=0 DEBUG=0 BUILD=$(CROSS_GOLDEN_BUILD) $(CROSS_GOLDEN_BUILD)/throng-tests \
	  > $(CROSS_GOLDEN_BUILD)/build.log 2>&1 \
	  || { tail -n 30 $(CROSS_GOLDEN_BUILD)/build.log; exit 1; }

cross-test: cross-bin
	@command -v $(firstword $(CROSS_RUN)) >/dev/null || { echo "cross-test: $(firstword $(CROSS_RUN)) is missing (Debian: qemu-user)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(BENCH)
	@set -e; dir=$(CROSS_BUILD); passed=0; start=$$(date +%s); \
	printf '%s\n' $(CROSS_TESTS) | xargs -P $(CROSS_JOBS) -I {} sh -c \
	  'THRONG_TEST_SHORT=1 $(CROSS_RUN) '"$$dir"'/throng-tests {} > '"$$dir"'/cross-test-{}.txt \
	    || { cat '"$$dir"'/cross-test-{}.txt; \
	         echo "cross-test: '"$$dir"'/throng-tests {} failed" >&2; exit 255; }'; \
	for t in $(CROSS_TESTS); do \
	  out=$$dir/cross-test-$$t.txt; \
	  echo "cross-test: $$dir/throng-tests $$t: $$(tail -n 1 $$out)"; \
	  passed=$$((passed + $$(tail -n 1 $$out | cut -d' ' -f1))); \
	done; \
	echo "cross-test: $$dir: $$passed passed, 0 failed in $$(($$(date +%s) - start)) s"
	@set -e; for b in native neon scalar; do \
	  case $$b in \
	    native) run=; bin=$(BENCH); path=auto ;; \
	    *) run='$(CROSS_RUN)'; bin=$(CROSS_BUILD)/throng-bench-checked; path=$$b ;; \
	  esac; \
	  out=$(CROSS_BUILD)/bench-$$b.cross-hashes; \
	  THRONG_SIMD=$$path $$run $$bin $(CROSS_CHECK_ARGS) 2>/dev/null \
	    | grep -o '"state_hash": "[0-9a-f]*"' \
	    | cut -d'"' -f4 | tr '\n' ' ' > $$out; \
	  [ -s $$out ] || { echo "cross-test: $$bin ($$b) reported no state" >&2; exit 1; }; \
	  echo "$$bin ($$b): $$(cat $$out)"; \
	done; \
	for b in neon scalar; do \
	  if ! cmp -s $(CROSS_BUILD)/bench-$$b.cross-hashes $(CROSS_BUILD)/bench-native.cross-hashes; then \
	    echo "cross-test: aarch64 on the $$b path ends in another state than $(BENCH)" >&2; exit 1; fi; \
	done; echo "cross-test: aarch64, NEON and scalar, ends in this machine's state"
	@# The golden hashes on aarch64, built by clang (cross-bin).
	@dir=$(CROSS_GOLDEN_BUILD); \
	  $(CROSS_RUN) $$dir/throng-tests golden_ > $$dir/cross-golden.txt \
	    || { cat $$dir/cross-golden.txt; echo "cross-test: golden hashes differ on aarch64 $(CROSS_GOLDEN_CC)-O2" >&2; exit 1; }; \
	  echo "cross-test: aarch64 $(CROSS_GOLDEN_CC)-O2 golden: $$(tail -n 1 $$dir/cross-golden.txt)"

# ------------------------------------------------------------------------
# The behaviour schema (src/behaviour_schema.h)
# ------------------------------------------------------------------------
#
#   make schema          write the parts of include/throng.h between the
#                        schema:begin and schema:end comments, and
#                        python/throng_schema.py, from the table
#   make check-schema    fail when either checked-in file differs from what
#                        the table writes, or when the Python mirror's
#                        ctypes layout differs from the C compiler's
#
# tools/schema_gen.c reads only the table, never throng.h, so it builds
# while the header lacks a newly added field. tools/schema_layout.c prints
# the C layout (sizes and offsets) of every struct of the schema.

SCHEMA_GEN := $(BUILD)/schema-gen
SCHEMA_LAYOUT := $(BUILD)/schema-layout
SCHEMA_DEPS := src/behaviour_schema.h src/schema_text.h

.PHONY: schema check-schema
$(SCHEMA_GEN): tools/schema_gen.c $(SCHEMA_DEPS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 $(WARNINGS) -Isrc -o $@ tools/schema_gen.c -lm

$(SCHEMA_LAYOUT): tools/schema_layout.c $(SCHEMA_DEPS) include/throng.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 $(WARNINGS) -Iinclude -Isrc -o $@ tools/schema_layout.c

schema: $(SCHEMA_GEN)
	$(SCHEMA_GEN) header include/throng.h > $(BUILD)/throng.h.schema
	$(SCHEMA_GEN) python > $(BUILD)/throng_schema.py
	@cmp -s $(BUILD)/throng.h.schema include/throng.h || cp $(BUILD)/throng.h.schema include/throng.h
	@cmp -s $(BUILD)/throng_schema.py python/throng_schema.py || cp $(BUILD)/throng_schema.py python/throng_schema.py
	@echo "schema: include/throng.h and python/throng_schema.py follow src/behaviour_schema.h"

check-schema: $(SCHEMA_GEN) $(SCHEMA_LAYOUT)
	@$(SCHEMA_GEN) header include/throng.h > $(BUILD)/throng.h.schema
	@$(SCHEMA_GEN) python > $(BUILD)/throng_schema.py
	@set -e; for f in include/throng.h:throng.h.schema python/throng_schema.py:throng_schema.py; do \
	  if ! diff -u $${f%%:*} $(BUILD)/$${f#*:}; then \
	    echo "check-schema: $${f%%:*} differs from what src/behaviour_schema.h writes; run make schema" >&2; exit 1; fi; \
	done
	@$(SCHEMA_LAYOUT) > $(BUILD)/schema-layout.txt
	@$(PYTHON) python/tests/schema_layout.py $(BUILD)/schema-layout.txt
	@echo "check-schema: the header and the Python mirror follow the schema; ctypes layout = C layout"

# ---------------------------------------------------------------------------
# The distributed world (make MPI=1): libthrong_mpi and include/throng_mpi.h,
# on MPICH (Debian's mpich and libmpich-dev), beside the core library, which
# stays free of MPI. Its tests run under mpiexec on 1 to 4 ranks
# (mpi/run_tests.sh), its bench weak and strong scaling.
#
#   make MPI=1                 libthrong_mpi.a, throng-mpi-tests, throng-mpi-bench
#   make MPI=1 mpi-test        the distributed tests, hashes against one process
#   make MPI=1 mpi-bench       the scaling runs (BENCH_AGENTS per rank, 1 2 4 ranks)
#   make MPI=1 mpi-layer-cost  the layer's own costs per ghost and per agent,
#                              its old way beside its new (one process, no MPI)
MPI ?= 0
MPI_PKG ?= mpich
MPIEXEC ?= mpiexec
MPI_LIB := $(BUILD)/libthrong_mpi.a
MPI_TESTS := $(BUILD)/throng-mpi-tests
MPI_BENCH := $(BUILD)/throng-mpi-bench
.PHONY: mpi mpi-test mpi-bench
ifeq ($(MPI),1)
# The MPI headers as system headers: the house warnings are for our code.
MPI_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(MPI_PKG) 2>/dev/null))
MPI_LIBS := $(shell pkg-config --libs $(MPI_PKG) 2>/dev/null)
all: $(MPI_LIB) $(MPI_TESTS) $(MPI_BENCH)
mpi: $(MPI_LIB) $(MPI_TESTS) $(MPI_BENCH)

$(BUILD)/obj/mpi/%.o: mpi/%.c include/throng_mpi.h | $(DEPS_OK)
	@mkdir -p $(@D)
	@pkg-config --exists $(MPI_PKG) || { echo "make MPI=1: $(MPI_PKG) is missing (Debian: mpich libmpich-dev)" >&2; exit 1; }
	$(CC) $(CPPFLAGS) $(CFLAGS) $(MPI_CFLAGS) -c $< -o $@

# Their dependency files, so a changed header (throng.h's agent state,
# say) rebuilds them.
-include $(BUILD)/obj/mpi/throng_mpi.d $(BUILD)/obj/mpi/test_mpi.d \
	$(BUILD)/obj/mpi/mpi_bench.d $(BUILD)/obj/mpi/layer_cost.d

$(MPI_LIB): $(BUILD)/obj/mpi/throng_mpi.o
	@rm -f $@
	ar rcs $@ $^

$(MPI_TESTS): $(BUILD)/obj/mpi/test_mpi.o $(SCEN_OBJ) $(MPI_LIB) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/obj/mpi/test_mpi.o $(SCEN_OBJ) $(MPI_LIB) $(STATIC) $(MPI_LIBS) $(LDLIBS)

# The distributed bench reads throng-bench's options and writes its
# table, JSON, CSV and chart: the bench's modules but its main().
MPI_BENCH_OBJ := $(BUILD)/obj/mpi/mpi_bench.o \
	$(filter-out $(BUILD)/obj/bench/bench.o,$(BENCH_OBJ)) $(BENCH_COMMON_OBJ) \
	$(SCEN_OBJ)
$(MPI_BENCH): $(MPI_BENCH_OBJ) $(MPI_LIB) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(MPI_BENCH_OBJ) $(MPI_LIB) $(STATIC) $(MPI_LIBS) $(LDLIBS)

# Every distributed test on 1, 2, 3 and 4 ranks, 1 and 2 threads, each
# under a timeout, against the single-process hashes.
mpi-test: $(MPI_TESTS) $(MPI_BENCH)
	MPIEXEC="$(MPIEXEC)" BENCH=$(MPI_BENCH) sh mpi/run_tests.sh $(MPI_TESTS)

MPI_BENCH_AGENTS ?= 20000
mpi-bench: $(MPI_BENCH)
	MPIEXEC="$(MPIEXEC)" AGENTS=$(MPI_BENCH_AGENTS) sh mpi/run_bench.sh $(MPI_BENCH)

# t_g and t_s of mpi/DISTRIBUTED.md: a ghost's export, import and removal
# and an owned agent's border scan, one call per agent against the bulk
# calls and the column pass, in one process (no MPI; not a CI gate).
LAYER_COST := $(BUILD)/throng-layer-cost
$(LAYER_COST): $(BUILD)/obj/mpi/layer_cost.o $(SCEN_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/obj/mpi/layer_cost.o $(SCEN_OBJ) $(STATIC) $(LDLIBS)
.PHONY: mpi-layer-cost
mpi-layer-cost: $(LAYER_COST)
	$(LAYER_COST) $(MPI_BENCH_AGENTS) 60
else
mpi mpi-test mpi-bench mpi-layer-cost:
	@echo "the distributed world builds with MPI=1: make MPI=1 $@" >&2; exit 1
endif

# ------------------------------------------------------------------------
# The browser page: a WebAssembly build with emscripten
# ------------------------------------------------------------------------
#
#   make web             build the page into build/web/site/ (index.html,
#                        page.js, throng.js and throng.wasm): the library,
#                        the scenario table and examples/web/throng_web.c
#                        compiled by emcc without OpenMP (one thread)
#   make web-test        build it, serve it on 127.0.0.1 and drive
#                        Debian's chromium headless through playwright-core
#                        (tests/web/web_test.js): the agents move between
#                        two drawn frames, a control changes the run, and
#                        each scene's state hash after WEB_TEST_STEPS steps
#                        in the browser, on every kernel path the module
#                        has, equals the native build's (throng-bench,
#                        run afresh); a screenshot goes to build/web/
#   make web-bench       step times of the same scenes in the browser and
#                        natively, one thread (WEB_BENCH repeats,
#                        WEB_TEST_AGENTS agents)
#   make web-serve       serve build/web/site/ on 127.0.0.1:WEB_PORT for a
#                        browser of your own (examples/web/serve.js, node)
#
# SIMD=scalar builds a module without WebAssembly SIMD into
# build/web-scalar/ (for browsers without it). Packages (Debian):
# emscripten (emcc, its prebuilt system libraries and clang 14), chromium
# and npm for the test, which installs the pinned playwright-core of
# tests/web/package-lock.json into tests/web/node_modules (npm ci).

WEB_CC ?= emcc
WEB_BUILD := build/web$(if $(filter scalar,$(SIMD)),-scalar)
WEB_PORT ?= 8000
WEB_TEST_STEPS ?= 200
# Debian's emcc runs its JavaScript optimiser with the system node, which
# finds Debian's acorn (node-acorn) in /usr/share/nodejs only when node is
# Debian's own; another node (a newer one from elsewhere) is told where.
WEB_ENV := NODE_PATH=/usr/share/nodejs$${NODE_PATH:+:$$NODE_PATH}

WEB_SITE := $(BUILD)/site
WEB_OBJ := $(BUILD)/obj/examples/web/throng_web.o $(BUILD)/obj/bench/json.o \
	$(BUILD)/obj/tools/render_frame.o $(SCEN_OBJ)
WEB_EXPORTS := _web_scenes,_web_build,_web_set,_web_step,_web_columns,_web_state,_web_error
# One module the page instantiates with createThrong(); memory grows with
# the crowd; no file system (nothing is read or written). binaryen (the
# optimiser emcc runs on the module) inlines a function with one caller
# whatever its size; the neighbour kernel's walks, kept apart on purpose
# (steer_flock_simd.inc, WALK), stay apart above 1,000 instructions.
WEB_LDFLAGS := -O2 -sMODULARIZE=1 -sEXPORT_NAME=createThrong \
	-sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=web -sFILESYSTEM=0 \
	-sEXPORTED_FUNCTIONS=$(WEB_EXPORTS) -sEXPORTED_RUNTIME_METHODS=cwrap \
	-sBINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=1000
WEB_PAGE := $(WEB_SITE)/index.html $(WEB_SITE)/page.js

.PHONY: web web-site web-test web-bench web-serve
web:
	@command -v $(WEB_CC) >/dev/null || { echo "web: $(WEB_CC) is missing (Debian: emscripten)" >&2; exit 1; }
	@$(WEB_ENV) $(MAKE) --no-print-directory CC=$(WEB_CC) AR=emar OPENMP=0 SQLITE=0 \
	  BUILD=$(WEB_BUILD) web-site
	@echo "web: $(WEB_BUILD)/site/index.html (make web-serve, then open http://127.0.0.1:$(WEB_PORT)/)"

# The SIMD128 neighbour kernel takes most of the build (some 40 s of its
# 80 s of compiling, one object): named first so that make -j2 starts it
# first and compiles the rest beside it.
WEB_FIRST := $(filter %/steer_flock_wasm.o,$(LIB_OBJ))
web-site: $(WEB_FIRST) $(WEB_SITE)/throng.js $(WEB_PAGE)

$(WEB_SITE)/throng.js: $(WEB_OBJ) $(STATIC) Makefile
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(WEB_LDFLAGS) -o $@ $(WEB_OBJ) $(STATIC) $(LDLIBS)

$(WEB_SITE)/%: examples/web/%
	@mkdir -p $(@D)
	cp $< $@

# The paths the test runs the scenes on: SIMD128 and scalar, or scalar
# alone in a module built without SIMD128.
WEB_TEST_PATHS ?= $(if $(filter scalar,$(SIMD)),scalar,wasm scalar)
WEB_NPM_OK := $(WEB_BUILD)/.npm-ok
CHROMIUM ?= /usr/bin/chromium

# playwright-core as tests/web/package-lock.json pins it (npm ci; it
# brings no browser of its own: the test drives Debian's chromium).
$(WEB_NPM_OK): tests/web/package.json tests/web/package-lock.json
	@command -v npm >/dev/null || { echo "web-test: npm is missing (Debian: npm)" >&2; exit 1; }
	cd tests/web && npm ci --no-audit --no-fund --loglevel=error
	@mkdir -p $(@D)
	@touch $@

web-test: web $(BENCH) $(WEB_NPM_OK)
	@[ -x $(CHROMIUM) ] || { echo "web-test: $(CHROMIUM) is missing (Debian: chromium)" >&2; exit 1; }
	WEB_SITE=$(WEB_BUILD)/site BENCH=$(BENCH) CHROMIUM=$(CHROMIUM) \
	  WEB_TEST_PATHS='$(WEB_TEST_PATHS)' WEB_TEST_STEPS=$(WEB_TEST_STEPS) \
	  WEB_TEST_SCREENSHOT=$(WEB_BUILD)/screenshot.png node tests/web/web_test.js

# Step times, not checks: each scene natively (widest path and scalar)
# and in the browser (each path), WEB_BENCH repeats of WEB_TEST_STEPS
# steps, at WEB_TEST_AGENTS agents (each scene's own when empty).
WEB_BENCH ?= 3
WEB_TEST_AGENTS ?=
# The native paths timed beside the browser's.
WEB_BENCH_NATIVE ?= auto scalar
web-bench: web $(BENCH) $(WEB_NPM_OK)
	@[ -x $(CHROMIUM) ] || { echo "web-bench: $(CHROMIUM) is missing (Debian: chromium)" >&2; exit 1; }
	WEB_SITE=$(WEB_BUILD)/site BENCH=$(BENCH) CHROMIUM=$(CHROMIUM) \
	  WEB_TEST_PATHS='$(WEB_TEST_PATHS)' WEB_TEST_STEPS=$(WEB_TEST_STEPS) \
	  WEB_TEST_AGENTS=$(WEB_TEST_AGENTS) WEB_BENCH=$(WEB_BENCH) \
	  WEB_BENCH_NATIVE='$(WEB_BENCH_NATIVE)' \
	  WEB_TEST_TIMEOUT=3600 node tests/web/web_test.js

# The page's own server (examples/web/serve.js, node's modules only):
# cross-origin isolated, so the page's step times count in microseconds.
web-serve: web
	node examples/web/serve.js $(WEB_BUILD)/site $(WEB_PORT)

# The page's C side builds without a warning, as the tests do.
$(BUILD)/obj/examples/web/throng_web.o: CFLAGS += $(TEST_WERROR)

-include $(BUILD)/obj/examples/web/throng_web.d
