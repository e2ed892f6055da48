// SPDX-License-Identifier: GPL-2.0
/*
 * pdm_hybrid_next(): the hybrid polling estimate settles near a constant
 * latency, at the lower quartile of a spread one, follows a device that
 * gets slower or faster within the sample counts its comment promises, and
 * is not dragged up by one slow completion or down by one fast one.
 */
#include "pdm-hybrid.h"
#include "unit.h"

/* Feed @n samples of @lat; return the estimate. */
static u64 feed(u64 est, u64 lat, int n)
{
	while (n--)
		est = pdm_hybrid_next(est, lat);
	return est;
}

/* Feed @n wake-ups @late late to the lateness estimate; return it. */
static u64 feed_late(u64 est, u64 late, int n)
{
	while (n--)
		est = pdm_sleep_late_next(est, late);
	return est;
}

/* 1 if @v is within [@lo, @hi]. */
static int within(u64 v, u64 lo, u64 hi)
{
	return v >= lo && v <= hi;
}

int main(void)
{
	const u64 svc = 100000;		/* 100 us */
	u64 est, lcg = 1, below = 0;
	int i;

	CHECK_EQ("first sample seeds", 1234, pdm_hybrid_next(0, 1234));
	CHECK_EQ("equal sample keeps", 1234, pdm_hybrid_next(1234, 1234));
	est = 0;
	pdm_hybrid_learn(&est, 6400);
	pdm_hybrid_learn(&est, 9000);
	CHECK_EQ("learn updates in place", pdm_hybrid_next(6400, 9000), est);
	CHECK_EQ("wait is 7/8", 87500, pdm_hybrid_wait(svc));

	/* A constant latency, from far above and far below. */
	est = feed(10 * svc, svc, 200);
	CHECK_EQ("from 10x: near svc", 1,
		 within(est, svc - svc / 20, svc + svc / 50));
	est = feed(svc / 10, svc, 400);
	CHECK_EQ("from 0.1x: near svc", 1,
		 within(est, svc - svc / 20, svc + svc / 50));

	/* Uniform on [100, 200) us: the lower quartile is 125 us. */
	est = svc;
	for (i = 0; i < 20000; i++) {
		u64 lat;

		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		lat = svc + (lcg >> 33) % svc;
		est = pdm_hybrid_next(est, lat);
		if (i >= 10000)
			below += lat < est;
	}
	CHECK_EQ("quartile of U[100,200) us", 1,
		 within(est, 115000, 135000));
	CHECK_EQ("a quarter of samples below", 1,
		 within(below, 2000, 3000));

	/* A device that doubles its latency, then halves it again. */
	est = feed(svc, svc, 100);
	est = feed(est, 2 * svc, 50);
	CHECK_EQ("slower: 2x within 50 samples", 1, est >= 2 * svc - svc / 10);
	est = feed(est, svc, 15);
	CHECK_EQ("faster: back within 15 samples", 1, est <= svc + svc / 10);

	/* One outlier either way moves it by a step, not to the outlier. */
	est = feed(svc, svc, 100);
	CHECK_EQ("one slow sample", 1,
		 within(pdm_hybrid_next(est, 50 * svc), est, est + est / 32));
	CHECK_EQ("one fast sample", 1,
		 within(pdm_hybrid_next(est, svc / 5), est - est / 16, est));

	/* No overflow near the top of the range. */
	est = pdm_hybrid_next(U64_MAX / 2, 1);
	CHECK_EQ("large estimate falls", 1, est < U64_MAX / 2);

	/*
	 * pdm_sleep_until(): the timer is set the lateness before the due
	 * time; a wait within the lateness plus 10 us is not slept; a sleep
	 * never passes 2x the estimate or 10 ms.
	 */
	CHECK_EQ("sleep: due - late", 1000000 + 80000,
		 pdm_sleep_until(1000000, 1100000, 20000, svc));
	CHECK_EQ("sleep: no lateness yet", 1100000,
		 pdm_sleep_until(1000000, 1100000, 0, svc));
	CHECK_EQ("sleep: due passed", 0,
		 pdm_sleep_until(1000000, 900000, 0, svc));
	CHECK_EQ("sleep: due now", 0, pdm_sleep_until(1000000, 1000000, 0, svc));
	CHECK_EQ("sleep: within late + 10 us", 0,
		 pdm_sleep_until(1000000, 1030000, 20000, svc));
	CHECK_EQ("sleep: just beyond late + 10 us", 1000000 + 11000,
		 pdm_sleep_until(1000000, 1031000, 20000, svc));
	CHECK_EQ("sleep: bounded by 2x the estimate", 1000000 + 2 * svc,
		 pdm_sleep_until(1000000, 1000000 + 50 * svc, 0, svc));
	CHECK_EQ("sleep: bounded by 10 ms", 1000000 + PDM_SLEEP_MAX_NS,
		 pdm_sleep_until(1000000, U64_MAX / 2, 0, U64_MAX / 2));
	CHECK_EQ("sleep: huge lateness counts 10 ms", 1000000 + 2000000,
		 pdm_sleep_until(1000000, 1000000 + 2 * PDM_SLEEP_MAX_NS -
				 8000000, U64_MAX, 2 * PDM_SLEEP_MAX_NS));
	CHECK_EQ("sleep: lateness eats the wait", 0,
		 pdm_sleep_until(1000000, 1000000 + 80000, 75000, svc));

	/*
	 * pdm_sleep_late_next(): a streaming median; one stall moves it a
	 * step; seeded by the first sample, capped.
	 */
	CHECK_EQ("late: first seeds", 30000, pdm_sleep_late_next(0, 30000));
	CHECK_EQ("late: a zero first sample", 1, pdm_sleep_late_next(0, 0));
	CHECK_EQ("late: seed capped", PDM_SLEEP_MAX_NS,
		 pdm_sleep_late_next(0, U64_MAX));
	est = 0;
	for (i = 0; i < 400; i++) {
		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		/* 20-40 us, and one in 100 a 5 ms stall */
		est = pdm_sleep_late_next(est, (lcg >> 33) % 100 ? 20000 +
					  (lcg >> 40) % 20000 : 5000000);
	}
	CHECK_EQ("late: median of 20-40 us with stalls", 1,
		 within(est, 25000, 36000));
	est = pdm_sleep_late_next(30000, U64_MAX);
	CHECK_EQ("late: one stall moves it a step", 1,
		 within(est, 30000, 30000 + 30000 / 16 + 1));
	est = feed_late(PDM_SLEEP_MAX_NS, 30000, 100);
	CHECK_EQ("late: from a 10 ms seed to 30 us within 100 samples", 1,
		 within(est, 28000, 32000));

	/*
	 * pdm_sleep_margin_next(): "ready" widens by 1/8 + 2 us, "not yet"
	 * narrows by 1/32; about one in nine ready holds it; always ready
	 * reaches the 10 ms cap, never ready decays toward 0.
	 */
	CHECK_EQ("margin: ready from 0", 2000,
		 pdm_sleep_margin_next(0, true, false));
	CHECK_EQ("margin: ready", 80000 + 10000 + 2000,
		 pdm_sleep_margin_next(80000, true, false));
	CHECK_EQ("margin: not yet", 80000 - 2500,
		 pdm_sleep_margin_next(80000, false, false));
	est = 0;
	for (i = 0; i < 200; i++)
		est = pdm_sleep_margin_next(est, true, false);
	CHECK_EQ("margin: always ready caps", PDM_SLEEP_MAX_NS, est);
	for (i = 0; i < 400; i++)
		est = pdm_sleep_margin_next(est, false, false);
	CHECK_EQ("margin: never ready decays below 1% of the cap", 1,
		 est < PDM_SLEEP_MAX_NS / 100);
	est = 0;
	for (i = 0; i < 9000; i++)
		est = pdm_sleep_margin_next(est, i % 9 == 0, false);
	CHECK_EQ("margin: one in nine ready holds it small", 1, est < 100000);
	CHECK_EQ("margin: a probe not yet ready halves", 40000,
		 pdm_sleep_margin_next(80000, false, true));
	CHECK_EQ("margin: a probe found ready widens", 92000,
		 pdm_sleep_margin_next(80000, true, true));
	return unit_done("hybrid");
}
