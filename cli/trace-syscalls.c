/* SPDX-License-Identifier: MIT */
/*
 * The syscall table of pcl trace and the formatting of a call's arguments.
 *
 * Names come from the kernel headers' __NR_ macros, turned into
 * syscalltbl*.h at build time (Makefile), one table per ABI: x86-64, i386
 * and x32 number the same call differently. Argument names and C types come
 * from tracefs' syscalls:sys_enter_NAME formats, read on first use, as perf
 * trace reads them; the type and name choose the decoding (fds, paths,
 * pointers, numbers), and a short table of perf's own choices adds open
 * flags, mmap prot and flags, whence, signals and access modes. Like perf,
 * an argument that is 0 is left out unless 0 means something (an fd, a
 * flag set whose 0 has a name).
 *
 * The formats describe the 64-bit entry points. An i386 call is decoded
 * with the format of its 64-bit twin of the same name when the twin takes
 * the same arguments in the same order (read, openat, ...); every argument
 * is then 32 bits wide. Calls with no twin (mmap2, _llseek, socketcall),
 * or whose twin's arguments differ (i386's mmap takes one pointer, its
 * clone orders them otherwise, its pread64 splits the offset in two), and
 * every x32 call, print their raw arguments in hex instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pcl/sys.h>
#include <pcl/tracepoint.h>
#include "trace.h"

static const char *const names_64[] = {
#include "syscalltbl.h"
};
static const char *const names_i386[] = {
#include "syscalltbl_32.h"
};
static const char *const names_x32[] = {
#include "syscalltbl_x32.h"
};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static struct trace_sc table_64[NELEM(names_64)], table_i386[NELEM(names_i386)],
	table_x32[NELEM(names_x32)];
static bool tried_64[NELEM(names_64)], tried_i386[NELEM(names_i386)], tried_x32[NELEM(names_x32)];

static const struct {
	const char *const *names;
	struct trace_sc *table;
	bool *tried;
	int nr;
} abis[NR_TRACE_ABI] = {
	[TRACE_ABI_64] = { names_64, table_64, tried_64, NELEM(names_64) },
	[TRACE_ABI_I386] = { names_i386, table_i386, tried_i386, NELEM(names_i386) },
	[TRACE_ABI_X32] = { names_x32, table_x32, tried_x32, NELEM(names_x32) },
};

int trace_sc_max(enum trace_abi abi)
{
	return abis[abi].nr;
}

int trace_sc_lookup(enum trace_abi abi, const char *name)
{
	for (int i = 0; i < abis[abi].nr; i++)
		if (abis[abi].names[i] && !strcmp(abis[abi].names[i], name))
			return i;
	return -1;
}

/* The text of tracefs' events/syscalls/sys_enter_@name/format, or NULL. */
static char *read_format(const char *name, size_t *len)
{
	const char *tfs = pcl_tracefs(true);
	char path[512];
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	FILE *f;

	if (!tfs)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", tfs, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 > cap) {
			char *nb = realloc(buf, cap + 8192);

			if (!nb)
				break;
			buf = nb;
			cap += 8192;
		}
		r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return buf;
}

static bool name_in(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(name, *set))
			return true;
	return false;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

