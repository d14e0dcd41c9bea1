/* SPDX-License-Identifier: MIT */
/*
 * pcl help [COMMAND]: usage of pcl and of each subcommand, or its man page
 * when installed; and the getopt_long wrapper behind every command's
 * --help (man page) and --list-opts (shell completion).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

/* this file calls the real one */
#undef getopt_long

const char *cli_cmd;
bool cli_list_opts;

static const char usage_main[] =
	"usage: pcl [--version] [--help] [--no-pager | --paginate] [--list-cmds]\n"
	"           [--buildid-dir DIR] COMMAND [ARGS]\n"
	"\n"
	"pcl counts and explains what a program does to the machine, through\n"
	"perf_event_open(2). Commands:\n"
	"\n"
	"   stat      count events while a command runs (or on pids, CPUs, a cgroup)\n"
	"   record    sample events into a perf.data file that perf reads too\n"
	"   list      list the events this machine offers\n"
	"   report    histograms of a perf.data file (pcl's or perf's), like perf report\n"
	"   top       a live profile of the system, refreshed every few seconds, like perf top\n"
	"   annotate  instructions and source lines of hot functions, like perf annotate\n"
	"   script    one line per sample of a perf.data file, as perf script prints it\n"
	"   diff      compare two perf.data files symbol by symbol, like perf diff\n"
	"   probe     add, list and delete uprobe events, like perf probe\n"
	"   trace     the syscalls of a command, pids or the system, like perf trace\n"
	"   lock      kernel lock contention of a command or the system, like perf lock\n"
	"   evlist    list the events of a perf.data file, like perf evlist\n"
	"   data      convert a perf.data file to JSON, like perf data convert\n"
	"   daemon    run record sessions in the background from a config file\n"
	"   inject    copy a recording (file or pipe) adding build ids, like perf inject\n"
	"   archive   pack the files a recording needs into FILE.tar.bz2, like perf archive\n"
	"   buildid-list   the build ids a recording names, like perf buildid-list\n"
	"   buildid-cache  manage the build-id cache (~/.debug) perf and pcl share\n"
	"   bench     perf bench's scheduler benchmarks (sched messaging, sched pipe)\n"
	"   help      show this text, or a command's manual: pcl help stat\n"
	"   version   print pcl's version\n"
	"\n"
	"  -v, --version           print pcl's version\n"
	"  -h, --help              show this text\n"
	"      --no-pager          do not page the output of report, script, list,\n"
	"                          annotate, diff and help on a terminal\n"
	"  -p, --paginate          page the output of any command on a terminal\n"
	"      --list-cmds         the command names on one line (shell completion)\n"
	"      --buildid-dir DIR   the build-id cache to use (perf's), instead of\n"
	"                          $PERF_BUILDID_DIR or ~/.debug\n"
	"\n"
	"'pcl CMD -h' prints CMD's options; 'pcl CMD --help' and 'pcl help CMD' show\n"
	"its manual, pcl-CMD(1), when installed. 'pcl CMD --list-opts' prints CMD's\n"
	"long options (shell completion). The pager is PCL_PAGER, else PERF_PAGER,\n"
	"else PAGER, else less (with LESS=FRX when LESS is not set); empty or 'cat':\n"
	"none. Events are named as in perf: see 'pcl help events'.\n";

static const char usage_stat[] =
	"usage: pcl stat [OPTIONS] [--] COMMAND [ARGS]\n"
	"       pcl stat [OPTIONS] -p PID | -t TID | -a | -C CPUS\n"
	"       pcl stat record [-o FILE|-] [OPTIONS] [--] COMMAND   (also write a perf.data stat "
	"file)\n"
	"       pcl stat report [-i FILE|-] [-x SEP] [-j] [-f]       (print one, as pcl stat "
	"would)\n"
	"\n"
	"Run COMMAND and print counts of events over its run, like perf stat.\n"
	"Counting starts at the command's exec and follows its children. With no\n"
	"command and no target, count the whole system until Ctrl-C.\n"
	"\n"
	"  -e, --event EVENTS      events to count (repeatable; see 'pcl help events');\n"
	"                          default: task-clock, context-switches, cpu-migrations,\n"
	"                          page-faults, cycles, instructions, branches, branch-misses\n"
	"  -M, --metrics NAMES     metrics or metric groups, comma list ('pcl list metrics')\n"
	"      --metric-only       print the metrics alone, one column each\n"
	"      --metric-no-merge   count each metric's events for it alone (not shared)\n"
	"      --metric-no-group   accepted (pcl never groups a metric's events)\n"
	"  -p, --pid PIDS          count existing processes (comma list), all their threads\n"
	"  -t, --tid TIDS          count existing threads (comma list)\n"
	"  -a, --all-cpus          count on every CPU (system-wide)\n"
	"  -C, --cpu LIST          count on these CPUs only, e.g. 0-3,6\n"
	"  -G, --cgroup NAME       count only tasks in this cgroup (v2), on every CPU\n"
	"  -i, --no-inherit        do not count children created after the start\n"
	"  -r, --repeat N          run the command N times; print means and +- variation\n"
	"  -I, --interval-print MS print counts every MS milliseconds (at least 10)\n"
	"      --interval-count N  with -I: stop after N intervals (0: no end)\n"
	"      --summary           with -I: print the totals at the end too\n"
	"      --no-csv-summary    with --summary -x: no 'summary' first column\n"
	"  -x, --field-separator SEP  CSV output with SEP between fields\n"
	"  -j, --json              JSON output, one object per line\n"
	"  -o, --output FILE       write the counts to FILE instead of stderr\n"
	"  -A, --no-aggr           one row per CPU (with -a or -C)\n"
	"      --per-core          one row per core (with -a or -C)\n"
	"      --per-die           one row per die (with -a or -C)\n"
	"      --per-socket        one row per socket (with -a or -C)\n"
	"      --per-node          one row per NUMA node (with -a or -C)\n"
	"      --no-merge          accepted for perf's scripts (pcl merges nothing)\n"
	"      --per-thread        one row per thread (with -p or -t)\n"
	"  -B, --big-num           group digits with the locale's separator (default)\n"
	"      --no-big-num        do not group digits\n"
	"  -n, --null              count nothing: only time the command\n"
	"  -h, --help              show this text\n"
	"\n"
	"The exit status is the command's (128+N if it was killed by signal N; 127\n"
	"if it could not be run). Ctrl-C prints the counts so far. Events this\n"
	"machine cannot count show as <not supported>; when perf_event_paranoid\n"
	"forbids kernel counting, events count user space only and get ':u'.\n";

