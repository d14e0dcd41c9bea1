/* SPDX-License-Identifier: MIT */
/*
 * pcl record --control: perf record's control channel, through which
 * another program (pcl daemon, perf daemon, a script) steers a recording.
 *
 * Protocol (perf's): a command is a word written to the control fd or
 * FIFO, ended by '\n', '\0' or by the end of what one write brought
 * (perf daemon writes "ping" with no end). Each command understood is
 * answered with "ack\n" on the ack fd, when there is one:
 *   enable / disable   start or stop counting;
 *   ping               nothing but the answer (is the session alive?);
 *   stop               end the recording, as SIGINT would.
 * Others (perf's snapshot, evlist...) are not answered, and said once.
 *
 * FIFOs are opened read-write and non-blocking, so that opening them waits
 * for no peer and a writer that goes away is no end of file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "record-control.h"

static int open_fd(const char *s, int *fd)
{
	uint64_t v;

	if (!parse_uint(s, 10, 0, 65535, &v) || fcntl((int)v, F_GETFD) < 0)
		return -1;
	*fd = (int)v;
	return 0;
}

static int open_fifo(const char *path, int *fd)
{
	*fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return *fd < 0 ? -1 : 0;
}

int record_control_open(struct record_control *c, const char *spec)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	char *s, *ack;
	int ret = 0;

	c->ctl = c->ack = -1;
	c->warned = c->eof = false;
	if (!fifo && strncmp(spec, "fd:", 3)) {
		die_msg("bad --control '%s' (fifo:CTL[,ACK] or fd:CTL[,ACK])", spec);
		return -1;
	}
	s = strdup(spec + (fifo ? 5 : 3));
	if (!s) {
		die_msg("out of memory");
		return -1;
	}
	ack = strchr(s, ',');
	if (ack)
		*ack++ = '\0';
	if (fifo ? open_fifo(s, &c->ctl) : open_fd(s, &c->ctl)) {
		die_msg("cannot open control '%s': %s", s,
			fifo ? strerror(errno) : "not an open fd");
		ret = -1;
	} else if (ack && (fifo ? open_fifo(ack, &c->ack) : open_fd(ack, &c->ack))) {
		die_msg("cannot open control ack '%s': %s", ack,
			fifo ? strerror(errno) : "not an open fd");
		ret = -1;
	}
	if (!fifo && !ret)
		fcntl(c->ctl, F_SETFL, fcntl(c->ctl, F_GETFL) | O_NONBLOCK);
	free(s);
	if (ret)
		record_control_close(c);
	return ret;
}

static void answer(struct record_control *c)
{
	if (c->ack >= 0 && write(c->ack, "ack\n", 4) != 4)
		fprintf(stderr, "pcl: warning: control: cannot write the ack: %s\n",
			strerror(errno));
}

/* One command; 1 when it asks to stop. */
static int command(struct record_control *c, const char *cmd, struct pcl_evlist *el)
{
	if (!*cmd)
		return 0;
	if (!strcmp(cmd, "enable")) {
		pcl_evlist__enable(el);
	} else if (!strcmp(cmd, "disable")) {
		pcl_evlist__disable(el);
	} else if (!strcmp(cmd, "ping")) {
		/* the answer is all */
	} else if (!strcmp(cmd, "stop")) {
		answer(c);
		return 1;
	} else {
		if (!c->warned)
			fprintf(stderr,
				"pcl: warning: control: '%.32s' is not a command pcl "
				"record knows (enable, disable, ping, stop)\n",
				cmd);
		c->warned = true;
		return 0;
	}
	answer(c);
	return 0;
}

int record_control_process(struct record_control *c, struct pcl_evlist *el)
{
	char buf[512];
	ssize_t n;
	int stop = 0;

	if (c->ctl < 0)
		return 0;
	while ((n = read(c->ctl, buf, sizeof(buf) - 1)) > 0) {
		char *p = buf, *end = buf + n;

		*end = '\0';
		while (p < end) {
			size_t len = strcspn(p, "\n");

			p[len] = '\0';
			stop |= command(c, p, el);
			p += len + 1;
		}
	}
	if (!n)
		c->eof = true;
	return stop;
}

void record_control_close(struct record_control *c)
{
	if (c->ctl > 2)
		close(c->ctl);
	if (c->ack > 2)
		close(c->ack);
	c->ctl = c->ack = -1;
}
