# blkpeak — build, test, install.
#
#   make              build build/blkpeak
#   make check        install missing Debian packages, build, run every test
#   make demo         install missing packages, build, run the main job on
#                     workloads/photo-edit (WORKLOAD=NAME: another recipe);
#                     SUITE=1: the reviewer's job instead (a suite on five
#                     configurations and its leaderboard, scripts/demo-suite.sh)
#   make reproduce    the seeds' published tables on emulated disks and
#                     virtual arrays, written to docs/reproductions.md
#                     (minutes; as root; scripts/reproduce.sh --help)
#   make fuzz         run every fuzz target for FUZZ_SECONDS (60) each
#   make install      binary, man pages, bash completion, workload recipes;
#   make uninstall    PREFIX=/usr/local DESTDIR= honoured by both (also
#                     libbpt: library, bpt.h, libbpt.pc; LIBDIR, INCLUDEDIR)
#   make python       the Python module into build/python/ (docs/python.md)
#   make deb          Debian packages into build/deb/ (scripts/make-deb.sh)
#   make V=1          show full commands
#
# Every object goes to build/, never into the source folders. Sources are
# found by wildcard: a new .c file in a folder is built without editing
# this file. Header dependencies come from -MMD -MP.

BUILD    ?= build
WORKLOAD ?= photo-edit
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
FUZZ_SECONDS ?= 60

ifeq ($(V),1)
Q :=
else
Q := @
endif

ARCH     := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -MMD -MP
CPPFLAGS += -D_GNU_SOURCE
LDLIBS   += -lbpf -lelf -lz -lbz2 -llzma -laio -luring -lzstd -lsqlite3 -lpthread -lm
# libpq (analyze's PostgreSQL store) where pkg-config says, else pg_config.
PQ_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I$$(pg_config --includedir 2>/dev/null))
PQ_LIBS   := $(shell pkg-config --libs libpq 2>/dev/null || echo -L$$(pg_config --libdir 2>/dev/null) -lpq)
LDLIBS   += $(PQ_LIBS)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -I$(BUILD)/bpf -Ibpf

