/* SPDX-License-Identifier: MIT */
/*
 * The analysis layer: samples resolved against the machine and its
 * symbols, then gathered into histograms and call trees, as perf report
 * does it.
 *
 * Not thread-safe: each object belongs to one thread.
 */
#ifndef PCL_ANALYSIS_H
#define PCL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/common.h>
#include <pcl/machine.h>
#include <pcl/record.h>
#include <pcl/symbol.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One resolved address. */
struct pcl_frame {
	uint64_t ip;		      /* as recorded */
	uint64_t addr;		      /* DSO-relative (pcl_map__map_ip), or ip when unmapped */
	struct pcl_map *map;	      /* NULL: in no known map ("[unknown]") */
	const struct pcl_symbol *sym; /* NULL: no symbol covers it */
	char level;		      /* perf's: 'k' kernel, '.' user, 'H' hypervisor/guest */
	/*
	 * A frame of an inline chain (perf's --inline; lib/analysis/inline.c):
	 * @inlined when it is an inlined function's frame, shown with
	 * " (inlined)"; its @sym is then one made for that function (its
	 * name, the extent of the symbol it was inlined into), not one of the
	 * DSO's table. @inline_level: 0 for a frame that is not from an
	 * expansion, else 1 + its level in the address's inline chain (1 the
	 * innermost), whose source position is the frame's own.
	 */
	bool inlined;
	uint8_t inline_level;
	/*
	 * A caller's entry of a recorded (frame-pointer) chain: @ip is a
	 * return address, after the call. Its inline frames and their source
	 * lines are those of @addr - 1, inside the call. (The unwound entries
	 * of --call-graph dwarf chains are minus 1 already, as perf's.)
	 */
	bool return_address;
};

/* A sample with its thread, ip and call chain resolved. */
struct pcl_resolved {
	struct pcl_thread *thread;
	struct pcl_frame ip;
	const struct pcl_frame *chain; /* callee first, context markers dropped */
	size_t nr_chain;
	/*
	 * Set by pcl_resolver__sample: samples with the same nonzero id have
	 * the same ip and chain, resolved alike (ids are never reused). 0:
	 * not known, compare the frames.
	 */
	uint64_t chain_id;
};

struct pcl_resolver;
/* A resolver over @m and @s (borrowed). NULL with errno. */
PCL_API struct pcl_resolver *pcl_resolver__new(struct pcl_machine *m, struct pcl_symbols *s);
PCL_API void pcl_resolver__free(struct pcl_resolver *r);
/*
 * Resolve @rec (a decoded PERF_RECORD_SAMPLE) into @out; the chain array is
 * the resolver's, valid until the next call. 0 or -ENOMEM.
 */
PCL_API int pcl_resolver__sample(struct pcl_resolver *r, const struct pcl_record *rec,
				 struct pcl_resolved *out);
/* Resolve one address of @thread, in kernel space when @kernel. */
PCL_API void pcl_resolver__frame(struct pcl_resolver *r, struct pcl_thread *thread, bool kernel,
				 uint64_t ip, struct pcl_frame *out);

/*
 * DWARF unwinding (--call-graph dwarf). A sample whose event records
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER and that carries user
 * registers and a non-empty stack copy gets its chain as perf builds it:
 * the recorded callchain (the kernel part), then the user frames unwound
 * from the CFI of the mapped files (libdw), the IP first and each caller's
 * return address minus 1. The registers' layout is their event's
 * sample_regs_user, which only the file's attrs say: the resolver finds
 * them through @reader (borrowed; it must outlive the resolver). Without a
 * reader such samples keep their recorded chain and are counted as not
 * unwound.
 */
struct pcl_data_reader;
PCL_API void pcl_resolver__set_reader(struct pcl_resolver *r,
				      const struct pcl_data_reader *reader);

