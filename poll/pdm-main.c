// SPDX-License-Identifier: GPL-2.0
/*
 * pdm: a bio-based stacking block driver with io_uring IOPOLL support.
 *
 * This file holds the module's entry points and the control device.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <uapi/linux/pdm.h>

static long pdm_ctl_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct pdm_version ver = {
		.major = PDM_ABI_MAJOR,
		.minor = PDM_ABI_MINOR,
	};

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	switch (cmd) {
	case PDM_IOC_VERSION:
		if (copy_to_user((void __user *)arg, &ver, sizeof(ver)))
			return -EFAULT;
		return 0;
	default:
		return -ENOTTY;
	}
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
	return misc_register(&pdm_ctl_dev);
}

static void __exit pdm_exit(void)
{
	misc_deregister(&pdm_ctl_dev);
}

module_init(pdm_init);
module_exit(pdm_exit);

MODULE_AUTHOR("blkfast");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pdm: polling-capable bio-based stacking block driver");