SRC_DIRS  := common lib cli generate capture replay analyze measure formats suite transform
# A part may keep rooms one level down (replay/engine/, replay/array/, ...).
SRCS      := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c $(d)/*/*.c))
# The SQLite schema, embedded as a C string for analyze/db.c.
SCHEMA_C  := $(BUILD)/gen/schema_sql.c
# The same for PostgreSQL (analyze/pg.c).
SCHEMA_PG_C := $(BUILD)/gen/schema_pg_sql.c
OBJS      := $(SRCS:%.c=$(BUILD)/%.o) $(SCHEMA_C:.c=.o) $(SCHEMA_PG_C:.c=.o)
MAIN_OBJ  := $(BUILD)/cli/main.o
LIB_OBJS  := $(filter-out $(MAIN_OBJ),$(OBJS))

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(BPF_SRCS:%.bpf.c=$(BUILD)/%.bpf.o)
SKELS     := $(BPF_SRCS:%.bpf.c=$(BUILD)/%.skel.h)
VMLINUX_H := $(BUILD)/bpf/vmlinux.h

TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o)
TEST_BIN  := $(BUILD)/tests/unit_tests
BIN       := $(BUILD)/blkpeak

# Man pages: docs/man/NAME.1.scd (scdoc source) -> build/man/NAME.1 (roff).
MAN_SRCS  := $(wildcard docs/man/*.1.scd)
MAN_PAGES := $(MAN_SRCS:docs/man/%.scd=$(BUILD)/man/%)
SCDOC    ?= scdoc
# The pages carry the date of the last commit, not of the build, so that
# two builds of one commit are byte for byte the same.
MAN_DATE := $(shell git log -1 --format=%ct 2>/dev/null)
COMPLETION := scripts/blkpeak-completion.bash
WORKLOADS  := $(wildcard workloads/*)

BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR     ?= $(PREFIX)/share/blkpeak
# systemd looks for units in /usr/local/lib/systemd/system as well as in
# /usr/lib/systemd/system, so both PREFIXes work.
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR  ?= $(PREFIX)/etc
UNITS       := blkpeak-boot.service blkpeak-boot-done.service

# The BPF object and skeleton are intermediate files of a chain of pattern
# rules: keep them, or make deletes them and rebuilds every time.
.SECONDARY:

.PHONY: test-deps all check test unit e2e demo reproduce fuzz fuzz-build install uninstall clean deps bench man

all: $(BIN) man

man: $(MAN_PAGES)

# ----------------------------------------------------------------- libbpt
# The trace library for other programs (issue 32; docs/development.md,
# "libbpt"): lib/ and the foreign-format readers of formats/ behind the
# same reader calls, with the few common/ files they use, as
#   build/libbpt.so.1  only bpt.h's declarations exported (objects built
#                      again with -fPIC -fvisibility=hidden in build/pic/;
#                      libbpt/init.c registers the foreign readers)
#   build/libbpt.a     the same objects as blkpeak's, which links it
# and, installed, libbpt.pc (pkg-config, made by install-libbpt for its
# PREFIX and LIBDIR)
# and the Python module over it (python/: build/python/blkpeak/).
# A common/ file the readers come to use must be added to LIBBPT_COMMON:
# the shared library is linked with --no-undefined, so the build says so.
LIBBPT_SOVERSION := 1
LIBBPT_VERSION   := $(LIBBPT_SOVERSION).0.0
LIBBPT_COMMON    := common/error.c common/filekind.c common/fmt.c common/loopback.c common/outfile.c \
		    common/sigunlink.c common/strtab.c
LIBBPT_SRCS      := $(wildcard lib/*.c) $(filter-out formats/cmd_convert.c,$(wildcard formats/*.c)) \
		    $(LIBBPT_COMMON)
LIBBPT_A_OBJS    := $(LIBBPT_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/libbpt/init.o
LIBBPT_PIC_OBJS  := $(LIBBPT_SRCS:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/libbpt/init.o
LIBBPT_LIBS      := -lzstd -lz -lbz2 -llzma -lm
LIBBPT_SO        := $(BUILD)/libbpt.so.$(LIBBPT_VERSION)
LIBBPT_A         := $(BUILD)/libbpt.a
BIN_OBJS         := $(filter-out $(LIBBPT_A_OBJS),$(OBJS))
INC_libbpt       := -Ilib -Icommon
LIBDIR           ?= $(PREFIX)/lib
INCLUDEDIR       ?= $(PREFIX)/include
PKGCONFIGDIR     ?= $(LIBDIR)/pkgconfig

all: libbpt

.PHONY: libbpt python install-libbpt uninstall-libbpt install-python uninstall-python deb

libbpt: $(LIBBPT_SO) $(BUILD)/libbpt.so $(LIBBPT_A)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC.PIC  $<"
	$(Q)$(CC) $(CPPFLAGS) $(INC_$(firstword $(subst /, ,$*))) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(LIBBPT_SO): $(LIBBPT_PIC_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libbpt.so.$(LIBBPT_SOVERSION) -Wl,--no-undefined \
		-o $@ $^ $(LIBBPT_LIBS)
	$(Q)ln -sf $(notdir $@) $(BUILD)/libbpt.so.$(LIBBPT_SOVERSION)

$(BUILD)/libbpt.so: $(LIBBPT_SO)
	$(Q)ln -sf libbpt.so.$(LIBBPT_SOVERSION) $@

$(LIBBPT_A): $(LIBBPT_A_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

# Installs exactly what uninstall-libbpt removes (make install and make
# uninstall run them): the shared library and its links, the archive, the
# two headers, the pkg-config file.
install-libbpt: libbpt
	install -d "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(PKGCONFIGDIR)"
	install -m 0644 $(LIBBPT_SO) $(LIBBPT_A) "$(DESTDIR)$(LIBDIR)/"
	ln -sf $(notdir $(LIBBPT_SO)) "$(DESTDIR)$(LIBDIR)/libbpt.so.$(LIBBPT_SOVERSION)"
	ln -sf libbpt.so.$(LIBBPT_SOVERSION) "$(DESTDIR)$(LIBDIR)/libbpt.so"
	@# bpt.h without the rest of common/error.h (bpt_error_set is not libbpt's)
	sed 's|^#include "error.h"$$|#include "bpt_error.h"|' lib/bpt.h > "$(DESTDIR)$(INCLUDEDIR)/bpt.h.tmp"
	chmod 0644 "$(DESTDIR)$(INCLUDEDIR)/bpt.h.tmp" && mv "$(DESTDIR)$(INCLUDEDIR)/bpt.h.tmp" "$(DESTDIR)$(INCLUDEDIR)/bpt.h"
	grep -q '^#include "bpt_error.h"$$' "$(DESTDIR)$(INCLUDEDIR)/bpt.h"
	install -m 0644 common/bpt_error.h "$(DESTDIR)$(INCLUDEDIR)/"
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(LIBBPT_VERSION)|' -e 's|@LIBS@|$(LIBBPT_LIBS)|' libbpt/libbpt.pc.in \
		> "$(DESTDIR)$(PKGCONFIGDIR)/libbpt.pc.tmp"
	chmod 0644 "$(DESTDIR)$(PKGCONFIGDIR)/libbpt.pc.tmp" && mv "$(DESTDIR)$(PKGCONFIGDIR)/libbpt.pc.tmp" "$(DESTDIR)$(PKGCONFIGDIR)/libbpt.pc"

uninstall-libbpt:
	rm -f "$(DESTDIR)$(LIBDIR)/$(notdir $(LIBBPT_SO))" "$(DESTDIR)$(LIBDIR)/libbpt.so.$(LIBBPT_SOVERSION)" \
		"$(DESTDIR)$(LIBDIR)/libbpt.so" "$(DESTDIR)$(LIBDIR)/libbpt.a" \
		"$(DESTDIR)$(INCLUDEDIR)/bpt.h" "$(DESTDIR)$(INCLUDEDIR)/bpt_error.h" \
		"$(DESTDIR)$(PKGCONFIGDIR)/libbpt.pc"

install: install-libbpt
uninstall: uninstall-libbpt

# The Python module (python/blkpeak/, docs/python.md): the C extension
# _blkpeak over libbpt.so.1 with numpy's C API, next to the package's
# Python files in build/python/blkpeak/ (PYTHONPATH=build/python). In the
# tree the extension finds the library by its RPATH ($ORIGIN/../..);
# packages set PY_RPATH= and install the library where ld.so looks. It is
# for Debian's python3 (and its numpy), not another one first in PATH.
PYTHON      ?= /usr/bin/python3
PY_SUFFIX   := $(shell $(PYTHON)-config --extension-suffix 2>/dev/null)
PY_CFLAGS   := $(shell $(PYTHON)-config --includes 2>/dev/null) \
	       -I$(shell $(PYTHON) -c 'import numpy; print(numpy.get_include())' 2>/dev/null)
PY_RPATH    ?= -Wl,-rpath,'$$ORIGIN/../..'
PY_EXT      := $(BUILD)/python/blkpeak/_blkpeak$(PY_SUFFIX)
PY_FILES    := $(wildcard python/blkpeak/*.py)
PY_OUT      := $(PY_FILES:python/%=$(BUILD)/python/%)
PYTHONDIR   ?= $(PREFIX)/lib/python3/dist-packages

python: $(PY_EXT) $(PY_OUT)

$(BUILD)/python/_blkpeak.o: python/_blkpeak.c lib/bpt.h
	@mkdir -p $(dir $@)
	@echo "  CC.PY   $<"
	$(Q)$(CC) $(CPPFLAGS) $(INC_libbpt) $(PY_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(PY_EXT): $(BUILD)/python/_blkpeak.o $(LIBBPT_SO) $(BUILD)/libbpt.so
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -shared -o $@ $< -L$(BUILD) -lbpt $(PY_RPATH)

$(BUILD)/python/blkpeak/%.py: python/blkpeak/%.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

install-python: python
	install -d "$(DESTDIR)$(PYTHONDIR)/blkpeak"
	install -m 0644 $(PY_FILES) "$(DESTDIR)$(PYTHONDIR)/blkpeak/"
	install -m 0644 $(PY_EXT) "$(DESTDIR)$(PYTHONDIR)/blkpeak/"

uninstall-python:
	rm -f $(foreach f,$(PY_FILES) $(PY_EXT),"$(DESTDIR)$(PYTHONDIR)/blkpeak/$(notdir $(f))")
	rmdir "$(DESTDIR)$(PYTHONDIR)/blkpeak" 2>/dev/null || true

# Debian packages (debian/): blkpeak, libbpt1, libbpt-dev,
# python3-blkpeak, built offline into build/deb/ and checked by lintian.
deb:
	$(Q)scripts/install-deps.sh --deb
	$(Q)scripts/make-deb.sh $(abspath $(BUILD))/deb
# ------------------------------------------------------------- end libbpt

$(BUILD)/man/%.1: docs/man/%.1.scd
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $@"
	$(Q)SOURCE_DATE_EPOCH=$(MAN_DATE) $(SCDOC) < $< > $@.tmp && mv $@.tmp $@

# Pages that list a table the code keeps (convert's format registry,
# replay's engines and disk presets): the line @LIST@ of the source is
# made from `blkpeak COMMAND --list` (scripts/man-list.awk), so a new
# row in the code reaches the page by itself. MAN_BLKPEAK: the binary
# that prints them (tests/e2e/06-man-pages.sh builds the pages elsewhere
# with the tree's own).
MAN_BLKPEAK ?= $(BIN)
MAN_LISTED  := $(BUILD)/man/blkpeak-convert.1 $(BUILD)/man/blkpeak-replay.1
$(MAN_LISTED): $(BUILD)/man/%.1: docs/man/%.1.scd $(MAN_BLKPEAK) scripts/man-list.awk
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $@"
	$(Q)$(MAN_BLKPEAK) $(patsubst blkpeak-%,%,$*) --list > $@.list && awk -f scripts/man-list.awk $@.list > $@.scd && \
	  grep -qx '@LIST@' $< && sed -e '/^@LIST@$$/{r $@.scd' -e 'd;}' $< | \
	  SOURCE_DATE_EPOCH=$(MAN_DATE) $(SCDOC) > $@.tmp && mv $@.tmp $@ && rm -f $@.list $@.scd

$(BIN): $(BIN_OBJS) $(LIBBPT_A)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The walls between parts (docs/development.md, "Layout"): each folder sees only
# the headers it may use, so a forbidden include fails to compile. A
# quoted include finds its own folder's headers first; the lists below add
# the shared layers; replay/ also sees its own top (-iquote: its sched.h must
# not hide the system's <sched.h>), so a room (replay/engine/)
# reaches the scheduler's headers and the others name a room's header by it
# ("engine/engine.h"). Parts meet only through lib/ (the trace format) and
# common/ (what every part shares); common/ sees no part.
INC_common   := -Icommon
INC_lib      := -Icommon
INC_cli      := -Ilib -Icommon
INC_generate := -Ilib -Icommon
INC_replay   := -Ilib -Icommon -Itransform -iquote replay
INC_analyze  := -Ilib -Icommon $(PQ_CFLAGS)
INC_measure  := -Ilib -Icommon
INC_suite    := -Ilib -Icommon
INC_formats  := -Ilib -Icommon -Itransform
INC_capture  := -Ilib -Icommon -Ibpf -I$(BUILD)/bpf
INC_bench    := -Ilib -Icommon
# transform/ (what-if transforms of records) is a layer over lib/ that replay
# and convert share; no other part sees it.
INC_transform := -Ilib -Icommon
# Unit tests reach into every part (by relative path for the parts whose
# header names could clash).
INC_tests    := -Ilib -Icommon -Itransform -Icli -Igenerate -Ianalyze -Ibpf -Iformats -Isuite -iquote replay $(PQ_CFLAGS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(INC_$(firstword $(subst /, ,$*))) $(CFLAGS) -c -o $@ $<

# Only capture's objects wait for the BPF skeletons (and so for vmlinux.h
# and the running kernel's BTF): the other parts build without them.
# Order-only: after the first build, -MMD records the real dependencies.
$(filter $(BUILD)/capture/%,$(OBJS)): | $(SKELS)

$(SCHEMA_C): schemas/analyze.sql
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q){ echo '/* Generated from schemas/analyze.sql by the Makefile: do not edit. */'; \
	  echo 'const char analyze_schema_sql[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$$/\\n"/' $<; echo ';'; } > $@.tmp && mv $@.tmp $@

$(SCHEMA_PG_C): schemas/analyze-pg.sql
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q){ echo '/* Generated from schemas/analyze-pg.sql by the Makefile: do not edit. */'; \
	  echo 'const char analyze_schema_pg_sql[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$$/\\n"/' $<; echo ';'; } > $@.tmp && mv $@.tmp $@

