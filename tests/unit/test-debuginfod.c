/* SPDX-License-Identifier: MIT */
/*
 * Debug info from debuginfod servers (lib/symbol/debuginfod.c, through the
 * symbolizer): a stripped program gets its static function's name, source
 * line and debug file from a server, the executable stands in for a
 * missing file, nothing is asked without DEBUGINFOD_URLS, a file no server
 * has is said once per DSO, and a failing server is asked once, then not
 * again.
 *
 * The servers here are file:// URLs, which libdebuginfod reads with the
 * same code as http:// (libcurl), and local sockets that refuse or never
 * answer. The real debuginfod server is tests/e2e/t-debuginfod.sh's.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include "unit.h"
#include <pcl/data.h>
#include <pcl/machine.h>
#include <pcl/symbol.h>
#include "symbol/files.h"

static char tmpdir[64];
static char prog[PATH_MAX];	/* unstripped, with build id */
static char stripped[PATH_MAX]; /* ROOT/opt/app/prog: the symfs's copy, stripped */
static char root[PATH_MAX];	/* the symfs: no /usr/lib/debug under it */
static uint8_t build_id[20];
static int build_id_size;
static char hexid[41];
static bool ready; /* cc, strip, objcopy and libdebuginfod are all here */

/* static_fn's line in src below. */
#define STATIC_FN_LINE 3
static const char src[] = "#include <stdio.h>\n"
			  "static int __attribute__((noinline))\n"
			  "static_fn(int x) { return x * 3 + 1; }\n"
			  "int main(int argc, char **argv)\n"
			  "{ (void)argv; printf(\"%d\\n\", static_fn(argc)); return 0; }\n";

/* What the symbolizer told its callback. */
struct seen {
	int progress, found, failed;
	int err;
	char path[PATH_MAX], what[16], dso[PATH_MAX];
};

static void on_event(void *ctx, const struct pcl_debuginfod_event *ev)
{
	struct seen *s = ctx;

	assert_non_null(ev->dso);
	assert_non_null(ev->what);
	assert_string_equal(ev->build_id, hexid);
	switch (ev->state) {
	case PCL_DEBUGINFOD_PROGRESS:
		s->progress++;
		break;
	case PCL_DEBUGINFOD_FOUND:
		s->found++;
		assert_non_null(ev->path);
		snprintf(s->path, sizeof(s->path), "%s", ev->path);
		break;
	case PCL_DEBUGINFOD_FAILED:
		s->failed++;
		s->err = ev->err;
		assert_true(ev->err < 0);
		assert_non_null(ev->message);
		assert_non_null(strstr(ev->message, ev->dso));
		break;
	}
	snprintf(s->what, sizeof(s->what), "%s", ev->what);
	snprintf(s->dso, sizeof(s->dso), "%s", ev->dso);
}

/* A symbolizer over the symfs @root telling @seen. */
static struct pcl_symbols *symbols_new(struct seen *seen)
{
	struct pcl_symbol_opts o = { .sz = sizeof(o),
				     .symfs = root,
				     .buildid_dir = "",
				     .debuginfod_cb = on_event,
				     .debuginfod_ctx = seen };
	struct pcl_symbols *s = pcl_symbols__new(&o);

	assert_non_null(s);
	return s;
}

/* A user DSO @name with the program's build id. */
static struct pcl_dso dso_of(const char *name)
{
	struct pcl_dso d = { .name = (char *)name, .kind = PCL_DSO_USER };

	memcpy(d.build_id, build_id, sizeof(build_id));
	d.build_id_size = (uint8_t)build_id_size;
	return d;
}

static void dso_done(struct pcl_dso *d)
{
	if (d->sym_free)
		d->sym_free(d->sym_priv);
	free(d->sym_note);
}

/* static_fn's DSO-relative address: from the unstripped program's own table. */
static uint64_t static_fn_addr(void)
{
	struct pcl_symtab *t = pcl_symtab__load_elf(prog, 0);
	uint64_t addr = 0;

	assert_non_null(t);
	for (size_t i = 0; i < pcl_symtab__count(t); i++) {
		const struct pcl_symbol *sym = pcl_symtab__at(t, i);

		if (!strcmp(sym->name, "static_fn"))
			addr = sym->start;
	}
	pcl_symtab__free(t);
	assert_true(addr != 0);
	return addr;
}

/* The name the symbolizer gives static_fn's address in @d, or "" */
static const char *name_at(struct pcl_symbols *s, struct pcl_dso *d)
{
	const struct pcl_symbol *sym = pcl_symbols__find(s, d, static_fn_addr());

	return sym ? sym->name : "";
}

/* A server directory @name holding @debuginfo and @executable (NULL: none) for the build id. */
static void make_server(char *url, size_t size, const char *name, const char *debuginfo,
			const char *executable)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s/buildid/%s", tmpdir, name, hexid);
	assert_int_equal(unit_sh("mkdir -p '%s'", dir), 0);
	if (debuginfo)
		assert_int_equal(unit_sh("cp '%s' '%s/debuginfo'", debuginfo, dir), 0);
	if (executable)
		assert_int_equal(unit_sh("cp '%s' '%s/executable'", executable, dir), 0);
	snprintf(url, size, "file://%s/%s", tmpdir, name);
}

