/* SPDX-License-Identifier: MIT */
/*
 * pcl daemon: record sessions that run in the background, as perf daemon
 * runs them, from a config file in perf's format:
 *
 *   [daemon]
 *   base = /var/lib/pcl
 *   [session-NAME]
 *   run = RECORD-ARGS
 *
 * Layout under BASE (perf's): lock (the daemon's pid, locked while it runs),
 * output (its log), control (its socket), and per session a directory
 * session-NAME with output (the session's stdout and stderr), control and
 * ack (the FIFOs of 'record --control') and the perf.data files.
 *
 * Protocol (perf's, so that pcl and perf clients and daemons mix): a client
 * connects to BASE/control, writes one fixed-size union cmd (list, signal,
 * stop, ping) and copies what the daemon writes back until it closes.
 * A session is pinged by writing "ping" to its control FIFO and reading
 * "ack\n" from its ack FIFO within 2 s.
 *
 * Session states, as the config is (re)read: OK (unchanged), RECONFIG (new,
 * or its run line changed: (re)started), KILL (gone from the config, or its
 * record ended: stopped and forgotten). A stop asks each record to "stop"
 * through its FIFO, then after 10 s sends SIGTERM, then SIGKILL.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

#define SESSION_OUTPUT	"output"
#define SESSION_CONTROL "control"
#define SESSION_ACK	"ack"
#define SESSION_MAX	64 /* bytes of a session name in a command, NUL included */

enum session_state { S_OK, S_RECONFIG, S_KILL };

struct session {
	char *name, *run, *base;
	pid_t pid; /* -1: not running */
	enum session_state state;
	time_t start;
	struct session *next;
};

struct daemon {
	const char *config; /* --config */
	char *config_real, *config_dir, *config_file;
	const char *base_user; /* --base */
	char *base;
	const char *csv_sep; /* -x */
	int verbose;
	bool foreground;
	const char *session; /* --session */
	char exe[PATH_MAX];
	struct session *sessions;
	FILE *log;
	int signal_fd;
	time_t start;
};

/* The client's command, laid out as perf's union cmd (72 bytes). */
enum { CMD_LIST = 0, CMD_SIGNAL = 1, CMD_STOP = 2, CMD_PING = 3 };

union cmd {
	int cmd;
	struct {
		int cmd;
		int verbose;
		char csv_sep;
	} list;
	struct {
		int cmd;
		int sig;
		char name[SESSION_MAX];
	} signal;
	struct {
		int cmd;
		char name[SESSION_MAX];
	} ping;
};
_Static_assert(sizeof(union cmd) == 72, "perf daemon's command is 72 bytes");

/* Set by a client's stop, or by SIGINT/SIGTERM read from the signalfd. */
static volatile sig_atomic_t done;

/* The daemon's log line: the time, then the message (BASE/output, or the terminal with -f). */
__attribute__((format(printf, 2, 3))) static void say(struct daemon *d, const char *fmt, ...)
{
	struct timeval tv;
	struct tm tm;
	char when[32];
	va_list ap;

	if (!d->log)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(when, sizeof(when), "%F %T", &tm);
	fprintf(d->log, "[%s.%06ld] ", when, (long)tv.tv_usec);
	va_start(ap, fmt);
	vfprintf(d->log, fmt, ap);
	va_end(ap);
	fflush(d->log);
}

