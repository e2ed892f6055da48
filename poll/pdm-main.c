// SPDX-License-Identifier: GPL-2.0
/*
 * pdm: a bio-based stacking block driver with io_uring IOPOLL support.
 *
 * This file holds the module's entry points and the control device,
 * /dev/pdm-control: root only, one versioned ioctl per dmsetup verb.
 */
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "pdm.h"

/* Guards the device list and the names (see struct pdm_dev). */
DEFINE_MUTEX(pdm_ctl_mutex);
int pdm_major;

/*
 * The bytes of a name or uuid besides ASCII letters and digits: those
 * that udev keeps in a link's name (it turns any other into '_').  pdm's
 * rules make /dev/pdm/NAME and by-id links of both, and two names that
 * udev would spell alike must not fight over one link.
 */
#define PDM_NAME_PUNCT	"#+-.:=@_"
#define PDM_NAME_RULE	"letters, digits and " PDM_NAME_PUNCT " only"

/* A name or uuid of @size bytes at most, of PDM_NAME_RULE's bytes. */
static bool pdm_name_ok(const char *name, size_t size)
{
	size_t len = strnlen(name, size);

	if (!len || len == size || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (!isascii(*name) ||
		    (!isalnum(*name) && !strchr(PDM_NAME_PUNCT, *name)))
			return false;
	return true;
}

static void pdm_fill_info(struct pdm_dev *pd, struct pdm_ioctl *hdr)
{
	hdr->dev = new_encode_dev(disk_devt(pd->disk));
	hdr->open_count = pdm_dev_open_count(pd);
	hdr->nr_segments = pd->map->spec.nr_segs;
	hdr->sectors = pd->map->spec.sectors;
	hdr->flags &= ~(PDM_F_SUSPENDED | PDM_F_INACTIVE | PDM_F_POLL |
			PDM_F_READONLY | PDM_F_DEFERRED | PDM_F_SHARED);
	strscpy_pad(hdr->uuid, pd->uuid, sizeof(hdr->uuid));
	if (pd->read_only)
		hdr->flags |= PDM_F_READONLY;
	if (pd->shared)
		hdr->flags |= PDM_F_SHARED;
	if (pdm_dev_remove_pending(pd))
		hdr->flags |= PDM_F_DEFERRED;
	if (pdm_dev_suspended(pd))
		hdr->flags |= PDM_F_SUSPENDED;
	if (pd->inactive)
		hdr->flags |= PDM_F_INACTIVE;
	if (pd->map->poll)
		hdr->flags |= PDM_F_POLL;
}

/*
 * A command's output: written to @buf, of which only the first @size
 * bytes are kept (NULL and 0 to count); returns the bytes of the whole
 * output, a NUL after text not counted.
 */
typedef size_t pdm_output_fn(struct pdm_dev *pd, const struct pdm_ioctl *hdr,
			     char *buf, size_t size);

static size_t pdm_output_list(struct pdm_dev *pd, const struct pdm_ioctl *hdr,
			      char *buf, size_t size)
{
	return pdm_dev_list(buf, size);
}

static size_t pdm_output_table(struct pdm_dev *pd,
			       const struct pdm_ioctl *hdr, char *buf,
			       size_t size)
{
	struct pdm_map *map = hdr->flags & PDM_F_QUERY_INACTIVE ?
			      pd->inactive : pd->map;

	return map ? pdm_map_format_table(map, buf, size) : 0;
}

static size_t pdm_output_status(struct pdm_dev *pd,
				const struct pdm_ioctl *hdr, char *buf,
				size_t size)
{
	return pdm_map_format_status(pd, pd->map, buf, size);
}

/*
 * A command's output, in a kernel buffer for the caller to copy out once
 * it has dropped its locks (a fault on the user's buffer may need I/O
 * from any device).  If the output does not fit the caller's buffer,
 * PDM_F_BUFFER_FULL is set and data_len says how much room it needs.  The
 * output is counted first and the kernel's copy sized by it, not by the
 * caller's buffer; the lock held keeps it from changing between the two
 * passes.
 */
static int pdm_make_output(struct pdm_ioctl *hdr, struct pdm_dev *pd,
			   pdm_output_fn *output, char **out)
{
	size_t len = output(pd, hdr, NULL, 0);

	if (len > U32_MAX - hdr->data_start) {
		pdm_err(hdr->err, "output of %zu bytes is too large", len);
		return -EOVERFLOW;
	}
	hdr->data_len = len;
	if (len > hdr->data_size - hdr->data_start) {
		hdr->flags |= PDM_F_BUFFER_FULL;
		return 0;
	}
	/* One byte more for the NUL that ends a text. */
	pdm_assert_noio();
	*out = kvmalloc(len + 1, GFP_KERNEL | __GFP_NOWARN);
	if (!*out) {
		pdm_err(hdr->err, "cannot allocate %zu bytes for the output",
			len + 1);
		return -ENOMEM;
	}
	output(pd, hdr, *out, len + 1);
	return 0;
}

/* Copy in the table text of CREATE and RELOAD. */
static char *pdm_get_text(const struct pdm_ioctl *hdr,
			  const void __user *udata, char *err)
{
	char *text;

	if (hdr->data_len > hdr->data_size - hdr->data_start) {
		pdm_err(err, "table length %u exceeds the buffer", hdr->data_len);
		return ERR_PTR(-EINVAL);
	}
	if (hdr->data_len > PDM_MAX_TABLE) {
		pdm_err(err, "line 1: table of %u bytes exceeds %u", hdr->data_len,
			PDM_MAX_TABLE);
		return ERR_PTR(-E2BIG);
	}
	/* Sized by the caller, who gets the error: no warning in the log. */
	text = kvmalloc(hdr->data_len + 1, GFP_KERNEL | __GFP_NOWARN);
	if (!text) {
		pdm_err(err, "cannot allocate %u bytes for the table",
			hdr->data_len + 1);
		return ERR_PTR(-ENOMEM);
	}
	if (copy_from_user(text, udata, hdr->data_len)) {
		kvfree(text);
		return ERR_PTR(-EFAULT);
	}
	text[hdr->data_len] = '\0';
	return text;
}

/* Copy in the new name of RENAME, and check it as a name. */
static char *pdm_get_name(const struct pdm_ioctl *hdr,
			  const void __user *udata, char *err)
{
	char *name;

	if (hdr->data_len > hdr->data_size - hdr->data_start ||
	    hdr->data_len >= PDM_NAME_LEN) {
		pdm_err(err, "%s: new name of %u bytes: more than %u, or beyond the buffer",
			hdr->name, hdr->data_len, PDM_NAME_LEN - 1);
		return ERR_PTR(-EINVAL);
	}
	name = kzalloc(PDM_NAME_LEN, GFP_KERNEL);
	if (!name)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(name, udata, hdr->data_len)) {
		kfree(name);
		return ERR_PTR(-EFAULT);
	}
	if (strlen(name) != hdr->data_len ||
	    !pdm_name_ok(name, PDM_NAME_LEN)) {
		pdm_err(err, "%s: bad new name: " PDM_NAME_RULE, hdr->name);
		kfree(name);
		return ERR_PTR(-EINVAL);
	}
	return name;
}