static const char usage_record[] =
	"usage: pcl record [OPTIONS] [--] COMMAND [ARGS]\n"
	"       pcl record [OPTIONS] -p PID | -t TID | -a | -C CPUS\n"
	"\n"
	"Sample events into a perf.data file (perf report, perf script and pcl read it).\n"
	"\n"
	"  -e, --event EVENTS      events to sample (default cycles; cpu-clock without a PMU)\n"
	"  -F, --freq HZ|max       samples per second per event (default 4000, at most\n"
	"                          perf_event_max_sample_rate)\n"
	"  -c, --count N           a sample every N events instead of a frequency\n"
	"  -P, --period            the period in every sample, also a fixed one (-c)\n"
	"      --control fifo:CTL[,ACK] | fd:CTL[,ACK]  take perf's control commands\n"
	"                          (enable, disable, ping, stop) from CTL, answer 'ack'\n"
	"                          on ACK (pcl daemon runs its sessions so)\n"
	"  -g                      call chains through frame pointers\n"
	"      --call-graph fp|dwarf[,SIZE]  frame pointers, or user registers and SIZE\n"
	"                          bytes of user stack (default 8192) for DWARF unwinding\n"
	"      --fp-leaf SIZE      with frame pointers, also copy SIZE bytes of user stack\n"
	"                          per sample (default 64) so that pcl report and script\n"
	"                          put back the caller of a function that had not set up\n"
	"                          its frame (a gcc leaf); perf reads the file as before\n"
	"      --no-fp-leaf        no stack copy with -g (the same as --fp-leaf 0)\n"
	"  -p, --pid PIDS / -t, --tid TIDS / -a, --all-cpus / -C, --cpu LIST   targets\n"
	"  -i, --no-inherit        do not follow children created after the start\n"
	"      --switch-events     record context switches\n"
	"  -s, --stat              per-thread counts (inherit_stat)\n"
	"  -d, --data              sample data addresses\n"
	"  -T, --timestamp         sample timestamps (always on)\n"
	"      --sample-cpu        sample the CPU (on with -a and -C)\n"
	"  -m, --mmap-pages N|SIZE ring buffer pages per CPU, a power of two (default 128),\n"
	"                          or a size (B, K, M, G) rounded up to one\n"
	"  -k, --clockid CLOCK     time samples with monotonic, monotonic_raw, realtime,\n"
	"                          boottime or tai (writes the clockid and clock data\n"
	"                          features, as perf: the time of day of the samples)\n"
	"  -o, --output FILE       output file (default perf.data; an existing non-empty\n"
	"                          file is kept as FILE.old); '-', a FIFO or a device\n"
	"                          takes a pipe-mode stream (the command's stdout then\n"
	"                          goes to stderr when it would mix into the stream)\n"
	"  -q, --quiet             no notes and no summary\n"
	"  -z, --compression-level[=N]  zstd-compress the recorded records (level 1 fastest,\n"
	"                          the default, .. 22 smallest) as perf record -z\n"
	"      --all-user / --all-kernel  sample every event in user / kernel space only\n"
	"      --filter FILTER     tracepoint filter for the events of the -e before it\n"
	"                          (tracefs syntax: 'prev_pid == 0 && next_pid != 1')\n"
	"      --per-thread        a counter and a ring per thread; children not followed\n"
	"  -B, --no-buildid        no build ids in the file\n"
	"      --user-regs[=REGS]  sample these user registers (all without REGS; '?' lists)\n"
	"  -I, --intr-regs[=REGS]  sample these registers at the interrupt\n"
	"      --overwrite         flight recorder: rings the kernel overwrites, the newest\n"
	"                          samples written at the end (and on each --switch-output)\n"
	"      --max-size SIZE     stop when the file reaches SIZE (bytes, or with B, K, M, G)\n"
	"      --switch-output[=signal|SIZE|TIME]  finish the file as FILE.<timestamp> and\n"
	"                          start a new one on SIGUSR2 (the default), at SIZE (B, K,\n"
	"                          M, G) or every TIME (s, m, h, d); the last one too\n"
	"      --switch-max-files N  keep only the N newest of those files\n"
	"      --timestamp-filename  name the file FILE.<timestamp>\n"
	"  -N, --no-buildid-cache  do not copy the files with samples into the build-id\n"
	"                          cache ('pcl help buildid-cache')\n"
	"      --buildid-all       build ids (and cache copies) of every mapped file, not\n"
	"                          only of those with samples\n"
	"      --off-cpu           also where threads block: an 'offcpu-time' event whose\n"
	"                          samples weigh the ns a thread was off CPU (blocked, S\n"
	"                          or D) under its user call chain, as perf's; made from\n"
	"                          sched_switch and switch records, no BPF (docs/offcpu.md)\n"
	"\n"
	"The exit status is the command's. Ctrl-C stops recording and leaves a complete\n"
	"file. A recorder killed outright leaves a file that holds every round written.\n"
	"A file that cannot be completed (disk full) is removed.\n";

static const char usage_buildid_list[] =
	"usage: pcl buildid-list [-i FILE|-] [-H] [-f]\n"
	"       pcl buildid-list -k\n"
	"\n"
	"The build ids a recording names, one 'ID NAME' line per file, as perf\n"
	"buildid-list prints them. Of an ELF file given as FILE: its own build id.\n"
	"\n"
	"  -i, --input FILE        the recording (default perf.data; '-' reads a pipe)\n"
	"  -H, --with-hits         only the files with samples (what a stream, or a file\n"
	"                          without a build-id table, always shows)\n"
	"  -k, --kernel            the running kernel's build id\n"
	"  -f, --force             read a file another user owns\n";

static const char usage_buildid_cache[] =
	"usage: pcl [--buildid-dir DIR] buildid-cache [OPTIONS]\n"
	"\n"
	"Manage the build-id cache: copies of binaries by build id, which pcl record\n"
	"and perf record fill and report, script and annotate read when a file is gone\n"
	"or rebuilt. The cache is perf's (~/.debug, $PERF_BUILDID_DIR, or DIR), in\n"
	"perf 6.1's layout: each tool uses what the other cached. FILES are\n"
	"comma-separated; options may repeat.\n"
	"\n"
	"  -a, --add FILES         cache these files (by their build ids)\n"
	"  -r, --remove FILES      remove these files' builds from the cache\n"
	"  -u, --update FILES      cache these files again (replacing their builds)\n"
	"  -p, --purge PATHS       remove every build cached for these paths\n"
	"  -P, --purge-all         empty the cache\n"
	"  -l, --list              the cached builds that still are what their files\n"
	"                          are ('ID PATH'); alone\n"
	"  -M, --missing FILE      the files of recording FILE the cache lacks\n"
	"  -f, --force             read a recording another user owns\n"
	"  -v, --verbose           say what was added or removed, as perf -v does\n"
	"\n"
	"The exit status is 1 when a file could not be added, removed or updated\n"
	"(perf buildid-cache warns and exits 0).\n";