#define STRARRAY(name, off, ...)                                                                   \
	static const char *const name##_v[] = { __VA_ARGS__ };                                     \
	static const struct trace_strarray name = { name##_v,                                      \
						    (int)(sizeof(name##_v) / sizeof(name##_v[0])), \
						    off }

STRARRAY(sa_sigprocmask_how, 0, "BLOCK", "UNBLOCK", "SETMASK");
STRARRAY(sa_madvise, 0, "MADV_NORMAL", "MADV_RANDOM", "MADV_SEQUENTIAL", "MADV_WILLNEED",
	 "MADV_DONTNEED", NULL, NULL, NULL, "MADV_FREE", "MADV_REMOVE", "MADV_DONTFORK",
	 "MADV_DOFORK", "MADV_MERGEABLE", "MADV_UNMERGEABLE", "MADV_HUGEPAGE", "MADV_NOHUGEPAGE",
	 "MADV_DONTDUMP", "MADV_DODUMP", "MADV_WIPEONFORK", "MADV_KEEPONFORK", "MADV_COLD",
	 "MADV_PAGEOUT", "MADV_POPULATE_READ", "MADV_POPULATE_WRITE", "MADV_DONTNEED_LOCKED");
STRARRAY(sa_fcntl, 0, "DUPFD", "GETFD", "SETFD", "GETFL", "SETFL", "GETLK", "SETLK", "SETLKW",
	 "SETOWN", "GETOWN", "SETSIG", "GETSIG", NULL, NULL, NULL, "SETOWN_EX", "GETOWN_EX");
STRARRAY(sa_fcntl_linux, 1024, "SETLEASE", "GETLEASE", "NOTIFY", NULL, NULL, NULL, "DUPFD_CLOEXEC",
	 "SETPIPE_SZ", "GETPIPE_SZ", "ADD_SEALS", "GET_SEALS");
STRARRAY(sa_ioctl_tty, 0x5401, "TCGETS", "TCSETS", "TCSETSW", "TCSETSF", "TCGETA", "TCSETA",
	 "TCSETAW", "TCSETAF", "TCSBRK", "TCXONC", "TCFLSH", "TIOCEXCL", "TIOCNXCL", "TIOCSCTTY",
	 "TIOCGPGRP", "TIOCSPGRP", "TIOCOUTQ", "TIOCSTI", "TIOCGWINSZ", "TIOCSWINSZ", "TIOCMGET",
	 "TIOCMBIS", "TIOCMBIC", "TIOCMSET", "TIOCGSOFTCAR", "TIOCSSOFTCAR", "FIONREAD",
	 "TIOCLINUX", "TIOCCONS", "TIOCGSERIAL", "TIOCSSERIAL", "TIOCPKT", "FIONBIO");
STRARRAY(sa_ioctl_fio, 0x5450, "FIONCLEX", "FIOCLEX", "FIOASYNC");
STRARRAY(sa_socket_family, 0, "UNSPEC", "LOCAL", "INET", "AX25", "IPX", "APPLETALK", "NETROM",
	 "BRIDGE", "ATMPVC", "X25", "INET6", "ROSE", "DECnet", "NETBEUI", "SECURITY", "KEY",
	 "NETLINK", "PACKET");
STRARRAY(sa_futex_cmd, 0, "WAIT", "WAKE", "FD", "REQUEUE", "CMP_REQUEUE", "WAKE_OP", "LOCK_PI",
	 "UNLOCK_PI", "TRYLOCK_PI", "WAIT_BITSET", "WAKE_BITSET", "WAIT_REQUEUE_PI",
	 "CMP_REQUEUE_PI", "LOCK_PI2");
STRARRAY(sa_sock_type, 0, NULL, "STREAM", "DGRAM", "RAW", "RDM", "SEQPACKET", "DCCP", NULL, NULL,
	 NULL, "PACKET");

/* A value's name from its table (the ioctl and fcntl ones span two), or NULL. */
static const char *strarray_name(const struct trace_strarray *sa, uint64_t v)
{
	const struct trace_strarray *more[] = { sa, NULL };

	if (sa == &sa_fcntl)
		more[1] = &sa_fcntl_linux;
	else if (sa == &sa_ioctl_tty)
		more[1] = &sa_ioctl_fio;
	for (int i = 0; i < 2 && more[i]; i++) {
		const struct trace_strarray *a = more[i];

		if (v >= (uint64_t)a->offset && v - (uint64_t)a->offset < (uint64_t)a->nr)
			return a->v[v - (uint64_t)a->offset];
	}
	return NULL;
}

/* perf's tables of names, by syscall and argument. */
static const struct trace_strarray *special_names(const char *sc, const char *arg)
{
	if ((!strcmp(sc, "rt_sigprocmask") || !strcmp(sc, "sigprocmask")) && !strcmp(arg, "how"))
		return &sa_sigprocmask_how;
	if ((!strcmp(sc, "madvise") || !strcmp(sc, "process_madvise")) && !strcmp(arg, "behavior"))
		return &sa_madvise;
	if (!strcmp(sc, "fcntl") && !strcmp(arg, "cmd"))
		return &sa_fcntl;
	if (!strcmp(sc, "ioctl") && !strcmp(arg, "cmd"))
		return &sa_ioctl_tty;
	if ((!strcmp(sc, "socket") || !strcmp(sc, "socketpair")) && !strcmp(arg, "family"))
		return &sa_socket_family;
	return NULL;
}

/* perf's choices of decoders by syscall and argument name. */
static enum trace_arg_kind special_kind(const char *sc, const char *arg, enum trace_arg_kind kind)
{
	static const char *const open_sc[] = { "open", "openat", "creat", "open_by_handle_at",
					       NULL };
	static const char *const mprot_sc[] = { "mmap", "mprotect", "pkey_mprotect", NULL };
	static const char *const sig_sc[] = { "kill",
					      "tkill",
					      "tgkill",
					      "rt_sigaction",
					      "rt_sigqueueinfo",
					      "rt_tgsigqueueinfo",
					      "pidfd_send_signal",
					      NULL };
	static const char *const access_sc[] = { "access", "faccessat", "faccessat2", NULL };
	static const char *const at_sc[] = {
		"newfstatat", "statx",	   "fchownat",	 "linkat",
		"unlinkat",   "utimensat", "fchmodat",	 "name_to_handle_at",
		"execveat",   "open_tree", "move_mount", NULL
	};
	static const char *const start_sc[] = {
		"mprotect", "pkey_mprotect", "munmap",		 "madvise",
		"mlock",    "mlock2",	     "munlock",		 "msync",
		"mremap",   "mincore",	     "remap_file_pages", NULL
	};
	static const char *const rlim_sc[] = { "prlimit64", "getrlimit", "setrlimit", NULL };

	if (name_in(sc, open_sc) && !strcmp(arg, "flags"))
		return TA_OPEN_FLAGS;
	if (name_in(sc, open_sc) && !strcmp(arg, "mode"))
		return TA_MODE;
	if (name_in(sc, mprot_sc) && !strcmp(arg, "prot"))
		return TA_MMAP_PROT;
	if (!strcmp(sc, "mmap") && !strcmp(arg, "flags"))
		return TA_MMAP_FLAGS;
	if (!strcmp(sc, "mmap") && !strcmp(arg, "fd"))
		return TA_FD;
	if ((!strcmp(sc, "lseek") || !strcmp(sc, "llseek")) && !strcmp(arg, "whence"))
		return TA_WHENCE;
	if (name_in(sc, sig_sc) && !strcmp(arg, "sig"))
		return TA_SIGNUM;
	if (name_in(sc, access_sc) && !strcmp(arg, "mode"))
		return TA_ACCESS_MODE;
	if (name_in(sc, at_sc) && (!strcmp(arg, "flag") || !strcmp(arg, "flags")))
		return TA_AT_FLAGS;
	if (name_in(sc, start_sc) && (!strcmp(arg, "start") || !strcmp(arg, "addr")))
		return TA_HEX;
	if ((!strcmp(sc, "brk") && !strcmp(arg, "brk")) ||
	    (!strcmp(sc, "mmap") && !strcmp(arg, "off")))
		return TA_HEX;
	if (!strcmp(sc, "arch_prctl") && !strcmp(arg, "option"))
		return TA_ARCH_PRCTL;
	if (!strcmp(sc, "arch_prctl") && !strcmp(arg, "arg2"))
		return TA_HEX;
	if (name_in(sc, rlim_sc) && !strcmp(arg, "resource"))
		return TA_RLIMIT;
	if (!strcmp(sc, "getrandom") && !strcmp(arg, "flags"))
		return TA_GETRANDOM;
	if ((!strcmp(sc, "wait4") || !strcmp(sc, "waitid")) && !strcmp(arg, "options"))
		return TA_WAIT_OPTIONS;
	if (!strcmp(sc, "ioctl") && !strcmp(arg, "arg"))
		return TA_HEX;
	if (!strcmp(sc, "futex") && !strcmp(arg, "op"))
		return TA_FUTEX_OP;
	if ((!strcmp(sc, "socket") || !strcmp(sc, "socketpair")) && !strcmp(arg, "type"))
		return TA_SOCK_TYPE;
	if (special_names(sc, arg))
		return TA_STRARRAY;
	/* perf: a number named *addr* is an address */
	if (strstr(arg, "addr") && (kind == TA_LONG || kind == TA_ULONG))
		return TA_HEX;
	return kind;
}

/* The decoder of an argument from its C type and name, as perf picks them. */
static void arg_kind(const char *sc, const struct pcl_tp_field *f, struct trace_arg *a)
{
	static const char *const paths[] = { "filename", "pathname",	"path",	   "oldname",
					     "newname",	 "specialfile", "library", "dev_name",
					     "dir_name", NULL };
	static const char *const ints[] = { "int",     "pid_t", "clockid_t", "key_serial_t",
					    "timer_t", "mqd_t", "key_t",     "__s32",
					    "rwf_t",   NULL };
	static const char *const uints[] = { "unsigned int", "uid_t", "gid_t",	  "umode_t", "u32",
					     "__u32",	     "qid_t", "unsigned", NULL };
	/* 64-bit signed types: tracefs says signed:0 of every syscall argument */
	static const char *const longs[] = { "long", "off_t", "loff_t", NULL };
	const char *t = f->type;

	if (!strncmp(t, "const ", 6) && !strchr(t, '*'))
		t += 6;
	a->is_int = name_in(t, ints) || name_in(t, uints);
	a->kind = (f->flags & PCL_TP_SIGNED) || name_in(t, ints) || name_in(t, longs) ? TA_LONG
										      : TA_ULONG;
	if (!strcmp(t, "const char *") && name_in(f->name, paths))
		a->kind = TA_PATH;
	else if (f->flags & PCL_TP_POINTER)
		a->kind = TA_HEX;
	else if (!strcmp(t, "pid_t"))
		a->kind = TA_PID;
	else if (!strcmp(t, "umode_t"))
		a->kind = TA_MODE;
	else if ((!strcmp(t, "int") || !strcmp(t, "unsigned int")) && ends_with(f->name, "fd"))
		a->kind = TA_FD;
	a->kind = special_kind(sc, f->name, a->kind);
	if (a->kind == TA_STRARRAY)
		a->names = special_names(sc, f->name);
}

/*
 * i386 calls whose 64-bit twin of the same name takes other arguments:
 * old_mmap and old_select take a pointer to a struct of them, clone has
 * CLONE_BACKWARDS' order, and a 64-bit value is split over two registers.
 */
static const char *const i386_differs[] = {
	"mmap",	     "select",		"clone",	 "pread64",
	"pwrite64",  "readahead",	"fadvise64",	 "fadvise64_64",
	"fallocate", "sync_file_range", "fanotify_mark", "lookup_dcookie",
	NULL
};

/*
 * The 64-bit twin of i386's call @name under another name, into @buf:
 * whether it has one. The time64 calls (futex_time64, clock_gettime64 ...)
 * are x86-64's own entry points, named without the suffix; a few others
 * take the same arguments as a call x86-64 names otherwise.
 */
static bool i386_twin(const char *name, char *buf, size_t size)
{
	static const char *const bare[] = { "clock_gettime64",	 "clock_settime64",
					    "clock_adjtime64",	 "timer_gettime64",
					    "timer_settime64",	 "timerfd_gettime64",
					    "timerfd_settime64", NULL };
	static const char *const renamed[][2] = {
		{ "stat64", "newstat" },    { "lstat64", "newlstat" },
		{ "fstat64", "newfstat" },  { "fstatat64", "newfstatat" },
		{ "fcntl64", "fcntl" },	    { "ugetrlimit", "getrlimit" },
		{ "_newselect", "select" }, { "sigreturn", "rt_sigreturn" },
	};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		if (!strcmp(name, renamed[i][0])) {
			snprintf(buf, size, "%s", renamed[i][1]);
			return true;
		}
	}
	if (n > 7 && !strcmp(name + n - 7, "_time64"))
		n -= 7;
	else if (name_in(name, bare))
		n -= 2;
	else
		return false;
	snprintf(buf, size, "%.*s", (int)n, name);
	return true;
}

static void load(struct trace_sc *sc, enum trace_abi abi, const char *name)
{
	static const char *const hexret[] = { "mmap", "mmap2", "brk", "mremap", "shmat", NULL };
	static const char *const pidret[] = { "clone",	 "clone3",  "fork",    "vfork",
					      "wait4",	 "getpid",  "getppid", "gettid",
					      "getpgid", "getpgrp", "getsid",  "set_tid_address",
					      "setsid",	 NULL };
	struct pcl_tp_format *f = NULL;
	char alias[64];
	size_t len = 0;
	char *text;

	sc->name = name;
	sc->abi = abi;
	sc->is_exit = !strcmp(name, "exit") || !strcmp(name, "exit_group");
	sc->ret = name_in(name, hexret) ? TR_HEX : name_in(name, pidret) ? TR_PID : TR_LONG;
	if (abi == TRACE_ABI_X32 || (abi == TRACE_ABI_I386 && name_in(name, i386_differs)))
		return;
	text = read_format(name, &len);
	if (!text && abi == TRACE_ABI_I386 && i386_twin(name, alias, sizeof(alias)))
		text = read_format(alias, &len);
	/* the kernel names a few by their implementation: newstat, newuname... */
	if (!text) {
		snprintf(alias, sizeof(alias), "new%s", name);
		text = read_format(alias, &len);
	}
	if (text)
		f = pcl_tp_format__parse("syscalls", text, len, 8);
	free(text);
	if (!f)
		return;
	for (int i = 0; i < f->nr_fields && sc->nargs < 6; i++) {
		struct pcl_tp_field *fl = &f->fields[i];
		struct trace_arg *a = &sc->args[sc->nargs];

		if ((fl->flags & PCL_TP_COMMON) || !strcmp(fl->name, "__syscall_nr"))
			continue;
		a->name = strdup(fl->name);
		if (!a->name)
			break;
		arg_kind(name, fl, a);
		/* i386: a long and a pointer are 32 bits, and so is what the register holds */
		if (abi == TRACE_ABI_I386)
			a->is_int = true;
		sc->has_path |= a->kind == TA_PATH;
		sc->nargs++;
	}
	sc->loaded = true;
	pcl_tp_format__free(f);
}

struct trace_sc *trace_sc(enum trace_abi abi, long nr)
{
	if (nr < 0 || nr >= abis[abi].nr || !abis[abi].names[nr])
		return NULL;
	if (!abis[abi].tried[nr]) {
		abis[abi].tried[nr] = true;
		load(&abis[abi].table[nr], abi, abis[abi].names[nr]);
	}
	return &abis[abi].table[nr];
}

int trace_sc_load_all(void)
{
	if (!pcl_tracefs(true))
		return -ENOENT;
	for (int abi = 0; abi < NR_TRACE_ABI; abi++)
		for (int i = 0; i < abis[abi].nr; i++)
			trace_sc((enum trace_abi)abi, i);
	return 0;
}

/* Formatting into a bounded buffer. */
struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < o->size - o->len ? (size_t)n : o->size - o->len - 1;
}

