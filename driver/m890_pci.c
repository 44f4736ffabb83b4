// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: PCI probe and removal
 *
 * Probe maps BAR0, records BAR2 (HBM) for mmap, resets the card, sets up
 * the device MMU context table, requests MSI-X vectors (vector 0 for
 * events, then up to one per queue; fewer when the system runs short, and
 * queues then share them: m890_irq_init()), and registers the DRM accel
 * device.  The event vector is a threaded interrupt, as ivpu's is: its
 * hard handler acknowledges and wakes the thread, which handles queue
 * errors and MMU faults; FENCE completions stay in hard interrupt (they
 * only signal fences).  Removal calls drm_dev_unplug() first: from then on every
 * path that touches the hardware fails its drm_dev_enter() and skips the
 * MMIO, so clients that keep the device open are safe; their pending
 * fences are signalled with -ENODEV.
 *
 * A device reset (m890_device_reset(), the debugfs "force_reset" file)
 * stops every queue of every client: their pending fences signal with
 * -EIO and the queues stay stopped (submit returns -EIO, the queue-state
 * query reports -EIO).  Contexts, BOs and their mappings survive, so the
 * clients go on with new queues.  A PCIe function level reset (FLR) goes
 * the same way through the &pci_error_handlers reset_prepare/reset_done
 * pair.
 *
 * A reset the driver did not ask for -- an FLR started by a write of the
 * FLR bit of the card's PCIe DEVCTL that bypasses the PCI core (from the
 * guest, or by the card's own DMA into config space), or a reset of the
 * card itself -- is noticed by m890_reset_check(): an FLR clears the
 * memory and bus-master bits of PCI_COMMAND (and the BARs), and any reset
 * of the card clears SCRATCH, where the driver keeps a marker.  The job
 * timeout's periodic check and queue creation call it; when the card lost
 * its state, the driver restores the config space saved at probe
 * (pci_save_state(), BARs and MSI-X included), resets the card and runs
 * the same recovery as m890_device_reset(): pending work fails with -EIO.
 */

#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "m890_drv.h"
#include "m890_debugfs.h"
#include "m890_fabric.h"
#include "m890_fence.h"
#include "m890_gem.h"
#include "m890_limits.h"
#include "m890_mmu.h"
#include "m890_p2p.h"
#include "m890_pci.h"
#include "m890_queue.h"
#include "m890_xvm.h"

#define M890_READY_TIMEOUT_US	100000
/* Kept in SCRATCH while the card holds the driver's setup ("M890"). */
#define M890_SCRATCH_ALIVE	0x4d383930

/*
 * Wait until the card reports READY after a reset: 0, -ETIMEDOUT, or -EIO
 * when it reports FATAL.
 */
static int m890_wait_ready(struct m890_device *mdev)
{
	u32 status;
	int ret;

	ret = read_poll_timeout(m890_rd, status,
				status & (M890_STATUS_READY | M890_STATUS_FATAL),
				10, M890_READY_TIMEOUT_US, false, mdev, M890_REG_STATUS);
	if (ret)
		return ret;
	return status & M890_STATUS_FATAL ? -EIO : 0;
}

/**
 * m890_hw_reset() - write CONTROL.RESET and wait until the card is ready.
 * @mdev: device.
 *
 * Return: 0, -ETIMEDOUT, or -EIO when the card reports FATAL.
 */
int m890_hw_reset(struct m890_device *mdev)
{
	m890_wr(mdev, M890_REG_CONTROL, M890_CONTROL_RESET);
	return m890_wait_ready(mdev);
}

/* Stop (@on false) or resume the card's interrupt handlers. */
static void m890_irqs_enable(struct m890_device *mdev, bool on)
{
	struct pci_dev *pdev = mdev->pdev;
	u32 v;

	for (v = M890_MSIX_VEC_EVENT; v < mdev->num_vec; v++) {
		if (on)
			enable_irq(pci_irq_vector(pdev, v));
		else
			disable_irq(pci_irq_vector(pdev, v));
	}
}