static const char usage_inject[] =
	"usage: pcl inject [-i FILE|-] [-o FILE|-] [-b] [--buildid-all]\n"
	"\n"
	"Copy a recording, file or stream, into a file or stream perf and pcl read, as\n"
	"perf inject does: a stream becomes a file, a file a stream, and zstd-compressed\n"
	"records (perf record -z) come out expanded. The build ids of the input go\n"
	"along (its table, or a stream's build-id records).\n"
	"\n"
	"  -i, --input FILE        the recording (default '-': standard input)\n"
	"  -o, --output FILE       where to write (default '-': standard output, pipe\n"
	"                          mode); a file gets file mode\n"
	"  -b, --build-ids         add the build ids of the files with samples (read from\n"
	"                          the files on disk): a file's build-id table, or a\n"
	"                          build-id record in a stream ahead of each file's\n"
	"                          first sample\n"
	"      --buildid-all       the same for every mapped file\n"
	"  -f, --force             read a file another user owns\n";

static const char usage_top[] =
	"usage: pcl top [-a | -p PID | -t TID | -C CPUS] [OPTIONS]\n"
	"\n"
	"Sample what runs (the whole system by default) and show the hottest\n"
	"functions, refreshed every -d seconds, as perf top does: each entry's share\n"
	"decays by 7/8 at each refresh, or is zeroed with -z. On a terminal the\n"
	"entries are browsed (Enter: callers and callees, a: annotation); --stdio, or\n"
	"an output that is not a terminal, prints a plain listing at each refresh.\n"
	"\n"
	"  -a, --all-cpus          every CPU (the default)\n"
	"  -p, --pid PID[,PID..]   these processes (and the children they start)\n"
	"  -t, --tid TID[,TID..]   these threads\n"
	"  -C, --cpu CPUS          these CPUs (\"0-3,6\")\n"
	"  -i, --no-inherit        not the children started after pcl top\n"
	"  -e, --event EVENT       sample EVENT (default cycles, or cpu-clock without a\n"
	"                          hardware PMU; several: the first one is shown, E in\n"
	"                          the listing and TAB in the browser show another)\n"
	"  -F, --freq HZ|max       samples per second (default 4000)\n"
	"  -c, --count N           a sample every N events instead\n"
	"  -g                      record call chains (frame pointers) and show them,\n"
	"                          with the children's overhead\n"
	"      --call-graph fp[,graph|fractal|flat|folded|none][,MIN%][,caller|callee]\n"
	"                          [,function][,percent|period|count]\n"
	"                          the same, with how the graph is shown (default\n"
	"                          fp,graph,0.5,caller,function)\n"
	"      --children          add the callees' overhead to each entry (with -g)\n"
	"      --no-children       only the entry's own overhead\n"
	"  -K, --hide_kernel_symbols  leave out kernel samples\n"
	"  -U, --hide_user_symbols    leave out user samples\n"
	"  -d, --delay SECS        seconds between refreshes (default 2)\n"
	"  -z, --zero              zero the counts at each refresh instead of decaying\n"
	"  -E, --entries N         show N entries (default: as many as the terminal\n"
	"                          has rows)\n"
	"  -s, --sort KEYS         sort and group by KEYS (default dso,sym; also comm,\n"
	"                          pid, tid, cpu, srcline, srcfile)\n"
	"  -n, --show-nr-samples   a column with the number of samples\n"
	"      --percent-limit PCT  hide entries below PCT percent\n"
	"      --stdio             print a plain listing at each refresh\n"
	"      --tui               the browser, even when perf would not choose it\n"
	"  -k, --vmlinux FILE      the kernel's symbols from FILE\n"
	"      --kallsyms FILE     the kernel's symbols from FILE, not /proc/kallsyms\n"
	"  -m, --mmap-pages N      ring buffer pages per CPU (a power of two; 128)\n"
	"  -v, --verbose           say when the default event falls back\n"
	"\n"
	"perf top's other options are refused by name (docs/top.md).\n";

static const char usage_archive[] =
	"usage: pcl archive [-f] [FILE]\n"
	"\n"
	"Pack the files recording FILE (default perf.data) needs to be read elsewhere\n"
	"into FILE.tar.bz2, as perf archive does: the files with samples, by build id,\n"
	"from the build-id cache, else from where they were recorded if they still are\n"
	"that build. The tarball is a --symfs root (each file at its recorded path)\n"
	"whose .debug holds the build-id cache part, which perf and pcl read:\n"
	"\n"
	"  tar xf FILE.tar.bz2 -C DIR && pcl report -i FILE --symfs DIR\n"
	"  tar xf FILE.tar.bz2 -C ~/.debug --strip-components=1 .debug\n"
	"\n"
	"  -f, --force             read a recording another user owns\n";