/* The verbs, one row each in pdm_cmds[] below. */
enum pdm_cmd_kind {
	PDM_CMD_CREATE,		/* takes pdm_ctl_mutex itself, when it may */
	PDM_CMD_GLOBAL,		/* no device: under pdm_ctl_mutex */
	PDM_CMD_QUERY,		/* reads a device: under pdm_ctl_mutex */
	PDM_CMD_CHANGE,		/* changes one: under its lock only */
};

struct pdm_cmd {
	unsigned int ioc;
	enum pdm_cmd_kind kind;
	bool named;		/* hdr->name must be a valid device name */
	bool takes_text;	/* a table comes in; a success keeps it */
	bool takes_name;	/* a new name comes in, as the text */
	pdm_output_fn *output;	/* what goes out, if anything */
	/* The command itself: @pd NULL for PDM_CMD_CREATE and _GLOBAL. */
	int (*run)(struct pdm_dev *pd, struct pdm_ioctl *hdr, char *text);
};

static int pdm_cmd_create(struct pdm_dev *pd, struct pdm_ioctl *hdr,
			  char *text)
{
	struct pdm_dev_args args = {
		.name = hdr->name,
		.uuid = hdr->uuid,
		.read_only = hdr->flags & PDM_F_READONLY,
		.shared = hdr->flags & PDM_F_SHARED,
	};
	int ret;

	if (hdr->uuid[0] && !pdm_name_ok(hdr->uuid, sizeof(hdr->uuid))) {
		pdm_err(hdr->err, "%s: bad uuid: " PDM_NAME_RULE, hdr->name);
		return -EINVAL;
	}
	ret = pdm_dev_create(&args, text, hdr->data_len, hdr->err, &pd);
	if (ret)
		return ret;
	/* A remove may have come between: its reference keeps @pd. */
	mutex_lock(&pdm_ctl_mutex);
	if (!pd->gone)
		pdm_fill_info(pd, hdr);
	mutex_unlock(&pdm_ctl_mutex);
	pdm_dev_put(pd);
	return 0;
}

static int pdm_cmd_remove(struct pdm_dev *pd, struct pdm_ioctl *hdr,
			  char *text)
{
	if (!(hdr->flags & PDM_F_CANCEL_DEFERRED))
		return pdm_dev_remove(pd, hdr->flags & PDM_F_DEFERRED,
				      hdr->err);
	if (hdr->flags & PDM_F_DEFERRED) {
		pdm_err(hdr->err, "%s: a deferred remove and its cancel together",
			pd->name);
		return -EINVAL;
	}
	return pdm_dev_cancel_deferred(pd, hdr->err);
}

