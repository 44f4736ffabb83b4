/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * M890 DRM accel driver uAPI (Documentation/uapi.rst).
 *
 * Every struct is padded to a multiple of 8 bytes with the same layout on
 * 32- and 64-bit ABIs; every pad and unknown flag bit must be zero
 * (-EINVAL otherwise).  Sizes are __u64 bytes; user pointers are __u64.
 */
#ifndef _UAPI_M890_ACCEL_H_
#define _UAPI_M890_ACCEL_H_

#include "drm.h"
#include "m890_packets.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* ioctl numbers, relative to DRM_COMMAND_BASE; never reused. */
enum drm_m890_ioctl_nr {
	DRM_M890_QUERY = 0x00,
	DRM_M890_BO_CREATE = 0x01,
	DRM_M890_BO_INFO = 0x02,
	DRM_M890_QUEUE_CREATE = 0x03,
	DRM_M890_QUEUE_DESTROY = 0x04,
	DRM_M890_SUBMIT = 0x05,
	DRM_M890_BO_WAIT = 0x06,
	DRM_M890_FABRIC_EXPORT = 0x07,
	DRM_M890_FABRIC_REVOKE = 0x08,
	DRM_M890_FABRIC_IMPORT = 0x09,
};

/* Capability bits in drm_m890_device_info.capabilities. */
#define DRM_M890_CAP_HBM_BO		(1ull << 0)
#define DRM_M890_CAP_HOST_BO		(1ull << 1)
#define DRM_M890_CAP_TIMELINE_SYNCOBJ	(1ull << 2)
#define DRM_M890_CAP_PEER_IMPORT	(1ull << 3)	/* dma-buf P2P windows */
#define DRM_M890_CAP_FABRIC		(1ull << 4)
#define DRM_M890_CAP_TIMESTAMP		(1ull << 5)
#define DRM_M890_CAP_BO_WAIT		(1ull << 6)	/* DRM_M890_BO_WAIT, BO fences */
/* DRM_M890_FABRIC_EXPORT, _REVOKE and _IMPORT: windows across VMs */
#define DRM_M890_CAP_FABRIC_WINDOWS	(1ull << 7)
/* Spec 1.1 cards (hardware spec §3.1 CAPS): packets the driver accepts. */
#define DRM_M890_CAP_ENGINES		(1ull << 8)	/* RELAXED packets */
#define DRM_M890_CAP_ATOMICS		(1ull << 9)	/* posted fabric atomics */
#define DRM_M890_CAP_ROWS		(1ull << 10)	/* COPY_ROWS, MOE_ROUTE */
#define DRM_M890_CAP_GEMM		(1ull << 11)	/* GEMM (matrix engines) */

enum drm_m890_query_type {
	DRM_M890_QUERY_DEVICE_INFO = 1,	/* struct drm_m890_device_info */
	DRM_M890_QUERY_QUEUE_STATE = 2,	/* struct drm_m890_queue_state */
};

/**
 * struct drm_m890_query - read a description of the device.
 * @type: enum drm_m890_query_type.
 * @size: in: bytes available at @data; 0 asks for the size.  Returned: the
 *        bytes written (or needed, when the input was 0).  A buffer smaller
 *        than the structure receives a truncated copy; a larger one has its
 *        tail zeroed, so old and new userspace both work.
 * @data: user pointer to the result.
 *
 * Errors: -EINVAL unknown @type or non-zero @pad, -EFAULT bad @data.
 */
struct drm_m890_query {
	__u32 type;
	__u32 size;
	__u64 data;
	__u32 pad;
	__u32 pad2;
};

/**
 * struct drm_m890_device_info - returned by DRM_M890_QUERY_DEVICE_INFO.
 * @pci_vendor, @pci_device: PCI identity.
 * @spec_version: hardware spec version, major << 16 | minor.
 * @num_queues: hardware queues of the card.
 * @fabric_id: the card's ICN fabric id, 0xff when detached.
 * @fabric_port: switch port the card is cabled to.
 * @hbm_size: bytes of on-card HBM.
 * @va_start, @va_size: the device VA range where BOs are placed, bytes.
 * @capabilities: DRM_M890_CAP_* bits.
 * @max_submit_packets: most packets one DRM_M890_SUBMIT accepts.
 */
struct drm_m890_device_info {
	__u32 pci_vendor;
	__u32 pci_device;
	__u32 spec_version;
	__u32 num_queues;
	__u32 fabric_id;
	__u32 fabric_port;
	__u64 hbm_size;
	__u64 va_start;
	__u64 va_size;
	__u64 capabilities;
	__u32 max_submit_packets;
	__u32 pad;
};

