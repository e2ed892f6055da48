// SPDX-License-Identifier: GPL-2.0
/*
 * blkfast-slowpoll: a test-only blk-mq disk whose requests take a fixed
 * service time, on poll queues too.  null_blk completes a polled request
 * the first time it is polled, and QEMU's emulated NVMe has a service
 * time that wanders by 2x under TCG; neither shows what hybrid polling
 * saves.  Here a request on a poll queue completes at the first poll at
 * least service_us after it was issued (write_service_us for a write, if
 * set), and one on a default queue completes from an hrtimer after it.
 * With data=1 it keeps what is written in memory (size_mb of it,
 * vmalloc'ed), so that fio can verify through it; otherwise reads return
 * whatever the pages held and writes are dropped.  With secure_erase=1
 * it takes secure erase requests too (zeroing the range with data=1) and
 * counts them in secure_erased, for a test that one never reaches it.
 * Loaded only inside the test VM, as /dev/slowpoll0.
 */
#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <blkfast/kcompat.h>

/* Writable: a benchmark compares service times in one boot. */
static unsigned int service_us = 50;
module_param(service_us, uint, 0644);
MODULE_PARM_DESC(service_us, "Service time of every request, us");

/* Writable too: 0 gives writes service_us. */
static unsigned int write_service_us;
module_param(write_service_us, uint, 0644);
MODULE_PARM_DESC(write_service_us, "Service time of writes, us (0: service_us)");

static unsigned int submit_queues = 1;
module_param(submit_queues, uint, 0444);
MODULE_PARM_DESC(submit_queues, "Default (interrupt) hardware queues");

static unsigned int poll_queues = 1;
module_param(poll_queues, uint, 0444);
MODULE_PARM_DESC(poll_queues, "Poll hardware queues");

static unsigned int size_mb = 1024;
module_param(size_mb, uint, 0444);
MODULE_PARM_DESC(size_mb, "Capacity, MiB");

static bool data;
module_param(data, bool, 0444);
MODULE_PARM_DESC(data, "Keep the data written, in size_mb of memory");

static bool secure_erase;
module_param(secure_erase, bool, 0444);
MODULE_PARM_DESC(secure_erase, "Take secure erase requests");

static atomic_t secure_erased = ATOMIC_INIT(0);
static int secure_erased_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&secure_erased));
}

static const struct kernel_param_ops secure_erased_ops = {
	.get = secure_erased_get,
};
module_param_cb(secure_erased, &secure_erased_ops, NULL, 0444);
MODULE_PARM_DESC(secure_erased, "Secure erase requests taken (read-only)");

static u8 *slowpoll_data;		/* data=1: the disk's contents */

/* Requests issued to a poll queue, in issue order: also due order. */
struct slowpoll_queue {
	spinlock_t lock;		/* due; pollers may share a queue */
	struct list_head due;
};

struct slowpoll_cmd {
	struct list_head node;		/* in slowpoll_queue.due */
	u64 due_ns;
	struct hrtimer timer;		/* default queues only */
};

static int slowpoll_major;
static struct blk_mq_tag_set slowpoll_set;
static struct slowpoll_queue *slowpoll_queues;
static struct gendisk *slowpoll_disk;

static const struct block_device_operations slowpoll_fops = {
	.owner	= THIS_MODULE,
};

static enum hrtimer_restart slowpoll_timer_fn(struct hrtimer *t)
{
	struct slowpoll_cmd *cmd = container_of(t, struct slowpoll_cmd, timer);

	blk_mq_complete_request(blk_mq_rq_from_pdu(cmd));
	return HRTIMER_NORESTART;
}

