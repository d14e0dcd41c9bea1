/* SPDX-License-Identifier: MIT */
/* pcl top's browser: the live histogram in cli/tui.c's browser (h-tui). */
#include <stdio.h>
#include <unistd.h>
#include "cli.h"
#include "top-int.h"

bool top_want_tui(const struct top *t)
{
	return t->o->ui == TOP_UI_TUI;
}

int top_tui(struct top *t)
{
	(void)t;
	die_msg("--tui: this pcl was built without the browser; use --stdio");
	return 1;
}