/* Why an unwind stopped (the same order as pcl_unwind_status_name's names). */
enum pcl_unwind_status {
	PCL_UNWIND_COMPLETE,	    /* the CFI ended the chain */
	PCL_UNWIND_NO_CFI,	    /* no CFI for a PC */
	PCL_UNWIND_STACK_TOO_SMALL, /* the stack copy ended before the chain did */
	PCL_UNWIND_NOT_MAPPED,	    /* a PC in no mapping, or in a file that cannot be read */
	PCL_UNWIND_MAX_DEPTH,	    /* more than 127 user frames (perf's --max-stack) */
	PCL_UNWIND_NO_REGS,	    /* registers without IP or SP, or not 64-bit */
	PCL_UNWIND_ERROR,	    /* libdw failed otherwise (bad CFI, garbage registers) */
	PCL_UNWIND__NR,
};

/* Short lowercase name of @status ("complete", "no CFI", ...). */
PCL_API const char *pcl_unwind_status_name(enum pcl_unwind_status status);

struct pcl_unwind_stats {
	uint64_t samples;		  /* samples unwound */
	uint64_t status[PCL_UNWIND__NR];  /* of those, by how they ended */
	/*
	 * The stack copy the too-small ones would have needed: exact for a
	 * thread with a complete unwind too (its stack's end is then known),
	 * else what the failing step needed (one frame further).
	 */
	uint64_t max_needed;
	bool max_needed_exact; /* every such thread had a complete unwind */
	uint64_t no_user_stack;		  /* no registers or an empty copy: kernel part only */
	uint64_t no_reader;		  /* not unwound: no reader to say the registers' layout */
	uint64_t spaces_built, modules;	  /* libdw's work: address spaces and files loaded */
	uint64_t fast; /* unwound from each PC's cached CFI rules, without libdwfl */
};

/* The counts so far. */
PCL_API void pcl_resolver__unwind_stats(const struct pcl_resolver *r, struct pcl_unwind_stats *out);

/*
 * The SIZE of a `--call-graph dwarf,SIZE` that would have let the samples
 * stopped by a too-small stack copy go further, when they are more than 5%
 * of those unwound; else 0. max_needed and one word (perf does not read
 * a copy's last word), rounded up to a multiple of 8 and capped at 65528
 * (what perf accepts).
 */
PCL_API uint64_t pcl_unwind_stats__suggest_size(const struct pcl_unwind_stats *st);

/* ---- histograms ---- */

enum pcl_sort_key {
	PCL_SORT_COMM,
	PCL_SORT_DSO,
	PCL_SORT_SYM,
	PCL_SORT_PID, /* perf's "pid": the thread, shown as tid:comm */
	PCL_SORT_TID, /* the same as pid (perf has no separate key) */
	PCL_SORT_CPU,
	PCL_SORT_SRCLINE, /* perf's "srcline": FILE:LINE of the address (opts.symbols) */
	PCL_SORT_SRCFILE, /* perf's "srcfile": its source file */
	/*
	 * perf's "parent": the first function of the chain (in the order
	 * shown) whose name matches opts.parent_regex; "[other]" if none. Not
	 * taken by pcl_sort_keys_parse (pcl_field_parse takes it).
	 */
	PCL_SORT_PARENT,
	PCL_SORT_MAX,
};

/* Sort keys from perf's --sort syntax ("comm,dso,sym"): count, or -EINVAL naming the bad key. */
PCL_API int pcl_sort_keys_parse(const char *s, enum pcl_sort_key *keys, int max);

/* Call-graph nodes: a tree per histogram entry, merged by symbol (perf's function key). */
struct pcl_callnode {
	struct pcl_frame frame;
	uint64_t self;	   /* period of chains that end here */
	uint64_t total;	   /* period of chains through here (self included) */
	uint64_t count;	   /* samples through here */
	struct pcl_callnode *parent, *first, *next; /* children, heaviest first after finish */
	struct pcl_callnode *hint;		    /* the child found last (building only) */
};

/*
 * What perf's output fields (report -F) and sort order are made of: a
 * column of numbers (perf's "hpp" fields) or a sort key's column.
 */
enum pcl_hpp {
	PCL_HPP_KEY,		    /* not a number: the column of sort key @key */
	PCL_HPP_OVERHEAD,	    /* "overhead": self period, in percent */
	PCL_HPP_OVERHEAD_SYS,	    /* "overhead_sys": of kernel-mode samples */
	PCL_HPP_OVERHEAD_US,	    /* "overhead_us": of user-mode samples */
	PCL_HPP_OVERHEAD_GUEST_SYS, /* "overhead_guest_sys" (pcl has no guests: 0) */
	PCL_HPP_OVERHEAD_GUEST_US,  /* "overhead_guest_us" (likewise) */
	PCL_HPP_OVERHEAD_CHILDREN,  /* "overhead_children": children period, in percent */
	PCL_HPP_SAMPLE,		    /* "sample": the number of samples */
	PCL_HPP_PERIOD,		    /* "period": self period */
	PCL_HPP__NR,
};

