/* SPDX-License-Identifier: MIT */
/*
 * The machine layer: the model of the traced system rebuilt from a
 * recording's records, fed in timestamp order. Threads come from COMM, FORK
 * and EXIT; each process's executable maps from MMAP and MMAP2, as they
 * change over time; the kernel and its modules from the kernel's MMAP
 * records (pid -1). Every mapped file is one DSO, shared by every map of
 * it, so its symbols are loaded once (by the symbol layer).
 *
 * Addresses: a sample's ip is turned into a DSO-relative address the way
 * perf does it (its "map_ip"): ip - map start + pgoff for a file map (an
 * offset into the file), the ip itself for the kernel, its modules and
 * anonymous JIT maps.
 *
 * Not thread-safe: a machine belongs to one thread.
 */
#ifndef PCL_MACHINE_H
#define PCL_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <pcl/common.h>
#include <pcl/record.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pcl_dso_kind {
	PCL_DSO_USER,	/* a file mapped in user space */
	PCL_DSO_KERNEL, /* the kernel image, "[kernel.kallsyms]" */
	PCL_DSO_MODULE, /* a kernel module, "[name]" */
	PCL_DSO_VDSO,	/* "[vdso]" */
	PCL_DSO_JIT,	/* an anonymous executable map: "/tmp/perf-PID.map" */
};

/* What the symbol layer made of a DSO (pcl_dso.sym_status). */
enum pcl_dso_sym_status {
	PCL_DSO_SYMS_UNTRIED = 0,
	PCL_DSO_SYMS_OK,	    /* symbols loaded (maybe zero of them) */
	PCL_DSO_SYMS_NOT_FOUND,	    /* no file to read */
	PCL_DSO_SYMS_BAD_BUILD_ID,  /* the file on disk is another build: not used */
	PCL_DSO_SYMS_ERROR,	    /* the file could not be parsed */
	PCL_DSO_SYMS_NOT_OWNED,	    /* a JIT map another user owns: not trusted */
};

/* One mapped object. Owned by the machine; lives as long as it. */
struct pcl_dso {
	char *name;	       /* path as recorded, or "[kernel.kallsyms]", "[vdso]", ... */
	const char *short_name; /* what perf shows as "Shared Object": basename or [name] */
	enum pcl_dso_kind kind;
	int32_t pid;		/* PCL_DSO_JIT: the process whose perf map it is */
	uint8_t build_id_size;	/* 0: none known */
	uint8_t build_id[20];	/* from the BUILD_ID feature or an MMAP2 record */
	bool hit;		/* a sample landed in it (set by callers) */
	/* Owned by the symbol layer. */
	int sym_status; /* enum pcl_dso_sym_status */
	void *sym_priv;
	void (*sym_free)(void *sym_priv);
	char *sym_note; /* why symbols are missing, for the user (malloc'd) */
	uint32_t seq;	/* creation order in its machine (0 first) */
	uint64_t ino;	/* the inode of the first MMAP2 record that mapped it (0: none) */
};

/* One map of a DSO into an address space, [start, end). */
struct pcl_map {
	uint64_t start, end, pgoff;
	uint32_t prot, flags;
	struct pcl_dso *dso;
};

/* A thread. comm is interned: equal names are the same pointer. */
struct pcl_thread {
	int32_t pid, tid;
	const char *comm;
	bool exited;
	bool comm_exec; /* comm set by an exec (COMM with PERF_RECORD_MISC_COMM_EXEC) */
	bool comm_set;	/* comm came from a COMM record (or a parent's); else ":TID" */
	struct pcl_maps *maps; /* shared by the threads of a process */
	int32_t ppid;	       /* the tid of the thread it was forked from (FORK); -1: not known */
};

struct pcl_machine;

/* A new, empty machine. NULL with errno on ENOMEM. */
PCL_API struct pcl_machine *pcl_machine__new(void);
/* Free the machine, its threads, maps and DSOs (calling each DSO's sym_free). NULL-safe. */
PCL_API void pcl_machine__free(struct pcl_machine *m);

/*
 * Apply one decoded record: COMM, FORK, EXIT, MMAP, MMAP2 (others are
 * ignored). 0, or -ENOMEM.
 */
PCL_API int pcl_machine__process(struct pcl_machine *m, const struct pcl_record *rec);

/*
 * The thread @tid of process @pid, created (with comm ":TID", as perf does)
 * when the machine has not seen it. NULL only on ENOMEM. @pid -1: the
 * kernel's idle/swapper thread (pid 0).
 */
PCL_API struct pcl_thread *pcl_machine__thread(struct pcl_machine *m, int32_t pid, int32_t tid);

/*
 * The map holding @ip for @thread, in kernel space when @kernel (modules,
 * then the kernel image) else in the thread's process. NULL when unmapped.
 * O(log maps).
 */
PCL_API struct pcl_map *pcl_machine__find_map(struct pcl_machine *m, struct pcl_thread *thread,
					      bool kernel, uint64_t ip);

/*
 * A number that changes whenever any map set changes: what was looked up
 * before may be cached until it moves.
 */
PCL_API uint64_t pcl_machine__generation(const struct pcl_machine *m);

/* The DSO-relative address of @ip in @map (perf's map_ip). */
PCL_API uint64_t pcl_map__map_ip(const struct pcl_map *map, uint64_t ip);

/*
 * Take build ids from a BUILD_ID feature section (perf's layout: records
 * of { header, pid, build_id[24], filename }) for the DSOs of those names,
 * present or created later. 0, -EBADMSG for a malformed section, -ENOMEM.
 */
PCL_API int pcl_machine__set_build_ids(struct pcl_machine *m, const void *data, size_t len);

/*
 * Number of threads; pcl_machine__threads puts up to @n of them (in no
 * particular order) in @out and returns how many it put.
 */
PCL_API size_t pcl_machine__nr_threads(const struct pcl_machine *m);
PCL_API size_t pcl_machine__threads(const struct pcl_machine *m, struct pcl_thread **out, size_t n);
/* Number of maps of @t's process, and map @i of them, by start address. */
PCL_API int pcl_thread__nr_maps(const struct pcl_thread *t);
PCL_API const struct pcl_map *pcl_thread__map(const struct pcl_thread *t, int i);

/* The DSO named @name (as recorded), or NULL. */
PCL_API struct pcl_dso *pcl_machine__find_dso(struct pcl_machine *m, const char *name);
/* Number of DSOs, and DSO @i (0 <= i < n), in order of creation. */
PCL_API int pcl_machine__nr_dsos(const struct pcl_machine *m);
PCL_API struct pcl_dso *pcl_machine__dso(const struct pcl_machine *m, int i);

/*
 * Bound a live machine's memory (pcl top, over hours): drop the threads
 * that exited (an EXIT record) at least one prune ago, with their map set
 * when it was their process's last thread, and free every map object that
 * no remaining map set holds (maps cut by later ones included). @keep
 * names (sorted by address, as pcl_hists__refs gives them) the threads and
 * maps something still points at: those stay (an exited thread kept loses
 * its map set, which it no longer needs). DSOs and interned strings stay
 * (equal names share them). Pointers to what was dropped are invalid
 * after; a resolver's caches are invalidated (the generation moves).
 * Returns the number of threads dropped, or -EINVAL.
 */
PCL_API int pcl_machine__prune(struct pcl_machine *m, const void *const *keep, size_t nr_keep);

/* Intern @s: the same pointer for equal strings, valid as long as @m. NULL on ENOMEM. */
PCL_API const char *pcl_machine__intern(struct pcl_machine *m, const char *s);

#ifdef __cplusplus
}
#endif
#endif
