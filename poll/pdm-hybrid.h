/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of pdm's hybrid polling (see pdm-poll.c).  Pure: also
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

/*
 * How long after issue a bio is first polled: 7/8 of the estimate.
 * Polling a little early keeps completions faster than the estimate
 * visible, so that it can fall.
 */
static inline u64 pdm_hybrid_wait(u64 est)
{
	return est - est / 8;
}

#endif /* _PDM_HYBRID_H */
