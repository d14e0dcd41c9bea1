/* SPDX-License-Identifier: MIT */
/*
 * The uprobe_events file of tracefs (Documentation/trace/uprobetracer.rst):
 * a line "p|r:GROUP/EVENT PATH:0xOFFSET [FETCHARGS]" adds an event,
 * "-:GROUP/EVENT" deletes one, and reading lists them all in the form
 * the kernel prints ("PATH:0x%016lx"). Writes are appended (O_APPEND):
 * opening the file without it would clear every probe.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "probe/probe.h"

const char *probe_events_path(bool kprobe, char *buf, size_t size)
{
	const char *tfs = pcl_tracefs(true);

	if (!tfs) {
		errno = errno ? errno : ENOENT;
		return pcl_err_null(errno, "tracefs is not mounted (mount -t tracefs nodev "
					   "/sys/kernel/tracing)");
	}
	snprintf(buf, size, "%s/%s", tfs, kprobe ? "kprobe_events" : "uprobe_events");
	if (access(buf, F_OK))
		return pcl_err_null(ENOENT, "'%s' does not exist: this kernel has no %s",
				    buf, kprobe ? "kprobe events (CONFIG_KPROBE_EVENTS)"
						: "uprobe events (CONFIG_UPROBE_EVENTS)");
	return buf;
}

/*
 * "p:GROUP/EVENT PATH:0xOFF ARGS" (uprobe) or "p|rN:GROUP/EVENT SYM[+OFF] ARGS"
 * (kprobe, maxactive N) into @e; false for a line of another shape.
 */
static bool split_line(const char *line, bool kprobe, struct probe_event *e)
{
	const char *slash, *sp, *off, *rest, *colon;
	char *end;

	memset(e, 0, sizeof(*e));
	e->kprobe = kprobe;
	colon = line + 1;
	while (*colon >= '0' && *colon <= '9')
		colon++;
	if ((line[0] != 'p' && line[0] != 'r') || *colon != ':')
		return false;
	e->type = line[0];
	slash = strchr(colon + 1, '/');
	sp = slash ? strchr(slash, ' ') : NULL;
	if (!sp || (size_t)(slash - colon - 1) >= sizeof(e->group) ||
	    (size_t)(sp - slash - 1) >= sizeof(e->event))
		return false;
	memcpy(e->group, colon + 1, (size_t)(slash - colon - 1));
	memcpy(e->event, slash + 1, (size_t)(sp - slash - 1));
	rest = strchr(sp + 1, ' ');
	if (!rest)
		rest = sp + strlen(sp);
	if (kprobe) {
		if ((size_t)(rest - sp - 1) >= sizeof(e->path))
			return false;
		memcpy(e->path, sp + 1, (size_t)(rest - sp - 1));
		snprintf(e->args, sizeof(e->args), "%s", rest);
		return true;
	}
	off = sp + 1;
	for (const char *c = off; c < rest; c++)
		if (c[0] == ':' && c[1] == '0' && c[2] == 'x')
			off = c;
	if (off == sp + 1 || (size_t)(off - sp - 1) >= sizeof(e->path))
		return false;
	memcpy(e->path, sp + 1, (size_t)(off - sp - 1));
	e->offset = strtoull(off + 1, &end, 16);
	snprintf(e->args, sizeof(e->args), "%s", rest);
	return true;
}

static int cmp_event(const void *pa, const void *pb)
{
	const struct probe_event *a = pa, *b = pb;
	char ka[300], kb[300];

	snprintf(ka, sizeof(ka), "%c:%s/%s ", a->type, a->group, a->event);
	snprintf(kb, sizeof(kb), "%c:%s/%s ", b->type, b->group, b->event);
	return strcmp(ka, kb);
}