/**
 * m890_reset_prepare() - quiesce the driver before the card is reset.
 * @mdev: device.
 *
 * Takes @mdev->reset_sem for writing (no queue is programmed and no job is
 * pushed until m890_reset_done()) and the switch window lock, and stops
 * the interrupt handlers, which would read the card mid-reset.
 * Context: process.
 */
void m890_reset_prepare(struct m890_device *mdev)
{
	down_write(&mdev->reset_sem);
	mutex_lock(&mdev->sw_lock);
	m890_irqs_enable(mdev, false);
}

/**
 * m890_reset_done() - bring the card back after a reset.
 * @mdev: device prepared with m890_reset_prepare() and now reset.
 * @ret: 0 if the reset itself succeeded, else its error.
 *
 * Points the MMU at the context table again (every live context keeps its
 * ASID and page tables, which live in host memory), unmasks events and
 * fails the work of every queue with -EIO: the card will not finish it.
 * Those queues stay stopped with -EIO; new queues work.
 * Return: @ret.
 */
int m890_reset_done(struct m890_device *mdev, int ret)
{
	if (!ret) {
		m890_mmu_hw_enable(mdev);
		m890_wr(mdev, M890_REG_EVT_STATUS, ~0u);
		m890_wr(mdev, M890_REG_EVT_MASK, 0);
		m890_wr(mdev, M890_REG_SCRATCH, M890_SCRATCH_ALIVE);
	}
	m890_irqs_enable(mdev, true);
	mutex_unlock(&mdev->sw_lock);
	/* The card makes no more progress on old work: fail what is left. */
	m890_queues_reset(mdev);
	atomic_inc(&mdev->reset_count);
	up_write(&mdev->reset_sem);
	if (ret)
		drm_err(&mdev->drm, "device reset failed: %d\n", ret);
	else
		drm_info(&mdev->drm, "device reset\n");
	return ret;
}

/**
 * m890_device_reset() - reset the card under running clients.
 * @mdev: device.
 *
 * Every in-flight job of every client fails with -EIO and its queue stops;
 * the MMU and the event interrupt are set up again, so new queues work.
 * Context: process; takes @mdev->reset_sem for writing.
 * Return: 0, -ENODEV if the card is gone, or the error of the reset.
 */
int m890_device_reset(struct m890_device *mdev)
{
	int idx, ret;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return -ENODEV;
	m890_reset_prepare(mdev);
	ret = m890_reset_done(mdev, m890_hw_reset(mdev));
	drm_dev_exit(idx);
	return ret;
}

/* Undo m890_reset_prepare() when there is nothing to reset after all. */
static void m890_reset_cancel(struct m890_device *mdev)
{
	m890_irqs_enable(mdev, true);
	mutex_unlock(&mdev->sw_lock);
	up_write(&mdev->reset_sem);
}

/*
 * Whether the card lost the driver's setup without the driver resetting
 * it: an FLR clears PCI_COMMAND's memory and bus-master bits, a reset of
 * the card clears SCRATCH.  A function that does not answer config reads
 * (all ones: removed, or still in its reset) is left alone; removal has
 * its own path and a later check finds a function back from its reset.
 */
static bool m890_lost_state(struct m890_device *mdev)
{
	const u16 need = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	u16 cmd;

	if (pci_read_config_word(mdev->pdev, PCI_COMMAND, &cmd) || cmd == 0xffff)
		return false;
	if ((cmd & need) != need)
		return true;
	return m890_rd(mdev, M890_REG_SCRATCH) != M890_SCRATCH_ALIVE;
}

/*
 * Put back the config space saved at probe (BARs, command, MSI-X) after
 * an FLR nobody told the PCI core about, and save it again for the next
 * time (pci_restore_state() uses the saved copy up).
 */
static void m890_restore_config(struct m890_device *mdev)
{
	pci_restore_state(mdev->pdev);
	pci_save_state(mdev->pdev);
}

