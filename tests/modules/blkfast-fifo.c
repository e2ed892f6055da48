// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-fifo: two test-only elevators with no policy at all, the floors
 * that the scheduler benchmark measures split-deadline against.
 *
 *   bf-fifo-hctx    one FIFO per hardware queue, each under its own lock;
 *                   a request is dispatched from the queue it was inserted
 *                   on.  What any 6.1 elevator costs over `none` (sched
 *                   tags, insert, queue run, dispatch loop, driver tags)
 *                   and nothing more.
 *   bf-fifo-global  one FIFO for the whole device under one lock, as
 *                   mq-deadline's single set of queues (QUEUE_FLAG_SQ_SCHED).
 *                   The cheapest elevator that keeps one device-wide order,
 *                   which mq-deadline's semantics need.
 *
 * No merges, no priorities, no depth limits.  Loaded only inside the test
 * VM; never installed.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <blkfast/kcompat.h>

#include <block/elevator.h>
#include <block/blk-mq-sched.h>

struct bf_fifo {
	spinlock_t lock;		/* list */
	struct list_head list;
};

static struct bf_fifo *bf_fifo_alloc(int node)
{
	struct bf_fifo *f = kzalloc_node(sizeof(*f), GFP_KERNEL, node);

	if (f) {
		spin_lock_init(&f->lock);
		INIT_LIST_HEAD(&f->list);
	}
	return f;
}

/* The FIFO @hctx inserts into and dispatches from. */
static struct bf_fifo *bf_fifo_of(struct blk_mq_hw_ctx *hctx)
{
	struct elevator_queue *e = hctx->queue->elevator;

	return e->elevator_data ? e->elevator_data : hctx->sched_data;
}

static void bf_insert_requests(struct blk_mq_hw_ctx *hctx,
			       struct list_head *list, bool at_head)
{
	struct bf_fifo *f = bf_fifo_of(hctx);

	spin_lock(&f->lock);
	if (at_head)
		list_splice_init(list, &f->list);
	else
		list_splice_tail_init(list, &f->list);
	spin_unlock(&f->lock);
}

#if BLKFAST_612
/* 6.12's insert method says "at head" in flags (6.5). */
static void bf_insert_requests_flags(struct blk_mq_hw_ctx *hctx,
				     struct list_head *list,
				     blk_insert_t flags)
{
	bf_insert_requests(hctx, list, flags & BLK_MQ_INSERT_AT_HEAD);
}

#define BF_INSERT	bf_insert_requests_flags
#else
#define BF_INSERT	bf_insert_requests
#endif

static struct request *bf_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct bf_fifo *f = bf_fifo_of(hctx);
	struct request *rq;

	spin_lock(&f->lock);
	rq = list_first_entry_or_null(&f->list, struct request, queuelist);
	if (rq)
		list_del_init(&rq->queuelist);
	spin_unlock(&f->lock);
	return rq;
}

/* Nothing to count; 6.12's elv_register() refuses an elevator without it. */
static void bf_finish_request(struct request *rq)
{
}

static bool bf_has_work(struct blk_mq_hw_ctx *hctx)
{
	return !list_empty_careful(&bf_fifo_of(hctx)->list);
}

static int bf_init_sched(struct request_queue *q, struct elevator_type *e,
			 bool global)
{
	struct elevator_queue *eq = elevator_alloc(q, e);

	if (!eq)
		return -ENOMEM;
	if (global) {
		eq->elevator_data = bf_fifo_alloc(q->node);
		if (!eq->elevator_data) {
			kobject_put(&eq->kobj);
			return -ENOMEM;
		}
		blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	}
	q->elevator = eq;
	return 0;
}

static int bf_init_global(struct request_queue *q, struct elevator_type *e)
{
	return bf_init_sched(q, e, true);
}

static int bf_init_hctx_sched(struct request_queue *q, struct elevator_type *e)
{
	return bf_init_sched(q, e, false);
}

static void bf_exit_sched(struct elevator_queue *e)
{
	struct bf_fifo *f = e->elevator_data;

	if (f) {
		WARN_ON_ONCE(!list_empty(&f->list));
		kfree(f);
	}
}

static int bf_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int idx)
{
	hctx->sched_data = bf_fifo_alloc(hctx->numa_node);
	return hctx->sched_data ? 0 : -ENOMEM;
}

static void bf_exit_hctx(struct blk_mq_hw_ctx *hctx, unsigned int idx)
{
	struct bf_fifo *f = hctx->sched_data;

	WARN_ON_ONCE(!list_empty(&f->list));
	kfree(f);
	hctx->sched_data = NULL;
}

static struct elevator_type bf_fifo_hctx = {
	.ops = {
		.insert_requests	= BF_INSERT,
		.dispatch_request	= bf_dispatch_request,
		.finish_request		= bf_finish_request,
		.has_work		= bf_has_work,
		.init_sched		= bf_init_hctx_sched,
		.exit_sched		= bf_exit_sched,
		.init_hctx		= bf_init_hctx,
		.exit_hctx		= bf_exit_hctx,
	},
	.elevator_name	= "bf-fifo-hctx",
	.elevator_owner	= THIS_MODULE,
};

static struct elevator_type bf_fifo_global = {
	.ops = {
		.insert_requests	= BF_INSERT,
		.dispatch_request	= bf_dispatch_request,
		.finish_request		= bf_finish_request,
		.has_work		= bf_has_work,
		.init_sched		= bf_init_global,
		.exit_sched		= bf_exit_sched,
	},
	.elevator_name	= "bf-fifo-global",
	.elevator_owner	= THIS_MODULE,
};
MODULE_ALIAS("bf-fifo-hctx-iosched");
MODULE_ALIAS("bf-fifo-global-iosched");

static int __init bf_init(void)
{
	int ret = elv_register(&bf_fifo_hctx);

	if (ret)
		return ret;
	ret = elv_register(&bf_fifo_global);
	if (ret)
		elv_unregister(&bf_fifo_hctx);
	return ret;
}

static void __exit bf_exit(void)
{
	elv_unregister(&bf_fifo_global);
	elv_unregister(&bf_fifo_hctx);
}

module_init(bf_init);
module_exit(bf_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test-only FIFO elevators (benchmark floors)");
