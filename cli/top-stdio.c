/* SPDX-License-Identifier: MIT */
/*
 * pcl top --stdio (and pcl top without a terminal): perf top's plain
 * display. At each refresh: the screen cleared, the header line, a dotted
 * line as wide as the terminal less one, a blank line, then the entries
 * without column titles (perf's hists__fprintf without a header): at most
 * -E of them (else the terminal's rows less 5), each entry's line cut at
 * the width less two bytes (colour codes count, as in perf's buffer), its
 * call graph under it with -g. The size comes from $LINES and $COLUMNS,
 * else the terminal, else 25x80, as perf's get_term_dimensions.
 *
 * On a terminal, keys work as in perf top's stdio loop: q quits, z
 * toggles zeroing, K and U hide kernel and user samples, d and e ask for
 * the delay and the number of entries.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "run.h"
#include "top-int.h"

#define HEADER_LINES 5

static void term_size(int *rows, int *cols)
{
	const char *l = getenv("LINES"), *c = getenv("COLUMNS");
	struct winsize ws;

	if (l && c && atoi(l) > 0 && atoi(c) > 0) {
		*rows = atoi(l);
		*cols = atoi(c);
		return;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	*rows = 25;
	*cols = 80;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* An entry's line (not a call graph's): a percentage first, coloured or not. */
static bool entry_line(const char *s)
{
	while (*s == ' ')
		s++;
	return (*s >= '0' && *s <= '9') || *s == '\033';
}

/* Write @len bytes of an entry line, cut at @limit bytes but never inside a colour code. */
static void put_cut(const char *s, size_t len, size_t limit)
{
	size_t n = len < limit ? len : limit;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '\033') {
			const char *m = memchr(s + i, 'm', len - i);
			size_t end = m ? (size_t)(m - s) + 1 : len;

			if (end > n) {
				n = i;
				break;
			}
			i = end - 1;
		}
	fwrite(s, 1, n, stdout);
}

static void print_entries(struct top *t, int max_rows, int width)
{
	struct pcl_report_opts ro = t->ro;
	char *text = NULL, *p, *nl;
	size_t len = 0;
	int rows = 0;
	FILE *f;

	ro.color = t->color;
	/* perf sizes the columns to the rows it shows (hists__output_recalc_col_len) */
	if (max_rows > 0)
		pcl_hists__hide_after(t->h, (size_t)max_rows);
	f = open_memstream(&text, &len);
	if (!f)
		return;
	pcl_report__print(f, t->h, &ro);
	fclose(f);
	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		size_t l;

		nl = strchr(p, '\n');
		l = nl ? (size_t)(nl - p) : strlen(p);
		if (entry_line(p)) {
			if (max_rows > 0 && rows++ == max_rows)
				break;
			put_cut(p, l, width > 1 ? (size_t)width - 1 : 0);
		} else {
			/* the report's closing blank line and notes are not perf top's */
			if (!rows)
				continue;
			fwrite(p, 1, l, stdout);
		}
		putchar('\n');
	}
	free(text);
}

static void display(struct top *t)
{
	static char dotted[1025];
	char hdr[512];
	int rows, cols, w, max_rows, printed = 0;

	if (!dotted[0])
		memset(dotted, '-', sizeof(dotted) - 1);
	term_size(&rows, &cols);
	w = cols - 1;
	max_rows = t->o->entries ? t->o->entries : rows - HEADER_LINES;
	top_finish(t);
	top_header(t, hdr, sizeof(hdr));
	fputs("\033[H\033[2J\n", stdout);
	printf("%s\n", hdr);
	printf("%-*.*s\n", w, w, dotted);
	if (t->nr_lost_warned != t->nr_lost_records) {
		t->nr_lost_warned = t->nr_lost_records;
		printf("%sWARNING: LOST %llu chunks, Check IO/CPU overload%s",
		       t->color ? "\033[31m" : "", (unsigned long long)t->nr_lost_warned,
		       t->color ? "\033[m" : "");
		printed++;
	}
	putchar('\n');
	print_entries(t, max_rows - printed, w);
	fflush(stdout);
}