/**
 * m890_reset_check() - recover a card that was reset behind the driver.
 * @mdev: device.
 *
 * When the card lost its setup (see m890_lost_state()), restores its
 * config space, resets it and recovers as m890_device_reset() does: every
 * pending job of every client fails with -EIO and its queue stops; new
 * queues work.  Several callers may notice the same reset; one recovers.
 * Context: process; may take @mdev->reset_sem for writing.
 * Return: true if a recovery ran.
 */
bool m890_reset_check(struct m890_device *mdev)
{
	bool lost;
	int idx;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return false;
	lost = m890_lost_state(mdev);
	if (lost) {
		m890_reset_prepare(mdev);
		/* Someone else may have recovered it meanwhile. */
		lost = m890_lost_state(mdev);
		if (lost) {
			dev_warn_ratelimited(&mdev->pdev->dev,
					     "card was reset behind the driver (FLR or card reset): recovering\n");
			m890_restore_config(mdev);
			m890_reset_done(mdev, m890_hw_reset(mdev));
		} else {
			m890_reset_cancel(mdev);
		}
	}
	drm_dev_exit(idx);
	return lost;
}

/*
 * Hard interrupt of the event vector: acknowledge the events, note the
 * stopped queues for the thread and wake it; a fabric event only records
 * SW_EVENT and schedules its work.
 */
static irqreturn_t m890_event_irq(int irq, void *arg)
{
	struct m890_device *mdev = arg;
	irqreturn_t ret = IRQ_HANDLED;
	u64 qerr;
	u32 evt;

	evt = m890_rd(mdev, M890_REG_EVT_STATUS);
	/* All ones: the card does not answer (reset or surprise removal). */
	if (!evt || evt == ~0u)
		return IRQ_NONE;
	m890_wr(mdev, M890_REG_EVT_STATUS, evt);

	if (evt & (M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT)) {
		qerr = m890_rd64(mdev, M890_REG_QERR_STATUS);
		m890_wr64(mdev, M890_REG_QERR_STATUS, qerr);
		if (qerr) {
			atomic64_or(qerr, &mdev->qerr_pending);
			ret = IRQ_WAKE_THREAD;
		}
	}
	if (evt & M890_EVT_FABRIC)
		m890_fabric_event(mdev);
	return ret;
}

/*
 * Thread of the event vector: fail the work of each stopped queue, stop
 * the other queues of a faulting context and log (m890_queue_hw_error()),
 * in process context rather than with interrupts off.
 */
static irqreturn_t m890_event_thread(int irq, void *arg)
{
	struct m890_device *mdev = arg;
	u64 qerr = atomic64_xchg(&mdev->qerr_pending, 0);
	u32 q;

	for (q = 0; q < mdev->num_queues; q++)
		if (qerr & BIT_ULL(q))
			m890_queue_hw_error(mdev, q);
	return IRQ_HANDLED;
}

static unsigned int m890_max_vectors;
module_param_named(max_vectors, m890_max_vectors, uint, 0444);
MODULE_PARM_DESC(max_vectors,
		 "MSI-X vectors a card asks for at most (0: one for events and one per online CPU, up to one per queue; 1: one vector shared by events and every queue)");

/* Vector 0 alone serves events and every queue (m890_irq_init()). */
static irqreturn_t m890_shared_irq(int irq, void *arg)
{
	struct m890_device *mdev = arg;
	irqreturn_t ret = m890_event_irq(irq, mdev);

	m890_queue_irq(irq, &mdev->irq_ctx[0]);
	return ret == IRQ_WAKE_THREAD ? ret : IRQ_HANDLED;
}

static void m890_irq_fini(struct m890_device *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	u32 v;

	for (v = 0; v < mdev->num_qvec && mdev->qvec_base; v++)
		free_irq(pci_irq_vector(pdev, mdev->qvec_base + v), &mdev->irq_ctx[v]);
	free_irq(pci_irq_vector(pdev, M890_MSIX_VEC_EVENT), mdev);
	pci_free_irq_vectors(pdev);
}

/*
 * How many MSI-X vectors to ask for: one for events and one per online
 * CPU, up to one per hardware queue, as NVMe drivers size their I/O
 * queues; more vectors than CPUs completes no faster, and 64 cards with
 * one vector per queue would use up the CPUs' interrupt vectors.
 */