struct flag_name {
	uint64_t bit;
	const char *name;
};

/* Names of the set bits in table order, "|"-joined, what is left in hex. */
static void put_flags(struct out *o, uint64_t v, const struct flag_name *t, bool first)
{
	for (; t->name; t++) {
		if ((v & t->bit) == t->bit && t->bit) {
			put(o, "%s%s", first ? "" : "|", t->name);
			first = false;
			v &= ~t->bit;
		}
	}
	if (v)
		put(o, "%s%#llx", first ? "" : "|", (unsigned long long)v);
}

/* perf's order (tools/perf/trace/beauty/open_flags.c), kernel values. */
static const struct flag_name open_flags[] = {
	{ 02, "RDWR" },		  { 02000, "APPEND" },
	{ 020000, "ASYNC" },	  { 02000000, "CLOEXEC" },
	{ 0100, "CREAT" },	  { 040000, "DIRECT" },
	{ 0200000, "DIRECTORY" }, { 0200, "EXCL" },
	{ 0100000, "LARGEFILE" }, { 0400000, "NOFOLLOW" },
	{ 020000000, "TMPFILE" }, { 01000000, "NOATIME" },
	{ 0400, "NOCTTY" },	  { 04000, "NONBLOCK" },
	{ 010000000, "PATH" },	  { 04010000, "SYNC" },
	{ 010000, "DSYNC" },	  { 01000, "TRUNC" },
	{ 01, "WRONLY" },	  { 0, NULL },
};

