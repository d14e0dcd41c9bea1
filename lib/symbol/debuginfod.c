/* SPDX-License-Identifier: MIT */
/*
 * Debug files and executables of a build id from debuginfod servers, through
 * elfutils' libdebuginfod (see debuginfod.h and docs/debuginfod.md).
 *
 * libdebuginfod is dlopen-ed, not linked: it pulls in libcurl and its TLS
 * and HTTP stack, which every pcl command (stat, record, ...) and every
 * program linking libpcl would otherwise load at start for a feature used
 * only when $DEBUGINFOD_URLS is set. Without the library pcl works as
 * before and simply finds nothing on servers. libdw's own libdwfl does the
 * same (its debuginfod-client.c), for the same reasons. The handle is kept
 * until exit: libcurl is not safe to unload.
 *
 * The prototypes come from <elfutils/debuginfod.h>, so each looked-up
 * symbol has the type the library declares.
 *
 * State: a struct debuginfod starts idle; its first look-up with
 * $DEBUGINFOD_URLS set makes a client (libdebuginfod reads its other
 * variables then); a server failure makes it broken for good, and every
 * later look-up answers -ENODEV at once.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "debuginfod.h"

/* The functions pcl uses, from the dlopen-ed library. */
static struct {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	bool ok;
} api;

static pthread_once_t api_once = PTHREAD_ONCE_INIT;
static char api_error[256]; /* why it did not load */

static void api_load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY | RTLD_LOCAL);

	if (!h) {
		snprintf(api_error, sizeof(api_error), "%s", dlerror());
		return;
	}
	api.begin = (__typeof__(api.begin))dlsym(h, "debuginfod_begin");
	api.end = (__typeof__(api.end))dlsym(h, "debuginfod_end");
	api.find_debuginfo = (__typeof__(api.find_debuginfo))dlsym(h, "debuginfod_find_debuginfo");
	api.find_executable =
		(__typeof__(api.find_executable))dlsym(h, "debuginfod_find_executable");
	api.set_progressfn = (__typeof__(api.set_progressfn))dlsym(h, "debuginfod_set_progressfn");
	api.set_user_data = (__typeof__(api.set_user_data))dlsym(h, "debuginfod_set_user_data");
	api.get_user_data = (__typeof__(api.get_user_data))dlsym(h, "debuginfod_get_user_data");
	api.ok = api.begin && api.end && api.find_debuginfo && api.find_executable &&
		 api.set_progressfn && api.set_user_data && api.get_user_data;
	if (!api.ok)
		snprintf(api_error, sizeof(api_error), "%s lacks a function pcl needs",
			 DEBUGINFOD_SONAME);
}

struct debuginfod {
	pcl_debuginfod_fn cb;
	void *ctx;
	debuginfod_client *client;
	bool broken;			/* no library, or a server failed: ask nothing more */
	struct pcl_debuginfod_event ev; /* the look-up in progress */
};

struct debuginfod *debuginfod_new(pcl_debuginfod_fn cb, void *ctx)
{
	struct debuginfod *d = calloc(1, sizeof(*d));

	if (!d)
		return pcl_err_null(ENOMEM, "no memory for a debuginfod client");
	d->cb = cb;
	d->ctx = ctx;
	return d;
}

void debuginfod_free(struct debuginfod *d)
{
	if (!d)
		return;
	if (d->client)
		api.end(d->client);
	free(d);
}

/*
 * libdebuginfod's progress callback: forwarded to the caller's. Always
 * installed, so that libdebuginfod never prints progress itself
 * ($DEBUGINFOD_PROGRESS): the library stays quiet, the CLI decides.
 */
static int on_progress(debuginfod_client *c, long done, long total)
{
	struct debuginfod *d = api.get_user_data(c);

	if (d && d->cb) {
		d->ev.state = PCL_DEBUGINFOD_PROGRESS;
		d->ev.done = done;
		d->ev.total = total;
		d->cb(d->ctx, &d->ev);
	}
	return 0;
}