static const char usage_report[] =
	"usage: pcl report [-i FILE|-] [OPTIONS]\n"
	"\n"
	"Where a recording's samples went, laid out like perf report --stdio. Reads\n"
	"perf.data files written by pcl record and by Linux perf: file or pipe mode,\n"
	"zstd-compressed records (perf record -z), files cut short (with a warning).\n"
	"On a terminal it opens an interactive browser over the file, as perf does:\n"
	"arrows/PgUp/PgDn/Home/End move; + or Enter (a chain's branch too), e, c,\n"
	"E, C open and close call chains; t, d, s zoom into the thread, DSO, symbol;\n"
	"/ filters symbols;\n"
	"a annotates; i the file's header; TAB the next event; h or ? help; ESC\n"
	"zooms out; q quits.\n"
	"\n"
	"  -i, --input FILE        the recording (default perf.data; '-' reads a pipe)\n"
	"      --stdio             the text report, also on a terminal\n"
	"      --tui               the browser (the default on a terminal); into a pipe\n"
	"                          or a file the text report, as perf\n"
	"      --no-tui            the text report, as --stdio\n"
	"      --children          add each function's callees to it (the default when\n"
	"                          the file has call chains)\n"
	"      --no-children       each sample counts for its own function only\n"
	"  -s, --sort KEYS         comm, dso, sym, pid, tid, cpu, srcline, srcfile,\n"
	"                          parent (default comm,dso,sym; '+KEYS' adds to it);\n"
	"                          srcline is perf's FILE:LINE of the sample's address\n"
	"                          (SYM+OFF or DSO[ADDR] where no line is known), srcfile\n"
	"                          its file, from the debug info; the numbers of -F too.\n"
	"                          An entry is one per value of the keys, ordered by the\n"
	"                          list (overhead first unless -F gives the columns)\n"
	"  -F, --fields LIST       the columns, perf's: overhead, overhead_sys,\n"
	"                          overhead_us, overhead_guest_sys, overhead_guest_us,\n"
	"                          overhead_children, sample, period, and the sort keys\n"
	"                          ('+LIST' adds to the default columns); the sort keys\n"
	"                          missing are added after them\n"
	"  -n, --show-nr-samples   a Samples column\n"
	"  -p, --parent REGEX      sort by parent too: the first function of each chain\n"
	"                          (in the order shown) matching REGEX (POSIX extended;\n"
	"                          -s parent alone: ^sys_|^do_page_fault), else [other]\n"
	"      --max-stack N       use N frames of each chain: the innermost in callee\n"
	"                          order, the outermost in caller order (as perf)\n"
	"  -T, --threads           after the report, the per-thread counts of a record -s\n"
	"                          recording (its READ records)\n"
	"      --tasks             instead of a report: the threads, as a tree of who\n"
	"                          forked whom (pid, tid, ppid, comm)\n"
	"      --mmaps             the same, with each process's maps\n"
	"      --stdio-color MODE  percentages in colour (red from 5%, green above\n"
	"                          0.5%): auto (default: on a terminal, unless NO_COLOR\n"
	"                          is set), always or never\n"
	"      --full-source-path  srcline and srcfile with whole paths, not basenames\n"
	"      --inline            inlined functions as frames of their own in call chains\n"
	"                          ('NAME (inlined)'), from the debug info; off by default\n"
	"      --no-inline         none (the default)\n"
	"  -g, --call-graph MODE[,MIN[,ORDER[,KEY[,VALUE]]]]   graph (default), fractal,\n"
	"                          flat, folded or none; branches under MIN% hidden\n"
	"                          (default 0.5); caller or callee order; percent,\n"
	"                          period or count\n"
	"  -G                      the same as -g caller\n"
	"      --percent-limit N   hide entries under N%, and call-graph branches (unless\n"
	"                          a later -g names its own minimum)\n"
	"      --percentage MODE   absolute (default): shares of all samples; relative:\n"
	"                          of those the filters keep (entries and header)\n"
	"  -c, --comms, -d, --dsos, -S, --symbols, --pid, --tid LIST   only these\n"
	"                          (comma lists; also --comm, --dso)\n"
	"      --cpu LIST          only samples on these CPUs, e.g. 0,2-3\n"
	"      --stats             counts of each record type, and of DWARF unwinding\n"
	"      --header, --header-only   describe the file (host, command, events)\n"
	"  -I, --show-info         with --header: the topology and cache sections too\n"
	"  -D, --dump-raw-trace    every record as perf -D dumps it (offset, size, type,\n"
	"                          bytes in hex, fields), then the counts of each record\n"
	"                          type, and no report\n"
	"      --symfs DIR         look for binaries under DIR (files from another machine)\n"
	"  -k, --vmlinux FILE      kernel symbols from FILE instead of /proc/kallsyms\n"
	"      --kallsyms FILE     kernel symbols from this kallsyms copy\n"
	"      --no-demangle       keep C++ and Rust names mangled\n"
	"      --ignore-build-ids  use binaries even when their build id differs from\n"
	"                          the recorded one (by default they get no symbols)\n"
	"  -f, --force             read a file, and trust JIT maps, that another user\n"
	"                          owns (refused by default, as perf does)\n"
	"  -t, --field-separator SEP  columns joined by SEP, unpadded (perf's -t)\n"
	"      --wall              wall-clock time of a record --off-cpu file: per thread\n"
	"                          its time on CPU (cpu-clock/task-clock) and off it\n"
	"                          (offcpu-time), and each function's share of the whole,\n"
	"                          split on/off (self; with --children every function on\n"
	"                          the stack). With --format, the exports get both, off-CPU\n"
	"                          stacks ending in '[off-CPU]' (docs/offcpu.md)\n"
	"\n"
	"Exports (the filters above apply; one event: the first with samples):\n"
	"      --format NAME       folded      one line per stack, for flamegraph.pl/inferno\n"
	"                          flamegraph  interactive SVG (hover, click to zoom, search)\n"
	"                          html        self-contained page: facts, sortable table,\n"
	"                                      flame graph, callers/callees, thread filter\n"
	"                          pprof       gzipped profile.proto (pprof, Pyroscope, Parca)\n"
	"                          firefox     Firefox Profiler (Gecko format), with context\n"
	"                                      switches as markers when recorded\n"
	"                          speedscope  speedscope's file format, a profile per thread\n"
	"                          json        the report's own data, for scripts\n"
	"                          (pprof, firefox and speedscope carry source files and\n"
	"                          lines from the debug info, pprof inline frames too:\n"
	"                          go tool pprof -list FUNC shows the source)\n"
	"  -o, --output FILE       write there (whole or not at all) instead of stdout\n"
	"      --event NAME        export this event instead of the first (offcpu-time:\n"
	"                          weighed by its ns)\n"
	"      --icicle            flame graph drawn top-down, callers first\n"
	"\n"
	"Symbols come from .symtab or .dynsym, debug files found by build id\n"
	"(/usr/lib/debug/.build-id) or .gnu_debuglink, the vDSO, kallsyms and JIT maps\n"
	"(/tmp/perf-PID.map).\n"
	"\n"
	"Samples recorded with --call-graph dwarf (by pcl or perf) are unwound from the\n"
	"files' CFI (.eh_frame, .debug_frame, debug files), here and in script, diff\n"
	"and every export: the kernel part of the chain, then the user frames. The\n"
	"header says how many unwound fully and why the others stopped (--stats too;\n"
	"script, diff and the exports print it on stderr):\n"
	"  stack copy too small    the stack was deeper than the copy: record again with\n"
	"                          the --call-graph dwarf,SIZE printed (over 5% of them)\n"
	"  no CFI                  code without unwind tables; the chain ends there\n"
	"  address not mapped      a PC in no mapping or in a file not found (--symfs)\n"
	"  max depth               over 127 user frames\n"
	"\n"
	"Environment:\n"
	"  DEBUGINFOD_URLS         debuginfod servers to fetch missing debug files and\n"
	"                          executables from, by build id (libdebuginfod)\n"
	"  DEBUGINFOD_CACHE_PATH   where they are kept (~/.cache/debuginfod_client)\n"
	"  DEBUGINFOD_TIMEOUT      seconds to wait for a server (90); the first\n"
	"                          failure stops the look-ups of the run\n";

