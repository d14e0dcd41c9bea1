#!/usr/bin/env bash
# Install the Debian 12 packages pcl needs to build and test, if any are
# missing. Runs at every `make check`, so the common case (all present) must
# be a quick no-op: one dpkg-query, no network, no apt lock.
#
#   scripts/deps.sh            install what is missing (as root), else exit 0
#   scripts/deps.sh --check    only report what is missing (exit 1 if any)
#   scripts/deps.sh --demo     only what building pcl and `make demo` need
#                              (no test tools: clang, chromium, go, ...)
#
# Non-interactive: no prompts, works with CI=true and no stdin. Not root and
# something missing: prints the apt-get command to run and exits 1.
set -eu

pkgs=(
	# Building libpcl and the pcl binary.
	gcc make pkg-config binutils libc6-dev
	# Unit tests (tests/unit, cmocka), and gcc's ThreadSanitizer runtime for
	# the TSan build of the threaded ones (build/tsan in make check). gcc's
	# libgcc-12-dev pulls it in on amd64 with the ASan/UBSan runtimes, but
	# make check needs it whatever the architecture, so it is named here.
	libcmocka-dev libtsan2
	# The compatibility oracle the e2e tests compare against: /usr/bin/perf.
	linux-perf
	# Fuzzing (fuzz/) and test workloads built with exact frame pointers:
	# clang, plus libclang-rt-14-dev, which holds libclang_rt.fuzzer and the
	# ASan/UBSan runtimes for `clang -fsanitize=fuzzer,address,undefined`.
	# clang only Recommends it, so --no-install-recommends would leave it out.
	clang libclang-rt-14-dev
	# gcc -m32 (its 32-bit libc and libgcc): t-trace32.sh traces a 32-bit
	# build of a workload, whose syscalls are numbered as i386's.
	gcc-multilib
	# Libraries libpcl builds against: libpfm4 for named raw events and the
	# core events of pcl stat -M metrics (lib/event/pfm.c), libelf
	# and libdw for symbols and DWARF, zstd and zlib for compressed
	# perf.data records and debug sections, libcap for capability probing.
	libpfm4-dev libelf-dev libdw-dev libzstd-dev zlib1g-dev libcap-dev
	# libbz2: pcl archive writes a .tar.bz2, as perf archive does.
	libbz2-dev
	# libc's detached debug file, found by build id under /usr/lib/debug: the
	# source-line tests compare pcl's lines with addr2line's on a real
	# dwz-compressed DWARF 5 library through that lookup (test-srcline).
	libc6-dbg
	# libiberty's cplus_demangle demangles C++ and Rust symbol names.
	libiberty-dev
	# libtraceevent formats tracepoint payloads with their print fmt, as
	# perf script does (pcl script's tracepoint text).
	libtraceevent-dev
	# Test tooling: setpriv (util-linux) drops privileges for the
	# unprivileged-user paths; procps gives pgrep/ps/sysctl; jq checks the
	# JSON of -j (the e2e tests take python3 instead when it is there, but
	# jq is the smaller install, so python3 is not required).
	util-linux procps jq
	# The pprof export: protobuf-c's runtime and protoc-c, which generates
	# its encoder from lib/output/profile.proto at build time; protoc
	# (protobuf-compiler) decodes pprof files in the tests.
	libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
	# go tool pprof reads the pprof export back: its -list and -lines show
	# the source lines pcl writes (t-export-srcline.sh). golang-go is the
	# Go 1.19 toolchain, pprof built in: a 81 MB download, 450 MB installed.
	golang-go
	# Checking the exports: xmllint (libxml2-utils) parses the SVG flame
	# graphs; python3-jsonschema validates speedscope files against the
	# schema from speedscope's npm package; Chromium loads the SVG and HTML
	# pages headless (driven by playwright-core from npm, tests/browser),
	# with nodejs and npm to fetch and run it (npm below).
	libxml2-utils python3 python3-jsonschema chromium nodejs
	# The ABI check of libpcl.so's stable API (tests/e2e/t-abi.sh, make
	# abi-update): abidw and abidiff of libabigail.
	abigail-tools
	# pcl annotate disassembles functions with capstone (lib/symbol/disasm.c).
	libcapstone-dev
	# bench/read.sh compares libpcl's counter reads with PAPI's (papi.h, -lpapi).
	libpapi-dev
	# Debug info from debuginfod servers: libdebuginfod's header (pcl
	# dlopens libdebuginfod.so.1 at run time, so it is not linked), and
	# Debian's debuginfod server, which tests/e2e/t-debuginfod.sh starts on
	# a loopback port over a folder of unstripped builds.
	libdebuginfod-dev debuginfod
	# ncurses: the interactive browser of pcl report and pcl top
	# (cli/tui.c); tmux drives it in the tests (t-tui-report.sh).
	libncurses-dev tmux
	# perf's record+probe_libc_inet_pton.sh (run by t-perf-shell.sh) probes
	# libc's inet_pton under ping -6 and checks the call chain perf script
	# prints; without ping its checks do not run.
	iputils-ping
	# The man pages (docs/man/*.scd) are written in scdoc's markup; make
	# builds them into build/man with it, and make install installs them.
	scdoc
)

# What `make demo` needs: the build (compiler, the libraries pcl links, the
# pprof encoder's generator, scdoc for the man pages) and perf, which the
# demo shows reading pcl's file. A subset of the list above (t-deps.sh).
demo_pkgs=(
	gcc make pkg-config binutils libc6-dev
	libpfm4-dev libelf-dev libdw-dev libzstd-dev zlib1g-dev libcap-dev libbz2-dev
	libiberty-dev libtraceevent-dev libprotobuf-c-dev protobuf-c-compiler
	libcapstone-dev libdebuginfod-dev libncurses-dev scdoc
	linux-perf
)

check_only=0 demo=0
for a in "$@"; do
	case "$a" in
	--check) check_only=1 ;;
	--demo) demo=1 ;;
	*) echo "deps: unknown option '$a' (--check, --demo)" >&2; exit 2 ;;
	esac
done
[ $demo -eq 1 ] && pkgs=("${demo_pkgs[@]}")

# One dpkg-query for all packages; names it does not know at all are
# reported on stderr and simply not listed as installed.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null || true)
missing=()
for p in "${pkgs[@]}"; do
	if ! grep -qx "$p installed" <<<"$installed" &&
		! grep -qx "$p:[a-z0-9]* installed" <<<"$installed"; then
		missing+=("$p")
	fi
done

# npm: some machines have it inside their nodejs package (NodeSource's),
# which conflicts with Debian's npm; ask for Debian's only when none is there.
[ $demo -eq 1 ] || command -v npm >/dev/null 2>&1 || missing+=(npm)

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: missing Debian packages: ${missing[*]}" >&2
if [ $check_only -eq 1 ]; then
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
apt-get update -q </dev/null
apt-get install "${apt_opts[@]}" "${missing[@]}" </dev/null
echo "deps: installed ${missing[*]}" >&2