static u32 m890_irq_want(struct m890_device *mdev)
{
	u32 want = M890_MSIX_VEC_QUEUE0 +
		   min3(mdev->num_queues, (u32)M890_MAX_QVEC, num_online_cpus());

	if (m890_max_vectors)
		want = min(want, m890_max_vectors);
	return want;
}

/* Queue q completes on vector qvec_base + q % num_qvec. */
static int m890_irq_request(struct m890_device *mdev, int nvec)
{
	struct pci_dev *pdev = mdev->pdev;
	u32 v;
	int ret;

	mdev->irq_ctx[0].mdev = mdev;
	mdev->irq_ctx[0].q = 0;
	if (nvec == 1) {
		mdev->qvec_base = M890_MSIX_VEC_EVENT;
		mdev->num_qvec = 1;
		return request_threaded_irq(pci_irq_vector(pdev, M890_MSIX_VEC_EVENT),
					    m890_shared_irq, m890_event_thread, 0,
					    M890_DRIVER_NAME, mdev);
	}
	ret = request_threaded_irq(pci_irq_vector(pdev, M890_MSIX_VEC_EVENT), m890_event_irq,
				   m890_event_thread, 0, M890_DRIVER_NAME, mdev);
	if (ret)
		return ret;
	mdev->qvec_base = M890_MSIX_VEC_QUEUE0;
	for (v = 0; v < nvec - M890_MSIX_VEC_QUEUE0; v++) {
		mdev->irq_ctx[v].mdev = mdev;
		mdev->irq_ctx[v].q = v;
		ret = request_irq(pci_irq_vector(pdev, M890_MSIX_VEC_QUEUE0 + v),
				  m890_queue_irq, 0, M890_DRIVER_NAME, &mdev->irq_ctx[v]);
		if (ret)
			break;
	}
	if (!v) {
		free_irq(pci_irq_vector(pdev, M890_MSIX_VEC_EVENT), mdev);
		return ret;
	}
	mdev->num_qvec = v;
	return 0;
}

/*
 * Vector 0 for events and up to one vector per queue (m890_irq_want()).
 * The vectors are a shared resource of the whole system: when the
 * allocation fails (-ENOSPC once the CPUs' vectors are taken), ask for
 * half as many, down to a single vector that serves events and every
 * queue.  Sharing costs a scan of the queues that share a vector on each
 * interrupt; nothing is lost.
 */
static int m890_irq_init(struct m890_device *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	u32 want = m890_irq_want(mdev);
	int nvec = -ENOSPC, ret;

	for (; want; want /= 2) {
		nvec = pci_alloc_irq_vectors(pdev, want, want, PCI_IRQ_MSIX);
		if (nvec > 0)
			break;
	}
	if (nvec < 0) {
		dev_err(&pdev->dev, "no MSI-X vector: %d\n", nvec);
		return nvec;
	}
	ret = m890_irq_request(mdev, nvec);
	if (ret) {
		pci_free_irq_vectors(pdev);
		dev_err(&pdev->dev, "cannot request its interrupt: %d\n", ret);
		return ret;
	}
	mdev->num_vec = mdev->qvec_base + mdev->num_qvec;
	if (mdev->num_qvec < mdev->num_queues)
		drm_dbg_driver(&mdev->drm, "%u queues share %u interrupt vectors\n",
			       mdev->num_queues, mdev->num_qvec);
	return 0;
}

