/* SPDX-License-Identifier: MIT */
/* pcl record --control: perf's control and ack channel (see record-control.c). */
#ifndef PCL_CLI_RECORD_CONTROL_H
#define PCL_CLI_RECORD_CONTROL_H

#include <stdbool.h>
#include <pcl/pcl.h>

struct record_control {
	int ctl, ack; /* -1: none */
	bool warned;  /* an unknown command was said */
	bool eof;     /* the control fd's writers are gone (a pipe, a file): no more commands */
};

/* Open "fifo:CTL[,ACK]" or "fd:CTL[,ACK]". 0, or -1 with the error printed. */
int record_control_open(struct record_control *c, const char *spec);
/* Read and carry out the commands waiting on the control fd; 1 when one was "stop". */
int record_control_process(struct record_control *c, struct pcl_evlist *el);
void record_control_close(struct record_control *c);

#endif
