// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a pdm_io, the state of one pass of a top bio over its
 * clones (struct pdm_io in pdm.h says what each field means): set up with
 * its first clone, each clone linked in, published if the top bio is
 * polled, walked by poll_bio calls, and ended by whoever drops the last
 * reference or, for a published io, claims it.
 *
 * Completion of a top bio normally happens when its last clone ends.  A
 * polled top bio, once all its clones are issued, is published and
 * completes only in task context, where its REQ_ALLOC_CACHE bio may be
 * freed: when its last clone is completed by a poll (which runs in a
 * poller's task), or else at its next poll_bio.  Its clones inherit the
 * REQ_ALLOC_CACHE and so come from pd->bs's per-CPU cache, and go back
 * there from the same task context (a lower queue that completes a clone
 * from an interrupt has taken it unpolled, which cleared the flag: see
 * bio_clear_polled()).  A poll_bio walking a bio's clones holds a
 * reference on its pdm_io, so the clones it hands to bio_poll() are never
 * freed under it.  Ending an io may also send its top bio round again
 * instead (pdm_io_complete()): the data of a PREFLUSH+data bio after its
 * flushes, or a published bio whose clones met EAGAIN.
 */
#include <linux/blkdev.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "pdm.h"
#include "pdm-hybrid.h"

static void pdm_clone_endio(struct bio *bio);
static int pdm_io_claim(struct pdm_io *io);
static void pdm_io_complete(struct pdm_io *io);
static struct pdm_clone *pdm_io_first(struct pdm_io *io);
static void pdm_io_free_clones(struct pdm_io *io, bool keep_first);
static void pdm_requeue(struct pdm_io *io);

/**
 * pdm_io_init() - set up the pdm_io in front of a pass's first clone
 * @first: the first clone, from pd->bs (PDM_FRONT_PAD)
 * @pd:    the device
 * @top:   the top bio the pass is for
 * @acct:  its statistics, started when pdm took it
 *
 * The submitter holds the one reference it starts with; each clone linked
 * in adds its own (pdm_io_add()).
 *
 * Return: the io.
 */
struct pdm_io *pdm_io_init(struct bio *first, struct pdm_dev *pd,
			   struct bio *top, const struct pdm_acct *acct)
{
	struct pdm_io *io =
		&container_of(first, struct pdm_io_clone, clone.bio)->io;

	io->pd = pd;
	io->top = top;
	io->acct = *acct;
	io->saved_private = NULL;
	atomic_set(&io->remaining, 1);
	io->status = BLK_STS_OK;
	io->published = false;
	io->polled = top->bi_opf & REQ_POLLED;
	io->nowait = top->bi_opf & REQ_NOWAIT;
	io->then_data = false;
	io->owner = current;
	io->clones = NULL;
	/* Hybrid polling waits from here: see pdm-poll.c. */
	io->start_ns = READ_ONCE(pd->hybrid) ? ktime_get_ns() : 0;
	/* Last: a stale poller trusts the rest once it sees this. */
	smp_wmb();
	WRITE_ONCE(io->magic, PDM_IO_MAGIC);
	return io;
}

/*
 * Link @clone into @io, before it is issued; it ends in pdm_clone_endio().
 * @estimate_ns: its lower device's hybrid estimates (struct pdm_map).
 */
void pdm_io_add(struct pdm_io *io, struct bio *clone, u64 *estimate_ns)
{
	struct pdm_clone *pc = container_of(clone, struct pdm_clone, bio);

	pc->io = io;
	pc->done = false;
	pc->hybrid_estimate_ns = estimate_ns;
	if (io->polled) {
		pc->next = io->clones;
		io->clones = pc;
	}
	atomic_inc(&io->remaining);
	clone->bi_end_io = pdm_clone_endio;
}

/**
 * pdm_io_publish() - let poll_bio find a polled top bio's io
 * @io: an io whose clones have all been issued, by the submitter, who
 *      still holds its reference
 *
 * The submitter's reference becomes the publish reference, which
 * pdm_io_claim() drops.  The submitter's bi_private comes back before
 * completion.  The clones wait on current->bio_list until the submitter
 * returns, so none can have ended yet; claim anyway if one did.
 */
void pdm_io_publish(struct pdm_io *io)
{
	struct bio *top = io->top;

	io->saved_private = top->bi_private;
	top->bi_private = io;
	top->bi_cookie = 0;
	WRITE_ONCE(io->published, true);
	smp_wmb();	/* io and bi_private before the marker */
	WRITE_ONCE(top->bi_opf, top->bi_opf | REQ_DRV);
	if (atomic_read(&io->remaining) == 1)
		pdm_io_claim(io);
}

/*
 * Take a walker's reference on @io if it is live and published.  Not
 * inlined, for a test: between the checks that found @io and this
 * reference lies the window in which @io can end and be set up again,
 * unpublished, and blkfast-stalewalk holds it open with a kprobe here.
 */
static noinline bool pdm_io_tryget(struct pdm_io *io)
{
	if (!atomic_inc_not_zero(&io->remaining))
		return false;
	if (!READ_ONCE(io->published)) {
		pdm_io_put(io);
		return false;
	}
	return true;
}

/*
 * Take a walker's reference on the published pdm_io of @bio; NULL if @bio
 * is not (or no longer) a published pdm top bio.  @bio may be stale or
 * recycled: the bio slab is SLAB_TYPESAFE_BY_RCU and our caller holds the
 * RCU read lock, so reading it is safe; the marker, then the magic and
 * back pointer, tell whether to trust it.  Between those checks and the
 * reference, the io may end and be set up again, for another top bio or
 * for this one reused (the marker seen was the old io's).  So after the
 * reference (a full barrier) the io must be published, and then pass the
 * checks again.  An unpublished one belongs to a pass still being issued
 * or to an unpolled bio, whose clones end and may be freed without a
 * poll: it is only put back, which completes it if its clones are gone
 * (pdm_io_tryget()).  A published io that fails the checks again was
 * recycled for another top bio: pdm_io_unwalk() on it is as good as on
 * ours.
 */
struct pdm_io *pdm_io_walk(struct bio *bio)
{
	struct pdm_io *io;

	if (!(READ_ONCE(bio->bi_opf) & REQ_DRV))
		return NULL;
	smp_rmb();	/* pairs with pdm_io_publish() */
	io = READ_ONCE(bio->bi_private);
	if (!io || READ_ONCE(io->magic) != PDM_IO_MAGIC ||
	    READ_ONCE(io->top) != bio)
		return NULL;
	if (!pdm_io_tryget(io))
		return NULL;
	if (READ_ONCE(io->magic) != PDM_IO_MAGIC ||
	    READ_ONCE(io->top) != bio) {
		pdm_io_unwalk(io);
		return NULL;
	}
	return io;
}

/* Drop a walker's reference; claim the top bio if it was the last but one. */
int pdm_io_unwalk(struct pdm_io *io)
{
	if (atomic_dec_return(&io->remaining) == 1)
		return pdm_io_claim(io);
	return 0;
}

static void pdm_clone_endio(struct bio *bio)
{
	struct pdm_clone *pc = container_of(bio, struct pdm_clone, bio);
	struct pdm_io *io = pc->io;
	/* Read before our reference goes: @io may go with it. */
	bool published = READ_ONCE(io->published);
	struct task_struct *owner = io->owner;
	bool polled = bio->bi_opf & REQ_POLLED;

	/* Any one error will do; racing writers only pick which. */
	if (unlikely(bio->bi_status) && !READ_ONCE(io->status))
		WRITE_ONCE(io->status, bio->bi_status);
	/*
	 * Still REQ_POLLED here means the lower queue took it as polled I/O,
	 * which only a poll completes.  (bio_poll()'s return value cannot
	 * count these: blk_mq_poll() returns 1 for any running task.)
	 */
	if (polled) {
		this_cpu_inc(io->pd->stats->completions_found);
		/*
		 * Hybrid: how long this lower device took, as a poll saw it.
		 * The map, and so the estimate, outlives every io issued
		 * through it (a table goes only when none is in flight).
		 */
		if (io->start_ns) {
			u64 *est = pc->hybrid_estimate_ns;

			pdm_hybrid_learn(&est[op_is_write(bio_op(bio))],
					 ktime_get_ns() - io->start_ns);
		}
	}
	WRITE_ONCE(pc->done, true);
	if (!published) {
		/* Unlisted: nothing else refers to it (see struct pdm_io). */
		if (!io->polled && pc != pdm_io_first(io))
			bio_put(bio);
		pdm_io_put(io);
		return;
	}
	/*
	 * The last clone of a published bio ended in the task that issued
	 * it (its poller, reaping a batch of lower completions): finish the
	 * top bio now rather than at its own next poll_bio, so that one
	 * io_uring reap pass completes every top bio whose clones one lower
	 * poll found.  Anywhere else leave it to that poller: from interrupt
	 * context the top bio may not be freed, and another task must not
	 * free it while its own poller may be inside bio_poll() on it.
	 */
	if (atomic_dec_return(&io->remaining) == 1 && in_task() &&
	    current == owner)
		pdm_io_claim(io);
}

void pdm_io_put(struct pdm_io *io)
{
	if (atomic_dec_and_test(&io->remaining))
		pdm_io_complete(io);
}

/**
 * pdm_io_claim() - complete a published top bio, if nobody else does
 * @io:  a published io whose count the caller saw drop to 1 (the publish
 *       reference alone)
 *
 * Runs in task context only: the top bio may be REQ_ALLOC_CACHE.  Of all
 * the parties that see the count at 1, the cmpxchg picks one.
 *
 * Return: 1 if this call completed the top bio, else 0.
 */
static int pdm_io_claim(struct pdm_io *io)
{
	struct bio *top = io->top;

	if (atomic_cmpxchg(&io->remaining, 1, 0) != 1)
		return 0;
	top->bi_opf &= ~REQ_DRV;
	/*
	 * A walker that still sees the marker must not see bi_private
	 * already given back (pairs with the smp_rmb() in pdm_io_walk()).
	 */
	smp_wmb();
	top->bi_private = io->saved_private;
	/*
	 * No longer ours to poll: a requeued bio is not polled again, and
	 * remapped in place (direct mode) its cookie 0 would poll the lower
	 * device's first hardware queue, a queue that does not poll.
	 */
	WRITE_ONCE(top->bi_cookie, BLK_QC_T_NONE);
	pdm_io_complete(io);
	return 1;
}

/*
 * Complete the top bio and free the clones; @io goes with them.  After the
 * flushes of a PREFLUSH+data bio (io->then_data) the top bio goes on to
 * have its data issued instead, unless a flush failed: then it completes
 * with that error, and its data is never written.  A REQ_NOWAIT top bio
 * whose clones met EAGAIN is requeued (see the top of pdm-send.c): its
 * submitter, having returned, can no longer take an EAGAIN.
 */
static void pdm_io_complete(struct pdm_io *io)
{
	struct pdm_dev *pd = io->pd;
	struct bio *top = io->top;
	bool then_data = io->then_data && !io->status;
	bool again = io->nowait && io->status == BLK_STS_AGAIN;
	struct pdm_acct acct;

	if (io->status && !again)
		top->bi_status = io->status;
	if (again) {
		this_cpu_inc(pd->stats->requeued);
		/*
		 * Redone blocking (pdm_requeue_work()), its flushes first if
		 * it has any; completes unpolled, perhaps in interrupt context.
		 */
		bio_clear_polled(top);
	}
	if (then_data)
		top->bi_opf &= ~REQ_PREFLUSH;	/* they are done */
	if (again || then_data) {
		pdm_requeue(io);
		return;
	}
	acct = io->acct;
	pdm_io_free_clones(io, false);
	pdm_end_top(pd, top, &acct);
}

/*
 * Hand an io's top bio to pdm_requeue_work() to be mapped again, with its
 * reference on pd->active.  Its first clone, which holds @io, goes on the
 * list and carries the top bio's statistics to the next pass; the others
 * are freed.  Any context: this runs from the last clone's completion.
 */
static void pdm_requeue(struct pdm_io *io)
{
	struct pdm_dev *pd = io->pd;
	unsigned long flags;

	pdm_io_free_clones(io, true);
	/*
	 * Queue the work before the lock goes: from then on a worker still
	 * running may take the bio, send it, see it complete and drop the
	 * last reference on pd->active that kept @pd alive (a suspend
	 * returns, a remove frees @pd and its workqueue).
	 */
	spin_lock_irqsave(&pd->requeue_lock, flags);
	bio_list_add(&pd->requeue, &pdm_io_first(io)->bio);
	queue_work(pd->wq, &pd->requeue_work);
	spin_unlock_irqrestore(&pd->requeue_lock, flags);
}

/**
 * pdm_io_requeued() - take a top bio off a requeued io
 * @first: the io's first clone, from pd->requeue
 * @acct:  the top bio's statistics, for its next pass
 *
 * Frees @first and the io with it.  Return: the top bio.
 */
struct bio *pdm_io_requeued(struct bio *first, struct pdm_acct *acct)
{
	struct pdm_io *io =
		&container_of(first, struct pdm_io_clone, clone.bio)->io;
	struct bio *top = io->top;

	*acct = io->acct;
	bio_put(first);
	return top;
}

static struct pdm_clone *pdm_io_first(struct pdm_io *io)
{
	return &container_of(io, struct pdm_io_clone, io)->clone;
}

/*
 * Free the clones of @io still listed (a polled io's), and unless
 * @keep_first the first, and @io with it, which lives in the first.
 */
static void pdm_io_free_clones(struct pdm_io *io, bool keep_first)
{
	struct pdm_clone *first = pdm_io_first(io);
	struct pdm_clone *pc, *next;

	/* Stale pollers check the magic before they take a reference. */
	WRITE_ONCE(io->magic, 0);
	for (pc = io->clones; pc; pc = next) {
		next = pc->next;
		if (pc != first)
			bio_put(&pc->bio);
	}
	io->clones = NULL;
	if (!keep_first)
		bio_put(&first->bio);
}

/*
 * Free a NOWAIT pass that is short of a clone: none was issued, and every
 * one is on @held, the first (which holds @io) first.
 */
void pdm_io_free_held(struct pdm_io *io, struct bio_list *held)
{
	struct pdm_clone *first = pdm_io_first(io);
	struct bio *clone;

	WRITE_ONCE(io->magic, 0);
	while ((clone = bio_list_pop(held)))
		if (clone != &first->bio)
			bio_put(clone);
	bio_put(&first->bio);
}
