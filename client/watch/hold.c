/* The watcher's hold and retry (hold.h). */
#include "watch/hold.h"

void cgfb_hold_add(struct cgfb_hold *h, uint64_t pos, const struct timespec *now)
{
	if (!h->on || pos < h->pos)
		h->pos = pos;
	if (h->on)
		return;
	h->on = true;
	h->backoff_ms = h->backoff_ms ? h->backoff_ms * 2 : CGFB_HOLD_FIRST_MS;
	if (h->backoff_ms > CGFB_HOLD_CAP_MS)
		h->backoff_ms = CGFB_HOLD_CAP_MS;
	h->due = *now;
	h->due.tv_sec += h->backoff_ms / 1000;
	h->due.tv_nsec += (h->backoff_ms % 1000) * 1000000L;
	if (h->due.tv_nsec >= 1000000000L) {
		h->due.tv_sec++;
		h->due.tv_nsec -= 1000000000L;
	}
}

uint64_t cgfb_hold_floor(const struct cgfb_hold *h, uint64_t pos)
{
	return h->on && h->pos < pos ? h->pos : pos;
}

int cgfb_hold_wait_ms(const struct cgfb_hold *h, const struct timespec *now)
{
	long long ms;

	if (!h->on)
		return 0;
	ms = (long long)(h->due.tv_sec - now->tv_sec) * 1000 +
	     (h->due.tv_nsec - now->tv_nsec) / 1000000;
	if (ms <= 0)
		return 0;
	return ms > CGFB_HOLD_CAP_MS ? CGFB_HOLD_CAP_MS : (int)ms;
}

uint64_t cgfb_hold_release(struct cgfb_hold *h)
{
	h->on = false;
	return h->pos;
}

void cgfb_hold_written(struct cgfb_hold *h)
{
	h->backoff_ms = 0;
}