/* data=1: the data moves as the request is issued; it completes later. */
static void slowpoll_copy(struct request *rq)
{
	u8 *pos = slowpoll_data + (blk_rq_pos(rq) << SECTOR_SHIFT);
	struct req_iterator iter;
	struct bio_vec bv;

	if (req_op(rq) == REQ_OP_SECURE_ERASE) {
		memset(pos, 0, blk_rq_bytes(rq));
		return;
	}
	if (req_op(rq) != REQ_OP_READ && req_op(rq) != REQ_OP_WRITE)
		return;
	rq_for_each_segment(bv, rq, iter) {
		if (req_op(rq) == REQ_OP_WRITE)
			memcpy_from_bvec(pos, &bv);
		else
			memcpy_to_bvec(&bv, pos);
		pos += bv.bv_len;
	}
}

static u64 slowpoll_service_ns(struct request *rq)
{
	unsigned int us = READ_ONCE(write_service_us);

	if (!us || !op_is_write(req_op(rq)))
		us = READ_ONCE(service_us);
	return us * 1000ULL;
}

static blk_status_t slowpoll_queue_rq(struct blk_mq_hw_ctx *hctx,
				      const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct slowpoll_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct slowpoll_queue *sq = hctx->driver_data;

	blk_mq_start_request(rq);
	if (req_op(rq) == REQ_OP_SECURE_ERASE)
		atomic_inc(&secure_erased);
	if (slowpoll_data)
		slowpoll_copy(rq);
	if (hctx->type != HCTX_TYPE_POLL) {
		hrtimer_start(&cmd->timer, ns_to_ktime(slowpoll_service_ns(rq)),
			      HRTIMER_MODE_REL);
		return BLK_STS_OK;
	}
	cmd->due_ns = ktime_get_ns() + slowpoll_service_ns(rq);
	spin_lock(&sq->lock);
	list_add_tail(&cmd->node, &sq->due);
	spin_unlock(&sq->lock);
	return BLK_STS_OK;
}

static void slowpoll_complete(struct request *rq)
{
	blk_mq_end_request(rq, BLK_STS_OK);
}

static void slowpoll_complete_batch(struct io_comp_batch *iob)
{
	blk_mq_end_request_batch(iob);
}

/* Complete every request on this poll queue whose service time is over. */
static int slowpoll_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct slowpoll_queue *sq = hctx->driver_data;
	struct slowpoll_cmd *cmd, *next;
	u64 now = ktime_get_ns();
	LIST_HEAD(done);
	int found = 0;

	spin_lock(&sq->lock);
	list_for_each_entry_safe(cmd, next, &sq->due, node) {
		if (cmd->due_ns > now)
			break;
		list_move_tail(&cmd->node, &done);
		found++;
	}
	spin_unlock(&sq->lock);

	list_for_each_entry_safe(cmd, next, &done, node) {
		struct request *rq = blk_mq_rq_from_pdu(cmd);

		list_del_init(&cmd->node);
		if (!blk_mq_add_to_batch(rq, iob, 0, slowpoll_complete_batch))
			blk_mq_end_request(rq, BLK_STS_OK);
	}
	return found;
}

static int slowpoll_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			      unsigned int idx)
{
	hctx->driver_data = &slowpoll_queues[idx];
	return 0;
}

static int slowpoll_init_request(struct blk_mq_tag_set *set,
				 struct request *rq, unsigned int hctx_idx,
				 unsigned int numa_node)
{
	struct slowpoll_cmd *cmd = blk_mq_rq_to_pdu(rq);

	INIT_LIST_HEAD(&cmd->node);
	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cmd->timer.function = slowpoll_timer_fn;
	return 0;
}

/* Default queues first, then the poll queues; no read queues. */
static void slowpoll_map_queues(struct blk_mq_tag_set *set)
{
	struct blk_mq_queue_map *def = &set->map[HCTX_TYPE_DEFAULT];
	struct blk_mq_queue_map *poll = &set->map[HCTX_TYPE_POLL];

	def->nr_queues = submit_queues;
	def->queue_offset = 0;
	blk_mq_map_queues(def);
	set->map[HCTX_TYPE_READ].nr_queues = 0;
	poll->nr_queues = poll_queues;
	poll->queue_offset = submit_queues;
	if (poll_queues)
		blk_mq_map_queues(poll);
}

