#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log/mapwin.h"

/* What the handler may touch: the windows mapped, and which shrank.
 * Loads and stores of these are all it does besides mmap(2), a system
 * call (Linux's mmap is safe in a handler; POSIX only does not list it).
 * A slot is filled (len, then map) before its window is read and emptied
 * (map first) before it is unmapped, by whichever thread maps. */
static struct {
	char *map;
	size_t len;
	sig_atomic_t shrunk;
	bool taken;             /* by a mapper: not touched by the handler */
} active[CGFB_MAPWIN_LIVE];
static size_t page_size;
static struct sigaction saved;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char *const a = si->si_addr;

	(void)uc;
	for (int i = 0; i < CGFB_MAPWIN_LIVE; i++) {
		char *const map = __atomic_load_n(&active[i].map, __ATOMIC_ACQUIRE);
		const size_t len = active[i].len;

		if (!map || a < map || a >= map + len)
			continue;
		char *const page = (char *)((uintptr_t)a & ~(uintptr_t)(page_size - 1));

		/* The rest of the window as zeros: the access is repeated
		 * on return and succeeds. */
		if (mmap(page, (size_t)(map + len - page), PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			active[i].shrunk = 1;
			return;
		}
		break;
	}
	/* Not ours: on return the fault repeats and takes its default
	 * action, a core dump where one is wanted. */
	signal(sig, SIG_DFL);
}

void cgfb_mapwin_guard(void)
{
	const struct sigaction sa = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO,
	};

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	sigaction(SIGBUS, &sa, &saved);
}

void cgfb_mapwin_unguard(void)
{
	sigaction(SIGBUS, &saved, NULL);
}

static int take_slot(void)
{
	for (int i = 0; i < CGFB_MAPWIN_LIVE; i++)
		if (!__atomic_test_and_set(&active[i].taken, __ATOMIC_ACQ_REL))
			return i;
	return -1;
}

int cgfb_mapwin_map(struct cgfb_mapwin *w, int fd, off_t off, size_t len)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const off_t start = off - (off_t)((size_t)off % page);
	void *m;

	memset(w, 0, sizeof(*w));
	w->slot = take_slot();
	if (w->slot < 0)
		return -EBUSY;
	w->map_len = (size_t)(off - start) + len;
	m = mmap(NULL, w->map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, start);
	if (m == MAP_FAILED) {
		const int rc = -errno;

		__atomic_clear(&active[w->slot].taken, __ATOMIC_RELEASE);
		memset(w, 0, sizeof(*w));
		return rc;
	}
	w->map = m;
	w->off = off;
	w->len = len;
	w->base = w->map + (off - start);
	active[w->slot].shrunk = 0;
	active[w->slot].len = w->map_len;
	__atomic_store_n(&active[w->slot].map, w->map, __ATOMIC_RELEASE);
	return 0;
}

bool cgfb_mapwin_shrunk(const struct cgfb_mapwin *w)
{
	return w->map && active[w->slot].map == w->map && active[w->slot].shrunk;
}

void cgfb_mapwin_unmap(struct cgfb_mapwin *w)
{
	if (!w->map)
		return;
	__atomic_store_n(&active[w->slot].map, NULL, __ATOMIC_RELEASE);
	munmap(w->map, w->map_len);
	__atomic_clear(&active[w->slot].taken, __ATOMIC_RELEASE);
	memset(w, 0, sizeof(*w));
}
