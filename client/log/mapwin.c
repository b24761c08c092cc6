#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log/mapwin.h"

/* What the handler may touch: the window mapped, and whether it shrank.
 * Plain stores and reads of these are all it does besides mmap(2), a
 * system call (Linux's mmap is safe in a handler; POSIX only does not
 * list it). */
static struct {
	char *volatile map;
	volatile size_t len;
	volatile size_t page;
	volatile sig_atomic_t shrunk;
} active;
static struct sigaction saved;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char *const a = si->si_addr;
	char *const map = active.map;

	(void)uc;
	if (map && a >= map && a < map + active.len) {
		char *const page = (char *)((uintptr_t)a & ~(uintptr_t)(active.page - 1));

		/* The rest of the window as zeros: the access is repeated
		 * on return and succeeds. */
		if (mmap(page, (size_t)(map + active.len - page), PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			active.shrunk = 1;
			return;
		}
	}
	/* Not ours: on return the fault repeats and takes its default
	 * action, a core dump where one is wanted. */
	signal(sig, SIG_DFL);
}

int cgfb_mapwin_map(struct cgfb_mapwin *w, int fd, off_t off, size_t len)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const off_t start = off - (off_t)((size_t)off % page);
	const struct sigaction sa = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO,
	};
	void *m;

	memset(w, 0, sizeof(*w));
	w->map_len = (size_t)(off - start) + len;
	m = mmap(NULL, w->map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, start);
	if (m == MAP_FAILED)
		return -errno;
	/* Read once, front to back: read-ahead may go far, and the pages
	 * behind need not stay. */
	madvise(m, w->map_len, MADV_SEQUENTIAL);
	w->map = m;
	w->off = off;
	w->len = len;
	w->base = w->map + (off - start);
	active.page = page;
	active.shrunk = 0;
	active.len = w->map_len;
	active.map = w->map;
	sigaction(SIGBUS, &sa, &saved);
	return 0;
}

bool cgfb_mapwin_shrunk(const struct cgfb_mapwin *w)
{
	return w->map && active.map == w->map && active.shrunk;
}

void cgfb_mapwin_unmap(struct cgfb_mapwin *w)
{
	if (!w->map)
		return;
	sigaction(SIGBUS, &saved, NULL);
	active.map = NULL;
	munmap(w->map, w->map_len);
	memset(w, 0, sizeof(*w));
}