static const char usage_script[] =
	"usage: pcl script [-i FILE|-] [OPTIONS]\n"
	"\n"
	"Print each sample of a perf.data file (pcl's or perf's, file or pipe mode) on\n"
	"a line of its own, laid out byte for byte as perf script prints it, so that\n"
	"tools that read perf script's output (FlameGraph, speedscope, ...) read pcl's:\n"
	"\n"
	"   COMM  TID [CPU]  TIME:  PERIOD EVENT:  IP SYM+OFF (DSO)\n"
	"\n"
	"With call chains (record -g) the line ends after 'EVENT:' and each frame follows\n"
	"on a line of its own, callee first, then a blank line. [CPU] shows when the\n"
	"samples carry one (-a, -C). A user-space frame's address is its offset in the\n"
	"DSO, as perf 6.1 shows it. A tracepoint sample's payload is its format's print\n"
	"fmt run through libtraceevent, as perf prints it; a format libtraceevent cannot\n"
	"parse shows its fields as name=value instead (pcl says so once on stderr).\n"
	"\n"
	"  -i, --input FILE        the recording (default perf.data; '-' reads a pipe)\n"
	"  -F, --fields LIST       the fields to show, as perf's -F: comm, tid, pid, time,\n"
	"                          cpu, event, trace, ip, sym, symoff, dso, addr, period,\n"
	"                          misc, srcline (FILE:LINE under the ip and each frame),\n"
	"                          brstack, brstacksym, brstackoff (perf record -b),\n"
	"                          iregs, uregs, data_src, weight, ins_lat, phys_addr,\n"
	"                          data_page_size, code_page_size, flags, callindent,\n"
	"                          srccode (the source line's text), tod (time of day,\n"
	"                          needs record -k), bpf-output, insn, insnlen (read\n"
	"                          from the DSO when the file is this machine's), and\n"
	"                          machine_pid, vcpu, ipc, metric, synth (empty here, as\n"
	"                          in perf; metric of hardware groups and synth events\n"
	"                          are refused), brstackinsn, brstackinsnlen (the code\n"
	"                          run between the branches of a perf record -b file).\n"
	"                          'LIST' sets every class of event, 'hw:LIST',\n"
	"                          'sw:', 'trace:', 'raw:', 'break:' one class; '+f,-f'\n"
	"                          add to or remove from the defaults. A field the\n"
	"                          samples lack is an error when named (repeatable)\n"
	"  -G, --hide-call-graph   no call chains: one line per sample\n"
	"      --max-stack N       at most N frames per call chain (default 127)\n"
	"      --show-task-events  also COMM, FORK and EXIT records\n"
	"      --show-mmap-events  also MMAP and MMAP2 records\n"
	"      --show-switch-events  also context switches (record --switch-events)\n"
	"      --show-lost-events  also LOST records\n"
	"      --ns                times with nanoseconds\n"
	"      --reltime           times since the first line; --deltatime: since the\n"
	"                          previous line\n"
	"  -C, --cpu LIST          only samples on these CPUs, e.g. 0-3,6\n"
	"  -c, --comms LIST        only samples of threads with these comms (comma list)\n"
	"      --pid LIST / --tid LIST   only samples of these processes / threads\n"
	"      --symfs DIR         look for binaries and debug files under DIR\n"
	"      --kallsyms FILE     kernel symbols from FILE instead of /proc/kallsyms\n"
	"  -k, --vmlinux FILE      kernel symbols from this vmlinux\n"
	"      --no-demangle       C++ and Rust names as they are in the symbol table\n"
	"      --full-source-path  srcline with whole paths, not basenames\n"
	"      --inline            inlined functions as frames of their own in call chains\n"
	"                          ('NAME+OFF (inlined)'); off by default; --no-inline: none\n"
	"  -f, --force             read a file, and trust JIT maps, that another user owns\n"
	"  -S, --symbols LIST      only samples whose symbol is in the comma list\n"
	"      --header            the file's header (as pcl report --header-only) first;\n"
	"      --header-only       only the header\n"
	"  -D, --dump-raw-trace    every record as perf -D dumps it (offset, size, type,\n"
	"                          bytes in hex, fields), each sample's line after its\n"
	"                          dump (pcl report -D: the dump and the record counts)\n"
	"\n"
	"Perf's scripting (-s, -g, record/report subcommands) is not there. A file\n"
	"cut short prints what it holds and one warning. 'pcl script | head' stops\n"
	"quietly when head has enough. DEBUGINFOD_URLS: as in pcl report.\n";

static const char usage_diff[] =
	"usage: pcl diff [OPTIONS] [OLD [NEW]]\n"
	"\n"
	"Compare two recordings (pcl's or perf's) symbol by symbol, laid out like\n"
	"perf diff: each symbol's share of OLD (Baseline) and how it changed in NEW.\n"
	"OLD defaults to perf.data.old, NEW to perf.data; one file given is NEW.\n"
	"Symbols match by shared object and name. Each event of OLD is compared with\n"
	"NEW's event of the same type.\n"
	"\n"
	"  -c, --compute METHOD    delta-abs  NEW share - OLD share, by size (default)\n"
	"                          delta      the same, most grown first\n"
	"                          ratio      NEW period / OLD period\n"
	"                          wdiff:W1,W2  NEW period * W2 - OLD period * W1\n"
	"  -s, --sort KEYS         what a row is: dso, sym, comm, pid, cpu, srcline,\n"
	"                          srcfile (default dso,sym)\n"
	"  -p, --period            the periods too (Base period, Period)\n"
	"      --percentage MODE   absolute (default): shares of all samples; relative:\n"
	"                          of those the filters keep\n"
	"  -C, --comms LIST        only samples of these commands (comma list)\n"
	"  -d, --dsos LIST         only samples in these shared objects\n"
	"  -S, --symbols LIST      only samples in these symbols\n"
	"  -q, --quiet             no header lines\n"
	"      --symfs DIR, -k, --vmlinux FILE, --kallsyms FILE, --no-demangle,\n"
	"      --ignore-build-ids  symbols as in pcl report\n"
	"  -f, --force             read files another user owns (as pcl report -f)\n"
	"\n"
	"      --format flamegraph an SVG flame graph of NEW, each frame coloured by its\n"
	"                          change of share from OLD: red grew, blue shrank\n"
	"  -o, --output FILE       write it there (whole or not at all) instead of stdout\n"
	"      --event NAME        draw this event instead of the first with samples\n"
	"\n"
	"Unlike perf diff, -o names the output file (perf's -o, --order is not there)\n"
	"and only two files are compared.\n"
	"On a terminal (unless NO_COLOR is set) Baseline and the computed column are\n"
	"in perf's colours (red from 5, green above 0.5).\n";

static const char usage_list[] =
	"usage: pcl list [--json | --raw-dump] [--details]\n"
	"                [hw|sw|cache|pmu|tracepoint|metrics|metricgroups|GLOB]\n"
	"\n"
	"List the events of this machine, grouped like perf list: hardware,\n"
	"software, tool, cache, PMU (sysfs) events, raw and breakpoint syntax, and\n"
	"tracepoints. A type word keeps one group (sw: software and tool events);\n"
	"GLOB filters names (e.g. 'sched:*'). Events this machine\n"
	"cannot count are marked 'not supported'. --json prints one JSON array.\n"
	"metrics and metricgroups list this CPU's metrics for 'pcl stat -M'\n"
	"(--details: with their formulas). --raw-dump prints the names only, on\n"
	"one line, as perf list --raw-dump does (countable events only).\n";

static const char usage_help[] =
	"usage: pcl help [COMMAND|events]\n"
	"\n"
	"Without COMMAND, the list of commands and pcl's global options. With one,\n"
	"its manual page, pcl-COMMAND(1), through man(1) when the page is installed\n"
	"(beside pcl, PREFIX/share/man, or on MANPATH), else its usage text.\n"
	"'pcl help events': the event syntax.\n"
	"\n"
	"  -h, --help              show this text (--help: the manual page, pcl-help(1))\n";

