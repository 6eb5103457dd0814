// SPDX-License-Identifier: GPL-2.0
/*
 * Object accounting and fault injection, both under debugfs "edm/".
 *
 * Every object the module allocates on behalf of a user is counted while it
 * lives; "objects" shows the counts, so a test can prove that what it made
 * was freed, and module exit warns if anything is still counted. The
 * "fail_*" knobs make the next N creations fail through the normal error
 * path. All counters are atomics: no lock. edm_exit_wait() is module
 * exit's wait for memory that outlived its objects.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include "edm/edm.h"

struct dentry *edm_debugfs_root;

static const char * const edm_obj_names[__EDM_OBJ_CNT] = {
	[EDM_OBJ_DEV] = "dev",
	[EDM_OBJ_FABRIC] = "fabric",
	[EDM_OBJ_COWBIRD] = "cowbird",
	[EDM_OBJ_POOL] = "pool",
	[EDM_OBJ_CN] = "cn",
	[EDM_OBJ_REGION] = "region",
	[EDM_OBJ_NICPOOL] = "nicpool",
	[EDM_OBJ_SHPOOL] = "shpool",
};

static atomic_t edm_obj_live[__EDM_OBJ_CNT];
static atomic_t edm_obj_fail[__EDM_OBJ_CNT];

void edm_obj_get(enum edm_obj_kind kind)
{
	atomic_inc(&edm_obj_live[kind]);
}

void edm_obj_put(enum edm_obj_kind kind)
{
	WARN_ON_ONCE(atomic_dec_return(&edm_obj_live[kind]) < 0);
}

void edm_exit_wait(struct delayed_work *dw, bool (*scan)(bool say), unsigned int ms)
{
	unsigned long say = jiffies + 10 * HZ;

	cancel_delayed_work_sync(dw);
	while (scan(time_after(jiffies, say))) {
		if (time_after(jiffies, say))
			say = jiffies + 10 * HZ;
		msleep(ms);
	}
}

bool edm_fault_should_fail(enum edm_obj_kind kind)
{
	return atomic_dec_if_positive(&edm_obj_fail[kind]) >= 0;
}

static int edm_objects_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < __EDM_OBJ_CNT; i++)
		seq_printf(m, "%s %d\n", edm_obj_names[i], atomic_read(&edm_obj_live[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(edm_objects);

int edm_objects_init(void)
{
	char knob[32];
	int i;

	/* debugfs is optional: on failure its calls are no-ops. */
	edm_debugfs_root = debugfs_create_dir("edm", NULL);
	debugfs_create_file("objects", 0400, edm_debugfs_root, NULL, &edm_objects_fops);
	for (i = 0; i < __EDM_OBJ_CNT; i++) {
		snprintf(knob, sizeof(knob), "fail_%s_create", edm_obj_names[i]);
		debugfs_create_atomic_t(knob, 0600, edm_debugfs_root, &edm_obj_fail[i]);
	}
	return 0;
}

void edm_objects_exit(void)
{
	int i;

	debugfs_remove_recursive(edm_debugfs_root);
	for (i = 0; i < __EDM_OBJ_CNT; i++)
		WARN(atomic_read(&edm_obj_live[i]), "edm: %d %s objects leaked\n",
		     atomic_read(&edm_obj_live[i]), edm_obj_names[i]);
}