$(SCHEMA_C:.c=.o) $(SCHEMA_PG_C:.c=.o): $(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(VMLINUX_H):
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H)
	@mkdir -p $(dir $@)
	@echo "  BPF     $<"
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(TEST_BIN): $(TEST_OBJS) $(LIB_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

# The targets a user types first install what is missing, then re-enter
# make, so the build below sees the packages.
deps:
	$(Q)scripts/install-deps.sh

test-deps:
	$(Q)scripts/install-deps.sh --tests

check: test-deps
	$(Q)$(MAKE) --no-print-directory test

test: unit e2e

unit: $(TEST_BIN) $(BIN)
	$(Q)BLKPEAK=$(abspath $(BIN)) $(TEST_BIN) --jobs 2

e2e: $(BIN)
	$(Q)BLKPEAK=$(abspath $(BIN)) tests/e2e/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
ifeq ($(SUITE),1)
	$(Q)BLKPEAK=$(abspath $(BIN)) scripts/demo-suite.sh
else
	$(Q)BLKPEAK=$(abspath $(BIN)) WORKLOAD=$(WORKLOAD) scripts/demo.sh
endif

reproduce: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BLKPEAK=$(abspath $(BIN)) scripts/reproduce.sh

# Benchmark programs: bench/NAME.c -> build/bench/NAME, with the library.
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
$(BENCH_BINS): $(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Programs that do nothing on capture's tracepoints: the floor
# bench-capture.sh measures beside capture (bench/bpf/empty_tp.bpf.c).
$(BUILD)/bench/empty_tp.bpf.o: bench/bpf/empty_tp.bpf.c $(VMLINUX_H)
	@mkdir -p $(dir $@)
	@echo "  BPF     $<"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

bench: $(BIN) $(BENCH_BINS) $(BUILD)/bench/empty_tp.bpf.o
	$(Q)BLKPEAK=$(abspath $(BIN)) bench/run.sh

# Fuzz targets (docs/development.md, "Fuzzing"): tests/fuzz/fuzz_NAME.c ->
# build/tests/fuzz_NAME, found by wildcard like every other source. The
# parts they reach are rebuilt with clang and the sanitizers into
# build/fuzz/ and gathered in one archive, so a target links only the
# objects it uses. libFuzzer needs clang; UBSan findings abort (no
# recovery), so the fuzzer stops on them as on a crash.
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/%)
FUZZ_FLAGS   := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
FUZZ_PARTS   := common lib formats replay generate measure analyze suite transform
FUZZ_OBJS    := $(foreach d,$(FUZZ_PARTS),$(patsubst %.c,$(BUILD)/fuzz/%.o,$(wildcard $(d)/*.c $(d)/*/*.c))) \
		$(BUILD)/fuzz/gen/schema_sql.o $(BUILD)/fuzz/gen/schema_pg_sql.o
FUZZ_ARCHIVE := $(BUILD)/fuzz/libblkpeak.a
FUZZ_LDLIBS  := -lz -lbz2 -llzma -laio -luring -lzstd -lsqlite3 -lpthread -lm $(PQ_LIBS)

$(BUILD)/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -std=gnu11 -MMD -MP $(CPPFLAGS) \
		$(INC_$(firstword $(subst /, ,$*))) -c -o $@ $<

$(BUILD)/fuzz/gen/schema_sql.o $(BUILD)/fuzz/gen/schema_pg_sql.o: $(BUILD)/fuzz/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O1 -c -o $@ $<

$(FUZZ_ARCHIVE): $(FUZZ_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_BINS): $(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_ARCHIVE)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer -std=gnu11 $(CPPFLAGS) $(INC_tests) \
		-iquote replay -Imeasure -o $@ $< $(FUZZ_ARCHIVE) $(FUZZ_LDLIBS)

fuzz-build: $(FUZZ_BINS)

# Every target (tests/fuzz/run.sh lists them, one per foreign format
# from the registry) for FUZZ_SECONDS each, new inputs kept in
# build/fuzz-corpus/NAME, a crash written to build/fuzz-crash-NAME-*.
fuzz: $(FUZZ_BINS)
	$(Q)FUZZ_BUILD=$(abspath $(BUILD)) tests/fuzz/run.sh $(FUZZ_SECONDS)

# Installs exactly what uninstall removes: the binary, one man page per
# command, the bash completion, the workload recipes (which find their
# common.sh next to themselves, so they run from DATADIR as from the tree),
# the blkpeak-boot units (disabled: `systemctl daemon-reload`, then
# `systemctl enable blkpeak-boot.service` records every boot) and their
# settings, SYSCONFDIR/blkpeak/boot.conf, unless that exists already.
install: $(BIN) $(MAN_PAGES)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" \
		"$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(DATADIR)/workloads"
	install -m 0755 $(BIN) "$(DESTDIR)$(BINDIR)/blkpeak"
	install -m 0644 $(MAN_PAGES) "$(DESTDIR)$(MANDIR)/man1/"
	install -m 0644 $(COMPLETION) "$(DESTDIR)$(BASHCOMPDIR)/blkpeak"
	install -m 0644 workloads/common.sh "$(DESTDIR)$(DATADIR)/workloads/"
	install -m 0755 $(filter-out workloads/common.sh,$(WORKLOADS)) \
		"$(DESTDIR)$(DATADIR)/workloads/"
	install -d "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSCONFDIR)/blkpeak"
	for u in $(UNITS); do \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' systemd/$$u.in \
			> "$(DESTDIR)$(UNITDIR)/$$u.tmp" && chmod 0644 "$(DESTDIR)$(UNITDIR)/$$u.tmp" && \
		mv "$(DESTDIR)$(UNITDIR)/$$u.tmp" "$(DESTDIR)$(UNITDIR)/$$u" || exit 1; \
	done
	@# the settings are the administrator's once installed: never replaced
	[ -e "$(DESTDIR)$(SYSCONFDIR)/blkpeak/boot.conf" ] || \
		install -m 0644 systemd/blkpeak-boot.conf "$(DESTDIR)$(SYSCONFDIR)/blkpeak/boot.conf"

# Removes the files install wrote and the folders that are blkpeak's own;
# shared folders (bin, man1, completions, the unit folder) stay, and so do
# settings the administrator changed.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/blkpeak" "$(DESTDIR)$(BASHCOMPDIR)/blkpeak"
	rm -f $(foreach p,$(MAN_PAGES:$(BUILD)/man/%=%),"$(DESTDIR)$(MANDIR)/man1/$(p)")
	rm -f $(foreach w,$(WORKLOADS:workloads/%=%),"$(DESTDIR)$(DATADIR)/workloads/$(w)")
	rmdir "$(DESTDIR)$(DATADIR)/workloads" "$(DESTDIR)$(DATADIR)" 2>/dev/null || true
	rm -f $(foreach u,$(UNITS),"$(DESTDIR)$(UNITDIR)/$(u)")
	! cmp -s systemd/blkpeak-boot.conf "$(DESTDIR)$(SYSCONFDIR)/blkpeak/boot.conf" || \
		rm -f "$(DESTDIR)$(SYSCONFDIR)/blkpeak/boot.conf"
	rmdir "$(DESTDIR)$(SYSCONFDIR)/blkpeak" 2>/dev/null || true

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(LIBBPT_PIC_OBJS:.o=.d) $(BUILD)/python/_blkpeak.d $(TEST_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d) $(BPF_OBJS:.o=.d) $(BENCH_SRCS:%.c=$(BUILD)/%.d)

# make print-VAR prints a variable (tests/e2e/04-include-walls.sh reads
# the include paths of each part through it).
print-%:
	@echo '$($*)'
