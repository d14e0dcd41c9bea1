/* SPDX-License-Identifier: MIT */
/*
 * Whether the browser (cli/tui.c) can run: apart, since <term.h> defines
 * macros (lines, columns...) that would clash with the browser's names.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>
#include "tui.h"

bool tui_usable(void)
{
	const char *term = getenv("TERM");
	int err = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return false;
	if (!term || !term[0] || !strcmp(term, "dumb"))
		return false;
	/* the terminal's description: newterm would fail without it */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return false;
	del_curterm(cur_term);
	return true;
}
