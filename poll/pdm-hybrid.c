// SPDX-License-Identifier: GPL-2.0
/*
 * pdm's hybrid polling, the kernel side (the arithmetic is pdm-hybrid.h's):
 * until a bio's expected completion, poll_bio returns at once without
 * touching a lower queue.  pdm_poll_bio() calls pdm_hybrid_start() before
 * it polls and pdm_hybrid_end() after.
 *
 * The wait runs from each bio's own issue time, and the expected
 * completion time is learned per lower device and direction from polled
 * completions (a streaming lower quartile, pdm_hybrid_next()).  poll_bio
 * runs under rcu_read_lock() with BLK_POLL_NOSLEEP (6.1's io_uring never
 * allows sleeping there), so in "gate" the wait is made of early returns;
 * in "sleep" the first bio not due in a pass queues a task work that
 * sleeps until the earliest of them is expected to complete, and the wait
 * is made of that sleep, then early returns if it woke too soon.
 *
 * The sleep: the polling task gives its CPU back while no bio it polls
 * can have completed.  poll_bio itself may not sleep (above; io_uring
 * also holds ctx->uring_lock there).  But io_iopoll_check() runs the
 * polling task's task work between two io_do_iopoll() passes, with
 * uring_lock dropped, in plain process context; and when
 * io_uring_enter() polls without a minimum, the task work runs as the
 * task returns to user space.  So poll_bio, finding a
 * bio whose expected completion is far enough away, queues a task work on
 * current (task_work_add() only links it in: it may be called here) and
 * returns without polling; the work sleeps on an hrtimer until the
 * earliest expected completion of the bios polled meanwhile, less the
 * learned wake-up lateness and a margin learned from how the sleeps ended
 * (pdm_sleep_judge()), and polling resumes after it.
 *
 * At most one sleep is queued per task: a static table of slots hashed by
 * task, claimed by a cmpxchg of the owner from NULL and given back at the
 * end of the work.  A task whose slot another task holds falls back to
 * the gate.  A slot's other fields are written only by its owner, in
 * poll_bio or in the work, which runs in the same task: no lock.  woken
 * is the exception that proves it: set by the work as the slot is given
 * back, it tells the task's next poll_bio that it is the first after a
 * sleep; another task hashing to the slot may overwrite it, which loses
 * one verdict and nothing else.
 *
 * Who may sleep (pdm_sleep_allowed()): a caller that passed a completion
 * batch (6.1's only callers of bio_poll(), io_do_iopoll() and the nvme
 * passthrough poll, both io_uring's, do), in task context, in a task that
 * is not a kernel thread (PF_KTHREAD), not an io_uring thread
 * (PF_IO_WORKER: SQPOLL threads and io-wq workers poll with no task work
 * run between passes), not exiting and with no signal pending; and
 * task_work_add() must accept the work.
 *
 * Lifetimes.  The work is module code on a task's list that may run after
 * every pdm device is gone, so a queued work holds a reference on the
 * module and one on its device (pd->ref: the device's memory and per-CPU
 * counters, which outlive its removal until the last put).  The work
 * drops both as its last act.  The few instructions after module_put()
 * still run in module text: pdm_exit() waits with synchronize_rcu_tasks()
 * for every task to pass a voluntary context switch or user mode, which a
 * task still in that tail cannot have done.
 */
#include <linux/blk-mq.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/task_work.h>

#include "pdm.h"
#include "pdm-hybrid.h"

const char * const pdm_hybrid_names[] = {
	[PDM_HYBRID_OFF]	= "off",
	[PDM_HYBRID_GATE]	= "gate",
	[PDM_HYBRID_SLEEP]	= "sleep",
	NULL,
};

#define PDM_SLEEPER_BITS	8

struct pdm_sleeper {
	struct task_struct *owner;	/* holds the slot; NULL: free */
	struct callback_head work;
	struct pdm_dev *pd;		/* referenced while queued */
	u64 wake_ns;			/* 0: sleep no more (a bio is due) */
	u64 due_ns;			/* earliest expected completion */
	bool probe;			/* a probe: the margin said gate */
	bool called_off;		/* claimed by a due bio, uncounted */
	struct task_struct *woken;	/* slept; its next poll_bio judges */
	bool woken_probe;		/* ... and the sleep was a probe */
} ____cacheline_aligned_in_smp;

