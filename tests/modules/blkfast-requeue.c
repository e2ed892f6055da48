// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-requeue: a test-only blk-mq disk, /dev/requeue0, that keeps and
 * requeues a known sequence of requests, for the scheduler's dispatch
 * order (at-head inserts, batch continuation).
 *
 *  - hold=N: the next N requests it is given are started and kept, not
 *    answered; "held" reads how many it keeps now.
 *  - requeue=1: it gives them back with blk_mq_requeue_request(), in the
 *    order they arrived, and kicks blk-mq's requeue work, which inserts
 *    each at the head of the scheduler again.
 *  - requeue=2: the same, while a work item on another CPU holds
 *    split-deadline's dispatch lock, until every one of those inserts was
 *    staged (or a second passed: the write then fails with ETIMEDOUT).
 *    Staging is the path that only contention reaches otherwise.
 *  - release=1: it completes the requests it keeps and runs the queue.
 *  - budget=N: at most N requests at the disk at once, kept ones included
 *    (0, the default: no limit), as a SCSI device's queue depth limits
 *    them: blk-mq takes no request from the scheduler beyond that, so
 *    what waits stays queued there in the scheduler's order.
 *  - record=N: the next requeue or release records the first N requests
 *    dispatched after it (0, the default: as many as a requeue gave back,
 *    none after a release).
 *  - order: the sectors of the requests recorded, in dispatch order.
 *
 * Every other request completes at once, with no data.  blk-mq's requeue
 * reverses the list once and the at-head inserts reverse it again, so a
 * scheduler that keeps at-head inserts LIFO, as mq-deadline does,
 * dispatches them again in the order they arrived.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <blkfast/kcompat.h>

#include "../../sched/split-deadline.h"

#define REQUEUE_MAX 64

struct requeue_cmd {
	struct list_head node;		/* requeue_held */
};

/* requeue_lock: what the disk keeps and what it saw dispatched again. */
static DEFINE_SPINLOCK(requeue_lock);
static LIST_HEAD(requeue_held);
static unsigned int requeue_nr_held;
static unsigned int requeue_hold;	/* still to keep */
static unsigned int requeue_recording;	/* still to record */
static unsigned int requeue_nr_order;
static sector_t requeue_order[REQUEUE_MAX];
static unsigned int requeue_record;	/* for the next requeue or release */

/*
 * Budget: tokens taken by blk-mq before it takes a request from the
 * scheduler; given back by blk-mq for a request it did not issue, and by
 * the disk when it completes or requeues one.  Always counted, limited
 * only while requeue_budget is not 0.
 */
static unsigned int requeue_budget;
static atomic_t requeue_budget_used = ATOMIC_INIT(0);

static int requeue_major;
static struct blk_mq_tag_set requeue_set;
static struct gendisk *requeue_disk;

static const struct block_device_operations requeue_fops = {
	.owner	= THIS_MODULE,
};

static blk_status_t requeue_queue_rq(struct blk_mq_hw_ctx *hctx,
				     const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct requeue_cmd *cmd = blk_mq_rq_to_pdu(rq);
	bool keep = false;

	blk_mq_start_request(rq);
	spin_lock(&requeue_lock);
	if (requeue_recording) {
		requeue_recording--;
		requeue_order[requeue_nr_order++] = blk_rq_pos(rq);
	} else if (requeue_hold) {
		requeue_hold--;
		list_add_tail(&cmd->node, &requeue_held);
		requeue_nr_held++;
		keep = true;
	}
	spin_unlock(&requeue_lock);
	if (!keep) {
		blk_mq_end_request(rq, BLK_STS_OK);
		atomic_dec(&requeue_budget_used);
	}
	return BLK_STS_OK;
}

static int requeue_get_budget(struct request_queue *q)
{
	unsigned int limit = READ_ONCE(requeue_budget);

	if (atomic_inc_return(&requeue_budget_used) > limit && limit) {
		atomic_dec(&requeue_budget_used);
		return -1;
	}
	return 0;
}

static void requeue_put_budget(struct request_queue *q, int token)
{
	atomic_dec(&requeue_budget_used);
}

static const struct blk_mq_ops requeue_mq_ops = {
	.queue_rq	= requeue_queue_rq,
	.get_budget	= requeue_get_budget,
	.put_budget	= requeue_put_budget,
};

/* requeue=2: hold the dispatch lock until the requeued inserts staged. */
struct requeue_locker {
	struct work_struct work;
	struct sd_sched *sd;
	unsigned int n;
	struct completion locked;
	struct completion done;
	bool staged;
};