/* Errors: "failed: ..." on stderr, perf's words (scripts and perf's test look for them). */
__attribute__((format(printf, 1, 2))) static void failed(const char *fmt, ...)
{
	va_list ap;

	fputs("failed: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- the config file ---- */

static struct session *find_session(struct daemon *d, const char *name)
{
	for (struct session *s = d->sessions; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

static void session_free(struct session *s)
{
	free(s->name);
	free(s->run);
	free(s->base);
	free(s);
}

/*
 * A value as perf's (git's) config reads it: blanks trimmed, a '#' or ';'
 * outside quotes starts a comment, double quotes group, backslash escapes
 * \" \\ \n \t. In place.
 */
static char *config_value(char *v)
{
	char *out = v, *o = v;
	bool quoted = false;

	while (isspace((unsigned char)*v))
		v++;
	for (; *v; v++) {
		if (!quoted && (*v == '#' || *v == ';'))
			break;
		if (*v == '"') {
			quoted = !quoted;
			continue;
		}
		if (*v == '\\' && v[1]) {
			v++;
			*o++ = *v == 'n' ? '\n' : *v == 't' ? '\t' : *v;
			continue;
		}
		*o++ = *v;
	}
	while (o > out && isspace((unsigned char)o[-1]))
		o--;
	*o = '\0';
	return out;
}

/* "session-NAME.run" and "daemon.base": one setting; -1 for a config the daemon must refuse. */
static int config_set(struct daemon *d, const char *section, const char *key, const char *value,
		      bool server)
{
	struct session *s;

	if (!strcmp(section, "daemon") && !strcmp(key, "base")) {
		if (d->base_user)
			return 0;
		if (server && d->base && strcmp(d->base, value)) {
			failed("can't redefine base, bailing out");
			return -1;
		}
		if (!d->base && !(d->base = strdup(value)))
			return -1;
		return 0;
	}
	if (!server || strncmp(section, "session-", 8) || !section[8])
		return 0;
	s = find_session(d, section + 8);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || !(s->name = strndup(section + 8, SESSION_MAX - 1))) {
			free(s);
			return -1;
		}
		s->pid = -1;
		s->state = S_RECONFIG;
		/* appended: sessions list in the config's order */
		struct session **p = &d->sessions;
		while (*p)
			p = &(*p)->next;
		*p = s;
	} else if (s->state == S_KILL) {
		s->state = S_OK;
	}
	if (!strcmp(key, "run") && (!s->run || strcmp(s->run, value))) {
		free(s->run);
		if (!(s->run = strdup(value)))
			return -1;
		s->state = S_RECONFIG;
	}
	return 0;
}

/* Read the config: the base (client), or the base and the sessions (server). 0 or -1. */
static int read_config(struct daemon *d, bool server)
{
	char section[128] = "", *line = NULL;
	size_t cap = 0;
	int ret = 0, lineno = 0;
	FILE *f = fopen(d->config_real, "r");

	if (!f) {
		failed("can't read config '%s': %s", d->config_real, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		char *p = line, *eq, *key;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#' || *p == ';')
			continue;
		if (*p == '[') {
			char *end = strchr(p, ']');
			size_t n;

			if (!end || (n = (size_t)(end - p - 1)) >= sizeof(section)) {
				failed("%s:%d: bad section line", d->config_real, lineno);
				ret = -1;
				break;
			}
			/* perf lowercases section names (and so session names) */
			for (size_t i = 0; i < n; i++)
				section[i] = (char)tolower((unsigned char)p[1 + i]);
			section[n] = '\0';
			continue;
		}
		eq = strchr(p, '=');
		if (!eq || !section[0]) {
			failed("%s:%d: expected 'key = value' in a [section]", d->config_real,
			       lineno);
			ret = -1;
			break;
		}
		*eq = '\0';
		key = config_value(p);
		for (char *k = key; *k; k++)
			*k = (char)tolower((unsigned char)*k);
		ret = config_set(d, section, key, config_value(eq + 1), server);
	}
	free(line);
	fclose(f);
	return ret;
}

static int check_base(struct daemon *d)
{
	struct stat st;

	if (!d->base) {
		failed("base not defined");
		return -1;
	}
	if (stat(d->base, &st)) {
		if (errno == EACCES)
			failed("permission denied for '%s' base", d->base);
		else if (errno == ENOENT)
			failed("base '%s' does not exists", d->base);
		else
			failed("can't access base '%s': %s", d->base, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		failed("base '%s' is not directory", d->base);
		return -1;
	}
	return 0;
}

/* --config, else perf's system config if readable, else ~/.perfconfig. */
static int setup_config(struct daemon *d)
{
	const char *home = getenv("HOME");
	char *path = NULL;

	if (d->base_user && !(d->base = strdup(d->base_user)))
		return -1;
	if (d->config) {
		d->config_real = realpath(d->config, NULL);
		if (!d->config_real) {
			failed("config %s: %s", d->config, strerror(errno));
			return -1;
		}
	} else if (!access("/etc/perfconfig", R_OK)) {
		d->config_real = strdup("/etc/perfconfig");
	} else if (home && asprintf(&path, "%s/.perfconfig", home) > 0) {
		d->config_real = path;
	}
	if (!d->config_real) {
		failed("config not found");
		return -1;
	}
	return 0;
}

/* Every session KILL, then the config says which stay (OK) and which (re)start. */
static int server_config(struct daemon *d)
{
	for (struct session *s = d->sessions; s; s = s->next)
		s->state = S_KILL;
	if (read_config(d, true))
		return -1;
	return check_base(d);
}

/* ---- sessions ---- */

/* The child: BASE/session-NAME, its output, its FIFOs, then 'pcl record --control ...'. */
static void session_exec(struct daemon *d, struct session *s)
{
	char *cmd = NULL, *save = NULL, *argv[256];
	int argc = 0, fd;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (chdir(s->base)) {
		perror("failed: chdir");
		_exit(127);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	fd = open(SESSION_OUTPUT, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror("failed: open session output");
		_exit(127);
	}
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	if ((mkfifo(SESSION_CONTROL, 0600) && errno != EEXIST) ||
	    (mkfifo(SESSION_ACK, 0600) && errno != EEXIST)) {
		perror("failed: create control fifos");
		_exit(127);
	}
	if (asprintf(&cmd, "%s record --control=fifo:%s,%s %s", d->exe, SESSION_CONTROL,
		     SESSION_ACK, s->run ? s->run : "") < 0)
		_exit(127);
	/* split at blanks, as perf does (no quoting) */
	for (char *t = strtok_r(cmd, " \t\n", &save); t && argc < 255;
	     t = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	execve(d->exe, argv, (char *[]){ NULL });
	perror("failed: exec");
	_exit(127);
}

static int session_run(struct daemon *d, struct session *s)
{
	free(s->base);
	if (asprintf(&s->base, "%s/session-%s", d->base, s->name) < 0) {
		s->base = NULL;
		say(d, "failed: out of memory\n");
		return -1;
	}
	if (mkdir(s->base, 0755) && errno != EEXIST) {
		say(d, "failed: mkdir %s: %s\n", s->base, strerror(errno));
		return -1;
	}
	s->start = time(NULL);
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		say(d, "failed: fork: %s\n", strerror(errno));
		return -1;
	}
	if (!s->pid)
		session_exec(d, s);
	say(d, "reconfig: running session [%s:%d]: %s\n", s->name, (int)s->pid, s->run);
	return 0;
}

/*
 * The signalfd is readable: SIGINT or SIGTERM ask the daemon to end; SIGCHLD
 * (maybe for several): reap every session that ended; it is forgotten.
 */
static void reap_sessions(struct daemon *d)
{
	struct signalfd_siginfo si;
	int status;

	while (read(d->signal_fd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
			done = 1;
	for (struct session *s = d->sessions; s; s = s->next) {
		if (s->pid <= 0 || waitpid(s->pid, &status, WNOHANG) <= 0)
			continue;
		if (WIFEXITED(status))
			say(d, "session '%s' exited, status=%d\n", s->name, WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			say(d, "session '%s' killed (signal %d)\n", s->name, WTERMSIG(status));
		else
			say(d, "session '%s' Unexpected status (0x%x)\n", s->name, status);
		s->state = S_KILL;
		s->pid = -1;
	}
}

/*
 * Write @msg to the session's control FIFO; with @ack, wait up to 2 s for
 * "ack\n". 0 when done (and acked). A FIFO with no reader (no record yet,
 * or no more) fails at once.
 */
static int session_control(const struct session *s, const char *msg, bool ack)
{
	char path[PATH_MAX], buf[64];
	struct pollfd pfd = { .events = POLLIN };
	int ctl, ackfd = -1, ret = -1;
	size_t len = strlen(msg);

	snprintf(path, sizeof(path), "%s/%s", s->base, SESSION_CONTROL);
	ctl = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	if (ack) {
		snprintf(path, sizeof(path), "%s/%s", s->base, SESSION_ACK);
		ackfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (ackfd < 0)
			goto out;
		/* an answer to an earlier ping that came too late is not this one's */
		while (read(ackfd, buf, sizeof(buf)) > 0)
			;
	}
	if (write(ctl, msg, len) != (ssize_t)len)
		goto out;
	if (!ack) {
		ret = 0;
		goto out;
	}
	pfd.fd = ackfd;
	if (poll(&pfd, 1, 2000) > 0 && (pfd.revents & POLLIN)) {
		ssize_t n = read(ackfd, buf, sizeof(buf) - 1);

		ret = n >= 4 && !memcmp(buf, "ack\n", 4) ? 0 : -1;
	}
out:
	if (ackfd >= 0)
		close(ackfd);
	close(ctl);
	return ret;
}

static bool any_running(const struct daemon *d, const struct session *only)
{
	for (const struct session *s = d->sessions; s; s = s->next)
		if (s->pid > 0 && (!only || s == only))
			return true;
	return false;
}

/* Wait up to @secs for the sessions (or @only) to end. 0 when they have. */
static int wait_sessions(struct daemon *d, const struct session *only, int secs)
{
	struct pollfd pfd = { .fd = d->signal_fd, .events = POLLIN };
	time_t start = time(NULL);

	while (any_running(d, only)) {
		if (poll(&pfd, 1, 1000) > 0)
			reap_sessions(d);
		if (any_running(d, only) && time(NULL) > start + secs)
			return -1;
	}
	return 0;
}

/* "stop" through the FIFO, then SIGTERM, then SIGKILL, 10 s apart. */
static void kill_sessions(struct daemon *d, struct session *only)
{
	for (int how = 0; how < 3; how++) {
		for (struct session *s = d->sessions; s; s = s->next) {
			if (s->pid <= 0 || (only && s != only))
				continue;
			if (how == 0)
				session_control(s, "stop", false);
			else
				kill(s->pid, how == 1 ? SIGTERM : SIGKILL);
		}
		if (!wait_sessions(d, only, 10))
			return;
	}
	say(d, "failed to wait for sessions\n");
}

/* Carry out the states the config left: everything OK afterwards. */
static int reconfig(struct daemon *d)
{
	struct session **p = &d->sessions;

	while (*p) {
		struct session *s = *p;
		/* taken first: reaping the killed record marks it KILL */
		enum session_state state = s->state;

		if (state == S_OK) {
			p = &s->next;
			continue;
		}
		if (s->pid > 0) {
			kill_sessions(d, s);
			say(d, "reconfig: session '%s' killed\n", s->name);
		}
		if (state == S_KILL) {
			*p = s->next;
			session_free(s);
			continue;
		}
		if (done) /* asked to end meanwhile: start nothing new */
			break;
		if (session_run(d, s))
			return -1;
		s->state = S_OK;
		p = &s->next;
	}
	return 0;
}

/* ---- the server ---- */

static void srv_list(struct daemon *d, const union cmd *c, FILE *out)
{
	char sep = c->list.csv_sep;
	time_t now = time(NULL);

	if (sep) {
		fprintf(out, "%d%c%s%c%s%c%s/%s%c%s/%s%c%" PRIu64 "\n", (int)getpid(), sep,
			"daemon", sep, d->base, sep, d->base, SESSION_OUTPUT, sep, d->base, "lock",
			sep, (uint64_t)(now - d->start) / 60);
	} else {
		fprintf(out, "[%d:daemon] base: %s\n", (int)getpid(), d->base);
		if (c->list.verbose) {
			fprintf(out, "  output:  %s/%s\n", d->base, SESSION_OUTPUT);
			fprintf(out, "  lock:    %s/lock\n", d->base);
			fprintf(out, "  up:      %" PRIu64 " minutes\n",
				(uint64_t)(now - d->start) / 60);
		}
	}
	for (struct session *s = d->sessions; s; s = s->next) {
		uint64_t up = (uint64_t)(now - s->start) / 60;

		if (sep) {
			fprintf(out, "%d%c%s%c%s%c%s%c%s/%s%c%s/%s%c%s/%s%c%" PRIu64 "\n",
				(int)s->pid, sep, s->name, sep, s->run, sep, s->base, sep, s->base,
				SESSION_OUTPUT, sep, s->base, SESSION_CONTROL, sep, s->base,
				SESSION_ACK, sep, up);
			continue;
		}
		fprintf(out, "[%d:%s] perf record %s\n", (int)s->pid, s->name, s->run);
		if (!c->list.verbose)
			continue;
		fprintf(out, "  base:    %s\n", s->base);
		fprintf(out, "  output:  %s/%s\n", s->base, SESSION_OUTPUT);
		fprintf(out, "  control: %s/%s\n", s->base, SESSION_CONTROL);
		fprintf(out, "  ack:     %s/%s\n", s->base, SESSION_ACK);
		fprintf(out, "  up:      %" PRIu64 " minutes\n", up);
	}
}

static void srv_signal(struct daemon *d, const union cmd *c, FILE *out)
{
	bool all = !strcmp(c->signal.name, "all");

	for (struct session *s = d->sessions; s; s = s->next) {
		if (!all && strcmp(c->signal.name, s->name))
			continue;
		if (s->pid > 0)
			kill(s->pid, c->signal.sig);
		fprintf(out, "signal %d sent to session '%s [%d]'\n", c->signal.sig, s->name,
			(int)s->pid);
	}
}

static void srv_ping(struct daemon *d, const union cmd *c, FILE *out)
{
	bool all = !strcmp(c->ping.name, "all"), found = false;

	for (struct session *s = d->sessions; s; s = s->next) {
		if (!all && strcmp(c->ping.name, s->name))
			continue;
		fprintf(out, "%-4s %s\n", session_control(s, "ping", true) ? "FAIL" : "OK",
			s->name);
		found = true;
	}
	if (!found && !all)
		fprintf(out, "%-4s %s (not found)\n", "FAIL", c->ping.name);
}

static bool read_all(int fd, void *buf, size_t n)
{
	for (size_t at = 0; at < n;) {
		ssize_t r = read(fd, (char *)buf + at, n - at);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return false;
		}
		at += (size_t)r;
	}
	return true;
}

static void handle_client(struct daemon *d, int sock)
{
	union cmd c;
	FILE *out;
	int fd = accept4(sock, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0) {
		say(d, "failed: accept: %s\n", strerror(errno));
		return;
	}
	/* a client that sends nothing must not hang the daemon */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ 2, 0 }, sizeof(struct timeval));
	if (!read_all(fd, &c, sizeof(c)) || !(out = fdopen(fd, "w"))) {
		say(d, "failed: a client's command could not be read\n");
		close(fd);
		return;
	}
	c.signal.name[SESSION_MAX - 1] = '\0';
	switch (c.cmd) {
	case CMD_LIST:
		srv_list(d, &c, out);
		break;
	case CMD_SIGNAL:
		srv_signal(d, &c, out);
		break;
	case CMD_STOP:
		done = 1;
		say(d, "daemon is exiting\n");
		break;
	case CMD_PING:
		srv_ping(d, &c, out);
		break;
	default:
		say(d, "unknown command %d from a client\n", c.cmd);
		break;
	}
	fclose(out);
}

static int socket_path(const struct daemon *d, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if ((size_t)snprintf(addr->sun_path, sizeof(addr->sun_path), "%s/control", d->base) >=
	    sizeof(addr->sun_path)) {
		failed("control path too long '%s/control'", d->base);
		return -1;
	}
	return 0;
}

static int server_socket(struct daemon *d)
{
	struct sockaddr_un addr;
	int fd;

	if (socket_path(d, &addr))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		say(d, "failed: socket: %s\n", strerror(errno));
		return -1;
	}
	unlink(addr.sun_path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 1)) {
		say(d, "failed: bind %s: %s\n", addr.sun_path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* inotify on the config's directory: a write or a rename onto the file is a change. */
static int config_watch(struct daemon *d)
{
	char *a = strdup(d->config_real), *b = strdup(d->config_real);
	int fd = -1;

	if (a && b) {
		d->config_dir = strdup(dirname(a));
		d->config_file = strdup(basename(b));
	}
	free(a);
	free(b);
	if (!d->config_dir || !d->config_file)
		return -1;
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd >= 0 && inotify_add_watch(fd, d->config_dir, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
		say(d, "failed: inotify_add_watch %s: %s\n", d->config_dir, strerror(errno));
		close(fd);
		fd = -1;
	}
	return fd;
}

static bool config_changed(struct daemon *d, int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t len;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (!(ev->mask & IN_ISDIR) && ev->len && !strcmp(ev->name, d->config_file))
				changed = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return changed;
}

/* BASE/lock, locked for as long as this process runs, holding its pid. */
static int take_lock(struct daemon *d)
{
	char path[PATH_MAX], buf[24] = "";
	int fd, len;

	snprintf(path, sizeof(path), "%s/lock", d->base);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		failed("can't open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (lockf(fd, F_TLOCK, 0) < 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		failed("another perf daemon (pid %d) owns %s", atoi(buf), d->base);
		close(fd);
		return -1;
	}
	len = snprintf(buf, sizeof(buf), "%d", (int)getpid());
	if (write(fd, buf, (size_t)len) != len || ftruncate(fd, len)) {
		failed("write '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0; /* the fd stays open: it holds the lock */
}

/* Fork; the parent returns 1 (done), the child 0 as the daemon, -1 on failure. */
static int go_background(struct daemon *d)
{
	pid_t pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		failed("fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		return 1;
	if (setsid() < 0 || take_lock(d))
		return -1;
	umask(0);
	if (chdir(d->base)) {
		failed("chdir %s: %s", d->base, strerror(errno));
		return -1;
	}
	fd = open("output", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		failed("open %s/output: %s", d->base, strerror(errno));
		return -1;
	}
	close(0);
	open("/dev/null", O_RDONLY);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	return 0;
}

static int signal_setup(struct daemon *d)
{
	sigset_t mask;

	/*
	 * SIGINT and SIGTERM too, read with SIGCHLD from the fd: a handler's flag
	 * set while the daemon works (a reconfig may wait 30 s for sessions to
	 * end) was followed by poll(-1), which nothing woke again.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	d->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return d->signal_fd < 0 ? -1 : 0;
}

static int serve(struct daemon *d)
{
	struct pollfd fds[3];
	int sock, conf, err = 0;

	sock = server_socket(d);
	conf = sock < 0 ? -1 : config_watch(d);
	if (sock < 0 || conf < 0 || signal_setup(d)) {
		say(d, "failed: cannot set the daemon up\n");
		err = -1;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	fds[0] = (struct pollfd){ .fd = sock, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = conf, .events = POLLIN };
	fds[2] = (struct pollfd){ .fd = d->signal_fd, .events = POLLIN };
	while (!done && !err) {
		err = reconfig(d);
		if (err || done || poll(fds, 3, -1) <= 0)
			continue;
		if (fds[2].revents & POLLIN)
			reap_sessions(d);
		if (fds[0].revents & POLLIN)
			handle_client(d, sock);
		if ((fds[1].revents & POLLIN) && config_changed(d, conf)) {
			say(d, "reconfig: config file changed\n");
			err = server_config(d);
		}
	}
out:
	kill_sessions(d, NULL);
	if (sock >= 0) {
		struct sockaddr_un addr;

		close(sock);
		if (!socket_path(d, &addr))
			unlink(addr.sun_path);
	}
	if (conf >= 0)
		close(conf);
	if (d->signal_fd >= 0)
		close(d->signal_fd);
	say(d, "daemon exited\n");
	return err ? 1 : 0;
}

static int srv_start(struct daemon *d)
{
	int ret;

	d->start = time(NULL);
	if (readlink("/proc/self/exe", d->exe, sizeof(d->exe) - 1) < 0) {
		failed("readlink /proc/self/exe: %s", strerror(errno));
		return 1;
	}
	if (setup_config(d) || server_config(d))
		return 1;
	if (d->foreground) {
		if (take_lock(d))
			return 1;
		d->log = stdout;
	} else {
		ret = go_background(d);
		if (ret)
			return ret > 0 ? 0 : 1;
		d->log = stdout;
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	d->signal_fd = -1;
	say(d, "daemon started (pid %d)\n", (int)getpid());
	return serve(d);
}

/* ---- the client ---- */

static int send_cmd(struct daemon *d, union cmd *c)
{
	struct sockaddr_un addr;
	char buf[4096];
	ssize_t n;
	int fd, ret = 0;

	if (read_config(d, false) || check_base(d) || socket_path(d, &addr))
		return 1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		failed("socket: %s", strerror(errno));
		return 1;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		failed("connect: %s", strerror(errno));
		close(fd);
		return 1;
	}
	if (write(fd, c, sizeof(*c)) != (ssize_t)sizeof(*c)) {
		failed("write: %s", strerror(errno));
		close(fd);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			ret = 1;
			break;
		}
		fflush(stdout);
	}
	close(fd);
	return ret;
}

static int client(struct daemon *d, const char *what)
{
	union cmd c;

	memset(&c, 0, sizeof(c));
	if (setup_config(d))
		return 1;
	if (!what) {
		c.list.cmd = CMD_LIST;
		c.list.verbose = d->verbose;
		c.list.csv_sep = d->csv_sep ? d->csv_sep[0] : 0;
	} else if (!strcmp(what, "signal")) {
		c.signal.cmd = CMD_SIGNAL;
		c.signal.sig = SIGUSR2;
		snprintf(c.signal.name, sizeof(c.signal.name), "%s",
			 d->session ? d->session : "all");
	} else if (!strcmp(what, "stop")) {
		c.cmd = CMD_STOP;
	} else {
		c.ping.cmd = CMD_PING;
		snprintf(c.ping.name, sizeof(c.ping.name), "%s", d->session ? d->session : "all");
	}
	return send_cmd(d, &c);
}

static void daemon_free(struct daemon *d)
{
	while (d->sessions) {
		struct session *s = d->sessions;

		d->sessions = s->next;
		session_free(s);
	}
	free(d->config_real);
	free(d->config_dir);
	free(d->config_file);
	free(d->base);
}

enum { OPT_CONFIG = 256, OPT_BASE, OPT_SESSION };

static int parse_opts(int argc, char **argv, struct daemon *d, const char **what)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "field-separator", optional_argument, NULL, 'x' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "session", required_argument, NULL, OPT_SESSION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const whats[] = { "start", "signal", "stop", "ping" };
	int c;

	optind = 1;
	opterr = 0;
	/* options go before or after the subcommand, as perf's OPT_PARENT allows */
	while ((c = getopt_long(argc, argv, ":vx::fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			d->verbose++;
			break;
		case OPT_CONFIG:
			d->config = optarg;
			break;
		case OPT_BASE:
			d->base_user = optarg;
			break;
		case 'x':
			d->csv_sep = optarg && *optarg ? optarg : ",";
			break;
		case 'f':
			d->foreground = true;
			break;
		case OPT_SESSION:
			d->session = optarg;
			break;
		case 'h':
			print_usage("daemon", stdout);
			exit(0);
		default:
			return option_error("daemon", c, argv);
		}
	}
	if (optind < argc) {
		*what = argv[optind];
		if (optind + 1 < argc) {
			die_msg("unexpected argument '%s'; see 'pcl daemon -h'", argv[optind + 1]);
			return -1;
		}
		for (size_t i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
			if (!strcmp(*what, whats[i]))
				goto known;
		failed("unknown command '%s'", *what);
		return -1;
	}
known:
	if (d->foreground && (!*what || strcmp(*what, "start"))) {
		die_msg("-f/--foreground goes with 'pcl daemon start'");
		return -1;
	}
	if (d->session && (!*what || (strcmp(*what, "ping") && strcmp(*what, "signal")))) {
		die_msg("--session goes with 'pcl daemon ping' and 'pcl daemon signal'");
		return -1;
	}
	if (d->session && strlen(d->session) >= SESSION_MAX) {
		die_msg("session name '%s' is too long (at most %d bytes)", d->session,
			SESSION_MAX - 1);
		return -1;
	}
	return 0;
}

int cmd_daemon(int argc, char **argv)
{
	struct daemon d = { .signal_fd = -1 };
	const char *what = NULL;
	int ret;

	if (parse_opts(argc, argv, &d, &what))
		return EXIT_USAGE;
	if (what && !strcmp(what, "start"))
		ret = srv_start(&d);
	else
		ret = client(&d, what);
	daemon_free(&d);
	return ret;
}
