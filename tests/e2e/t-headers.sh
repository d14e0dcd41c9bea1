#!/usr/bin/env bash
# Every public header compiles on its own, first in its file: as strict C99
# (-std=c99 -pedantic, no feature macros) and, when g++ is there, as C++ with
# its extern "C" guards, both with -Wall -Wextra -Werror. Some headers also
# get a use of the names their documentation tells callers to use, so that
# a header cannot pass by only mentioning a type it does not define.
. "$(dirname "$0")/lib.sh"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CC=${CC:-cc}
CXX=${CXX:-g++}
CFLAGS_H="-std=c99 -pedantic -Wall -Wextra -Werror -Wstrict-prototypes -I$ROOT/include"
CXXFLAGS_H="-std=c++11 -pedantic -Wall -Wextra -Werror -I$ROOT/include"

if ! command -v "$CC" >/dev/null 2>&1; then
	skip "headers" "no C compiler '$CC'"
	exit 0
fi
have_cxx=0
command -v "$CXX" >/dev/null 2>&1 && have_cxx=1

# use_of HEADER: code after the #include that uses what the header promises.
use_of() {
	case "$1" in
	counters.h)
		# pcl_watch_opts.type takes HW_BREAKPOINT_*; pcl_mmap_page_read fills a pcl_count
		echo 'uint64_t val_of(const struct perf_event_mmap_page *pg, struct pcl_watch_opts *o);'
		echo 'uint64_t val_of(const struct perf_event_mmap_page *pg, struct pcl_watch_opts *o) {'
		echo '	struct pcl_count c;'
		echo '	o->type = HW_BREAKPOINT_W;'
		echo '	return pcl_mmap_page_read(pg, &c) ? 0 : c.val;'
		echo '}'
		;;
	stat.h)
		echo 'int tick(struct pcl_stat *st, const struct timespec *ts);'
		echo 'int tick(struct pcl_stat *st, const struct timespec *ts) { return pcl_stat__print_interval(st, stdout, ts, 0); }'
		;;
	pmu.h)
		# every read_format field a count can carry
		echo 'uint64_t sum_of(const struct pcl_count *c);'
		echo 'uint64_t sum_of(const struct pcl_count *c) { return c->val + c->ena + c->run + c->id + c->lost; }'
		;;
	record.h)
		# the anonymous union's members are reached directly
		echo 'uint32_t pid_of(const struct pcl_record *r);'
		echo 'uint32_t pid_of(const struct pcl_record *r) { return r->sample.pid; }'
		;;
	esac
}

for h in "$ROOT"/include/pcl/*.h; do
	name=$(basename "$h")
	src="$TMP/${name%.h}"
	{
		echo "#include <pcl/$name>"
		echo "#include <pcl/$name> /* twice: the include guard */"
		use_of "$name"
	} >"$src.c"
	if "$CC" $CFLAGS_H -c -o "$src.o" "$src.c" >"$src.c.err" 2>&1; then
		ok "header-c99-$name"
	else
		not_ok "header-c99-$name" "$CC $CFLAGS_H -c $src.c:" "$(cat "$src.c")" "$(head -20 "$src.c.err")"
	fi
	if [ $have_cxx = 0 ]; then
		skip "header-c++-$name" "no C++ compiler '$CXX'"
		continue
	fi
	cp "$src.c" "$src.cc"
	if ! "$CXX" $CXXFLAGS_H -c -o "$src.cc.o" "$src.cc" >"$src.cc.err" 2>&1; then
		not_ok "header-c++-$name" "$CXX $CXXFLAGS_H -c $src.cc:" "$(head -20 "$src.cc.err")"
		continue
	fi
	# every function the header declares must keep its C name (extern "C")
	mangled=$(nm -u "$src.cc.o" 2>/dev/null | awk '$2 ~ /^_Z/ && $2 ~ /pcl_/ { print $2 }')
	if [ -n "$mangled" ]; then
		not_ok "header-c++-$name" "C++ mangled names for C functions (missing extern \"C\"):" "$mangled"
	else
		ok "header-c++-$name"
	fi
done
