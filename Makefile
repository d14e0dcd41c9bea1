# pcl build. `make` builds build/pcl, build/libpcl.so and build/libpcl.a.
# `make check` installs missing Debian deps, builds, and runs every test,
# plain and under ASan+UBSan, and the threaded unit tests under TSan.
# `make demo` runs pcl on a bundled workload.

VERSION := 0.1.0
PREFIX ?= /usr/local
BUILD ?= build
CC ?= cc
SANITIZE ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers -Wformat=2 \
	-Wno-format-nonliteral -Wno-format-truncation
# libtraceevent: tracepoint payloads printed with their print fmt, as perf does.
TEP_CFLAGS := $(shell pkg-config --cflags libtraceevent 2>/dev/null || echo -I/usr/include/traceevent)
TEP_LIBS := $(shell pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
BASE_CFLAGS := -std=gnu11 $(WARN) -g -fPIC -fvisibility=hidden -D_GNU_SOURCE \
	-DPCL_VERSION_STRING='"$(VERSION)"' -Iinclude -Ilib -I$(BUILD)/gen $(TEP_CFLAGS)
ifeq ($(SANITIZE),)
OPT := -O2
else
# SANITIZE=address,undefined or SANITIZE=thread (ThreadSanitizer cannot be
# combined with address). -fno-sanitize-recover makes UBSan reports fatal;
# TSan reports are made fatal at run time (TSAN_OPTIONS in tests/run.sh).
OPT := -O1 -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif
CFLAGS ?=
ALL_CFLAGS := $(BASE_CFLAGS) $(OPT) $(CFLAGS)
# libdw: DWARF unwinding of --call-graph dwarf samples (lib/symbol/unwind.c),
# libiberty: C++/Rust demangling (cplus_demangle); zstd: perf record -z files;
# protobuf-c: the pprof export's encoder (generated from lib/output/profile.proto
# by protoc-c); zlib: pprof files are gzipped; libtraceevent (TEP_LIBS above);
# libdw also: source lines and inline chains from DWARF (lib/symbol/srcline.c).
# capstone: the disassembly annotate shows (lib/symbol/disasm.c).
# bzip2: pcl archive writes perf archive's .tar.bz2 (cli/cmd-archive.c).
# libpfm4: the core PMU events of each CPU model by name, encoded into
# perf_event_attr (lib/event/pfm.c: metric events, named raw events).
LDLIBS := -lcapstone -ldw -lelf -lzstd -liberty -lprotobuf-c -lz -lbz2 $(TEP_LIBS) -lpfm -lm -lpthread
# ncurses (wide-character build, with its terminfo library): the
# interactive browser of pcl report and pcl top (cli/tui.c). The CLI's
# only: libpcl does not link it.
CLI_LDLIBS := -lncursesw -ltinfo
SAN_LDFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE))

