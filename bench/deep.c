/* SPDX-License-Identifier: MIT */
/*
 * The deep-stack workload of bench/report.sh: an interpreter walking a fixed
 * program tree, built with frame pointers, so that -g call chains are deep
 * (about 60 to 120 frames, up to the kernel's perf_event_max_stack) and
 * repeat: the samples fall on a few thousand distinct paths of 64 distinct
 * functions that call each other recursively, as in a parser or a
 * tree-walking interpreter. That is where building children call trees is
 * costliest (each distinct chain adds a path to the tree of every function
 * on it).
 *
 *   deep SECONDS [COPIES]
 *
 * COPIES-1 more copies are forked; each walks the tree until it has used
 * SECONDS of CPU time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR_OPS 64
#define MAX_KIDS 3

struct node {
	int kind, nkids;
	unsigned int work;
	struct node *kids[MAX_KIDS];
};

static uint64_t rng = 88172645463325252ull;

static unsigned int next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng >> 11);
}

/* Mostly a chain; now and then a fork; leaves from depth 60 on. */
static struct node *build(int depth)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		exit(1);
	n->kind = (int)(next_rand() % NR_OPS);
	n->work = 50 + next_rand() % 200;
	if (depth >= 60 && (depth >= 120 || next_rand() % 8 == 0))
		return n; /* a leaf */
	n->nkids = next_rand() % 10 == 0 ? 2 + (depth < 20) : 1;
	for (int i = 0; i < n->nkids; i++)
		n->kids[i] = build(depth + 1);
	return n;
}

volatile uint64_t sink;

static __attribute__((noinline)) void spin(unsigned int n)
{
	uint64_t x = n;

	for (unsigned int i = 0; i < n * 20; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink += x;
}

typedef void (*op_fn)(const struct node *);
static op_fn ops[NR_OPS];

#define OP(k)                                                              \
	static __attribute__((noinline)) void op_##k(const struct node *n) \
	{                                                                  \
		spin(n->work / 8);                                         \
		for (int i = 0; i < n->nkids; i++)                         \
			ops[n->kids[i]->kind](n->kids[i]);                 \
		if (!n->nkids)                                             \
			spin(n->work);                                     \
		__asm__ volatile("" ::: "memory"); /* no tail call */      \
	}
#define OP8(k)                                                                    \
	OP(k##0) OP(k##1) OP(k##2) OP(k##3) OP(k##4) OP(k##5) OP(k##6) OP(k##7)
OP8(0) OP8(1) OP8(2) OP8(3) OP8(4) OP8(5) OP8(6) OP8(7)
#define SET8(k)                                                                   \
	ops[k * 8 + 0] = op_##k##0, ops[k * 8 + 1] = op_##k##1, ops[k * 8 + 2] = op_##k##2, \
	ops[k * 8 + 3] = op_##k##3, ops[k * 8 + 4] = op_##k##4, ops[k * 8 + 5] = op_##k##5, \
	ops[k * 8 + 6] = op_##k##6, ops[k * 8 + 7] = op_##k##7

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double dur = argc > 1 ? atof(argv[1]) : 1.0, end;
	int copies = argc > 2 ? atoi(argv[2]) : 1, kid = 0;
	struct node *root;

	SET8(0), SET8(1), SET8(2), SET8(3), SET8(4), SET8(5), SET8(6), SET8(7);
	root = build(0);
	for (int i = 1; i < copies; i++) {
		pid_t p = fork();

		if (p == 0) {
			kid = 1;
			break;
		}
	}
	end = cpu_seconds() + dur;
	while (cpu_seconds() < end)
		ops[root->kind](root);
	if (!kid)
		while (wait(NULL) > 0)
			;
	return 0;
}