static const struct flag_name prot_flags[] = {
	{ PROT_READ, "READ" }, { PROT_WRITE, "WRITE" },	    { PROT_EXEC, "EXEC" },
	{ 0x8, "SEM" },	       { 0x01000000, "GROWSDOWN" }, { 0x02000000, "GROWSUP" },
	{ 0, NULL },
};

static const struct flag_name mmap_flags[] = {
	{ 0x10, "FIXED" },
	{ 0x20, "ANONYMOUS" },
	{ 0x40, "32BIT" },
	{ 0x100, "GROWSDOWN" },
	{ 0x800, "DENYWRITE" },
	{ 0x1000, "EXECUTABLE" },
	{ 0x2000, "LOCKED" },
	{ 0x4000, "NORESERVE" },
	{ 0x8000, "POPULATE" },
	{ 0x10000, "NONBLOCK" },
	{ 0x20000, "STACK" },
	{ 0x40000, "HUGETLB" },
	{ 0x80000, "SYNC" },
	{ 0x100000, "FIXED_NOREPLACE" },
	{ 0, NULL },
};

static const struct flag_name at_flags[] = {
	{ 0x100, "SYMLINK_NOFOLLOW" }, { 0x200, "REMOVEDIR" },	 { 0x400, "SYMLINK_FOLLOW" },
	{ 0x800, "NO_AUTOMOUNT" },     { 0x1000, "EMPTY_PATH" }, { 0, NULL },
};