static const char usage_events[] =
	"Event syntax (as in perf):\n"
	"  cycles, instructions, task-clock, page-faults ...  generic events ('pcl list')\n"
	"  L1-dcache-load-misses, LLC-loads, dTLB-load-misses  cache events\n"
	"  r1a8                      raw event code for the CPU's PMU (hex)\n"
	"  l2_pf_hit_l2, RETIRED_INSTRUCTIONS  named hardware events: perf's names of\n"
	"                            this CPU's metric events, or libpfm4's names\n"
	"  pmu/term=val,.../         a PMU's format fields or sysfs events, e.g. msr/tsc/\n"
	"  sched:sched_switch        a tracepoint; globs select many: 'sched:*'\n"
	"  mem:ADDR[/LEN][:rwx]      a hardware breakpoint (LEN 1, 2, 4 or 8)\n"
	"  u:BIN:FUNC[+OFF][%return] a uprobe through the uprobe PMU, nothing written to\n"
	"                            tracefs (BIN a path, a program or a library: libc);\n"
	"                            a FUNC with inlined copies needs +0 (or pcl probe);\n"
	"                            terms after FUNC: u:libc:malloc/max-stack=4/\n"
	"  probe_BIN:FUNC[/terms/]   an event 'pcl probe' (or perf probe) added\n"
	"  duration_time, user_time, system_time   tool events\n"
	"  {a,b,c}                   a group, scheduled together\n"
	"Terms of one event, after its name: cpu-clock/period=1000,max-stack=3/\n"
	"  period=N freq=N name=S    its rate and name\n"
	"  call-graph=fp|dwarf, stack-size=N, max-stack=N   its own call chains\n"
	"Modifiers after ':' (or after the closing '/'):\n"
	"  u k h   count user, kernel, hypervisor only     G H   guest / host only\n"
	"  p pp ppp P   precise ip                        S   leader sampling\n"
	"  D   pinned   I   exclude idle   W   weak group   e   exclusive\n";

static const char usage_annotate[] =
	"usage: pcl annotate [-i FILE|-] [OPTIONS] [SYMBOL]\n"
	"\n"
	"Each instruction's share of a function's samples, with the function's source\n"
	"lines between its instructions, laid out like perf annotate --stdio. Without\n"
	"SYMBOL, every function with samples, hottest first, for each event. Reads\n"
	"perf.data files written by pcl record and by Linux perf. The disassembly is\n"
	"capstone's, printed as objdump prints it (see docs/annotate.md for where it\n"
	"differs); jumps name their target as <function+0xOFFSET>.\n"
	"\n"
	"  -i, --input FILE        the recording (default perf.data; '-' reads a pipe)\n"
	"  -s, --symbol SYMBOL     the function to annotate (the same as SYMBOL)\n"
	"  -d, --dsos LIST         only functions in these DSOs (short or full names)\n"
	"      --stdio             text output (the only one; accepted for perf's habit)\n"
	"      --percent-type TYPE local-period (default: of the function's period),\n"
	"                          global-period (of the event's), local-hits,\n"
	"                          global-hits (the same with sample counts)\n"
	"      --no-source         instructions only, no source lines (--source: with)\n"
	"      --stdio-color MODE  perf's colours: percentages by value, addresses,\n"
	"                          instructions; auto (default: on a terminal, unless\n"
	"                          NO_COLOR is set), always or never\n"
	"  -n, --show-nr-samples   the number of samples instead of the percentage\n"
	"  -l, --print-line        first the source lines of the instructions over 0.5%,\n"
	"                          summed, hottest first; those instructions end with\n"
	"                          // FILE:LINE where it changes\n"
	"  -P, --full-paths        the DSO's full path in each function's heading\n"
	"      --percent-limit N   only functions with N% or more of their event\n"
	"      --skip-missing      say nothing of functions that cannot be annotated\n"
	"      --symfs DIR         look for binaries under DIR (another machine's files)\n"
	"  -k, --vmlinux FILE      the kernel image, to annotate kernel functions\n"
	"      --kallsyms FILE     kernel symbols from this kallsyms copy\n"
	"      --no-demangle       keep C++ and Rust names mangled\n"
	"      --ignore-build-ids  use binaries whose build id is not the recorded one\n"
	"  -f, --force             read a file another user owns (as pcl report -f)\n"
	"  -q, --quiet             no notes or warnings\n"
	"\n"
	"Source lines are numbered with their own line numbers (perf numbers the lines\n"
	"of context before a source line from that line's number). A function whose\n"
	"code no file holds (the kernel from kallsyms, JIT code) is skipped and counted\n"
	"in one warning; an unknown SYMBOL, or a file without samples, is an error.\n";

static const char usage_evlist[] =
	"usage: pcl evlist [-i FILE|-] [-v | -F | -g] [--trace-fields] [-f]\n"
	"\n"
	"List the events of a perf.data file (pcl's or perf's, a file or a stream),\n"
	"one a line, as perf evlist prints them.\n"
	"\n"
	"  -i, --input FILE        the file to read (default perf.data; standard input\n"
	"                          when that is a pipe; - for standard input)\n"
	"  -v, --verbose           every attr field that is not zero\n"
	"  -F, --freq              the sample frequency (sample_freq=) or period\n"
	"                          (sample_period=) of each event\n"
	"  -g, --group             groups on one line: {leader,member,...}\n"
	"      --trace-fields      the fields of each tracepoint\n"
	"  -f, --force             read a file another user owns\n"
	"  -h, --help              show this text\n";

static const char usage_data[] =
	"usage: pcl data convert --to-json OUT [-i FILE|-] [--force]\n"
	"\n"
	"Convert a perf.data file (pcl's or perf's, a file or a stream) to the JSON\n"
	"of perf data convert --to-json: the file's headers, then one object per\n"
	"sample with its time, pid, tid, cpu (when recorded), command name and\n"
	"call chain (address, and symbol and DSO where known), in time order.\n"
	"Tracepoint payloads are not written (perf 6.1 writes none).\n"
	"\n"
	"  -i, --input FILE        the file to read (default perf.data; standard input\n"
	"                          when that is a pipe; - for standard input)\n"
	"      --to-json OUT       write the JSON to OUT (refused if it exists)\n"
	"  -f, --force             overwrite OUT; read a file another user owns\n"
	"      --all               refused, as by perf: JSON has no non-sample records\n"
	"      --tod               refused, as by perf for JSON\n"
	"  -v, --verbose           accepted, as by perf\n"
	"  -h, --help              show this text\n"
	"\n"
	"--to-ctf (perf's other format) is not supported.\n";

