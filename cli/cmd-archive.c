/* SPDX-License-Identifier: MIT */
#include "cli.h"
int cmd_archive(int argc, char **argv) { (void)argc; (void)argv; return 1; }