/* Each test its own client cache, so that no answer comes from a previous one. */
static void use_urls(const char *urls, const char *cache)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, cache);
	setenv("DEBUGINFOD_CACHE_PATH", path, 1);
	if (urls)
		setenv("DEBUGINFOD_URLS", urls, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
}

static bool under(const char *path, const char *cache)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s/", tmpdir, cache);
	return path && !strncmp(path, dir, strlen(dir));
}

/*
 * A server @srv with the debug file (and @exe as the executable, NULL:
 * none), a client cache @cache, and a symbolizer that must name static_fn
 * in @d through them.
 */
static struct pcl_symbols *served(struct seen *seen, struct pcl_dso *d, const char *srv,
				  const char *exe, const char *cache)
{
	char url[PATH_MAX + 16], dbg[PATH_MAX];
	struct pcl_symbols *s;

	snprintf(dbg, sizeof(dbg), "%s/prog.debug", tmpdir);
	make_server(url, sizeof(url), srv, dbg, exe);
	use_urls(url, cache);
	s = symbols_new(seen);
	assert_string_equal(name_at(s, d), "static_fn");
	assert_int_equal(d->sym_status, PCL_DSO_SYMS_OK);
	return s;
}

static void test_debuginfo(void **state)
{
	const struct symbols_dso_files *f;
	const struct srcline_info *info;
	struct seen seen = { 0 };
	struct pcl_symbols *s;
	struct pcl_dso d = dso_of("/opt/app/prog");

	(void)state;
	if (!ready)
		skip();
	s = served(&seen, &d, "srv-debug", NULL, "cache-debug");
	assert_int_equal(seen.found, 1);
	assert_int_equal(seen.failed, 0);
	assert_string_equal(seen.what, "debuginfo");
	assert_string_equal(seen.dso, "/opt/app/prog");
	/* The DSO's files: the stripped code under the symfs, the debug file in the cache. */
	f = symbols_dso_files(s, &d);
	assert_non_null(f);
	assert_string_equal(f->path, stripped);
	assert_true(under(f->debug, "cache-debug"));
	assert_string_equal(f->debug, seen.path);
	assert_string_equal(strrchr(f->debug, '/'), "/debuginfo");
	/* Source lines come through the downloaded file. */
	assert_int_equal(symbols_srcline(s, &d, static_fn_addr(), &info), 0);
	assert_non_null(info->file);
	assert_string_equal(strrchr(info->file, '/') + 1, "prog.c");
	assert_int_equal(info->line, STATIC_FN_LINE);
	dso_done(&d);
	pcl_symbols__free(s);

	/* A second symbolizer finds it in the cache: found again, with no server at all. */
	assert_int_equal(unit_sh("rm -rf '%s/srv-debug'", tmpdir), 0);
	memset(&seen, 0, sizeof(seen));
	d = dso_of("/opt/app/prog");
	s = symbols_new(&seen);
	assert_string_equal(name_at(s, &d), "static_fn");
	assert_int_equal(seen.found, 1);
	dso_done(&d);
	pcl_symbols__free(s);
}

static void test_executable(void **state)
{
	const struct symbols_dso_files *f;
	struct seen seen = { 0 };
	struct pcl_symbols *s;
	struct pcl_dso d = dso_of("/opt/gone/prog");

	(void)state;
	if (!ready)
		skip();
	/* The file is gone: the stripped executable and its debuginfo both come from the server. */
	s = served(&seen, &d, "srv-exe", stripped, "cache-exe");
	assert_int_equal(seen.found, 2);
	f = symbols_dso_files(s, &d);
	assert_non_null(f);
	assert_true(under(f->path, "cache-exe"));
	assert_string_equal(strrchr(f->path, '/'), "/executable");
	assert_true(under(f->debug, "cache-exe"));
	dso_done(&d);
	pcl_symbols__free(s);
}

static void test_no_urls(void **state)
{
	char url[PATH_MAX + 16], dbg[PATH_MAX], cache[PATH_MAX];
	struct seen seen = { 0 };
	struct pcl_symbols *s;
	struct pcl_dso d = dso_of("/opt/app/prog");

	(void)state;
	if (!ready)
		skip();
	snprintf(dbg, sizeof(dbg), "%s/prog.debug", tmpdir);
	make_server(url, sizeof(url), "srv-none", dbg, NULL);
	/* Unset, then empty: nothing is asked, the stripped file gives its .dynsym only. */
	for (int i = 0; i < 2; i++) {
		use_urls(i ? "" : NULL, "cache-none");
		s = symbols_new(&seen);
		assert_string_not_equal(name_at(s, &d), "static_fn");
		assert_int_equal(d.sym_status, PCL_DSO_SYMS_OK);
		assert_null(symbols_dso_files(s, &d)->debug);
		dso_done(&d);
		d = dso_of("/opt/app/prog");
		pcl_symbols__free(s);
	}
	assert_int_equal(seen.found + seen.failed + seen.progress, 0);
	snprintf(cache, sizeof(cache), "%s/cache-none", tmpdir);
	assert_int_not_equal(access(cache, F_OK), 0);
}

