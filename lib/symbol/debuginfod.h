/* SPDX-License-Identifier: MIT */
/*
 * Files of a build id from debuginfod servers (internal to libpcl; the
 * user's side is in docs/debuginfod.md).
 *
 * When $DEBUGINFOD_URLS is set and not empty, the symbolizer asks these
 * servers, through elfutils' libdebuginfod, for the debug file of a build
 * id its local places do not have, and for the executable when the file
 * itself is gone. libdebuginfod is dlopen-ed on the first look-up, so pcl
 * runs without it; it keeps the files in its own cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client) and honours DEBUGINFOD_TIMEOUT and its other
 * variables.
 *
 * One struct debuginfod per symbolizer, not thread-safe. A server failure
 * other than "not found" (refused, timed out, ...) ends the look-ups of this
 * object: the next DSOs would only wait for the same failure.
 */
#ifndef PCL_SYMBOL_DEBUGINFOD_H
#define PCL_SYMBOL_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>
#include <pcl/symbol.h>

enum debuginfod_kind {
	DEBUGINFOD_DEBUGINFO,
	DEBUGINFOD_EXECUTABLE,
};

struct debuginfod;

/*
 * A look-up state telling @cb (may be NULL) with @ctx about each look-up.
 * Nothing is loaded or read from the environment yet. NULL with errno
 * ENOMEM.
 */
struct debuginfod *debuginfod_new(pcl_debuginfod_fn cb, void *ctx);
/* NULL-safe. */
void debuginfod_free(struct debuginfod *d);

/*
 * The @kind file of build id @id (@id_size bytes) for the DSO @name: its
 * path in libdebuginfod's cache into @path (@size bytes). 0 when found;
 * -ENODEV when there is nothing to ask (no DEBUGINFOD_URLS, or an earlier
 * failure; no message); -ENOENT when no server has it; another negative
 * errno when the servers failed, or the first time libdebuginfod cannot be
 * loaded (-ELIBACC). Each failure other than -ENODEV has a message for
 * pcl_last_error() and is told to the callback.
 */
int debuginfod_fetch(struct debuginfod *d, enum debuginfod_kind kind, const char *name,
		     const uint8_t *id, int id_size, char *path, size_t size);

#endif