static int pdm_cmd_reload(struct pdm_dev *pd, struct pdm_ioctl *hdr,
			  char *text)
{
	return pdm_dev_reload(pd, text, hdr->data_len,
			      hdr->flags & PDM_F_READONLY, hdr->err);
}

static int pdm_cmd_suspend(struct pdm_dev *pd, struct pdm_ioctl *hdr,
			   char *text)
{
	return pdm_dev_suspend(pd, !(hdr->flags & PDM_F_NOLOCKFS), hdr->err);
}

static int pdm_cmd_resume(struct pdm_dev *pd, struct pdm_ioctl *hdr,
			  char *text)
{
	return pdm_dev_resume(pd, !(hdr->flags & PDM_F_NOLOCKFS), hdr->err);
}

static int pdm_cmd_rename(struct pdm_dev *pd, struct pdm_ioctl *hdr,
			  char *name)
{
	return pdm_dev_rename(pd, name, hdr->err);
}

static const struct pdm_cmd pdm_cmds[] = {
	{ .ioc = PDM_IOC_LIST, .kind = PDM_CMD_GLOBAL,
	  .output = pdm_output_list },
	{ .ioc = PDM_IOC_CREATE, .kind = PDM_CMD_CREATE, .named = true,
	  .takes_text = true, .run = pdm_cmd_create },
	{ .ioc = PDM_IOC_INFO, .kind = PDM_CMD_QUERY, .named = true },
	{ .ioc = PDM_IOC_TABLE, .kind = PDM_CMD_QUERY, .named = true,
	  .output = pdm_output_table },
	{ .ioc = PDM_IOC_STATUS, .kind = PDM_CMD_QUERY, .named = true,
	  .output = pdm_output_status },
	{ .ioc = PDM_IOC_REMOVE, .kind = PDM_CMD_CHANGE, .named = true,
	  .run = pdm_cmd_remove },
	{ .ioc = PDM_IOC_RELOAD, .kind = PDM_CMD_CHANGE, .named = true,
	  .takes_text = true, .run = pdm_cmd_reload },
	{ .ioc = PDM_IOC_SUSPEND, .kind = PDM_CMD_CHANGE, .named = true,
	  .run = pdm_cmd_suspend },
	{ .ioc = PDM_IOC_RESUME, .kind = PDM_CMD_CHANGE, .named = true,
	  .run = pdm_cmd_resume },
	{ .ioc = PDM_IOC_RENAME, .kind = PDM_CMD_CHANGE, .named = true,
	  .takes_name = true, .run = pdm_cmd_rename },
};

/*
 * A command that changes a device: under the device's lock, which it may
 * hold while it waits for I/O in flight, and not under pdm_ctl_mutex, so
 * that other devices' commands go on meanwhile (see struct pdm_dev).
 */
static int pdm_change_cmd(const struct pdm_cmd *c, struct pdm_dev *pd,
			  struct pdm_ioctl *hdr, char *text)
{
	int ret;

	if (mutex_lock_killable(&pd->lock)) {
		/* The caller's name: without the lock, a rename may run. */
		pdm_err(hdr->err, "%s: interrupted waiting for another command on it",
			hdr->name);
		return -EINTR;
	}
	if (pd->gone) {
		pdm_err(hdr->err, "%s: no such device", hdr->name);
		ret = -ENXIO;
		goto unlock;
	}
	ret = c->run(pd, hdr, text);
	if (!pd->gone)
		pdm_fill_info(pd, hdr);
unlock:
	mutex_unlock(&pd->lock);
	return ret;
}

static int pdm_do_cmd(const struct pdm_cmd *c, struct pdm_ioctl *hdr,
		      char *text, char **out)
{
	struct pdm_dev *pd = NULL;
	int ret = 0;

	if (c->kind == PDM_CMD_CREATE)
		return c->run(NULL, hdr, text);
	mutex_lock(&pdm_ctl_mutex);
	if (c->kind != PDM_CMD_GLOBAL) {
		pd = pdm_dev_find(hdr->name);
		if (!pd) {
			pdm_err(hdr->err, "%s: no such device", hdr->name);
			ret = -ENXIO;
			goto unlock;
		}
	}
	if (c->kind == PDM_CMD_CHANGE) {
		refcount_inc(&pd->ref);
		mutex_unlock(&pdm_ctl_mutex);
		ret = pdm_change_cmd(c, pd, hdr, text);
		pdm_dev_put(pd);
		return ret;
	}
	if (c->run)
		ret = c->run(pd, hdr, text);
	if (!ret && c->output)
		ret = pdm_make_output(hdr, pd, c->output, out);
	if (pd)
		pdm_fill_info(pd, hdr);
unlock:
	mutex_unlock(&pdm_ctl_mutex);
	return ret;
}