static const char usage_daemon[] =
	"usage: pcl daemon [--config FILE] [-v] [-x [SEP]]      (list the sessions)\n"
	"       pcl daemon start [--config FILE] [-f]\n"
	"       pcl daemon stop | ping [--session NAME] | signal [--session NAME]\n"
	"                  [--config FILE]\n"
	"\n"
	"Run pcl record sessions in the background, as perf daemon does, from a\n"
	"config file in perf's format:\n"
	"\n"
	"  [daemon]\n"
	"  base = /var/lib/pcl-daemon\n"
	"  [session-cycles]\n"
	"  run = -m 10 -e cycles --switch-output\n"
	"\n"
	"Each session runs 'pcl record --control=fifo:control,ack RUN' in\n"
	"BASE/session-NAME (its output, perf.data files, control and ack fifos).\n"
	"The daemon writes its log to BASE/output, holds BASE/lock, answers on the\n"
	"socket BASE/control, and restarts, starts or stops sessions when the\n"
	"config file changes. pcl and perf daemons and clients understand each\n"
	"other.\n"
	"\n"
	"  start                   start the daemon (in the background)\n"
	"  stop                    stop the daemon and its sessions\n"
	"  ping                    OK or FAIL for each session (or --session NAME)\n"
	"  signal                  send SIGUSR2 to each session (or --session NAME): a\n"
	"                          session with --switch-output starts a new file\n"
	"      --config FILE       the config file (default /etc/perfconfig if readable,\n"
	"                          else ~/.perfconfig)\n"
	"      --base DIR          the base directory, instead of the config's\n"
	"      --session NAME      one session (ping, signal); default all\n"
	"  -x, --field-separator [SEP]  list as SEP-separated fields (default ',')\n"
	"  -v, --verbose           list with each session's paths and up time\n"
	"  -f, --foreground        start: stay in the foreground\n"
	"  -h, --help              show this text\n";

static const char usage_probe[] =
	"usage: pcl probe [OPTIONS] 'PROBEDEF' ['PROBEDEF' ...]\n"
	"       pcl probe [OPTIONS] --add 'PROBEDEF' [--add 'PROBEDEF' ...]\n"
	"       pcl probe [OPTIONS] --del '[GROUP:]EVENT' ...\n"
	"       pcl probe --list [[GROUP:]EVENT]\n"
	"       pcl probe -x BIN --line 'FUNC[:RLN[+NUM|-RLN2]]|SRC:ALN[+NUM|-ALN2]'\n"
	"       pcl probe -x BIN --vars 'PROBEPOINT'\n"
	"       pcl probe -x BIN --funcs [FILTER]\n"
	"\n"
	"Add, list and delete dynamic probes (uprobe events in tracefs), as perf probe\n"
	"does. PROBEDEF: [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF|%return] [ARG ...] or\n"
	"[[GROUP:]EVENT=]SRC:ALN [ARG ...]; ARG: [NAME=]VAR[->FIELD|.FIELD|[N]...][:TYPE],\n"
	"%REG, $retval, $params, $vars. Events are probe_BIN:FUNC, used as -e\n"
	"probe_BIN:FUNC by stat, record, top and trace. Without -x a probe is a kprobe\n"
	"(FUNC[+OFF][%return] with registers; kernel DWARF is not read).\n"
	"pcl stat/record -e u:BIN:FUNC[%return] probe without tracefs (pcl help events).\n"
	"\n"
	"  -a, --add PROBEDEF      add a probe (the words left on the line are one too)\n"
	"  -D, --definition PROBEDEF  print the uprobe_events line, add nothing\n"
	"  -d, --del [GROUP:]EVENT delete events (globs; no GROUP: any group)\n"
	"  -l, --list [FILTER]     list the probe events\n"
	"  -L, --line SPEC         a function's (or file's) source, probe-able lines\n"
	"                          numbered\n"
	"  -V, --vars POINT        the variables available at a probe point\n"
	"  -F, --funcs [FILTER]    the functions of -x BIN (FILTER a glob; default !_*)\n"
	"  -x, --exec BIN          the program or library (path, program on $PATH, or a\n"
	"                          library name: libc)\n"
	"  -f, --force             add with a free name (EVENT_1 ...) if EVENT exists\n"
	"  -n, --dry-run           do everything but write tracefs\n"
	"  -q, --quiet             print only errors\n"
	"  -v, --verbose           accepted (perf's)\n"
	"  -m, --module MOD        kernel module (kprobes: refused where the kernel has none)\n"
	"  -k, --vmlinux FILE      accepted (kernel DWARF is not read)\n"
	"  -s, --source DIR        accepted (sources are read where DWARF says)\n"
	"      --max-probes N      accepted\n"
	"      --no-inlines        not the inlined copies of FUNC\n"
	"      --externs           accepted\n"
	"      --filter FILTER     accepted\n"
	"      --demangle, --no-demangle, --demangle-kernel  accepted\n"
	"      --range, --bootconfig, --cache, --symfs DIR, --target-ns PID\n"
	"                          refused: pcl does not have them\n"
	"  -h, --help              show this text\n";

static const char usage_trace[] =
	"usage: pcl trace [OPTIONS] [--] COMMAND [ARGS]\n"
	"       pcl trace [OPTIONS] -p PID | -t TID | -a | -C CPUS\n"
	"\n"
	"One line per syscall, with its duration, decoded arguments and result, as perf\n"
	"trace prints them, from the raw_syscalls tracepoints (no ptrace). Paths read\n"
	"after the call, which may have changed since, end in '?'. Output on stderr.\n"
	"A 32-bit program's calls are named from the i386 table, x32 calls from x32's.\n"
	"\n"
	"  -e, --event, --expr SYSCALLS  only these syscalls (comma list, globs);\n"
	"                          '!' first: all but these\n"
	"      --duration MS       only calls that took MS milliseconds or more\n"
	"      --failure           only calls that failed\n"
	"  -s, --summary           a per-thread summary only (calls, errors, total, min,\n"
	"                          avg, max msec, stddev)\n"
	"  -S, --with-summary      the lines and the summary\n"
	"  -o, --output FILE       write to FILE instead of stderr\n"
	"  -p, --pid PID[,PID]     trace these processes (every thread)\n"
	"  -t, --tid TID[,TID]     trace these threads\n"
	"  -a, --all-cpus          the whole system\n"
	"  -C, --cpu CPUS          the calls made on these CPUs\n"
	"  -m, --mmap-pages N      ring buffer pages per CPU (a power of two; default\n"
	"                          1024, or what perf_event_mlock_kb allows)\n"
	"  -h, --help              show this text\n";