static int m890_read_config(struct m890_device *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	u32 fabric;

	if (m890_rd(mdev, M890_REG_ID) != M890_ID_MAGIC) {
		dev_err(&pdev->dev, "bad ID register\n");
		return -ENODEV;
	}
	/* a driver for 1.x takes any minor: new minors announce their features in CAPS */
	mdev->version = m890_rd(mdev, M890_REG_VERSION);
	if (M890_SPEC_MAJOR(mdev->version) != M890_SPEC_MAJOR(M890_SPEC_VERSION)) {
		dev_err(&pdev->dev, "unsupported spec version %u.%u\n",
			M890_SPEC_MAJOR(mdev->version), M890_SPEC_MINOR(mdev->version));
		return -ENODEV;
	}
	mdev->caps = m890_rd(mdev, M890_REG_CAPS);
	mdev->num_queues = m890_rd(mdev, M890_REG_NUM_QUEUES);
	if (!mdev->num_queues || mdev->num_queues > M890_MAX_QUEUES) {
		dev_err(&pdev->dev, "bad queue count %u\n", mdev->num_queues);
		return -ENODEV;
	}
	mdev->hbm_size = m890_rd64(mdev, M890_REG_HBM_SIZE);
	/*
	 * A BAR the PCI core could not place (the bridge window is too
	 * small) has length 0: the card's HBM is then out of the CPU's reach.
	 */
	if (!pci_resource_len(pdev, M890_BAR_HBM)) {
		dev_err(&pdev->dev, "BAR %d (HBM, %llu MiB) not assigned: no room in the host bridge's 64-bit window\n",
			M890_BAR_HBM, mdev->hbm_size >> 20);
		return -ENOSPC;
	}
	if (mdev->hbm_size > pci_resource_len(pdev, M890_BAR_HBM))
		mdev->hbm_size = pci_resource_len(pdev, M890_BAR_HBM);
	mdev->hbm_phys = pci_resource_start(pdev, M890_BAR_HBM);

	fabric = m890_rd(mdev, M890_REG_FABRIC);
	mdev->fabric_id = fabric & M890_FABRIC_ID_MASK;
	mdev->fabric_port = (fabric & M890_FABRIC_PORT_MASK) >> M890_FABRIC_PORT_SHIFT;
	if (!(mdev->caps & M890_HWCAP_FABRIC) || mdev->fabric_id >= M890_SW_PORTS)
		mdev->fabric_id = M890_FABRIC_ID_NONE;
	return 0;
}

static void m890_drm_release(struct drm_device *dev, void *res)
{
	struct m890_device *mdev = to_m890(dev);

	m890_hbm_fini(mdev);
	ida_destroy(&mdev->asid_ida);
	m890_limits_fini(mdev);
}

/* Enable the function, map BAR0, read the card's setup and reset it. */
static int m890_pci_init(struct m890_device *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(M890_DMA_ADDR_BITS));
	if (ret)
		return ret;

	ret = pcim_iomap_regions(pdev, BIT(M890_BAR_REGS), M890_DRIVER_NAME);
	if (ret)
		return ret;
	mdev->regs = pcim_iomap_table(pdev)[M890_BAR_REGS];
	if (pci_resource_len(pdev, M890_BAR_REGS) < M890_REGS_SIZE)
		return -ENODEV;

	ret = m890_read_config(mdev);
	if (ret)
		return ret;
	ret = m890_hw_reset(mdev);
	if (ret) {
		dev_err(&pdev->dev, "reset failed: %d\n", ret);
		return ret;
	}
	return 0;
}