struct pcl_field {
	enum pcl_hpp hpp;
	enum pcl_sort_key key; /* with PCL_HPP_KEY */
};

#define PCL_FIELDS_MAX 32

/*
 * One of perf's field names ("overhead", "sample", ..., or a sort key's)
 * into @f. 0, or -EINVAL.
 */
PCL_API int pcl_field_parse(const char *name, size_t len, struct pcl_field *f);

struct pcl_hist_opts {
	size_t sz; /* sizeof(struct pcl_hist_opts) */
	enum pcl_sort_key keys[PCL_SORT_MAX];
	int nr_keys;	   /* 0: comm,dso,sym */
	bool children;	   /* add each chain entry's accumulated period (perf --children) */
	bool callchain;	   /* build call trees */
	bool caller_order; /* trees root at the outermost caller (perf -g caller) */
	int nr_members;	   /* > 1: an event group shown together (perf --group) */
	/*
	 * Trees only for entries weighing at least this share of the total
	 * (their branches under it would not be shown anyway); 0: all. With
	 * children, a node lighter than that is kept, with its sums, but not
	 * what is under it.
	 */
	double tree_min_percent;
	/*
	 * For the srcline and srcfile keys: the symbolizer that finds source
	 * lines (borrowed; NULL: every entry is perf's not-found form), and
	 * perf's --full-source-path (else file names are basenames).
	 */
	struct pcl_symbols *symbols;
	bool full_source_path;
	/*
	 * The order pcl_hists__finish sorts entries in (perf's sort list:
	 * numbers heaviest first, keys as perf orders them); 0 items:
	 * children (with opts.children), self, then the keys.
	 */
	struct pcl_field order[PCL_FIELDS_MAX];
	int nr_order;
	/* The parent key's POSIX extended regex; NULL: perf's "^sys_|^do_page_fault". */
	const char *parent_regex;
};

struct pcl_hist_entry {
	const char *comm; /* interned: the thread's comm when the entry was made */
	const struct pcl_thread *thread; /* its thread (its comm now: what perf's pid key shows) */
	int32_t pid, tid, cpu;
	struct pcl_frame frame; /* map, sym, addr, level of the entry's symbol */
	uint64_t self;		/* period of samples in this entry itself */
	uint64_t children;	/* with opts.children: period of samples with it on their chain */
	uint64_t nr_samples;
	struct pcl_callnode *root; /* with opts.callchain: the call tree's (empty) root */
	uint32_t max_depth;	   /* longest path in the tree */
	uint64_t *member_self;	   /* with opts.nr_members > 1: each member's self period */
	bool hidden;		   /* made by a sample the filters leave out: not shown */
	/* With the srcline / srcfile keys: perf's strings for the entry (the hists' own) */
	const char *srcline, *srcfile;
	bool many_addrs; /* with those keys: its samples were at more than one address */
	/*
	 * Made from a call chain's frame that is not an inline frame: perf
	 * makes such an entry's srcline only when a comparison needs it (see
	 * lib/output/report.c), which changes the column's width.
	 */
	bool srcline_lazy;
	/* self period by the samples' mode: kernel, user (perf's overhead_sys, overhead_us) */
	uint64_t period_sys, period_us;
	const struct pcl_symbol
		*parent; /* with the parent key: the entry's parent, NULL: [other] */
	/*
	 * With opts.nr_members > 1, beside member_self (the same block): each
	 * member's samples, and its self period of kernel- and user-mode ones.
	 */
	uint64_t *member_samples, *member_sys, *member_us;
};

struct pcl_hists;
PCL_API struct pcl_hists *pcl_hists__new(const struct pcl_hist_opts *opts);
PCL_API void pcl_hists__free(struct pcl_hists *h);
/* Add a resolved sample of @period on @cpu. 0 or -ENOMEM. */
PCL_API int pcl_hists__add(struct pcl_hists *h, const struct pcl_resolved *s, uint32_t cpu,
			   uint64_t period);
