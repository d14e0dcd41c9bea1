/*
 * A program for the probe tests: probed_add() is called exactly N times
 * (argv[1], default 5) and probed_name() N + 1 times, so that a probe's
 * hit count is known. Arguments of several kinds for fetch specs.
 */
#include <stdio.h>
#include <stdlib.h>

struct probed_pair {
	int key;
	long value;
	const char *label;
};

long probed_total;
int probed_chars;

__attribute__((noinline)) long probed_add(long a, int b, struct probed_pair *p)
{
	long sum = a + b;

	sum += p->value;
	probed_total += sum;
	return sum;
}

__attribute__((noinline)) int probed_name(const char *name, unsigned long long big)
{
	int n = 0;

	while (name[n])
		n++;
	return n + (int)(big & 1);
}

/* inlined in spite of -fno-inline: a probe on it is one per inlined copy */
static inline __attribute__((always_inline)) int probed_inl(int x)
{
	probed_chars += x;
	return x * 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	struct probed_pair pair = { 3, 40, "pair" };

	for (int i = 0; i < n; i++) {
		pair.key = i;
		probed_add(i, 2 * i, &pair);
		probed_chars += probed_name("hello", 1ULL << 40);
	}
	probed_chars += probed_name("done", 7);
	probed_chars += probed_inl(n);
	if (probed_chars > 1000)
		probed_chars += probed_inl(3);
	printf("%ld %d\n", probed_total, probed_chars);
	return 0;
}