/* perf's order (tools/perf/trace/beauty/mode_t.c): the widest sets first */
static const struct flag_name mode_flags[] = {
	{ 07777, "IALLUGO" }, { 0777, "IRWXUGO" }, { 0444, "IRUGO" },	  { 0222, "IWUGO" },
	{ 0111, "IXUGO" },    { 0170000, "IFMT" }, { 0140000, "IFSOCK" }, { 0120000, "IFLNK" },
	{ 0100000, "IFREG" }, { 060000, "IFBLK" }, { 040000, "IFDIR" },	  { 020000, "IFCHR" },
	{ 010000, "IFIFO" },  { 04000, "ISUID" },  { 02000, "ISGID" },	  { 01000, "ISVTX" },
	{ 0700, "IRWXU" },    { 0400, "IRUSR" },   { 0200, "IWUSR" },	  { 0100, "IXUSR" },
	{ 070, "IRWXG" },     { 040, "IRGRP" },	   { 020, "IWGRP" },	  { 010, "IXGRP" },
	{ 07, "IRWXO" },      { 04, "IROTH" },	   { 02, "IWOTH" },	  { 01, "IXOTH" },
	{ 0, NULL },
};

static const struct flag_name getrandom_flags[] = {
	{ 1, "NONBLOCK" },
	{ 2, "RANDOM" },
	{ 4, "INSECURE" },
	{ 0, NULL },
};