static int m890_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct m890_device *mdev;
	int ret;

	mdev = devm_drm_dev_alloc(&pdev->dev, &m890_drm_driver, struct m890_device, drm);
	if (IS_ERR(mdev))
		return PTR_ERR(mdev);
	mdev->pdev = pdev;
	pci_set_drvdata(pdev, mdev);

	mutex_init(&mdev->hbm_lock);
	mutex_init(&mdev->mmu_lock);
	mutex_init(&mdev->queue_lock);
	mutex_init(&mdev->files_lock);
	mutex_init(&mdev->sw_lock);
	mutex_init(&mdev->xvm_lock);
	spin_lock_init(&mdev->hwq_lock);
	init_rwsem(&mdev->reset_sem);
	INIT_LIST_HEAD(&mdev->files);
	INIT_LIST_HEAD(&mdev->fabric_link);
	INIT_LIST_HEAD(&mdev->xvm_windows);
	INIT_LIST_HEAD(&mdev->xvm_local);
	INIT_WORK(&mdev->fabric_work, m890_fabric_work);
	ida_init(&mdev->asid_ida);
	xa_init(&mdev->users);

	ret = m890_pci_init(mdev);
	if (ret)
		return ret;

	m890_hbm_init(mdev);
	ret = drmm_add_action(&mdev->drm, m890_drm_release, NULL);
	if (ret) {
		m890_drm_release(&mdev->drm, NULL);
		return ret;
	}

	ret = m890_mmu_hw_init(mdev);
	if (ret)
		return ret;

	ret = m890_irq_init(mdev);
	if (ret)
		goto err_mmu;

	m890_wr(mdev, M890_REG_EVT_STATUS, ~0u);
	m890_wr(mdev, M890_REG_EVT_MASK, 0);
	m890_wr(mdev, M890_REG_SCRATCH, M890_SCRATCH_ALIVE);
	/* For m890_reset_check(): the setup a reset behind us takes away. */
	pci_save_state(pdev);

	m890_debugfs_init(mdev);
	m890_xvm_init(mdev);

	ret = drm_dev_register(&mdev->drm, 0);
	if (ret)
		goto err_irq;

	m890_fabric_add(mdev);
	drm_info(&mdev->drm, "%u queues, %llu MiB HBM, fabric id %u\n",
		 mdev->num_queues, mdev->hbm_size >> 20, mdev->fabric_id);
	return 0;

err_irq:
	m890_wr(mdev, M890_REG_EVT_MASK, ~0u);
	m890_irq_fini(mdev);
	cancel_work_sync(&mdev->fabric_work);
err_mmu:
	m890_mmu_hw_fini(mdev);
	return ret;
}

static void m890_remove(struct pci_dev *pdev)
{
	struct m890_device *mdev = pci_get_drvdata(pdev);

	m890_xvm_fini(mdev);
	m890_fabric_remove(mdev);
	drm_dev_unplug(&mdev->drm);
	/* Fresh instances reuse this HBM: other cards' windows into it go. */
	m890_p2p_revoke(mdev);

	/*
	 * No ioctl, netlink request or file close reaches the hardware from
	 * here on: stop the card, then fail the work it will never finish.
	 */
	m890_wr(mdev, M890_REG_EVT_MASK, ~0u);
	m890_mmu_hw_fini(mdev);
	m890_hw_reset(mdev);
	m890_irq_fini(mdev);
	cancel_work_sync(&mdev->fabric_work);
	m890_queues_unplug(mdev);
}

/*
 * PCIe function level reset (sysfs "reset", or a reset of the slot): the
 * PCI core saves and restores config space, MSI-X included, around it.
 * The driver quiesces as for m890_device_reset() and, once the function is
 * back, waits for the card to report READY and sets it up again.
 */
static void m890_pci_reset_prepare(struct pci_dev *pdev)
{
	struct m890_device *mdev = pci_get_drvdata(pdev);

	m890_reset_prepare(mdev);
}

static void m890_pci_reset_done(struct pci_dev *pdev)
{
	struct m890_device *mdev = pci_get_drvdata(pdev);
	int ret = m890_wait_ready(mdev);

	/* The PCI core used up its saved state: keep one for m890_reset_check(). */
	pci_save_state(pdev);
	m890_reset_done(mdev, ret);
}

static const struct pci_error_handlers m890_pci_err_handlers = {
	.reset_prepare = m890_pci_reset_prepare,
	.reset_done = m890_pci_reset_done,
};

static const struct pci_device_id m890_pci_ids[] = {
	{ PCI_DEVICE(M890_PCI_VENDOR_ID, M890_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, m890_pci_ids);

static struct pci_driver m890_pci_driver = {
	.name = M890_DRIVER_NAME,
	.id_table = m890_pci_ids,
	.probe = m890_probe,
	.remove = m890_remove,
	.err_handler = &m890_pci_err_handlers,
};

int m890_pci_register(void)
{
	return pci_register_driver(&m890_pci_driver);
}

void m890_pci_unregister(void)
{
	pci_unregister_driver(&m890_pci_driver);
}
