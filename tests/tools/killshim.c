/* An LD_PRELOAD shim for the kill loops: it counts the calls that change
 * what is on disk (write, open with O_CREAT, fsync, fdatasync, rename,
 * unlink) and raises SIGKILL just before the Nth, so a test can walk every
 * step of a command, including between a rename and the fsync of its
 * directory, deterministically.
 *
 *   KILLSHIM_AT=N      kill at the Nth counted call (unset or 0: never)
 *   KILLSHIM_LOG=FILE  append "N call" for every counted call (to learn
 *                      how many steps a command has)
 *   KILLSHIM_PROG=NAME count only in the program NAME (the watcher starts
 *                      cgroup-feedback-report, which inherits the shim)
 *   KILLSHIM_ARG=ARG   count only in processes one of whose arguments is
 *                      ARG (the report writer's --report-id, not its
 *                      --check or --refresh-banner runs)
 *   KILLSHIM_ONCE=FILE kill only the first process that gets there: it
 *                      creates FILE (O_EXCL) before the signal; the others
 *                      find it and live (one writer killed, then retried)
 *   KILLSHIM_FAIL=ENOSPC|EDQUOT|EIO|EMFILE|ENOMEM
 *                      instead of the kill, that call fails with this error
 *   KILLSHIM_OOM=1     instead of the kill, take memory until the kernel's
 *                      OOM killer ends the process (run it in a memory
 *                      cgroup with a limit: this is how MemoryMax kills)
 *   KILLSHIM_HOLD=FILE instead of the kill, write the process id to FILE
 *                      and sleep a minute before the call: a process
 *                      caught mid-step, for the test to act meanwhile (not
 *                      stopped: the kernel sends SIGHUP to a stopped
 *                      process whose process group its parent's death
 *                      orphans, which would hide what the test looks for)
 *
 * Only calls through the dynamic symbol table are seen: glibc's own stdio
 * writes are not, which is fine, they are not how the spool is written. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long counted;

static int fail_errno(void)
{
	static const struct { const char *name; int no; } known[] = {
		{ "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT }, { "EIO", EIO },
		{ "EMFILE", EMFILE }, { "ENOMEM", ENOMEM },
	};
	const char *s = getenv("KILLSHIM_FAIL");

	for (size_t i = 0; s && i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(s, known[i].name) == 0)
			return known[i].no;
	return 0;
}

/* Visible outside: what is stored here must be kept. */
volatile char *volatile killshim_kept;

/* Touch fresh pages until the OOM killer comes; with no limit in sight
 * (8 GiB taken) the kill is ours, and the test sees no OOM kill counted. */
static void take_memory(void)
{
	for (unsigned i = 0; i < 8192; i++) {
		volatile char *p = malloc(1 << 20);

		if (!p)
			break;
		/* Every page written through a volatile pointer and the block
		 * kept: the compiler may not leave any of it out. */
		for (size_t off = 0; off < (1 << 20); off += 4096)
			p[off] = 0x5a;
		killshim_kept = p;
	}
	raise(SIGKILL);
}

/* Whether this process's command line has arg (or arg is not set). */
static int has_arg(const char *arg)
{
	static char cmd[8192];
	long n;
	int fd;

	if (!arg || !*arg)
		return 1;
	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = syscall(SYS_read, fd, cmd, sizeof(cmd) - 1);
	syscall(SYS_close, fd);
	for (long i = 0; i < n; i += (long)strlen(cmd + i) + 1)
		if (strcmp(cmd + i, arg) == 0)
			return 1;
	return 0;
}

/* KILLSHIM_HOLD: the pid in a file written whole (a temporary renamed),
 * then a minute's sleep. */
static void hold_here(const char *file)
{
	struct timespec minute = { .tv_sec = 60 };
	char tmp[4096], line[32];
	const int n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	fd = (int)syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		syscall(SYS_write, fd, line, (size_t)n);
		syscall(SYS_close, fd);
		syscall(SYS_renameat, AT_FDCWD, tmp, AT_FDCWD, file);
	}
	while (nanosleep(&minute, &minute) < 0 && errno == EINTR)
		;
}

/* KILLSHIM_ONCE: true for the one process that creates the file. */
static int first_to_die(void)
{
	const char *once = getenv("KILLSHIM_ONCE");
	int fd;

	if (!once || !*once)
		return 1;
	fd = (int)syscall(SYS_openat, AT_FDCWD, once, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	syscall(SYS_close, fd);
	return 1;
}

/* Nonzero: the call fails with this errno instead of being made. */
static int step(const char *what)
{
	static long at = -1;
	static int mine = -1;
	const char *log;
	char line[64];
	int n;

	if (mine < 0) {
		const char *prog = getenv("KILLSHIM_PROG");

		mine = (!prog || strcmp(prog, program_invocation_short_name) == 0) &&
		       has_arg(getenv("KILLSHIM_ARG"));
	}
	if (!mine)
		return 0;
	if (at < 0) {
		const char *s = getenv("KILLSHIM_AT");

		at = s ? strtol(s, NULL, 10) : 0;
	}
	counted++;
	log = getenv("KILLSHIM_LOG");
	if (log && *log) {
		/* Raw system calls: our own write() would count itself. */
		const int fd = (int)syscall(SYS_openat, AT_FDCWD, log,
					    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

		n = snprintf(line, sizeof(line), "%lu %s\n", counted, what);
		if (fd >= 0) {
			syscall(SYS_write, fd, line, (size_t)n);
			syscall(SYS_close, fd);
		}
	}
	if (at <= 0 || counted != (unsigned long)at || !first_to_die())
		return 0;
	if (fail_errno())
		return fail_errno();
	if (getenv("KILLSHIM_OOM"))
		take_memory();
	if (getenv("KILLSHIM_HOLD")) {
		hold_here(getenv("KILLSHIM_HOLD"));
		return 0;
	}
	raise(SIGKILL);
	return 0;
}

#define STEP(what) \
	do { \
		const int e_ = step(what); \
		if (e_) { \
			errno = e_; \
			return -1; \
		} \
	} while (0)

#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (!real_##name) \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write);
	STEP("write");
	return real_write(fd, buf, n);
}

int fsync(int fd)
{
	REAL(fsync);
	STEP("fsync");
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(fdatasync);
	STEP("fdatasync");
	return real_fdatasync(fd);
}

int rename(const char *from, const char *to)
{
	REAL(rename);
	STEP("rename");
	return real_rename(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	REAL(renameat);
	STEP("renameat");
	return real_renameat(fd1, from, fd2, to);
}

int unlink(const char *path)
{
	REAL(unlink);
	STEP("unlink");
	return real_unlink(path);
}

int unlinkat(int dfd, const char *path, int flags)
{
	REAL(unlinkat);
	STEP("unlinkat");
	return real_unlinkat(dfd, path, flags);
}

/* open's mode is there only with O_CREAT (or O_TMPFILE). */
static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, unsigned) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(open);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (flags & O_CREAT)
		STEP("open");
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(open64);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (flags & O_CREAT)
		STEP("open");
	return real_open64(path, flags, mode);
}

int openat(int dfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(openat);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (flags & O_CREAT)
		STEP("openat");
	return real_openat(dfd, path, flags, mode);
}

int openat64(int dfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(openat64);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (flags & O_CREAT)
		STEP("openat");
	return real_openat64(dfd, path, flags, mode);
}
