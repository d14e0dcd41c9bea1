/* SPDX-License-Identifier: MIT */
/*
 * A profile: the samples of one event reduced to what the export formats
 * (folded stacks, flame graphs, pprof, Firefox Profiler, speedscope) need.
 * Functions are interned by (DSO, symbol), unknown code by (map, address);
 * call stacks form one prefix tree
 * (node 0 is the root, each node a function called from its parent); each
 * thread's samples are summed per stack. With opts.timeline the samples are
 * also kept one by one, in time order, with the thread's context switches.
 * With opts.symbols each frame gets its source position (pcl_profile_loc):
 * a node is then a location, one address of a function where the debug
 * info has a line for it.
 *
 * Names, maps and DSOs point into the machine and symbol tables the samples
 * were resolved against: keep those alive while the profile is used.
 * Not thread-safe: each profile belongs to one thread.
 */
#ifndef PCL_PROFILE_H
#define PCL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/analysis.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_profile_opts {
	size_t sz;     /* sizeof(struct pcl_profile_opts) */
	bool timeline; /* keep each sample and context switch, for time-based formats */
	/*
	 * Source positions: each frame's source line and inline chain from the
	 * debug info this symbolizer finds (the one the samples were resolved
	 * with; borrowed, keep it alive with the profile). A frame at an
	 * address with a line is then a location of its own (see
	 * pcl_profile_loc); without one it stays its function's. NULL: none.
	 */
	struct pcl_symbols *symbols;
};

/*
 * A function: one symbol of one DSO, or one address no symbol covers
 * ("[unknown]", one per address and map, so exports keep where it was).
 */
struct pcl_profile_func {
	const char *name;	   /* symbol name, or "[unknown]" */
	const struct pcl_dso *dso; /* NULL: in no known map */
	const struct pcl_map *map; /* the first map it was seen through (NULL: none) */
	uint64_t start, end;	   /* the symbol's DSO-relative range; 0, 0 when unknown */
	uint64_t ip;		   /* an address seen in it (the first), as recorded */
	char level;		   /* perf's: 'k' kernel, '.' user */
	/*
	 * With opts.symbols: the source file and the line of the function's
	 * first instruction (for an inlined function, the file only); NULL
	 * and 0 when the debug info does not tell.
	 */
	const char *file;
	unsigned int line;
	/* Only met inlined into other functions (a line of a location), in no stack node. */
	bool inlined;
};

/* A node of the stack tree: @func called from @parent. Node 0 is the root (no function). */
struct pcl_profile_node {
	uint32_t parent;
	uint32_t func;
	uint32_t depth; /* 1 for an outermost caller */
	uint32_t loc;	/* index into pcl_profile__locs (UINT32_MAX for the root) */
};

/*
 * A location: where in a function its frames were. Without opts.symbols,
 * or where the debug info has no line for the address, one per function
 * (@addr 0, no lines); else one per address (pprof's Location), with the
 * source line and the functions inlined there.
 */
struct pcl_profile_loc {
	uint32_t func;	     /* index into pcl_profile__funcs: the out-of-line function */
	uint64_t addr;	     /* DSO-relative (pcl_frame.addr); 0: the whole function */
	uint64_t ip;	     /* the address as recorded (the first frame met) */
	bool ret;	     /* @addr is a return address: its lines are the call's (addr - 1) */
	uint32_t first_line; /* its lines are pcl_profile__lines[first_line ...] */
	uint32_t nr_lines;   /* 0: no source position */
};

/*
 * One level of a location's inline chain, innermost first: the last is the
 * location's own function, the others the functions inlined into it (each
 * at the line inside it: for the innermost, the line of the address; for
 * the others, the call site of the function inlined there).
 */
struct pcl_profile_line {
	uint32_t func; /* index into pcl_profile__funcs */
	const char *file;
	unsigned int line; /* 0: unknown */
};

struct pcl_profile_thread {
	int32_t pid, tid;
	const char *comm; /* the thread's name when it was first sampled */
};

/* The samples of one thread that ended in one stack (the node of their innermost frame). */
struct pcl_profile_stack {
	uint32_t thread;
	uint32_t node;
	uint64_t count;	 /* samples */
	uint64_t period; /* their period sum */
};

/* With opts.timeline: one sample. */
struct pcl_profile_sample {
	uint64_t time; /* perf clock, ns; 0 when the file has no times */
	uint64_t period;
	uint32_t thread, node;
	uint32_t cpu; /* UINT32_MAX: not recorded */
};