static void test_not_found(void **state)
{
	char url[PATH_MAX + 16];
	struct seen seen = { 0 };
	struct pcl_symbols *s;
	struct pcl_dso d = dso_of("/opt/app/prog"), d2 = dso_of("/opt/app/prog2");

	(void)state;
	if (!ready)
		skip();
	make_server(url, sizeof(url), "srv-empty", NULL, NULL);
	use_urls(url, "cache-empty");
	s = symbols_new(&seen);
	assert_string_not_equal(name_at(s, &d), "static_fn");
	assert_int_equal(d.sym_status, PCL_DSO_SYMS_OK); /* its .dynsym */
	assert_int_equal(seen.failed, 1);
	assert_int_equal(seen.err, -ENOENT);
	assert_string_equal(seen.what, "debuginfo");
	/* Not found is no server failure: the next DSO (gone: executable first) is asked too. */
	assert_int_equal(pcl_symbols__load(s, &d2), PCL_DSO_SYMS_NOT_FOUND);
	assert_int_equal(seen.failed, 3);
	assert_int_equal(seen.err, -ENOENT);
	assert_string_equal(seen.dso, "/opt/app/prog2");
	dso_done(&d);
	dso_done(&d2);
	pcl_symbols__free(s);
}

/* A TCP port on 127.0.0.1 that listens and never answers (@fd), or refuses (closed). */
static int local_port(int *fd, bool listen_on)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
	if (listen_on) {
		assert_int_equal(listen(*fd, 8), 0);
	} else {
		close(*fd);
		*fd = -1;
	}
	return ntohs(a.sin_port);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A server that fails is asked once; the DSOs after it are not (each would wait as long). */
static void test_server_failure(void **state)
{
	char url[64];
	double t0;

	(void)state;
	if (!ready)
		skip();
	setenv("DEBUGINFOD_TIMEOUT", "1", 1);
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
	for (int mute = 0; mute < 2; mute++) {
		struct seen seen = { 0 };
		struct pcl_dso d = dso_of("/opt/app/prog"), d2 = dso_of("/opt/app/prog2");
		struct pcl_symbols *s;
		int fd, port = local_port(&fd, mute);

		snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
		use_urls(url, mute ? "cache-mute" : "cache-refused");
		t0 = now_s();
		s = symbols_new(&seen);
		assert_string_not_equal(name_at(s, &d), "static_fn");
		assert_int_equal(seen.failed, 1);
		assert_int_not_equal(seen.err, -ENOENT);
		pcl_symbols__load(s, &d2);
		assert_int_equal(seen.failed, 1);
		/* DEBUGINFOD_TIMEOUT bounds the wait on a server that never answers. */
		assert_true(now_s() - t0 < 20);
		dso_done(&d);
		dso_done(&d2);
		pcl_symbols__free(s);
		if (fd >= 0)
			close(fd);
	}
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("DEBUGINFOD_RETRY_LIMIT");
}

static void setup_files(void)
{
	char srcpath[PATH_MAX], dbg[PATH_MAX];
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY);
	FILE *f;

	if (!h) {
		printf("# %s cannot be loaded (%s): the debuginfod tests skip\n", DEBUGINFOD_SONAME,
		       dlerror());
		return;
	}
	dlclose(h);
	snprintf(srcpath, sizeof(srcpath), "%s/prog.c", tmpdir);
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/prog.debug", tmpdir);
	snprintf(root, sizeof(root), "%s/root", tmpdir);
	snprintf(stripped, sizeof(stripped), "%s/opt/app/prog", root);
	f = fopen(srcpath, "w");
	if (!f)
		return;
	fputs(src, f);
	fclose(f);
	if (unit_sh("command -v strip >/dev/null && command -v objcopy >/dev/null && "
		    "cc -O1 -g -Wl,--build-id -o '%s' '%s' 2>/dev/null && mkdir -p '%s/opt/app' && "
		    "strip -s -o '%s' '%s' && objcopy --only-keep-debug '%s' '%s'",
		    prog, srcpath, root, stripped, prog, prog, dbg)) {
		printf("# no cc, strip or objcopy: the debuginfod tests skip\n");
		return;
	}
	build_id_size = pcl_build_id_read(prog, build_id);
	if (build_id_size < 2)
		return;
	for (int i = 0; i < build_id_size; i++)
		sprintf(hexid + 2 * i, "%02x", build_id[i]);
	ready = true;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_debuginfo), UNIT_TEST(test_executable),	   UNIT_TEST(test_no_urls),
		UNIT_TEST(test_not_found), UNIT_TEST(test_server_failure),
	};
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-debuginfod-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	/* No look-up may reach a server of this machine's configuration. */
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_PROGRESS");
	unsetenv("DEBUGINFOD_VERBOSE");
	setup_files();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unit_remove_dir(tmpdir);
	return ret;
}