/*
 * Add a sample that a filter (--comm, --dso, --pid...) leaves out. perf's
 * rule: it still counts towards an entry that exists, and an entry it makes
 * is hidden (an entry keeps the verdict of the sample that made it).
 */
PCL_API int pcl_hists__add_hidden(struct pcl_hists *h, const struct pcl_resolved *s,
				  uint32_t cpu, uint64_t period);
/*
 * With opts.nr_members > 1: add a sample of group member @member (0 is the
 * leader, whose period is also the entry's self). 0, -EINVAL, -ENOMEM.
 */
PCL_API int pcl_hists__add_member(struct pcl_hists *h, const struct pcl_resolved *s, uint32_t cpu,
				  uint64_t period, int member);
/*
 * Sort the entries the way perf report prints them: by children (with
 * opts.children) then self period, heaviest first, ties by the sort keys.
 * Call trees are sorted too.
 */
PCL_API void pcl_hists__finish(struct pcl_hists *h);
PCL_API size_t pcl_hists__nr_entries(const struct pcl_hists *h);
PCL_API const struct pcl_hist_entry *pcl_hists__entry(const struct pcl_hists *h, size_t i);
/* Sum of the periods and number of the samples added. */
PCL_API uint64_t pcl_hists__total_period(const struct pcl_hists *h);
PCL_API uint64_t pcl_hists__nr_samples(const struct pcl_hists *h);

/*
 * A live histogram (perf top): scale every entry's self period, sample
 * count and mode periods, and every call chain's, by @num / @den (rounded
 * down), and drop the entries and chains that reach 0. perf top decays by
 * 7/8 at each refresh; 0/1 empties the histogram (perf top -z). The
 * totals become the sums of what is left. It undoes pcl_hists__finish
 * (children periods and call trees are freed, to be computed again): add
 * more samples, then finish again before reading the entries. An entry
 * dropped stays readable (its keys: comm, thread, frame, srcline; not its
 * call tree) until the next decay or pcl_hists__free, for a live view that
 * still holds what it showed. 0, -EINVAL (@den 0, @num > @den), -ENOMEM.
 */
PCL_API int pcl_hists__decay(struct pcl_hists *h, uint64_t num, uint64_t den);

/*
 * Hide every entry of @h (finished) after its first @n visible ones, as
 * perf top shows and sizes its columns for the rows that fit: the printer
 * skips them. Entries a filter hid stay hidden and do not count. A later
 * call, or pcl_hists__decay, shows them again. NULL-safe.
 */
PCL_API void pcl_hists__hide_after(struct pcl_hists *h, size_t n);

/*
 * Every thread and map (struct pcl_thread *, struct pcl_map *) that @h's
 * entries (those the last decay dropped too), call trees and kept chains
 * point at, sorted by address and
 * unique, in a malloc'd array *@out of *@nr pointers (the caller frees
 * it): what pcl_machine__prune must keep. 0, or -ENOMEM.
 */
PCL_API int pcl_hists__refs(const struct pcl_hists *h, const void ***out, size_t *nr);

/*
 * What the frame-pointer leaf repair did (docs/fpleaf.md) over the samples
 * a resolver resolved: those of pcl record -g files, which carry a small
 * user stack copy to put back the caller of a function without a frame.
 */
struct pcl_fpleaf_stats {
	uint64_t samples;    /* frame-pointer samples with a user chain and a stack copy */
	uint64_t repaired;   /* the leaf's caller was put back */
	uint64_t rbp_based;  /* the leaf's frame is rbp-based: the chain was already right */
	uint64_t present;    /* the return address already followed the leaf */
	uint64_t too_small;  /* the return address lay past the end of the copy */
	uint64_t no_cfi;     /* no CFI for the leaf, or its file could not be read */
	uint64_t max_needed; /* the largest copy size a too_small sample wanted */
};
/* @r's counters into *@out (all zero before any such sample). */
PCL_API void pcl_resolver__fpleaf_stats(const struct pcl_resolver *r, struct pcl_fpleaf_stats *out);

#ifdef __cplusplus
}
#endif
#endif