static struct pdm_sleeper pdm_sleepers[1 << PDM_SLEEPER_BITS];

static struct pdm_sleeper *pdm_sleeper(void)
{
	return &pdm_sleepers[hash_ptr(current, PDM_SLEEPER_BITS)];
}

static bool pdm_sleep_allowed(struct io_comp_batch *iob)
{
	return iob && in_task() &&
	       !(current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING)) &&
	       !signal_pending(current);
}

static void pdm_sleep_work(struct callback_head *cb)
{
	struct pdm_sleeper *s = container_of(cb, struct pdm_sleeper, work);
	struct pdm_dev *pd = s->pd;
	u64 start = ktime_get_ns(), wake = s->wake_ns, woke;
	ktime_t expires = ns_to_ktime(wake);

	if (wake > start && !signal_pending(current)) {
		/* Interruptible: a signal ends the sleep at once. */
		set_current_state(TASK_INTERRUPTIBLE);
		schedule_hrtimeout(&expires, HRTIMER_MODE_ABS);
		woke = ktime_get_ns();
		this_cpu_inc(pd->stats->hybrid_sleeps);
		this_cpu_add(pd->stats->hybrid_slept_ns, woke - start);
		/* Cut short by a signal: that says nothing of the timer. */
		if (woke < wake && signal_pending(current))
			this_cpu_inc(pd->stats->hybrid_sleeps_interrupted);
		if (woke >= wake) {
			u64 late = READ_ONCE(pd->hybrid_wake_late_ns);

			WRITE_ONCE(pd->hybrid_wake_late_ns,
				   pdm_sleep_late_next(late, woke - wake));
		}
		if (woke > s->due_ns) {
			this_cpu_inc(pd->stats->hybrid_late_wakeups);
			this_cpu_add(pd->stats->hybrid_late_ns,
				     woke - s->due_ns);
		}
		WRITE_ONCE(s->woken_probe, s->probe);
		WRITE_ONCE(s->woken, current);
	}
	s->pd = NULL;
	/* The slot's fields are done with before another task may claim it. */
	smp_store_release(&s->owner, NULL);
	pdm_dev_put(pd);
	module_put(THIS_MODULE);
}

/*
 * Queue the sleep of a slot current has just claimed: 0 for @wake queues
 * a work that only gives the slot back.  Returns whether a sleep was
 * queued.
 */
static bool pdm_sleep_queue(struct pdm_sleeper *s, struct pdm_dev *pd,
			    u64 wake, u64 due, bool probe)
{
	/*
	 * The device list's reference cannot go while current polls one of
	 * pd's bios: removal waits for them (pd->active) first.
	 */
	refcount_inc(&pd->ref);
	__module_get(THIS_MODULE);
	s->pd = pd;
	s->wake_ns = wake;
	s->due_ns = due;
	s->probe = probe;
	init_task_work(&s->work, pdm_sleep_work);
	if (task_work_add(current, &s->work, TWA_RESUME)) {
		/* Exiting.  Not the last reference: see above. */
		s->pd = NULL;
		refcount_dec(&pd->ref);
		module_put(THIS_MODULE);
		/* As at the end of pdm_sleep_work(). */
		smp_store_release(&s->owner, NULL);
		return false;
	}
	return wake != 0;
}

/**
 * pdm_sleep() - cover a bio that is not due yet with a sleep
 * @pd:  the bio's device, polled by current
 * @iob: poll_bio's completion batch
 * @now: ktime_get_ns(), read by the caller
 * @due: when the bio is expected to complete
 * @est: the completion time estimate @due came from
 *
 * A sleep already queued by current is moved earlier if the bio is due
 * sooner, or called off if it is due too soon to sleep at all.  "Due"
 * here is the expected completion, later than the gate's due time.
 *
 * Return: true if a sleep queued by current covers the bio; false if the
 * caller should gate, as hybrid "gate" does (also when a due bio called
 * the pass's sleep off, see pdm_sleep_call_off()).
 */