/**
 * struct drm_m890_queue_state - returned by DRM_M890_QUERY_QUEUE_STATE.
 * @queue_id: in: a queue of this file (the query's @size must cover it).
 *            -ENOENT for an unknown queue.
 * @error: returned 0 while the queue runs, else the negative errno its
 *         failed work was signalled with (-EFAULT MMU fault, -ENOSPC
 *         a MOE_ROUTE or GEMM found an expert over its capacity, -EIO other
 *         execution error, -ETIMEDOUT job timeout, -ENODEV card removed).
 *         Every queue of a file whose context faulted reports the
 *         fault's error (-EFAULT MMU fault, -EIO bad packet).
 *         Timeline syncobj points do not keep fence errors once signalled,
 *         so this is where a sticky queue error is read.
 * @submitted_seqno: returned last seqno handed out by DRM_M890_SUBMIT.
 * @completed_seqno: returned last seqno the card completed (its fence
 *                   word); work after it did not run when @error is set.
 */
struct drm_m890_queue_state {
	__u32 queue_id;
	__s32 error;
	__u64 submitted_seqno;
	__u64 completed_seqno;
};

/* BO placement, exactly one of them in drm_m890_bo_create.flags. */
#define DRM_M890_BO_HBM		(1u << 0)	/* on-card HBM (BAR2) */
#define DRM_M890_BO_HOST	(1u << 1)	/* host memory, DMA-mapped */
#define DRM_M890_BO_FLAGS	(DRM_M890_BO_HBM | DRM_M890_BO_HOST)

/**
 * struct drm_m890_bo_create - allocate a buffer object.
 * @size: bytes, > 0; rounded up to 4 KiB (host) or 64 KiB (HBM) and
 *        returned rounded.
 *        -EINVAL for 0, -E2BIG past the VA space, -ENOMEM (host) or
 *        -ENOSPC (HBM) when memory is short, -EDQUOT (host) when the
 *        host BOs of the opener's user on this card (all its files)
 *        would pin more than the host_mb_per_user module parameter
 *        allows (MiB, default half the RAM).
 * @flags: one DRM_M890_BO_* placement.
 * @handle: returned GEM handle.
 * @va: returned device VA of the BO in this file's address space.
 * @mmap_offset: returned offset to mmap() the BO with, on this fd.
 *
 * The BO is mapped into the file's device address space before it is
 * returned and unmapped when its last reference goes.
 */
struct drm_m890_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 va;
	__u64 mmap_offset;
};

/**
 * struct drm_m890_bo_info - describe a BO by handle.
 * @handle: in, GEM handle (also an imported peer window).
 * @flags: returned DRM_M890_BO_* placement, plus DRM_M890_BO_PEER for an
 *         imported window onto another card's HBM.
 * @size: returned bytes.  @va: returned device VA.
 * @mmap_offset: returned mmap offset, 0 when the BO cannot be mapped.
 * @peer_fabric_id: returned fabric id of the owning card (peer windows).
 * @pad: must be zero.
 */
#define DRM_M890_BO_PEER	(1u << 2)
struct drm_m890_bo_info {
	__u32 handle;
	__u32 flags;
	__u64 size;
	__u64 va;
	__u64 mmap_offset;
	__u32 peer_fabric_id;
	__u32 pad;
};

/**
 * struct drm_m890_queue_create - create a hardware queue for this file.
 * @flags: must be zero.
 * @queue_id: returned id, valid only on this fd.
 * @syncobj: returned handle of a timeline syncobj; point N signals when
 *           the submission that returned seqno N completes (or fails).
 * @pad: must be zero.
 * Errors: -EBUSY when every hardware queue is taken, -EDQUOT when the
 * files of the opener's user on this card already own as many queues as
 * the queues_per_user module parameter allows (default 8).
 */
struct drm_m890_queue_create {
	__u32 flags;
	__u32 queue_id;
	__u32 syncobj;
	__u32 pad;
};

/**
 * struct drm_m890_queue_destroy - destroy a queue; its pending work is
 * cancelled and its fences signal with -ECANCELED.  The syncobj stays.
 */
struct drm_m890_queue_destroy {
	__u32 queue_id;
	__u32 pad;
};

/**
 * struct drm_m890_submit - append packets to a queue.
 * @queue_id: from DRM_M890_QUEUE_CREATE.
 * @count: packets at @packets, 1..max_submit_packets.
 * @packets: user pointer to @count union m890_packet (64 bytes each).
 *           Opcodes NOP..MX_DEQUANT; FENCE and reserved opcodes are
 *           refused with -EINVAL, as are non-zero reserved fields.
 * @flags: must be zero.
 * @pad: must be zero.
 * @seqno: returned sequence number: the point on the queue's timeline
 *         syncobj that signals when these packets have executed.  An
 *         execution error signals the point with an error (-EIO, -EFAULT
 *         for an MMU fault) and stops the queue; an MMU fault or a bad
 *         packet also stops every other queue of the file (their pending
 *         points signal with -ECANCELED, see Documentation/uapi.rst).
 * The submission's fence is added, as a write, to the reservation object
 * (dma_resv) of every BO the file holds a handle to when it submits, so
 * DRM_M890_BO_WAIT and dma-buf implicit synchronisation see the job.
 *
 * Errors: -ENOENT unknown queue, -EIO the file's context faulted (see
 * @seqno), or the queue stopped on an earlier error or the device was
 * reset, -EAGAIN the ring stayed full for the
 * driver's timeout.
 */