/* perf's trace/beauty/waitid_options.c, in its order */
static const struct flag_name wait_options[] = {
	{ 1, "NOHANG" },
	{ 2, "UNTRACED" },
	{ 8, "CONTINUED" },
	{ 0, NULL },
};

static const struct flag_name futex_flags[] = {
	{ 128, "PRIVATE_FLAG" },
	{ 256, "CLOCK_REALTIME" },
	{ 0, NULL },
};

static const struct flag_name sock_flags[] = {
	{ 02000000, "CLOEXEC" },
	{ 04000, "NONBLOCK" },
	{ 0, NULL },
};

static const char *const arch_prctl[] = { "SET_GS", "SET_FS", "GET_FS", "GET_GS" };

static const char *const rlimits[] = { "CPU",	   "FSIZE", "DATA",   "STACK",
				       "CORE",	   "RSS",   "NPROC",  "NOFILE",
				       "MEMLOCK",  "AS",    "LOCKS",  "SIGPENDING",
				       "MSGQUEUE", "NICE",  "RTPRIO", "RTTIME" };

static const struct flag_name access_flags[] = {
	{ 4, "R" },
	{ 2, "W" },
	{ 1, "X" },
	{ 0, NULL },
};

/* A string as C source writes it, quoted. */
static void put_string(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s && o->len + 8 < o->size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c == '\n')
			put(o, "\\n");
		else if (c == '\t')
			put(o, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void put_path(struct out *o, uint64_t v, struct trace_mem *m, const struct trace_user *u)
{
	static char s[4096];
	enum trace_str_src src = TS_NONE;

	if (m && u)
		src = trace_mem__string(m, u, v, s, sizeof(s));
	if (src == TS_NONE) {
		put(o, "%#llx", (unsigned long long)v);
		return;
	}
	put_string(o, s);
	/* read after the call: what the call saw may have been different */
	if (src == TS_LATE)
		put(o, "?");
}

static bool shows_zero(enum trace_arg_kind k)
{
	return k == TA_FD || k == TA_OPEN_FLAGS || k == TA_WHENCE || k == TA_ACCESS_MODE ||
	       k == TA_SIGNUM || k == TA_MMAP_PROT || k == TA_RLIMIT || k == TA_STRARRAY ||
	       k == TA_FUTEX_OP;
}

static void put_arg(struct out *o, const struct trace_arg *a, uint64_t v, struct trace_mem *m,
		    const struct trace_user *u)
{
	static const char *const whence[] = { "SET", "CUR", "END", "DATA", "HOLE" };
	long sv = a->is_int ? (long)(int)v : (long)v;
	const char *sig;

	switch (a->kind) {
	case TA_LONG:
	case TA_PID:
		put(o, "%ld", sv);
		break;
	case TA_ULONG:
		put(o, "%lu", a->is_int ? (unsigned long)(unsigned int)v : (unsigned long)v);
		break;
	case TA_HEX:
		put(o, "%#llx", (unsigned long long)v);
		break;
	case TA_FD:
		if ((int)v == AT_FDCWD && ends_with(a->name, "dfd"))
			put(o, "CWD");
		else
			put(o, "%d", (int)v);
		break;
	case TA_PATH:
		put_path(o, v, m, u);
		break;
	case TA_OPEN_FLAGS:
		if (!(v & 03))
			put(o, "RDONLY");
		put_flags(o, v & 0xffffffffu, open_flags, !!(v & 03));
		break;
	case TA_MODE:
		put_flags(o, v & 0xffffffffu, mode_flags, true);
		break;
	case TA_MMAP_PROT:
		if (!v)
			put(o, "NONE");
		else
			put_flags(o, v, prot_flags, true);
		break;
	case TA_MMAP_FLAGS: {
		static const char *const type[] = { "", "SHARED", "PRIVATE", "SHARED_VALIDATE" };
		bool first = !(v & 3);

		if (v & 3)
			put(o, "%s", type[v & 3]);
		put_flags(o, v & ~(uint64_t)3, mmap_flags, first);
		break;
	}
	case TA_WHENCE:
		if (v < 5)
			put(o, "%s", whence[v]);
		else
			put(o, "%llu", (unsigned long long)v);
		break;
	case TA_SIGNUM:
		sig = (int)v > 0 ? sigabbrev_np((int)v) : NULL;
		if (sig)
			put(o, "%s", sig);
		else
			put(o, "%d", (int)v);
		break;
	case TA_ACCESS_MODE:
		if (!v)
			put(o, "F");
		else
			put_flags(o, v, access_flags, true);
		break;
	case TA_AT_FLAGS:
		put_flags(o, v & 0xffffffffu, at_flags, true);
		break;
	case TA_ARCH_PRCTL:
		if (v >= 0x1001 && v <= 0x1004)
			put(o, "%s", arch_prctl[v - 0x1001]);
		else
			put(o, "%#llx", (unsigned long long)v);
		break;
	case TA_RLIMIT:
		if (v < sizeof(rlimits) / sizeof(rlimits[0]))
			put(o, "%s", rlimits[v]);
		else
			put(o, "%llu", (unsigned long long)v);
		break;
	case TA_GETRANDOM:
		put_flags(o, v & 0xffffffffu, getrandom_flags, true);
		break;
	case TA_WAIT_OPTIONS:
		put_flags(o, v & 0xffffffffu, wait_options, true);
		break;
	case TA_STRARRAY: {
		const char *name = strarray_name(a->names, a->is_int ? (uint32_t)v : v);

		if (name)
			put(o, "%s", name);
		else
			put(o, "%#llx", (unsigned long long)v);
		break;
	}
	case TA_FUTEX_OP: {
		const char *name = strarray_name(&sa_futex_cmd, v & 127);

		if (name)
			put(o, "%s", name);
		else
			put(o, "%llu", (unsigned long long)(v & 127));
		put_flags(o, v & 0xffffff80u, futex_flags, false);
		break;
	}
	case TA_SOCK_TYPE: {
		const char *name = strarray_name(&sa_sock_type, v & 0xf);
		bool none = !name;

		if (name)
			put(o, "%s", name);
		put_flags(o, (v & 0xfffffff0u) | (none ? v & 0xf : 0), sock_flags, none);
		break;
	}
	}
}

size_t trace_fmt_args(char *buf, size_t size, enum trace_abi abi, struct trace_sc *sc, long nr,
		      const uint64_t args[6], struct trace_mem *m, const struct trace_user *u)
{
	struct out o = { buf, size, 0 };
	uint32_t mask = 0; /* arguments the call ignores */
	bool first = true;

	buf[0] = 0;
	if (!sc) {
		put(&o, "NR%ld(", nr);
	} else {
		put(&o, "%s(", sc->name);
	}
	if (!sc || !sc->loaded) {
		for (int i = 0; i < 6; i++) {
			if (!args[i])
				continue;
			if (abi == TRACE_ABI_64)
				put(&o, "%sarg%d: %ld", first ? "" : ", ", i, (long)args[i]);
			else /* what the values mean is not known: their bits */
				put(&o, "%sarg%d: %#llx", first ? "" : ", ", i,
				    (unsigned long long)args[i]);
			first = false;
		}
		return o.len;
	}
	for (int i = 0; i < sc->nargs; i++) {
		const struct trace_arg *a = &sc->args[i];

		/* perf: an anonymous mapping has no fd nor offset; a mode only when creating */
		if (a->kind == TA_MMAP_FLAGS && (args[i] & 0x20))
			mask |= 1u << 4 | 1u << 5;
		/* fcntl's getters take no argument (perf leaves it out) */
		if (a->kind == TA_STRARRAY && a->names == &sa_fcntl && i + 1 < sc->nargs &&
		    (args[i] == 1 || args[i] == 3 || args[i] == 9 || args[i] == 11 ||
		     args[i] == 1025 || args[i] == 1032 || args[i] == 1034))
			mask |= 1u << (i + 1);
		if (a->kind == TA_OPEN_FLAGS && !(args[i] & (0100 | 020000000)))
			for (int j = i + 1; j < sc->nargs; j++)
				if (sc->args[j].kind == TA_MODE)
					mask |= 1u << j;
	}
	for (int i = 0; i < sc->nargs; i++) {
		const struct trace_arg *a = &sc->args[i];

		if (mask & (1u << i))
			continue;
		if (!args[i] && !shows_zero(a->kind))
			continue;
		put(&o, "%s%s: ", first ? "" : ", ", a->name);
		put_arg(&o, a, args[i], m, u);
		first = false;
	}
	return o.len;
}