static const char usage_lock[] =
	"usage: pcl lock record [RECORD OPTIONS] [--] COMMAND [ARGS]\n"
	"       pcl lock [-i FILE] contention|con [OPTIONS]\n"
	"       pcl lock contention|con [OPTIONS] [-a | -C CPUS | -p PID | --tid TID]\n"
	"                               [-b] [--] [COMMAND [ARGS]]        (live)\n"
	"       pcl lock [-i FILE] report [-k KEY] [-F KEYS] [-E N] [-t] [-c]\n"
	"       pcl lock [-i FILE] info -t | -m\n"
	"\n"
	"Kernel lock contention, from the lock:contention_begin and contention_end\n"
	"tracepoints, as perf lock prints it (on standard error, as perf does).\n"
	"record samples both tracepoints with kernel call chains into a perf.data\n"
	"file (pcl record's options apply; default -o perf.data). contention reads\n"
	"such a file (pcl's or perf's) and prints a table of wait times by caller:\n"
	"the first function of the chain that is not a lock function. Given a\n"
	"command or a target, contention runs live instead: pcl record streams the\n"
	"tracepoints through a pipe as the command runs, and the same table is\n"
	"printed at its end. pcl has no BPF: -b (perf's --use-bpf) is accepted and\n"
	"runs live the same way. report prints a line per lock (named after the\n"
	"caller of its first wait), info the threads (-t) or the locks (-m).\n"
	"\n"
	"  -i, --input FILE        the file to read (default perf.data)\n"
	"  -k, --key KEY           sort by contended, wait_total (the default),\n"
	"                          wait_max, wait_min or avg_wait (report: also\n"
	"                          acquired, its default)\n"
	"  -F, --field KEYS        the columns, a comma-separated list of those keys\n"
	"                          (default contended,wait_total,wait_max,avg_wait)\n"
	"  -E, --entries N         print only the first N lines\n"
	"  -t, --threads           one line per thread (pid, comm) instead of caller\n"
	"                          (info: the threads that waited)\n"
	"  -l, --lock-addr         one line per lock (address, symbol) instead of caller\n"
	"  -c, --combine-locks     report: the locks of the same name as one line\n"
	"  -m, --map               info: each lock's address and name\n"
	"  -q, --quiet             no header, no debug section\n"
	"  -v, --verbose           each caller's call chain under its line\n"
	"  -f, --force             read a file another user owns\n"
	"      --max-stack N       frames of a chain used (default 8)\n"
	"      --stack-skip N      frames skipped before the caller search (default 3)\n"
	"      --kallsyms FILE     kernel symbols from this kallsyms copy\n"
	"      --stdio             accepted (the only output)\n"
	"  live mode:\n"
	"  -a, --all-cpus          the whole system (default: the command and children)\n"
	"  -C, --cpu CPUS          these CPUs\n"
	"  -p, --pid PIDS          these processes\n"
	"      --tid TIDS          these threads\n"
	"  -b, --use-bpf           accepted: live mode without BPF\n"
	"      --map-nr-entries N  accepted (a BPF map size in perf)\n"
	"  -h, --help              show this text\n"
	"\n"
	"Live, the exit status is the command's. pcl lock script is not supported\n"
	"(use pcl script).\n";

static const char usage_bench[] =
	"usage: pcl bench [-f default|simple] [-r N] sched messaging [-g N] [-l N] [-p] [-t]\n"
	"       pcl bench [-f default|simple] [-r N] sched pipe [-l N] [-T]\n"
	"       pcl bench sched all\n"
	"\n"
	"perf bench's scheduler benchmarks, with its output.\n"
	"\n"
	"  -f, --format FMT        default, or simple (the time alone)\n"
	"  -r, --repeat N          run the benchmark N times\n"
	"  sched messaging (hackbench): groups of 20 senders and 20 receivers; each\n"
	"  sender writes 100-byte messages to each receiver of its group\n"
	"  -g, --group N           groups (default 10)\n"
	"  -l, --nr_loops N        messages per sender and receiver (default 100)\n"
	"  -p, --pipe              pipes instead of socketpairs\n"
	"  -t, --thread            threads instead of processes\n"
	"  sched pipe: two processes pass a word back and forth over pipes\n"
	"  -l, --loop N            round trips (default 1000000)\n"
	"  -T, --threaded          two threads instead of two processes\n"
	"  -h, --help              show this text\n";

static const struct {
	const char *name;
	const char *text;
} usages[] = {
	{ "stat", usage_stat },	    { "record", usage_record }, { "list", usage_list },
	{ "report", usage_report },
	{ "script", usage_script },
	{ "diff", usage_diff },
	{ "annotate", usage_annotate },
	{ "evlist", usage_evlist },
	{ "data", usage_data },
	{ "daemon", usage_daemon },
	{ "events", usage_events }, { "help", usage_help },
	{ "buildid-list", usage_buildid_list }, { "buildid-cache", usage_buildid_cache },
	{ "inject", usage_inject }, { "archive", usage_archive },
	{ "probe", usage_probe },
	{ "top", usage_top },
	{ "trace", usage_trace },
	{ "lock", usage_lock },
	{ "bench", usage_bench },
};

int print_usage(const char *cmd, FILE *out)
{
	if (!cmd) {
		fputs(usage_main, out);
		return 0;
	}
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++) {
		if (!strcmp(cmd, usages[i].name)) {
			fputs(usages[i].text, out);
			return 0;
		}
	}
	return -1;
}

/* Whether @path is a readable file. */
static bool readable(const char *path)
{
	return !access(path, R_OK);
}

/* Whether man(1) finds @page on its search path (MANPATH, man.conf). */
static bool man_knows(const char *page)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

void show_man_page(const char *cmd)
{
	char exe[PATH_MAX], page[64], path[PATH_MAX + 128], *slash;
	ssize_t n;

	/* a command's name, not a path to some other file */
	if (cmd && (!*cmd || strspn(cmd, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(cmd)))
		return;
	snprintf(page, sizeof(page), "pcl%s%s", cmd ? "-" : "", cmd ? cmd : "");
	/* installed beside this pcl: PREFIX/bin/pcl -> PREFIX/share/man/man1 */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/../share/man/man1/%s.1", exe, page);
			if (readable(path)) {
				fflush(stdout);
				execlp("man", "man", "-l", path, (char *)NULL);
				return;
			}
		}
	}
	if (man_knows(page)) {
		fflush(stdout);
		execlp("man", "man", page, (char *)NULL);
	}
}

int cli_getopt_long(int argc, char *const argv[], const char *optstring,
		    const struct option *longopts, int *longindex)
{
	int idx = -1, c;

	if (cli_list_opts) {
		for (const struct option *o = longopts; o && o->name; o++)
			printf("%s--%s", o == longopts ? "" : " ", o->name);
		putchar('\n');
		exit(stdout_finish(0));
	}
	c = getopt_long(argc, argv, optstring, longopts, &idx);
	if (longindex)
		*longindex = idx;
	/* --help, not -h: the manual, as perf does; the usage when there is none */
	if (cli_cmd && c != -1 && c != '?' && c != ':' && idx >= 0 &&
	    !strcmp(longopts[idx].name, "help"))
		show_man_page(cli_cmd);
	return c;
}

int cmd_help(int argc, char **argv)
{
	const char *cmd = argc < 2 ? NULL : argv[1];

	/* pcl help -h: help's own usage; --help: its page */
	if (cmd && (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")))
		cmd = "help";
	if (cmd)
		show_man_page(cmd);
	setup_pager();
	if (!cmd)
		return print_usage(NULL, stdout), 0;
	if (print_usage(cmd, stdout)) {
		die_msg("no help for '%s'; see 'pcl help'", cmd);
		return EXIT_USAGE;
	}
	return 0;
}