struct drm_m890_submit {
	__u32 queue_id;
	__u32 count;
	__u64 packets;
	__u32 flags;
	__u32 pad;
	__u64 seqno;
};

/**
 * struct drm_m890_bo_wait - wait until the jobs using a BO have finished.
 * @handle: in, GEM handle of this file.
 * @flags: must be zero.
 * @timeout_ns: in, absolute CLOCK_MONOTONIC time in ns at which to give
 *              up (absolute, so a restarted wait does not extend it); a
 *              time in the past polls.
 *
 * Waits for every fence on the BO's reservation: each submission made
 * while the file held the handle, on any of its queues.  A job that
 * failed still counts as finished; its error is in the queue state.
 *
 * Return: 0 idle, -ETIME still busy at @timeout_ns, -ENOENT unknown
 * handle, -EINVAL non-zero @flags, -ERESTARTSYS/-EINTR on a signal.
 */
struct drm_m890_bo_wait {
	__u32 handle;
	__u32 flags;
	__s64 timeout_ns;
};

/**
 * struct drm_m890_fabric_export - offer an HBM BO to cards in other VMs.
 * @handle: in, GEM handle of an HBM BO of this file.
 * @flags: in, 0 (the driver picks an unguessable random key) or
 *         DRM_M890_EXPORT_KEY (use @key as given, e.g. one derived from a
 *         random communicator id; needs CAP_SYS_ADMIN).
 * @key: in with DRM_M890_EXPORT_KEY (non-zero), else out: the key a peer
 *       presents to DRM_M890_FABRIC_IMPORT.  It is the only credential an
 *       importer needs (in the same partition): keep it secret.
 * @fabric_id: out, this card's fabric id (hardware spec §8.1).
 * @slot: out, the switch's export slot (§8.7), for diagnostics.
 *
 * The whole BO is exported; it stays exported until DRM_M890_FABRIC_REVOKE
 * or until the BO is freed.  A BO is exported at most once.
 *
 * Errors: -ENOENT unknown handle, -EINVAL not an HBM BO, bad @flags or a
 * zero key, -EPERM DRM_M890_EXPORT_KEY without CAP_SYS_ADMIN, -EEXIST
 * already exported or key in use on this card, -ENOSPC
 * no free export slot, -ENODEV card not on a switch.
 */
#define DRM_M890_EXPORT_KEY		(1u << 0)
struct drm_m890_fabric_export {
	__u32 handle;
	__u32 flags;
	__u64 key;
	__u32 fabric_id;
	__u32 slot;
};

/**
 * struct drm_m890_fabric_revoke - withdraw an export.
 * @handle: in, the exported BO.
 * @flags: must be zero.
 *
 * Windows opened on the export stop working at once: accesses through
 * them fault with M890_FAULT_FABRIC.  Errors: -ENOENT unknown handle or
 * BO not exported, -EINVAL non-zero @flags.
 */
struct drm_m890_fabric_revoke {
	__u32 handle;
	__u32 flags;
};

/**
 * struct drm_m890_fabric_import - open a window into another card's export.
 * @fabric_id: in, fabric id of the owning card (any VM on the switch).
 * @flags: must be zero.
 * @key: in, the export's key.
 * @handle: out, GEM handle of the window (BO_INFO reports
 *          DRM_M890_BO_PEER); closing it closes the window.
 * @pad: must be zero.
 * @size: out, bytes of the window (the whole export).
 * @va: out, the window's device VA in this file's context, mapped with
 *      peer PTEs (spec §5.3).
 *
 * Errors: -ENOENT no export with @key on that card, -EPERM the cards are
 * in different partitions, -ENOLINK a port on the path is not up,
 * -EINVAL bad @fabric_id, @flags or @pad, -ENODEV card not on a switch,
 * -ENOMEM no VA space.
 */
struct drm_m890_fabric_import {
	__u32 fabric_id;
	__u32 flags;
	__u64 key;
	__u32 handle;
	__u32 pad;
	__u64 size;
	__u64 va;
};

#define DRM_IOCTL_M890_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_QUERY, struct drm_m890_query)
#define DRM_IOCTL_M890_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_BO_CREATE, struct drm_m890_bo_create)
#define DRM_IOCTL_M890_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_BO_INFO, struct drm_m890_bo_info)
#define DRM_IOCTL_M890_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_QUEUE_CREATE, struct drm_m890_queue_create)
#define DRM_IOCTL_M890_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_M890_QUEUE_DESTROY, struct drm_m890_queue_destroy)
#define DRM_IOCTL_M890_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_SUBMIT, struct drm_m890_submit)
#define DRM_IOCTL_M890_BO_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_M890_BO_WAIT, struct drm_m890_bo_wait)
#define DRM_IOCTL_M890_FABRIC_EXPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_FABRIC_EXPORT, struct drm_m890_fabric_export)
#define DRM_IOCTL_M890_FABRIC_REVOKE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_M890_FABRIC_REVOKE, struct drm_m890_fabric_revoke)
#define DRM_IOCTL_M890_FABRIC_IMPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_M890_FABRIC_IMPORT, struct drm_m890_fabric_import)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_M890_ACCEL_H_ */
