/* The watcher's hold and retry (watch/hold.h), on a clock the test moves:
 * the wait doubles from 1 s to its cap of 5 min while no report gets
 * written, starts again after one was, and the position saved is the
 * earliest record held. */
#include "testutil.h"

#include "watch/hold.h"

static struct timespec at(long sec, long msec)
{
	return (struct timespec){ .tv_sec = sec, .tv_nsec = msec * 1000000L };
}

static void waits_double_to_the_cap(void **state)
{
	struct cgfb_hold h = { 0 };
	struct timespec now = at(1000, 0);
	long want = CGFB_HOLD_FIRST_MS;

	assert_int_equal(cgfb_hold_wait_ms(&h, &now), 0);      /* nothing held */
	for (int round = 0; round < 12; round++) {
		cgfb_hold_add(&h, 50, &now);
		assert_true(h.on);
		assert_int_equal(cgfb_hold_wait_ms(&h, &now), want);
		/* Not due a millisecond before, due at the time. */
		now.tv_sec += want / 1000;
		now.tv_nsec += (want % 1000) * 1000000L;
		now.tv_nsec -= 1000000L;
		if (now.tv_nsec < 0) {
			now.tv_nsec += 1000000000L;
			now.tv_sec--;
		}
		assert_int_equal(cgfb_hold_wait_ms(&h, &now), 1);
		now.tv_nsec += 1000000L;
		if (now.tv_nsec >= 1000000000L) {
			now.tv_nsec -= 1000000000L;
			now.tv_sec++;
		}
		assert_int_equal(cgfb_hold_wait_ms(&h, &now), 0);
		assert_int_equal(cgfb_hold_release(&h), 50);
		assert_false(h.on);
		want = want * 2 > CGFB_HOLD_CAP_MS ? CGFB_HOLD_CAP_MS : want * 2;
	}
	assert_int_equal(h.backoff_ms, CGFB_HOLD_CAP_MS);
	/* A report written: the next round waits the first wait again. */
	cgfb_hold_written(&h);
	cgfb_hold_add(&h, 7, &now);
	assert_int_equal(cgfb_hold_wait_ms(&h, &now), CGFB_HOLD_FIRST_MS);
}

static void keeps_the_earliest_record(void **state)
{
	struct cgfb_hold h = { 0 };
	const struct timespec now = at(5, 999);

	assert_int_equal(cgfb_hold_floor(&h, 40), 40);          /* nothing held */
	cgfb_hold_add(&h, 30, &now);
	cgfb_hold_add(&h, 35, &now);                            /* later: ignored */
	assert_int_equal(cgfb_hold_floor(&h, 40), 30);
	cgfb_hold_add(&h, 12, &now);                            /* earlier: taken */
	assert_int_equal(cgfb_hold_floor(&h, 40), 12);
	assert_int_equal(cgfb_hold_floor(&h, 10), 10);          /* saved before it */
	/* Holds within one round do not push the try further away. */
	assert_int_equal(cgfb_hold_wait_ms(&h, &now), CGFB_HOLD_FIRST_MS);
	assert_int_equal(cgfb_hold_release(&h), 12);
	assert_int_equal(cgfb_hold_floor(&h, 40), 40);
}

static void a_clock_far_behind_waits_the_cap_at_most(void **state)
{
	struct cgfb_hold h = { 0 };
	const struct timespec then = at(100000, 0), early = at(10, 0);

	cgfb_hold_add(&h, 1, &then);
	assert_int_equal(cgfb_hold_wait_ms(&h, &early), CGFB_HOLD_CAP_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(waits_double_to_the_cap),
		cmocka_unit_test(keeps_the_earliest_record),
		cmocka_unit_test(a_clock_far_behind_waits_the_cap_at_most),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
