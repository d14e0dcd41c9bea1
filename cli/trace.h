/* SPDX-License-Identifier: MIT */
/*
 * pcl trace's pieces (cmd-trace.c drives them):
 *
 * trace-syscalls.c: the syscall table (names from the kernel headers at
 * build time, argument names and types from tracefs'
 * syscalls:sys_enter_NAME formats, as perf takes them) and the formatting
 * of one call's arguments and return value, perf trace's way.
 *
 * trace-abi.c: which ABI's table names a process's calls (x86-64 or i386).
 *
 * trace-mem.c: what a traced process's memory held at the time of a call,
 * for the strings (paths) the raw_syscalls tracepoints only point at. It
 * keeps each process's mappings as of the record being processed (MMAP2
 * records, /proc/PID/maps at attach), and reads a string from the user
 * stack the sample copied, from the file behind a read-only mapping, or
 * (marked as such) from /proc/PID/mem after the fact.
 */
#ifndef PCL_CLI_TRACE_H
#define PCL_CLI_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How an argument is decoded. */
enum trace_arg_kind {
	TA_LONG = 0, /* decimal, signed as its type */
	TA_ULONG,
	TA_HEX,	 /* pointers */
	TA_FD,	 /* int fd (AT_FDCWD: CWD for dfd) */
	TA_PATH, /* NUL-terminated string in the process's memory */
	TA_OPEN_FLAGS,
	TA_MODE, /* IRUGO|..., printed only with O_CREAT|O_TMPFILE for open */
	TA_MMAP_PROT,
	TA_MMAP_FLAGS,
	TA_WHENCE,
	TA_SIGNUM,
	TA_ACCESS_MODE,
	TA_AT_FLAGS,
	TA_PID,
	TA_ARCH_PRCTL,
	TA_RLIMIT,
	TA_GETRANDOM,
	TA_STRARRAY, /* a name from a table (trace_arg.names) */
	TA_FUTEX_OP,
	TA_SOCK_TYPE,
	TA_WAIT_OPTIONS, /* wait4, waitid: NOHANG|UNTRACED|CONTINUED */
};

/* Names of the values 0..nr-1 (NULL: no name). */
struct trace_strarray {
	const char *const *v;
	int nr;
	int offset; /* the value of v[0] */
};

struct trace_arg {
	char *name;
	enum trace_arg_kind kind;
	bool is_int;			    /* a 32-bit C type: the value is (int) */
	const struct trace_strarray *names; /* TA_STRARRAY */
};

enum trace_ret_kind { TR_LONG = 0, TR_HEX, TR_PID };

/*
 * The syscall ABIs of an x86-64 kernel; each numbers the calls its own
 * way. A process's calls are i386 ones when it runs 32-bit code, x32 ones
 * when their number has __X32_SYSCALL_BIT set (the tables hold them
 * without it), x86-64 ones otherwise.
 */
enum trace_abi { TRACE_ABI_64 = 0, TRACE_ABI_I386, TRACE_ABI_X32, NR_TRACE_ABI };
#define TRACE_X32_BIT 0x40000000L

struct trace_sc {
	const char *name;
	enum trace_abi abi;
	int nargs;
	struct trace_arg args[6];
	bool has_path; /* an argument is a string to read */
	bool is_exit;  /* exit, exit_group: no return */
	enum trace_ret_kind ret;
	bool loaded; /* its format was read (else args print as NR's raw values) */
};

/* Syscall numbers of @abi are 0..trace_sc_max(@abi)-1. */
int trace_sc_max(enum trace_abi abi);
/*
 * The syscall @nr of @abi, its format read from tracefs on first use; NULL
 * for an unknown nr. An x32 @nr is without TRACE_X32_BIT.
 */
struct trace_sc *trace_sc(enum trace_abi abi, long nr);
/* The number of syscall @name in @abi, or -1. */
int trace_sc_lookup(enum trace_abi abi, const char *name);
/* Load every syscall's format, of every ABI (to know which take paths). 0 or -errno. */
int trace_sc_load_all(void);

/*
 * The ABI of each traced process (trace-abi.c). Not thread-safe; @pid is a
 * process id (a thread group's).
 */
struct trace_abis;
struct trace_abis *trace_abis__new(void);
void trace_abis__free(struct trace_abis *a);
/*
 * The ABI of @pid's calls: as set by the last call's sample or inherited at
 * fork, else from the ELF header of /proc/PID/exe (read once). x86-64 with
 * *@certain false if none of them says (the process is gone).
 */
enum trace_abi trace_abis__get(struct trace_abis *a, pid_t pid, bool *certain);
/* A call of @pid was made in @abi (TRACE_ABI_64 or TRACE_ABI_I386): known for sure. */
void trace_abis__set(struct trace_abis *a, pid_t pid, enum trace_abi abi);
/* @pid exec'ed: its new program may be of the other class. */
void trace_abis__exec(struct trace_abis *a, pid_t pid);
/* Process @child was forked from @parent: the same ABI. */
void trace_abis__fork(struct trace_abis *a, pid_t parent, pid_t child);
/* Process @pid ended. */
void trace_abis__exit(struct trace_abis *a, pid_t pid);

/* Memory of traced processes. */
struct trace_mem;
struct trace_mem *trace_mem__new(void);
void trace_mem__free(struct trace_mem *m);
/* A mapping of process @pid (an MMAP2 record, or a line of /proc/PID/maps). */
void trace_mem__map(struct trace_mem *m, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint32_t prot, uint32_t maj, uint32_t min, uint64_t ino, const char *path);
/* @pid exec'ed: its old mappings are gone. */
void trace_mem__exec(struct trace_mem *m, pid_t pid);
/* Process @pid ended: its mappings and /proc/PID/mem descriptor go. */
void trace_mem__exit(struct trace_mem *m, pid_t pid);
/* Process @child was forked from @parent: a copy of its mappings. */
void trace_mem__fork(struct trace_mem *m, pid_t parent, pid_t child);
/* The mappings of a process that runs already, from /proc/PID/maps. */
void trace_mem__read_proc(struct trace_mem *m, pid_t pid);

/* Where a string came from. */
enum trace_str_src {
	TS_NONE = 0, /* not read: print the pointer */
	TS_STACK,    /* the user stack copied into the sample: exact */
	TS_FILE,     /* a read-only file mapping, from the unchanged file: exact */
	TS_LATE,     /* /proc/PID/mem after the call: may have changed since */
};

/* What a sample of sys_enter brings to read strings with. */
struct trace_user {
	pid_t pid;
	uint64_t time_ns;  /* CLOCK_MONOTONIC of the call */
	uint64_t sp;	   /* user stack pointer at the call (0: none) */
	const void *stack; /* the bytes from sp (NULL: none) */
	uint64_t stack_size;
};

/* Read the string at @addr into @buf (NUL-terminated; truncated to @size - 1). */
enum trace_str_src trace_mem__string(struct trace_mem *m, const struct trace_user *u, uint64_t addr,
				     char *buf, size_t size);

/*
 * Format "name(arg: val, ...": the line's start up to (not with) its closing
 * parenthesis, into @buf, for call @nr of @abi (@sc: its entry, or NULL).
 * Returns the length.
 */
size_t trace_fmt_args(char *buf, size_t size, enum trace_abi abi, struct trace_sc *sc, long nr,
		      const uint64_t args[6], struct trace_mem *m, const struct trace_user *u);

#endif