static bool pdm_sleep(struct pdm_dev *pd, struct io_comp_batch *iob,
		      u64 now, u64 due, u64 est)
{
	struct pdm_sleeper *s = pdm_sleeper();
	u64 late = READ_ONCE(pd->hybrid_wake_late_ns) +
		   READ_ONCE(pd->hybrid_wake_margin_ns);
	u64 wake = pdm_sleep_until(now, due, late, est);
	bool probe;

	if (READ_ONCE(s->owner) == current) {
		/*
		 * Queued earlier in this pass: not run before we return.  A
		 * wake_ns of 0 stays: the sleep was called off.
		 */
		if (due < s->due_ns)
			s->due_ns = due;
		if (wake && s->called_off) {
			this_cpu_inc(pd->stats->hybrid_sleeps_called_off);
			s->called_off = false;
		}
		if (!wake)
			s->wake_ns = 0;
		else if (wake < s->wake_ns)
			s->wake_ns = wake;
		return s->wake_ns != 0;
	}
	if (!pdm_sleep_allowed(iob))
		return false;
	probe = !wake;
	if (probe) {
		/*
		 * Gated for the lateness alone: once in a while sleep half
		 * the wait anyway, to learn whether wake-ups are still late.
		 */
		if (due <= now + PDM_SLEEP_MIN_NS ||
		    now - READ_ONCE(pd->hybrid_probe_ns) < PDM_SLEEP_PROBE_NS)
			return false;
		WRITE_ONCE(pd->hybrid_probe_ns, now);
		wake = now + (due - now) / 2;
	}
	if (cmpxchg(&s->owner, NULL, current))
		return false;
	s->called_off = false;
	return pdm_sleep_queue(s, pd, wake, due, probe);
}

/**
 * pdm_sleep_call_off() - no sleep for current after this poll pass
 * @pd:  the device of a bio that was due, was polled and is still pending
 * @iob: poll_bio's completion batch
 * @now: ktime_get_ns(), read by the caller
 *
 * io_uring polls its oldest request first, so a due bio is usually seen
 * before a younger one that is not due yet: without this, the younger
 * bio's sleep, queued later in the same pass, would outlast the due
 * bio's completion by the time between their issues.  A sleep already
 * queued is called off; otherwise the slot is claimed with no wake-up
 * time, so that a sleep asked for later in the pass is refused and the
 * task work only gives the slot back.
 */
static void pdm_sleep_call_off(struct pdm_dev *pd, struct io_comp_batch *iob,
			       u64 now)
{
	struct pdm_sleeper *s = pdm_sleeper();

	if (READ_ONCE(s->owner) == current) {
		if (s->wake_ns)
			this_cpu_inc(pd->stats->hybrid_sleeps_called_off);
		s->wake_ns = 0;
		return;
	}
	if (pdm_sleep_allowed(iob) && !cmpxchg(&s->owner, NULL, current)) {
		/* Counted if a younger bio asks for a sleep (pdm_sleep()). */
		s->called_off = true;
		pdm_sleep_queue(s, pd, 0, now, false);
	}
}

/**
 * pdm_sleep_judge() - count the verdict on current's last sleep
 * @pd:    the device whose bio the first poll after it was for
 * @woke:  pdm_sleep_woke()'s answer, not 0
 * @ready: that poll found a completion already there (slept too long)
 *
 * Also moves the wake-up margin (see pdm_sleep_margin_next()).
 */
static void pdm_sleep_judge(struct pdm_dev *pd, int woke, bool ready)
{
	u64 margin = READ_ONCE(pd->hybrid_wake_margin_ns);

	if (ready)
		this_cpu_inc(pd->stats->hybrid_sleep_ready);
	else
		this_cpu_inc(pd->stats->hybrid_sleep_early);
	WRITE_ONCE(pd->hybrid_wake_margin_ns,
		   pdm_sleep_margin_next(margin, ready,
					 woke == PDM_WOKE_PROBED));
}

/**
 * pdm_sleep_woke() - is this current's first poll_bio since it slept?
 *
 * Return: PDM_WOKE_SLEPT, or PDM_WOKE_PROBED after a probe, once after
 * each sleep, to the first poll_bio call that asks (it then judges the
 * sleep, see pdm_sleep_judge()); else 0.
 */