static const struct blk_mq_ops slowpoll_mq_ops = {
	.queue_rq	= slowpoll_queue_rq,
	.complete	= slowpoll_complete,
	.poll		= slowpoll_poll,
	.init_hctx	= slowpoll_init_hctx,
	.init_request	= slowpoll_init_request,
	.map_queues	= slowpoll_map_queues,
};

static int __init slowpoll_init(void)
{
	unsigned int nr = submit_queues + poll_queues;
	int i, ret;

	if (!submit_queues || !size_mb)
		return -EINVAL;
	if (data) {
		slowpoll_data = vzalloc((size_t)size_mb << 20);
		if (!slowpoll_data)
			return -ENOMEM;
	}
	slowpoll_queues = kcalloc(nr, sizeof(*slowpoll_queues), GFP_KERNEL);
	if (!slowpoll_queues) {
		vfree(slowpoll_data);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		spin_lock_init(&slowpoll_queues[i].lock);
		INIT_LIST_HEAD(&slowpoll_queues[i].due);
	}

	slowpoll_major = register_blkdev(0, "slowpoll");
	if (slowpoll_major < 0) {
		ret = slowpoll_major;
		goto free_queues;
	}

	slowpoll_set.ops = &slowpoll_mq_ops;
	slowpoll_set.nr_hw_queues = nr;
	slowpoll_set.nr_maps = HCTX_MAX_TYPES;
	slowpoll_set.queue_depth = 256;
	slowpoll_set.numa_node = NUMA_NO_NODE;
	slowpoll_set.cmd_size = sizeof(struct slowpoll_cmd);
	slowpoll_set.flags = BLK_MQ_F_SHOULD_MERGE;
	ret = blk_mq_alloc_tag_set(&slowpoll_set);
	if (ret)
		goto unregister;

	slowpoll_disk = bf_mq_alloc_disk(&slowpoll_set, NULL);
	if (IS_ERR(slowpoll_disk)) {
		ret = PTR_ERR(slowpoll_disk);
		goto free_set;
	}
	slowpoll_disk->major = slowpoll_major;
	slowpoll_disk->first_minor = 0;
	slowpoll_disk->minors = 1;
	slowpoll_disk->fops = &slowpoll_fops;
	strscpy(slowpoll_disk->disk_name, "slowpoll0", DISK_NAME_LEN);
	set_capacity(slowpoll_disk, (sector_t)size_mb << (20 - SECTOR_SHIFT));
#if BLKFAST_612
	{
		struct queue_limits lim =
			queue_limits_start_update(slowpoll_disk->queue);

		lim.features &= ~BLK_FEAT_ROTATIONAL;
		if (secure_erase)
			lim.max_secure_erase_sectors = UINT_MAX >> SECTOR_SHIFT;
		ret = queue_limits_commit_update(slowpoll_disk->queue, &lim);
		if (ret)
			goto put_disk;
	}
#else
	blk_queue_flag_set(QUEUE_FLAG_NONROT, slowpoll_disk->queue);
	if (secure_erase)
		blk_queue_max_secure_erase_sectors(slowpoll_disk->queue,
						   UINT_MAX >> SECTOR_SHIFT);
#endif
	ret = add_disk(slowpoll_disk);
	if (ret)
		goto put_disk;
	return 0;

put_disk:
	put_disk(slowpoll_disk);
free_set:
	blk_mq_free_tag_set(&slowpoll_set);
unregister:
	unregister_blkdev(slowpoll_major, "slowpoll");
free_queues:
	kfree(slowpoll_queues);
	vfree(slowpoll_data);
	return ret;
}

static void __exit slowpoll_exit(void)
{
	del_gendisk(slowpoll_disk);
	put_disk(slowpoll_disk);
	blk_mq_free_tag_set(&slowpoll_set);
	unregister_blkdev(slowpoll_major, "slowpoll");
	kfree(slowpoll_queues);
	vfree(slowpoll_data);
}

module_init(slowpoll_init);
module_exit(slowpoll_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("blkfast test: a disk with a fixed service time, polled too");