/*
 * A client on first need: 0; -ENODEV when there is nothing to ask (no
 * DEBUGINFOD_URLS, or broken); another error, with its message, the first
 * time libdebuginfod cannot be used (the variable is set: the user expects
 * look-ups and must hear why there are none).
 */
static int client_ready(struct debuginfod *d)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

	if (d->broken || (!d->client && (!urls || !*urls)))
		return -ENODEV;
	if (d->client)
		return 0;
	pthread_once(&api_once, api_load);
	d->broken = true;
	if (!api.ok)
		return pcl_err(ELIBACC, "debuginfod: $DEBUGINFOD_URLS is set, but %s; no look-ups",
			       api_error);
	d->client = api.begin();
	if (!d->client)
		return pcl_err(ENOMEM, "debuginfod: libdebuginfod could not start a client; "
				       "no look-ups");
	d->broken = false;
	api.set_user_data(d->client, d);
	api.set_progressfn(d->client, on_progress);
	return 0;
}

static void hex(char *out, const uint8_t *id, int size)
{
	for (int i = 0; i < size; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (size > 0 ? size : 0)] = '\0';
}

/* Ask the servers for the @kind file of @id into @path: 0, or an error with its message. */
static int lookup(struct debuginfod *d, enum debuginfod_kind kind, const uint8_t *id, int id_size,
		  char *path, size_t size)
{
	const struct pcl_debuginfod_event *ev = &d->ev;
	char *found = NULL;
	int fd, ret;

	if (kind == DEBUGINFOD_EXECUTABLE)
		fd = api.find_executable(d->client, id, id_size, &found);
	else
		fd = api.find_debuginfo(d->client, id, id_size, &found);
	if (fd >= 0) {
		close(fd);
		if (found && (size_t)snprintf(path, size, "%s", found) < size) {
			ret = 0;
			pr_debug("debuginfod: %s of %s: %s\n", ev->what, ev->dso, path);
		} else {
			ret = pcl_err(ENAMETOOLONG, "debuginfod: no room for the path of %s",
				      ev->dso);
		}
	} else if (fd == -ENOENT) {
		ret = pcl_err(ENOENT,
			      "debuginfod: no server in $DEBUGINFOD_URLS has the %s of %s "
			      "(build id %s)",
			      ev->what, ev->dso, ev->build_id);
	} else {
		d->broken = true;
		ret = pcl_err(fd < 0 ? -fd : EIO,
			      "debuginfod: asking $DEBUGINFOD_URLS for the %s of %s (build id %s) "
			      "failed: %s; no more look-ups",
			      ev->what, ev->dso, ev->build_id, pcl_strerror(fd));
	}
	free(found);
	return ret;
}

int debuginfod_fetch(struct debuginfod *d, enum debuginfod_kind kind, const char *name,
		     const uint8_t *id, int id_size, char *path, size_t size)
{
	char hexid[41];
	int ret;

	if (!d || id_size < 1 || id_size > 20)
		return -ENODEV;
	ret = client_ready(d);
	if (ret == -ENODEV)
		return ret;
	hex(hexid, id, id_size);
	d->ev = (struct pcl_debuginfod_event){
		.dso = name,
		.what = kind == DEBUGINFOD_EXECUTABLE ? "executable" : "debuginfo",
		.build_id = hexid,
	};
	if (!ret)
		ret = lookup(d, kind, id, id_size, path, size);
	if (d->cb) {
		d->ev.state = ret ? PCL_DEBUGINFOD_FAILED : PCL_DEBUGINFOD_FOUND;
		d->ev.err = ret;
		d->ev.message = ret ? pcl_last_error() : NULL;
		d->ev.path = ret ? NULL : path;
		d->cb(d->ctx, &d->ev);
	}
	d->ev = (struct pcl_debuginfod_event){ 0 };
	return ret;
}
