/* Who gives up a connection slot (slots.h), on tables an attack leaves:
 * plain heads not in, oldest first; over TLS, handshakes only for
 * handshakes, within their budget, of the key holding the most, never a
 * completed handshake and never one younger than the minimum age. */
#include "testutil.h"

#include <stdio.h>

#include "http/slots.h"

#define MIN_AGE_US (SLOTS_HANDSHAKE_MIN_AGE_MS * 1000LL)
#define OLD (MIN_AGE_US + 500000)

static char keys[512][24];

/* s[i] for key number k, in phase p, age_us old. */
static struct slot at(unsigned k, enum slot_phase p, long long age_us)
{
	snprintf(keys[k], sizeof(keys[k]), "10.0.%u.%u", k / 256, k % 256);
	return (struct slot){ keys[k], p, false, true, age_us };
}

static const char *key(unsigned k)
{
	snprintf(keys[k], sizeof(keys[k]), "10.0.%u.%u", k / 256, k % 256);
	return keys[k];
}

/* Plain HTTP: a full table makes room for a key holding few by giving up
 * the oldest head not in; a head in is never given up. */
static void plain_gives_up_the_oldest_head(void **state)
{
	const struct slot_rules r = { 4, 4, false };
	struct slot s[4] = { at(1, SLOT_SERVED, 9000), at(2, SLOT_HEAD, 100), at(3, SLOT_HEAD, 700),
			     at(4, SLOT_RESERVED, 5000) };
	long v;

	for (unsigned i = 0; i < 4; i++)
		s[i].tls = false;
	assert_null(slots_admit(s, 4, &r, key(9), false, &v));
	assert_int_equal(v, 2);
	s[1].phase = s[2].phase = SLOT_SERVED;
	assert_string_equal(slots_admit(s, 4, &r, key(9), false, &v), SLOTS_WHY_FULL);
	assert_int_equal(v, -1);
}

static void shares_by_key(void **state)
{
	const struct slot_rules r = { 16, 3, true };
	struct slot s[12];
	long v;

	for (unsigned i = 0; i < 12; i++)
		s[i] = at(i < 3 ? 1 : 2 + i, SLOT_SERVED, 0);
	assert_string_equal(slots_admit(s, 3, &r, key(1), false, &v), SLOTS_WHY_PER_KEY);
	/* A trusted proxy speaks for many: no share of a key. */
	assert_null(slots_admit(s, 3, &r, key(1), true, &v));
	assert_int_equal(v, -1);
	for (unsigned i = 3; i < 7; i++)
		s[i] = at(5, SLOT_SERVED, 0);
	const struct slot_rules big = { 16, 8, false };
	assert_string_equal(slots_admit(s, 12, &big, key(5), false, &v), SLOTS_WHY_FAIR);
	assert_null(slots_admit(s, 12, &big, key(6), false, &v));
}

/* The attack, as the table it leaves: 90 keys holding cut-short
 * ClientHellos, the handshake budget full. A client whose key holds none
 * makes room, from a key holding the most; an attacker's key holding one
 * fewer than another's cannot (no churn among them). */
static void handshakes_make_room_for_the_few(void **state)
{
	const struct slot_rules r = { 256, 128, true };
	struct slot s[128];
	unsigned held[90] = { 0 };
	long v;

	assert_int_equal(slots_handshake_budget(&r), 128);
	for (unsigned i = 0; i < 128; i++) {
		s[i] = at(i % 90, SLOT_HANDSHAKE, OLD + 1000 - i);
		held[i % 90]++;
	}
	/* The budget is full: a newcomer's handshake needs a victim. */
	assert_null(slots_admit(s, 128, &r, key(200), false, &v));
	assert_true(v >= 0);
	assert_int_equal(held[v % 90], 2);
	assert_int_equal(s[v].phase, SLOT_HANDSHAKE);
	/* Of the keys holding two, the oldest handshake. */
	assert_int_equal(v, 0);
	/* A key holding one cannot take the slot of a key holding two. */
	assert_string_equal(slots_admit(s, 128, &r, key(60), false, &v), SLOTS_WHY_HANDSHAKES);
	assert_int_equal(v, -1);
	/* Nor can anyone when each key holds one: a normal client's
	 * handshake in progress is safe from the attack's reconnections. */
	for (unsigned i = 0; i < 128; i++)
		s[i] = at(i, SLOT_HANDSHAKE, OLD);
	assert_string_equal(slots_admit(s, 128, &r, key(300), false, &v), SLOTS_WHY_HANDSHAKES);
}

/* Young handshakes are never given up (an honest burst of clients must not
 * evict each other), nor is a connection whose handshake is complete: a
 * full table of those refuses the newcomer. */
static void handshakes_spare_the_young_and_the_done(void **state)
{
	const struct slot_rules r = { 8, 8, true };
	struct slot s[8];
	long v;

	for (unsigned i = 0; i < 4; i++)
		s[i] = at(1, SLOT_HANDSHAKE, MIN_AGE_US - 1);
	assert_string_equal(slots_admit(s, 4, &r, key(2), false, &v), SLOTS_WHY_HANDSHAKES);
	s[3].age_us = MIN_AGE_US;
	assert_null(slots_admit(s, 4, &r, key(2), false, &v));
	assert_int_equal(v, 3);
	/* Reserved slots count against the budget but are never victims. */
	for (unsigned i = 0; i < 4; i++)
		s[i] = at(1, SLOT_RESERVED, OLD);
	assert_string_equal(slots_admit(s, 4, &r, key(2), false, &v), SLOTS_WHY_HANDSHAKES);
	/* A full table, every handshake done (heads in or not): refused. */
	for (unsigned i = 0; i < 8; i++) {
		s[i] = at(1 + i % 2, i % 2 ? SLOT_HEAD : SLOT_SERVED, OLD);
		s[i].handshaken = true;
	}
	const struct slot_rules wide = { 8, 8, true };
	assert_string_equal(slots_admit(s, 8, &wide, key(3), false, &v), SLOTS_WHY_FULL);
	assert_int_equal(v, -1);
	/* Room, under the budget: no victim. */
	assert_null(slots_admit(s, 3, &r, key(3), false, &v));
	assert_int_equal(v, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_gives_up_the_oldest_head),
		cmocka_unit_test(shares_by_key),
		cmocka_unit_test(handshakes_make_room_for_the_few),
		cmocka_unit_test(handshakes_spare_the_young_and_the_done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