LIB_SRCS := $(sort $(wildcard lib/*/*.c))
CLI_SRCS := $(sort $(wildcard cli/*.c))
# Code generated at build time: the protobuf-c encoder of pprof's profile.proto.
GEN_OBJS := $(BUILD)/obj/gen/profile.pb-c.o
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(GEN_OBJS)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
WORKLOAD_SRCS := $(sort $(filter-out tests/workloads/lib%.c,$(wildcard tests/workloads/*.c examples/*.c)))
WORKLOAD_BINS := $(patsubst %.c,$(BUILD)/%,$(WORKLOAD_SRCS))
# tests/workloads/libNAME.c: shared objects the workloads dlopen.
WORKLOAD_LIBS := $(patsubst %.c,$(BUILD)/%.so,$(sort $(wildcard tests/workloads/lib*.c)))
HEADERS := $(wildcard include/pcl/*.h) $(wildcard lib/*.h lib/*/*.h)

# Man pages: docs/man/NAME.1.scd, built with scdoc into $(BUILD)/man/NAME.1.
MAN_SRCS := $(sort $(wildcard docs/man/*.scd))
MAN_PAGES := $(MAN_SRCS:docs/man/%.scd=$(BUILD)/man/%)
# Installed files (make install / make uninstall; DESTDIR is the staging root).
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib
INCDIR := $(PREFIX)/include/pcl
MANDIR := $(PREFIX)/share/man/man1
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions

.PHONY: all lib cli man tests tests-tsan deps check check-plain check-san demo install uninstall clean \
	fuzz bench format abi-update abi-check

all: $(BUILD)/pcl $(BUILD)/libpcl.so $(BUILD)/libpcl.a $(BUILD)/libpcl.pc man

man: $(MAN_PAGES)

V ?= 0
ifeq ($(V),0)
Q := @
say = @printf '  %-6s %s\n' $(1) $(2);
else
Q :=
say =
endif

$(BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The command's own headers (struct input, ...) change its objects too.
$(CLI_OBJS): $(wildcard cli/*.h)

$(BUILD)/gen/profile.pb-c.c $(BUILD)/gen/profile.pb-c.h &: lib/output/profile.proto
	@mkdir -p $(BUILD)/gen
	$(call say,PROTOC,$@)protoc-c --proto_path=lib/output --c_out=$(BUILD)/gen profile.proto

# Generated code is not ours to keep warning-free: plain flags, still -O2 and PIC.
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -g -fPIC -fvisibility=hidden $(OPT) -I$(BUILD)/gen -c -o $@ $<

$(BUILD)/obj/lib/output/pprof.o: $(BUILD)/gen/profile.pb-c.h
# pcl trace's syscall names: the __NR_ macros of the kernel headers the
# compiler sees (Debian's linux-libc-dev), not a hand-kept table. One table
# per ABI a process on x86-64 can call the kernel with: x86-64 (unistd.h),
# i386 (unistd_32.h: int 0x80, sysenter) and x32 (unistd_x32.h, whose
# numbers are written (__X32_SYSCALL_BIT + N): N is kept).
define gen_syscalltbl
@mkdir -p $(BUILD)/gen
$(call say,GEN,$@)echo '#include <asm/$(1)>' | $(CC) -E -dM - | \
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \(([A-Z0-9_]* + \)\{0,1\}\([0-9][0-9]*\))\{0,1\}$$/[\3] = "\1",/p' \
	> $@.tmp && mv $@.tmp $@
endef
$(BUILD)/gen/syscalltbl.h: Makefile
	$(call gen_syscalltbl,unistd.h)
$(BUILD)/gen/syscalltbl_32.h: Makefile
	$(call gen_syscalltbl,unistd_32.h)
$(BUILD)/gen/syscalltbl_x32.h: Makefile
	$(call gen_syscalltbl,unistd_x32.h)
$(BUILD)/obj/cli/trace-syscalls.o: $(BUILD)/gen/syscalltbl.h $(BUILD)/gen/syscalltbl_32.h \
	$(BUILD)/gen/syscalltbl_x32.h
$(BUILD)/obj/lib/output/html.o: lib/output/html/page.css lib/output/html/page.js

$(BUILD)/libpcl.a: $(LIB_OBJS)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(BUILD)/libpcl.so: $(LIB_OBJS) lib/libpcl.map
	$(call say,LD,$@)$(CC) -shared -Wl,--version-script=lib/libpcl.map -Wl,-soname,libpcl.so.0 \
		$(SAN_LDFLAGS) -o $@ $(LIB_OBJS) $(LDLIBS)

# The binary links libpcl statically: no loader work at start-up.
$(BUILD)/pcl: $(CLI_OBJS) $(BUILD)/libpcl.a
	$(call say,LD,$@)$(CC) $(SAN_LDFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libpcl.a $(LDLIBS) $(CLI_LDLIBS)

# scdoc (scripts/deps.sh) turns each page's source into roff; it stops at
# the first error, and the page is not left half-written.
$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(dir $@)
	@command -v scdoc >/dev/null || { echo "scdoc not found: run scripts/deps.sh" >&2; exit 1; }
	$(call say,SCDOC,$@)scdoc < $< > $@.tmp && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }

$(BUILD)/libpcl.pc: libpcl.pc.in Makefile
	@mkdir -p $(BUILD)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# Unit tests (cmocka) link the static library so they can reach internals.
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libpcl.a $(HEADERS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) $(SAN_LDFLAGS) -o $@ $< $(BUILD)/libpcl.a -lcmocka $(LDLIBS)

# Workloads are profiled by the tests: frame pointers everywhere, no sanitizer.
$(BUILD)/tests/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -o $@ $< $(LDLIBS)

# The workload that uses libpcl itself (regions), linked with this build's libpcl.a.
$(BUILD)/tests/workloads/regions: tests/workloads/regions.c $(BUILD)/libpcl.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -Iinclude $(SAN_LDFLAGS) \
		-o $@ $< $(BUILD)/libpcl.a $(LDLIBS)

# hot built the way distributions build programs, without frame pointers:
# the DWARF unwinder's tests (tests/unit/test-unwind.c) record it with perf.
NOFP_WORKLOADS := $(BUILD)/tests/workloads/hot-nofp
$(BUILD)/tests/workloads/%-nofp: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer -fno-inline -o $@ $< $(LDLIBS)

# unwind built four ways for the DWARF unwinding tests (tests/e2e/t-unwind*.sh):
# without frame pointers (the -nofp rule), with stage2 inlined, and stripped
# with its debug file beside it, to be found by build id (the test puts it
# under a --symfs root) or by .gnu_debuglink.
# unwind-debugframe has no unwind tables at all: its functions' CFI is only
# in .debug_frame, which stripping moves to its debug file.
UNWIND_WORKLOADS := $(addprefix $(BUILD)/tests/workloads/unwind-,nofp inline stripped debuglink \
	debugframe)
$(BUILD)/tests/workloads/unwind-inline: tests/workloads/unwind.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer -DUNWIND_INLINE -o $@ $<
$(BUILD)/tests/workloads/unwind-debugframe: tests/workloads/unwind.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer -fno-inline \
		-fno-asynchronous-unwind-tables -fno-unwind-tables -o $@.full $< && \
		objcopy --only-keep-debug $@.full $@.debug && objcopy --strip-all $@.full $@ && rm -f $@.full
$(BUILD)/tests/workloads/unwind-stripped: $(BUILD)/tests/workloads/unwind-nofp
	$(call say,STRIP,$@)objcopy --only-keep-debug $< $@.debug && objcopy --strip-all $< $@
$(BUILD)/tests/workloads/unwind-debuglink: $(BUILD)/tests/workloads/unwind-nofp
	$(call say,STRIP,$@)objcopy --only-keep-debug $< $@.debug && objcopy --strip-all $< $@ && \
		objcopy --add-gnu-debuglink=$@.debug $@

$(BUILD)/tests/workloads/lib%.so: tests/workloads/lib%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -fPIC -shared -fno-omit-frame-pointer -fno-inline -o $@ $<

$(BUILD)/examples/%: examples/%.c $(BUILD)/libpcl.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -fno-omit-frame-pointer $(SAN_LDFLAGS) -o $@ $< $(BUILD)/libpcl.a $(LDLIBS)

tests: all $(UNIT_BINS) $(WORKLOAD_BINS) $(WORKLOAD_LIBS) $(NOFP_WORKLOADS) $(UNWIND_WORKLOADS)

# The unit tests whose matter is threads, for the ThreadSanitizer build
# (make check: BUILD=build/tsan SANITIZE=thread tests-tsan). Only these and
# libpcl.a are built there, to keep make check short.
TSAN_TESTS := test-region test-prefetch test-events
tests-tsan: $(BUILD)/libpcl.a $(TSAN_TESTS:%=$(BUILD)/tests/%)

deps:
	@scripts/deps.sh
	@scripts/npm-deps.sh

check: deps
	@$(MAKE) --no-print-directory tests
	@$(MAKE) --no-print-directory BUILD=build/san SANITIZE=address,undefined tests
	@$(MAKE) --no-print-directory BUILD=build/tsan SANITIZE=thread tests-tsan
	@tests/run.sh build build/san --unit-only build/tsan

check-plain: deps
	@$(MAKE) --no-print-directory tests
	@tests/run.sh build

# The demo installs only what building pcl needs (and perf, which it shows
# reading pcl's file), not the test tools make check installs.
demo:
	@scripts/deps.sh --demo
	@$(MAKE) --no-print-directory all $(BUILD)/examples/demo-workload
	@scripts/demo.sh $(BUILD)

fuzz:
	@$(MAKE) --no-print-directory -f fuzz/Makefile

bench: all
	@bench/stat.sh $(BUILD)
	@bench/record.sh $(BUILD)
	@bench/report.sh $(BUILD)
	@bench/read.sh $(BUILD)
	@bench/export.sh $(BUILD)
	@bench/srcline.sh $(BUILD)
	@bench/unwind.sh $(BUILD)
	@bench/fpleaf.sh $(BUILD)
	@bench/trace.sh $(BUILD)
	@bench/srcline-report.sh $(BUILD)
	@bench/top.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) \
		$(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(BUILD)/pcl $(DESTDIR)$(BINDIR)/pcl
	install -m 755 $(BUILD)/libpcl.so $(DESTDIR)$(LIBDIR)/libpcl.so.0
	ln -sf libpcl.so.0 $(DESTDIR)$(LIBDIR)/libpcl.so
	install -m 644 $(BUILD)/libpcl.a $(DESTDIR)$(LIBDIR)/libpcl.a
	install -m 644 include/pcl/*.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' libpcl.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/libpcl.pc
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/
	install -m 644 scripts/pcl-completion.bash $(DESTDIR)$(BASHCOMPDIR)/pcl

# Removes what install put there, and the folders it made only if now empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pcl $(DESTDIR)$(LIBDIR)/libpcl.so.0 $(DESTDIR)$(LIBDIR)/libpcl.so \
		$(DESTDIR)$(LIBDIR)/libpcl.a $(DESTDIR)$(LIBDIR)/pkgconfig/libpcl.pc \
		$(addprefix $(DESTDIR)$(INCDIR)/,$(notdir $(wildcard include/pcl/*.h))) \
		$(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(MAN_PAGES))) \
		$(DESTDIR)$(BASHCOMPDIR)/pcl
	-rmdir $(DESTDIR)$(INCDIR) 2>/dev/null || true

# The ABI of the stable API (PCL_0.1 of lib/libpcl.map, headers in
# abi/stable-headers) is kept in abi/libpcl.abi; tests/e2e/t-abi.sh (make check)
# fails when build/libpcl.so differs from it. After a deliberate change (a new
# stable function, a struct that grows), `make abi-update` and commit the file.
abi-update: $(BUILD)/libpcl.so
	scripts/abi.sh dump $(BUILD)/libpcl.so abi/libpcl.abi

abi-check: $(BUILD)/libpcl.so
	scripts/abi.sh check $(BUILD)/libpcl.so

format:
	clang-format -i $(LIB_SRCS) $(CLI_SRCS) include/pcl/*.h lib/*.h

clean:
	rm -rf build