static long pdm_ctl_cmd(const struct pdm_cmd *c,
			struct pdm_ioctl __user *uhdr)
{
	struct pdm_ioctl hdr;
	void __user *udata;
	char *text = NULL, *out = NULL;
	unsigned int noio;
	int ret;

	if (copy_from_user(&hdr, uhdr, sizeof(hdr)))
		return -EFAULT;
	memset(hdr.err, 0, sizeof(hdr.err));
	hdr.flags &= PDM_F_IN;
	ret = -EINVAL;
	if (hdr.version[0] != PDM_ABI_MAJOR) {
		pdm_err(hdr.err, "ABI %u.x is not %u.x", hdr.version[0],
			PDM_ABI_MAJOR);
		goto reply;
	}
	if (hdr.data_size < sizeof(hdr) || hdr.data_start < sizeof(hdr) ||
	    hdr.data_start > hdr.data_size) {
		pdm_err(hdr.err, "bad data_size %u or data_start %u",
			hdr.data_size, hdr.data_start);
		goto reply;
	}
	if (c->named && !pdm_name_ok(hdr.name, sizeof(hdr.name))) {
		pdm_err(hdr.err, "bad device name: " PDM_NAME_RULE);
		goto reply;
	}
	udata = (char __user *)uhdr + hdr.data_start;

	if (c->takes_text || c->takes_name) {
		text = c->takes_text ? pdm_get_text(&hdr, udata, hdr.err) :
				       pdm_get_name(&hdr, udata, hdr.err);
		if (IS_ERR(text)) {
			ret = PTR_ERR(text);
			text = NULL;
			goto reply;
		}
	}

	/*
	 * No allocation of a command may wait for I/O: it holds
	 * pdm_ctl_mutex or a device's lock, which the resume of a
	 * suspended pdm device (that reclaim's writeback may need) waits
	 * for.  dm allocates its ioctl buffers so for the same reason.
	 */
	noio = memalloc_noio_save();
	ret = pdm_do_cmd(c, &hdr, text, &out);
	memalloc_noio_restore(noio);
	/* A created or reloaded device owns the text now. */
	if (!ret && c->takes_text)
		text = NULL;
	if (out && copy_to_user(udata, out, hdr.data_len))
		ret = -EFAULT;
reply:
	kvfree(text);
	kvfree(out);
	if (copy_to_user(uhdr, &hdr, sizeof(hdr)))
		return -EFAULT;
	return ret;
}

static long pdm_ctl_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct pdm_version ver = {
		.major = PDM_ABI_MAJOR,
		.minor = PDM_ABI_MINOR,
	};
	size_t i;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	/* The one verb without the common header. */
	if (cmd == PDM_IOC_VERSION) {
		if (copy_to_user((void __user *)arg, &ver, sizeof(ver)))
			return -EFAULT;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(pdm_cmds); i++)
		if (pdm_cmds[i].ioc == cmd)
			return pdm_ctl_cmd(&pdm_cmds[i],
					   (struct pdm_ioctl __user *)arg);
	return -ENOTTY;
}

static const struct file_operations pdm_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= pdm_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice pdm_ctl_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= PDM_CONTROL_NAME,
	.mode	= 0600,
	.fops	= &pdm_ctl_fops,
};

static int __init pdm_init(void)
{
	int ret;

	pdm_remap_cache = KMEM_CACHE(pdm_remap, 0);
	if (!pdm_remap_cache)
		return -ENOMEM;
	pdm_major = register_blkdev(0, "pdm");
	if (pdm_major < 0) {
		ret = pdm_major;
		goto destroy_cache;
	}
	ret = misc_register(&pdm_ctl_dev);
	if (ret)
		goto unregister;
	return 0;
unregister:
	unregister_blkdev(pdm_major, "pdm");
destroy_cache:
	kmem_cache_destroy(pdm_remap_cache);
	return ret;
}

/* Every device holds a module reference, so none is left here. */
static void __exit pdm_exit(void)
{
	/*
	 * A hybrid sleep's task work drops its module reference as its last
	 * act, and still has a few instructions to run in our text after
	 * it: wait until every task has left them (see pdm-hybrid.c).
	 */
	synchronize_rcu_tasks();
	pdm_dev_exit();
	misc_deregister(&pdm_ctl_dev);
	unregister_blkdev(pdm_major, "pdm");
	kmem_cache_destroy(pdm_remap_cache);
}

module_init(pdm_init);
module_exit(pdm_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_VERSION(BLKFAST_VERSION);
MODULE_DESCRIPTION("pdm: polling-capable bio-based stacking block driver");