static int pdm_sleep_woke(void)
{
	struct pdm_sleeper *s = pdm_sleeper();
	int woke;

	if (READ_ONCE(s->woken) != current)
		return 0;
	woke = READ_ONCE(s->woken_probe) ? PDM_WOKE_PROBED : PDM_WOKE_SLEPT;
	WRITE_ONCE(s->woken, NULL);
	return woke;
}

/*
 * The completion time expected of @io: the shortest of its pending
 * clones' lower devices' estimates for direction @dir, so that no clone
 * waits past its own device's time; 0 where one has none yet.
 */
static u64 pdm_io_estimate(struct pdm_io *io, int dir)
{
	u64 est = U64_MAX;
	struct pdm_clone *pc;

	for (pc = io->clones; pc; pc = pc->next)
		if (!READ_ONCE(pc->done))
			est = min(est, READ_ONCE(pc->hybrid_estimate_ns[dir]));
	return est == U64_MAX ? 0 : est;
}

/**
 * pdm_hybrid_start() - is a polled bio due, or does hybrid polling wait?
 * @pd:      the device of @io
 * @io:      the bio's walked io
 * @bio:     the top bio, for its direction
 * @pending: @io's clones not yet completed
 * @hy:      filled for pdm_hybrid_end()
 *
 * Return: true if the caller polls now (hybrid off, nothing pending, no
 * estimate yet, or the bio due), false if it waits: then it returns at
 * once, and pdm_hybrid_end() queues or moves a sleep in "sleep".
 */
bool pdm_hybrid_start(struct pdm_dev *pd, struct pdm_io *io,
		      const struct bio *bio, unsigned int pending,
		      struct pdm_hybrid_pass *hy)
{
	u64 due;

	hy->mode = READ_ONCE(pd->hybrid);
	hy->woke = hy->mode == PDM_HYBRID_SLEEP ? pdm_sleep_woke() : 0;
	hy->now = 0;
	hy->waits = false;
	if (!pending || !io->start_ns || !hy->mode)
		return true;
	hy->start_ns = io->start_ns;
	hy->est = pdm_io_estimate(io, op_is_write(bio_op(bio)));
	due = io->start_ns + pdm_hybrid_wait(hy->est);
	hy->now = ktime_get_ns();
	if (hy->now >= due)
		return true;
	this_cpu_inc(pd->stats->hybrid_early_returns);
	hy->waits = true;
	return false;
}

/**
 * pdm_hybrid_end() - what a poll_bio call leaves for the sleep
 * @pd:      the device polled for
 * @hy:      pdm_hybrid_start()'s
 * @iob:     poll_bio's completion batch
 * @pending: the bio's clones pending before the call
 * @left:    ... and after it
 *
 * Called with the bio's io still walked, so that pd stays (see
 * pdm_sleep_queue()).  The first call after a sleep judges it: too
 * early if the bio waits still or the call found nothing completed, too
 * late if a completion was there already (a clone completed, every clone
 * had, or io_do_iopoll()'s batch, empty at the first poll of a pass, holds
 * a lower completion).  Then, in "sleep": a bio that waits queues (or
 * moves) the task's sleep; one that was due and is still pending calls
 * it off.
 */
void pdm_hybrid_end(struct pdm_dev *pd, const struct pdm_hybrid_pass *hy,
		    struct io_comp_batch *iob, unsigned int pending,
		    unsigned int left)
{
	if (hy->woke)
		pdm_sleep_judge(pd, hy->woke, !hy->waits &&
				(left < pending || !pending ||
				 (iob && !bf_iob_empty(iob))));
	if (hy->mode != PDM_HYBRID_SLEEP)
		return;
	/*
	 * A sleep aims at the expected completion itself, not at the gate's
	 * 7/8 of it: polling early is for the estimate, a lower quartile,
	 * which the polls after an early wake-up still serve; every eighth
	 * spun instead of slept is CPU.
	 */
	if (hy->waits) {
		if (!pdm_sleep(pd, iob, hy->now, hy->start_ns + hy->est,
			       hy->est))
			this_cpu_inc(pd->stats->hybrid_sleep_refused);
	} else if (left && hy->now) {
		/* Due and still pending: no sleep may outlast it. */
		pdm_sleep_call_off(pd, iob, hy->now);
	}
}