/* With opts.timeline: a thread leaving (out) or coming back to a CPU. */
struct pcl_profile_switch {
	uint64_t time;
	uint32_t thread;
	bool out;
	bool preempt; /* switched out while still runnable */
};

struct pcl_profile;

/* NULL with errno (ENOMEM, EINVAL for a bad opts.sz). */
PCL_API struct pcl_profile *pcl_profile__new(const struct pcl_profile_opts *opts);
PCL_API void pcl_profile__free(struct pcl_profile *p);

/*
 * Add a resolved sample: its stack is the call chain (callee first), or the
 * ip alone without one. @time in ns (0: none), @cpu UINT32_MAX for none.
 * 0 or -ENOMEM.
 */
PCL_API int pcl_profile__add(struct pcl_profile *p, const struct pcl_resolved *s, uint64_t time,
			     uint32_t cpu, uint64_t period);
/* Add a context switch of @thread (kept with opts.timeline only). 0 or -ENOMEM. */
PCL_API int pcl_profile__add_switch(struct pcl_profile *p, const struct pcl_thread *thread,
				    uint64_t time, bool out, bool preempt);
/*
 * Done adding: stacks sorted by thread then node, samples and switches by
 * time. Call once before reading the arrays.
 */
PCL_API void pcl_profile__finish(struct pcl_profile *p);

PCL_API const struct pcl_profile_func *pcl_profile__funcs(const struct pcl_profile *p, size_t *n);
PCL_API const struct pcl_profile_node *pcl_profile__nodes(const struct pcl_profile *p, size_t *n);
PCL_API const struct pcl_profile_thread *pcl_profile__threads(const struct pcl_profile *p,
							      size_t *n);
PCL_API const struct pcl_profile_stack *pcl_profile__stacks(const struct pcl_profile *p,
							    size_t *n);
PCL_API const struct pcl_profile_sample *pcl_profile__samples(const struct pcl_profile *p,
							      size_t *n);
PCL_API const struct pcl_profile_switch *pcl_profile__switches(const struct pcl_profile *p,
							       size_t *n);
/* The locations (every node's loc) and their lines. */
PCL_API const struct pcl_profile_loc *pcl_profile__locs(const struct pcl_profile *p, size_t *n);
PCL_API const struct pcl_profile_line *pcl_profile__lines(const struct pcl_profile *p, size_t *n);
/* Sample count and period sum of all samples added. */
PCL_API uint64_t pcl_profile__nr_samples(const struct pcl_profile *p);
PCL_API uint64_t pcl_profile__total_period(const struct pcl_profile *p);
/* First and last sample time (0 when none had one). */
PCL_API uint64_t pcl_profile__time_first(const struct pcl_profile *p);
PCL_API uint64_t pcl_profile__time_last(const struct pcl_profile *p);

/*
 * A merged tree for drawing: every thread's stacks under one root, with a
 * first level per command name (as FlameGraph's stackcollapse-perf does),
 * children sorted by name so two profiles' trees line up. Functions of one
 * name merge, kernel code apart from user code (they are coloured apart). Values are sample
 * counts, or periods with @by_period. @thread >= 0 keeps that thread only.
 * The function of a comm-level node is UINT32_MAX; its name is the comm.
 */
struct pcl_flame_node {
	uint32_t func;	    /* index into pcl_profile__funcs, or UINT32_MAX (a comm or the root) */
	const char *name;   /* the function's (or comm's) name; "all" for the root */
	uint64_t total;	    /* value of this node and everything it calls */
	uint64_t self;	    /* value of the stacks ending here */
	uint32_t parent;    /* index; the root (0) is its own parent */
	uint32_t first;	    /* first child, or 0 */
	uint32_t next;	    /* next sibling, or 0 */
	uint32_t depth;	    /* 0: root, 1: comm */
};

struct pcl_flame {
	struct pcl_flame_node *nodes; /* nodes[0] is the root; parents before children */
	size_t nr_nodes;
	uint32_t max_depth;
};

/* Build it; free with pcl_flame__free. 0, -ENOMEM. */
PCL_API int pcl_flame__build(struct pcl_flame *f, const struct pcl_profile *p, bool by_period,
			     int32_t thread);
PCL_API void pcl_flame__free(struct pcl_flame *f);
/* The child of @parent named @name (interned or not), or 0. */
PCL_API uint32_t pcl_flame__child(const struct pcl_flame *f, uint32_t parent, const char *name);

#ifdef __cplusplus
}
#endif
#endif