static void requeue_locker_fn(struct work_struct *work)
{
	struct requeue_locker *l = container_of(work, struct requeue_locker,
						 work);
	atomic64_t *staged = &l->sd->cont.dispatch_lock_busy_inserts;
	u64 start = atomic64_read(staged);
	unsigned long end = jiffies + HZ;

	spin_lock(&l->sd->dispatch_lock);
	complete(&l->locked);
	while (atomic64_read(staged) - start < l->n &&
	       time_before(jiffies, end))
		cpu_relax();
	l->staged = atomic64_read(staged) - start >= l->n;
	spin_unlock(&l->sd->dispatch_lock);
	complete(&l->done);
}

/*
 * Take every held request off the disk onto @list, in arrival order, and
 * record the next "record" dispatches, or @dflt if it is 0.  requeue_lock
 * held.
 */
static void requeue_take_held(struct list_head *list, unsigned int dflt)
{
	list_splice_init(&requeue_held, list);
	requeue_recording = min_t(unsigned int, REQUEUE_MAX,
				  requeue_record ?: dflt);
	requeue_record = 0;
	requeue_nr_order = 0;
	requeue_nr_held = 0;
}

/* Give every held request back, in arrival order. */
static void requeue_all(void)
{
	struct requeue_cmd *cmd, *next;
	LIST_HEAD(list);

	spin_lock(&requeue_lock);
	requeue_take_held(&list, requeue_nr_held);
	spin_unlock(&requeue_lock);
	list_for_each_entry_safe(cmd, next, &list, node) {
		list_del_init(&cmd->node);
		atomic_dec(&requeue_budget_used);
		blk_mq_requeue_request(blk_mq_rq_from_pdu(cmd), false);
	}
	blk_mq_kick_requeue_list(requeue_disk->queue);
}

/* Complete every held request, and let blk-mq issue what waits. */
static void requeue_release(void)
{
	struct requeue_cmd *cmd, *next;
	LIST_HEAD(list);

	spin_lock(&requeue_lock);
	requeue_take_held(&list, 0);
	spin_unlock(&requeue_lock);
	list_for_each_entry_safe(cmd, next, &list, node) {
		list_del_init(&cmd->node);
		blk_mq_end_request(blk_mq_rq_from_pdu(cmd), BLK_STS_OK);
		atomic_dec(&requeue_budget_used);
	}
	blk_mq_run_hw_queues(requeue_disk->queue, false);
}

static int requeue_staged(void)
{
	struct request_queue *q = requeue_disk->queue;
	struct requeue_locker l = { .n = READ_ONCE(requeue_nr_held) };
	int cpu, other;

	if (!q->elevator ||
	    strcmp(q->elevator->type->elevator_name, "split-deadline"))
		return -EINVAL;
	l.sd = q->elevator->elevator_data;
	INIT_WORK_ONSTACK(&l.work, requeue_locker_fn);
	init_completion(&l.locked);
	init_completion(&l.done);

	cpu = get_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	put_cpu();
	if (other >= nr_cpu_ids) {
		destroy_work_on_stack(&l.work);
		return -EOPNOTSUPP;		/* needs two CPUs */
	}
	queue_work_on(other, system_highpri_wq, &l.work);
	wait_for_completion(&l.locked);
	/*
	 * The locker spins on "other" with preemption off, so this runs
	 * elsewhere, and so does the requeue work it kicks (kblockd is per
	 * CPU): its inserts find the dispatch lock held.
	 */
	requeue_all();
	wait_for_completion(&l.done);
	flush_work(&l.work);
	destroy_work_on_stack(&l.work);
	return l.staged ? 0 : -ETIMEDOUT;
}

/* What a write to requeue= or release= does to the held requests. */
enum requeue_action {
	REQUEUE_NOW = 1,	/* requeue=1 */
	REQUEUE_STAGED = 2,	/* requeue=2 */
	REQUEUE_RELEASE,	/* release=1 */
};

static int requeue_act(enum requeue_action act)
{
	int ret = 0;

	/* One action at a time, and no scheduler switch meanwhile. */
	mutex_lock(&requeue_disk->queue->sysfs_lock);
	if (!READ_ONCE(requeue_nr_held))
		ret = -ENOENT;
	else if (act == REQUEUE_NOW)
		requeue_all();
	else if (act == REQUEUE_STAGED)
		ret = requeue_staged();
	else
		requeue_release();
	mutex_unlock(&requeue_disk->queue->sysfs_lock);
	return ret;
}

static int requeue_set_trigger(const char *val, const struct kernel_param *kp)
{
	unsigned int mode;
	int ret;

	ret = kstrtouint(val, 0, &mode);
	if (ret)
		return ret;
	if (mode != REQUEUE_NOW && mode != REQUEUE_STAGED)
		return -EINVAL;
	return requeue_act(mode);
}