static int read_events_file(bool kprobe, struct probe_event **evs, int *n, int *alloc)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	if (!probe_events_path(kprobe, path, sizeof(path)))
		return -errno;
	f = fopen(path, "r");
	if (!f)
		return pcl_err(errno, "cannot read '%s': %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (grow_array((void **)evs, alloc, *n + 1, sizeof(**evs))) {
			ret = -ENOMEM;
			break;
		}
		if (split_line(line, kprobe, &(*evs)[*n]))
			(*n)++;
	}
	free(line);
	fclose(f);
	return ret;
}

int probe_events_read(struct probe_event **evs, int *n)
{
	char path[512];
	int alloc = 0, ret;

	*evs = NULL;
	*n = 0;
	ret = read_events_file(false, evs, n, &alloc);
	if (!ret && probe_events_path(true, path, sizeof(path)))
		ret = read_events_file(true, evs, n, &alloc);
	/* perf lists them from a sorted list of the raw lines */
	if (!ret && *n > 1)
		qsort(*evs, (size_t)*n, sizeof(**evs), cmp_event);
	if (ret) {
		free(*evs);
		*evs = NULL;
		*n = 0;
	}
	return ret;
}

bool probe_multiprobe(void)
{
	const char *tfs = pcl_tracefs(true);
	char path[512], *line = NULL;
	size_t cap = 0;
	bool yes = false;
	FILE *f;

	if (!tfs)
		return false;
	snprintf(path, sizeof(path), "%s/README", tfs);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!yes && getline(&line, &cap, f) > 0)
		yes = strstr(line, "Create/append/") != NULL;
	free(line);
	fclose(f);
	return yes;
}

bool probe_event_exists(const char *group, const char *event)
{
	const char *tfs = pcl_tracefs(true);
	char path[1024];

	if (!tfs)
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s", tfs, group, event);
	return access(path, F_OK) == 0;
}

/* The kernel's last error_log line says why a probe was refused. */
static void last_error_log(char *buf, size_t size)
{
	const char *tfs = pcl_tracefs(true);
	char path[512], *line = NULL;
	size_t cap = 0;
	FILE *f;

	buf[0] = '\0';
	if (!tfs)
		return;
	snprintf(path, sizeof(path), "%s/error_log", tfs);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *msg = strstr(line, "error: ");

		if (msg) {
			msg[strcspn(msg, "\n")] = '\0';
			snprintf(buf, size, " (%s)", msg + 7);
		}
	}
	free(line);
	fclose(f);
}

static int write_events(bool kprobe, const char *line)
{
	char path[512], why[256];
	size_t len = strlen(line);
	ssize_t w;
	int fd, err;

	if (!probe_events_path(kprobe, path, sizeof(path)))
		return -errno;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return pcl_err(errno, "cannot open '%s': %s", path, strerror(errno));
	w = write(fd, line, len);
	err = errno;
	close(fd);
	if (w == (ssize_t)len)
		return 0;
	last_error_log(why, sizeof(why));
	return pcl_err(w < 0 ? err : EIO, "the kernel refused '%s': %s%s", line,
		       strerror(w < 0 ? err : EIO), why);
}

int probe_event_write(bool kprobe, const char *line)
{
	return write_events(kprobe, line);
}

int probe_event_delete(bool kprobe, const char *group, const char *event)
{
	char line[300];

	snprintf(line, sizeof(line), "-:%s/%s", group, event);
	return write_events(kprobe, line);
}

/*
 * The interned strings: a list reachable from a static, so never a leak;
 * one entry per distinct path named in a u: event.
 */
struct interned {
	struct interned *next;
	char s[];
};
static struct interned *interned;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

const char *probe_intern(const char *s)
{
	struct interned *i;
	size_t len = strlen(s);

	pthread_mutex_lock(&intern_lock);
	for (i = interned; i; i = i->next)
		if (!strcmp(i->s, s))
			break;
	if (!i && (i = malloc(sizeof(*i) + len + 1))) {
		memcpy(i->s, s, len + 1);
		i->next = interned;
		interned = i;
	}
	pthread_mutex_unlock(&intern_lock);
	if (!i)
		errno = ENOMEM;
	return i ? i->s : NULL;
}