/* Read a number from the terminal, as perf's prompt_integer; -1 if none. */
static int prompt(const char *msg, const struct termios *cooked)
{
	char line[64], *end;
	long v;

	printf("\n%s: ", msg);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, cooked);
	if (!fgets(line, sizeof(line), stdin))
		return -1;
	line[strcspn(line, "\n")] = '\0';
	v = strtol(line, &end, 10);
	return *end || end == line || v < 0 || v > 1000000 ? -1 : (int)v;
}

static void mapped_keys(const struct top *t)
{
	printf("\nMapped keys:\n");
	printf("\t[d]     display refresh delay.             \t(%d)\n", t->delay_secs);
	printf("\t[e]     display entries (lines).           \t(%d)\n", t->o->entries);
	if (t->nev > 1)
		printf("\t[E]     active event counter.              \t(%s)\n",
		       pcl_evlist__event(t->el, t->active)->name);
	printf("\t[K]     hide kernel symbols.             \t(%s)\n",
	       t->hide_kernel ? "yes" : "no");
	printf("\t[U]     hide user symbols.               \t(%s)\n", t->hide_user ? "yes" : "no");
	printf("\t[z]     toggle sample zeroing.             \t(%d)\n", t->zero);
	printf("\t[qQ]    quit.\n");
	fflush(stdout);
}

/* One key typed on the terminal; false to quit. */
static bool key(struct top *t, int c, const struct termios *cooked, const struct termios *quiet)
{
	int v;

	switch (c) {
	case 'q':
	case 'Q':
		return false;
	case 'z':
		t->zero = !t->zero;
		break;
	case 'K':
		t->hide_kernel = !t->hide_kernel;
		break;
	case 'U':
		t->hide_user = !t->hide_user;
		break;
	case 'd':
		v = prompt("Enter display delay", cooked);
		if (v >= 0)
			t->delay_secs = v < 1 ? 1 : v;
		tcsetattr(STDIN_FILENO, TCSAFLUSH, quiet);
		break;
	case 'e':
		v = prompt("Enter display entries (lines)", cooked);
		if (v >= 0)
			t->o->entries = v;
		tcsetattr(STDIN_FILENO, TCSAFLUSH, quiet);
		break;
	case 'E':
		if (t->nev < 2)
			break;
		/* perf's: the events by number, then the one to show (a wrong one: the first) */
		fprintf(stderr, "\nAvailable events:");
		for (int e = 0; e < t->nev; e++)
			fprintf(stderr, "\n\t%d %s", e, pcl_evlist__event(t->el, e)->name);
		fflush(stdout);
		v = prompt("Enter details event counter", cooked);
		if (v < 0 || v >= t->nev) {
			fprintf(stderr, "Sorry, no such event, using %s.\n",
				pcl_evlist__event(t->el, 0)->name);
			v = 0;
		}
		top_set_active(t, v);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, quiet);
		break;
	default:
		mapped_keys(t);
		break;
	}
	return true;
}

int top_stdio(struct top *t)
{
	struct termios cooked, quiet;
	bool keys = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &cooked) == 0;
	uint64_t next;
	int nfd = t->npfd;

	t->color = cli_use_color();
	output_catch_sigpipe();
	if (keys) {
		quiet = cooked;
		quiet.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
		t->pfds[nfd++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	}
	display(t);
	top_age(t);
	next = now_ms() + (uint64_t)t->delay_secs * 1000;
	while (!top_done() && !output_reader_gone()) {
		uint64_t now = now_ms();
		int tmo = next > now ? (int)(next - now) : 0;

		poll(t->pfds, (nfds_t)nfd, tmo < 100 ? tmo : 100);
		unpoll_hung_up(t->pfds, t->npfd);
		if (top_drain(t))
			break;
		if (keys && (t->pfds[nfd - 1].revents & POLLIN)) {
			char c;

			if (read(STDIN_FILENO, &c, 1) == 1 && !key(t, c, &cooked, &quiet))
				break;
		}
		if (now_ms() >= next) {
			display(t);
			top_age(t);
			next = now_ms() + (uint64_t)t->delay_secs * 1000;
		}
	}
	if (keys)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &cooked);
	return 0;
}