static const struct kernel_param_ops requeue_trigger_ops = {
	.set	= requeue_set_trigger,
};
module_param_cb(requeue, &requeue_trigger_ops, NULL, 0200);
MODULE_PARM_DESC(requeue, "1: requeue the held requests; 2: the same, staged");

static int requeue_set_release(const char *val, const struct kernel_param *kp)
{
	unsigned int one;
	int ret;

	ret = kstrtouint(val, 0, &one);
	if (ret)
		return ret;
	if (one != 1)
		return -EINVAL;
	return requeue_act(REQUEUE_RELEASE);
}

static const struct kernel_param_ops requeue_release_ops = {
	.set	= requeue_set_release,
};
module_param_cb(release, &requeue_release_ops, NULL, 0200);
MODULE_PARM_DESC(release, "1: complete the held requests");
module_param_named(budget, requeue_budget, uint, 0600);
MODULE_PARM_DESC(budget, "At most N requests at the disk at once (0: no limit)");
module_param_named(record, requeue_record, uint, 0600);
MODULE_PARM_DESC(record, "Record N dispatches after the next requeue or release (0: as many as held)");

static int requeue_set_hold(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	spin_lock(&requeue_lock);
	if (requeue_nr_held + n > REQUEUE_MAX)
		ret = -EINVAL;
	else
		requeue_hold = n;
	spin_unlock(&requeue_lock);
	return ret;
}

static int requeue_get_held(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(requeue_nr_held));
}

static const struct kernel_param_ops requeue_hold_ops = {
	.set	= requeue_set_hold,
	.get	= requeue_get_held,
};
module_param_cb(hold, &requeue_hold_ops, NULL, 0600);
MODULE_PARM_DESC(hold, "Keep the next N requests (at most 64); reads how many are kept");

static int requeue_get_order(char *buf, const struct kernel_param *kp)
{
	unsigned int i;
	int len = 0;

	spin_lock(&requeue_lock);
	for (i = 0; i < requeue_nr_order; i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",
				     (unsigned long long)requeue_order[i]);
	spin_unlock(&requeue_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops requeue_order_ops = {
	.get	= requeue_get_order,
};
module_param_cb(order, &requeue_order_ops, NULL, 0400);
MODULE_PARM_DESC(order, "Sectors of the requests dispatched again, in order");

static int __init requeue_init(void)
{
	int ret;

	requeue_major = register_blkdev(0, "requeue");
	if (requeue_major < 0)
		return requeue_major;

	requeue_set.ops = &requeue_mq_ops;
	requeue_set.nr_hw_queues = 1;
	requeue_set.nr_maps = 1;
	requeue_set.queue_depth = REQUEUE_MAX * 2;
	requeue_set.numa_node = NUMA_NO_NODE;
	requeue_set.cmd_size = sizeof(struct requeue_cmd);
	requeue_set.flags = BLK_MQ_F_SHOULD_MERGE;
	ret = blk_mq_alloc_tag_set(&requeue_set);
	if (ret)
		goto unregister;

	requeue_disk = bf_mq_alloc_disk(&requeue_set, NULL);
	if (IS_ERR(requeue_disk)) {
		ret = PTR_ERR(requeue_disk);
		goto free_set;
	}
	requeue_disk->major = requeue_major;
	requeue_disk->first_minor = 0;
	requeue_disk->minors = 1;
	requeue_disk->fops = &requeue_fops;
	strscpy(requeue_disk->disk_name, "requeue0", DISK_NAME_LEN);
	set_capacity(requeue_disk, 1 << (30 - SECTOR_SHIFT));
	ret = add_disk(requeue_disk);
	if (ret)
		goto put_disk;
	return 0;

put_disk:
	put_disk(requeue_disk);
free_set:
	blk_mq_free_tag_set(&requeue_set);
unregister:
	unregister_blkdev(requeue_major, "requeue");
	return ret;
}

/* Held requests fail: the removal's queue freeze waits for them. */
static void __exit requeue_exit(void)
{
	struct requeue_cmd *cmd, *next;
	LIST_HEAD(list);

	spin_lock(&requeue_lock);
	requeue_hold = 0;
	list_splice_init(&requeue_held, &list);
	requeue_nr_held = 0;
	spin_unlock(&requeue_lock);
	list_for_each_entry_safe(cmd, next, &list, node) {
		list_del_init(&cmd->node);
		blk_mq_end_request(blk_mq_rq_from_pdu(cmd), BLK_STS_IOERR);
	}
	del_gendisk(requeue_disk);
	put_disk(requeue_disk);
	blk_mq_free_tag_set(&requeue_set);
	unregister_blkdev(requeue_major, "requeue");
}

module_init(requeue_init);
module_exit(requeue_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: a disk that requeues a known sequence");
