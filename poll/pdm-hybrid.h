/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of pdm's hybrid polling (see pdm-hybrid.c).  Pure: also
 * built in user space by the host unit tests.
 */
#ifndef _PDM_HYBRID_H
#define _PDM_HYBRID_H

#include <blkfast/compat.h>

/**
 * pdm_hybrid_next() - the estimate after one polled completion
 * @est: the current estimate, ns; 0 before the first completion
 * @lat: ns from a bio's issue to its completion being seen
 *
 * A streaming lower quartile: each sample above the estimate raises it by
 * 1/64, each below lowers it by 3/64, so it settles where a quarter of the
 * completions are faster.  Upstream's minimum reacts to one lucky
 * completion (QEMU's NVMe completes some reads in a fifth of the usual
 * time) and then polls from far too early.  A median is robust to that,
 * but with many I/Os in flight it feeds on its own wait: a completion is
 * seen no sooner than its bio is polled, so the median climbs to where the
 * wait itself sets the latency (over the slowpoll disk at QD32 it settled
 * at 4-5x the service time and cost 8-17% of the IOPS).  The quartile
 * still sees the bios that other bios' polls reaped early, and stays near
 * the service time.  It follows a device that gets slower within some 50
 * samples, one that gets faster within some 15, and needs no memory.
 *
 * Return: the new estimate.
 */
static inline u64 pdm_hybrid_next(u64 est, u64 lat)
{
	if (!est)
		return lat;
	if (lat > est)
		return est + est / 64 + 1;
	if (lat < est)
		return est - 3 * (est / 64);
	return est;
}

/**
 * pdm_hybrid_learn() - learn from one polled completion
 * @est: the estimate to update (a device's, for one direction)
 * @lat: ns from the bio's issue to its completion being seen
 *
 * Pollers update it without a lock; a lost update loses one sample.
 */
static inline void pdm_hybrid_learn(u64 *est, u64 lat)
{
	WRITE_ONCE(*est, pdm_hybrid_next(READ_ONCE(*est), lat));
}

/*
 * How long after issue a bio is first polled: 7/8 of the estimate.
 * Polling a little early keeps completions faster than the estimate
 * visible, so that it can fall.
 */
static inline u64 pdm_hybrid_wait(u64 est)
{
	return est - est / 8;
}

/*
 * Sleeping (hybrid "sleep", see pdm-hybrid.c).  A wait shorter than
 * PDM_SLEEP_MIN_NS beyond the learned wake-up lateness is not worth a
 * sleep and a wake-up: it is gated, as in hybrid "gate".  No sleep is
 * longer than twice the estimate it was computed from, nor than
 * PDM_SLEEP_MAX_NS, so that an estimate gone wrong cannot stall I/O.
 */
#define PDM_SLEEP_MIN_NS	10000ULL		/* 10 us */
#define PDM_SLEEP_MAX_NS	10000000ULL		/* 10 ms */
/*
 * A device whose learned lateness stops every sleep still takes one
 * short sleep this often, so that the estimate can come down again.
 */
#define PDM_SLEEP_PROBE_NS	10000000ULL		/* 10 ms */

/**
 * pdm_sleep_until() - when a hybrid sleep should end
 * @now:  when it is decided, ns
 * @due:  the earliest time a bio it covers is due to be polled, ns
 * @late: the learned wake-up lateness, ns (see pdm_sleep_late_next())
 * @est:  the completion time estimate @due came from, ns
 *
 * The timer is set @late before @due, so that the wake-up, late as
 * timers are, lands near @due.  Where the lateness eats the wait, the
 * bio is gated instead: a wake-up after the completion would cost more
 * latency than the sleep saves CPU (under emulation, where wake-ups come
 * late by more than a fast device's whole service time, that device is
 * not slept for: the benchmark report has the numbers).
 *
 * Return: the wake-up time, ns; 0 if the wait is too short to sleep.
 */
static inline u64 pdm_sleep_until(u64 now, u64 due, u64 late, u64 est)
{
	u64 limit = est > PDM_SLEEP_MAX_NS / 2 ? PDM_SLEEP_MAX_NS : 2 * est;

	if (late > PDM_SLEEP_MAX_NS)
		late = PDM_SLEEP_MAX_NS;
	if (due <= now || due - now <= late + PDM_SLEEP_MIN_NS)
		return 0;
	return due - late < now + limit ? due - late : now + limit;
}

/**
 * pdm_sleep_late_next() - the wake-up lateness after one more wake-up
 * @est:  the current lateness estimate, ns; 0 before the first wake-up
 * @late: how late this one woke after its timer's expiry, ns
 *
 * A streaming median, stepping 1/16 of itself toward each sample: the
 * lateness is mostly the timer interrupt's and the scheduler's fixed
 * costs, plus a tail (a vCPU the host did not run) that a mean would
 * chase: under TCG one wake-up in a few hundred came milliseconds late,
 * and a mean over 8 then stayed above the service time.  Here one such
 * wake-up moves it by one step.  The first sample seeds it, at most
 * PDM_SLEEP_MAX_NS.
 *
 * Return: the new estimate.
 */
static inline u64 pdm_sleep_late_next(u64 est, u64 late)
{
	if (!est)
		return late > PDM_SLEEP_MAX_NS ? PDM_SLEEP_MAX_NS : late ?: 1;
	if (late > est)
		return est + est / 16 + 1;
	if (late < est)
		return est - est / 16;
	return est;
}

/**
 * pdm_sleep_margin_next() - the wake-up margin after one more verdict
 * @margin: the margin added to the lateness, ns
 * @ready: the first poll after the sleep found a completion already there
 * @probe: the sleep was a probe (see below)
 *
 * The lateness alone misses what the sleep did not see: with many bios
 * in flight, a sleep for the next bio due can outlast an older one that
 * was due, polled and not done yet, whose completion then waits for the
 * wake-up.  The verdicts say so: a completion found ready at the first
 * poll after a sleep means the sleep ended late.  Each such verdict
 * widens the margin by an eighth plus 2 us, each "not yet" narrows it by
 * a thirty-second: it settles where about one sleep in nine ends late,
 * and where sleeps keep ending late it grows until the waits are gated
 * (and probed) instead.  A probe (@probe: a sleep taken although the
 * margin said gate) that ends before its completion halves the margin:
 * the workload changed (say from QD32 to QD1), and at one probe per 10 ms
 * a thirty-second at a time it would take a second to notice.
 *
 * Return: the new margin, at most PDM_SLEEP_MAX_NS.
 */
static inline u64 pdm_sleep_margin_next(u64 margin, bool ready, bool probe)
{
	if (!ready)
		return probe ? margin / 2 : margin - margin / 32;
	margin += margin / 8 + 2000;
	return margin > PDM_SLEEP_MAX_NS ? PDM_SLEEP_MAX_NS : margin;
}

#endif /* _PDM_HYBRID_H */
