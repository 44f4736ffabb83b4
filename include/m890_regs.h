/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * M890 hardware register map, MMU formats and fabric management window.
 *
 * One header for the device model (qemu-device/), the driver (driver/) and
 * the qtests (tests/qtest/).  It implements Documentation/hardware-spec.rst,
 * whose section numbers are quoted as "spec §N".  All registers are
 * little-endian; 64-bit registers may be accessed as one 8-byte access or as
 * two 4-byte accesses (low half first).  Packet formats are in
 * uapi/drm/m890_packets.h because userspace builds packets.
 */
#ifndef M890_REGS_H
#define M890_REGS_H

/* spec §2: PCI identity */
#define M890_PCI_VENDOR_ID		0x1d89
#define M890_PCI_DEVICE_ID		0x0890
#define M890_PCI_REVISION		0x01
#define M890_PCI_CLASS			0x1200	/* processing accelerator */
#define M890_PCI_SUBSYS_VENDOR_ID	0x1d89
#define M890_PCI_SUBSYS_ID		0x0890

/* spec §2: BARs */
#define M890_BAR_REGS			0	/* 1 MiB, 64-bit MMIO */
#define M890_BAR_HBM			2	/* HBM, 64-bit prefetchable */
#define M890_BAR_MSIX			4	/* MSI-X table and PBA */
#define M890_REGS_SIZE			0x100000

/* spec §3.1: identification and global control (offsets in BAR0) */
#define M890_REG_ID			0x0000	/* RO: M890_ID_MAGIC */
#define  M890_ID_MAGIC			0x4d383930	/* "M890" */
#define M890_REG_VERSION		0x0004	/* RO: major << 16 | minor */
#define  M890_SPEC_VERSION		0x00010001	/* 1.1 */
#define  M890_SPEC_VERSION_1_0		0x00010000	/* a 1.0 card */
#define  M890_SPEC_MAJOR(v)		((v) >> 16)
#define  M890_SPEC_MINOR(v)		((v) & 0xffff)
#define M890_REG_CAPS			0x0008	/* RO: M890_HWCAP_* */
#define  M890_HWCAP_MMU			(1u << 0)
#define  M890_HWCAP_FABRIC		(1u << 1)
#define  M890_HWCAP_TIMESTAMP		(1u << 2)
#define  M890_HWCAP_GATHER		(1u << 3)	/* GATHER/SCATTER */
#define  M890_HWCAP_REDUCE		(1u << 4)
#define  M890_HWCAP_MX			(1u << 5)	/* MX_QUANT/DEQUANT */
#define  M890_HWCAP_ENGINES		(1u << 6)	/* 1.1: NUM_ENGINES, RELAXED */
#define  M890_HWCAP_ATOMICS		(1u << 7)	/* 1.1: posted fabric atomics */
#define  M890_HWCAP_ROWS		(1u << 8)	/* 1.1: COPY_ROWS, MOE_ROUTE */
#define  M890_HWCAP_GEMM		(1u << 9)	/* 1.1: GEMM, matrix engines */
#define M890_REG_NUM_QUEUES		0x000c	/* RO: 1..M890_MAX_QUEUES */
#define M890_REG_HBM_SIZE		0x0010	/* RO 64: bytes of HBM (BAR2) */
#define M890_REG_FABRIC			0x0018	/* RO: see M890_FABRIC_* */
#define  M890_FABRIC_ID_MASK		0x000000ffu	/* 0xff: detached */
#define  M890_FABRIC_PORT_SHIFT		8
#define  M890_FABRIC_PORT_MASK		0x0000ff00u
#define  M890_FABRIC_LINK_UP		(1u << 16)
#define  M890_FABRIC_ID_NONE		0xff
#define M890_REG_STATUS			0x001c	/* RO */
#define  M890_STATUS_READY		(1u << 0)
#define  M890_STATUS_FATAL		(1u << 1)
#define M890_REG_CONTROL		0x0020	/* WO */
#define  M890_CONTROL_RESET		(1u << 0)	/* device reset */
#define M890_REG_SCRATCH		0x0024	/* RW, reset to 0 */
#define M890_REG_CLOCK			0x0028	/* RO 64: modelled clock, ns */
#define M890_REG_NUM_CTX		0x0030	/* RO: ASIDs supported */
#define M890_REG_NUM_ENGINES		0x0034	/* RO: data movers (CAPS.ENGINES), 0 without */
#define  M890_MAX_ENGINES		16
#define M890_REG_EVT_STATUS		0x0040	/* RW1C: M890_EVT_* */
#define M890_REG_EVT_MASK		0x0044	/* RW: 1 = masked */
#define  M890_EVT_MMU_FAULT		(1u << 0)
#define  M890_EVT_QUEUE_ERROR		(1u << 1)
#define  M890_EVT_FABRIC		(1u << 2)
#define M890_REG_QERR_STATUS		0x0048	/* RW1C: bit q = queue q error */
#define M890_REG_QERR_STATUS_HI		0x004c

/* spec §6: MSI-X vectors */
#define M890_MSIX_VEC_EVENT		0	/* faults, queue errors, fabric */
#define M890_MSIX_VEC_QUEUE0		1	/* queue q uses Q_MSIX_VECTOR */
#define M890_MSIX_VECTORS		(M890_MSIX_VEC_QUEUE0 + M890_MAX_QUEUES)

/* spec §5: device MMU */
#define M890_REG_MMU_CTX_BASE		0x1000	/* RW 64: DMA addr, 4 KiB aligned */
#define M890_REG_MMU_CTX_COUNT		0x1008	/* RW: entries, <= NUM_CTX */
#define M890_REG_MMU_CONTROL		0x100c	/* RW */
#define  M890_MMU_CONTROL_ENABLE	(1u << 0)
#define M890_REG_MMU_INVALIDATE		0x1010	/* WO: M890_MMU_INV_* */
#define  M890_MMU_INV_ASID_MASK		0x0000ffffu
#define  M890_MMU_INV_ALL		(1u << 31)
#define M890_REG_MMU_FAULT_ADDR		0x1020	/* RO 64: faulting VA */
#define M890_REG_MMU_FAULT_INFO		0x1028	/* RO: M890_FAULT_* */
#define  M890_FAULT_ASID_MASK		0x0000ffffu
#define  M890_FAULT_REASON_SHIFT	16
#define  M890_FAULT_REASON_MASK		0x00ff0000u
#define  M890_FAULT_WRITE		(1u << 24)	/* 0: read */
#define  M890_FAULT_QUEUE_SHIFT		25	/* 7 bits, queue id */
#define  M890_FAULT_QUEUE_MASK		0xfe000000u
#define M890_REG_MMU_FAULT_COUNT	0x102c	/* RO: faults since reset */

/* MMU fault reasons (spec §5.5) */
enum m890_fault_reason {
	M890_FAULT_NONE = 0,
	M890_FAULT_CTX_INVALID = 1,	/* ASID >= CTX_COUNT or entry !V */
	M890_FAULT_NOT_PRESENT = 2,	/* a PTE on the walk has V = 0 */
	M890_FAULT_WRITE_PROTECT = 3,	/* write through a PTE with W = 0 */
	M890_FAULT_BAD_PTE = 4,		/* reserved bits, bad target */
	M890_FAULT_OUT_OF_RANGE = 5,	/* HBM offset past HBM size */
	M890_FAULT_FABRIC = 6,		/* peer unreachable / not permitted */
	M890_FAULT_TABLE_DMA = 7,	/* page-table read failed */
};

/* Context descriptor, array at MMU_CTX_BASE indexed by ASID (spec §5.1) */
#define M890_CTX_DESC_SIZE		16
#define M890_CTX_VALID			(1ull << 0)
#define M890_CTX_ROOT_MASK		0x000ffffffffff000ull
#define M890_CTX_RSVD_MASK		0xfff0000000000ffeull	/* word 0; word 1 all */

/* Page tables: 4 levels of 512 x 8-byte entries, 48-bit VA (spec §5.2) */
#define M890_VA_BITS			48
#define M890_PT_LEVELS			4
#define M890_PT_ENTRIES			512
#define M890_PAGE_SHIFT			12
#define M890_LARGE_PAGE_SHIFT		21	/* 2 MiB leaf at level 1 */
#define M890_PTE_VALID			(1ull << 0)
#define M890_PTE_WRITE			(1ull << 1)
#define M890_PTE_LARGE			(1ull << 2)	/* level-1 leaf */
#define M890_PTE_TARGET_SHIFT		4
#define M890_PTE_TARGET_MASK		(3ull << 4)
#define  M890_PTE_TARGET_HOST		0	/* address is a DMA address */
#define  M890_PTE_TARGET_HBM		1	/* offset in local HBM */
#define  M890_PTE_TARGET_PEER		2	/* offset in a peer's HBM */
#define M890_PTE_PEER_SHIFT		6
#define M890_PTE_PEER_MASK		(0x3full << 6)	/* peer fabric id */
#define M890_PTE_ADDR_MASK		0x000ffffffffff000ull
/* DMA addresses the card takes (PTEs, rings, tables): bits 51:0 */
#define M890_DMA_ADDR_BITS		52
#define M890_PTE_RSVD_MASK		0xfff0000000000008ull
/* non-leaf entries: TARGET and PEER are reserved too (WRITE is ignored) */
#define M890_PTE_TABLE_RSVD_MASK	(M890_PTE_RSVD_MASK | M890_PTE_TARGET_MASK | \
					 M890_PTE_PEER_MASK)

/* spec §4: queues; registers of queue q at M890_REG_Q(q) + offset */
#define M890_MAX_QUEUES			64
#define M890_REG_Q_BASE			0x2000
#define M890_REG_Q_STRIDE		0x80
#define M890_REG_Q(q)			(M890_REG_Q_BASE + (q) * M890_REG_Q_STRIDE)
#define M890_Q_RING_BASE		0x00	/* RW 64: DMA addr, 4 KiB aligned */
#define M890_Q_RING_ORDER		0x08	/* RW: log2(entries), 4..16 */
#define M890_Q_ASID			0x0c	/* RW: MMU context */
#define M890_Q_CONTROL			0x10	/* RW */
#define  M890_Q_CONTROL_ENABLE		(1u << 0)
#define  M890_Q_CONTROL_RESET		(1u << 1)	/* self-clearing */
#define M890_Q_STATUS			0x14	/* RO */
#define  M890_Q_STATUS_ENABLED		(1u << 0)
#define  M890_Q_STATUS_IDLE		(1u << 1)
#define  M890_Q_STATUS_WAITING		(1u << 2)	/* blocked in WAIT */
#define  M890_Q_STATUS_ERROR		(1u << 3)
#define  M890_Q_STATUS_ERR_SHIFT	8		/* enum m890_qerr */
#define  M890_Q_STATUS_ERR_MASK		0x0000ff00u
#define M890_Q_HEAD			0x18	/* RO: entries consumed */
#define M890_Q_TAIL			0x1c	/* RO: last doorbell value */
#define M890_Q_FENCE_ADDR		0x20	/* RW 64: DMA addr, 8 B aligned */
#define M890_Q_FENCE_VALUE		0x28	/* RO 64: last FENCE value */
#define M890_Q_MSIX_VECTOR		0x30	/* RW: vector for FENCE irq */
#define M890_Q_ERR_HEAD			0x34	/* RO: HEAD count (not slot) at error */

/* Queue error codes, Q_STATUS[15:8] (spec §4.4) */
enum m890_qerr {
	M890_QERR_NONE = 0,
	M890_QERR_BAD_OPCODE = 1,
	M890_QERR_BAD_FIELD = 2,	/* reserved bit, alignment, size */
	M890_QERR_MMU_FAULT = 3,
	M890_QERR_DMA = 4,		/* host memory access failed */
	M890_QERR_FABRIC = 5,		/* peer unreachable, link down */
	M890_QERR_BAD_RING = 6,		/* ring base/order invalid */
	M890_QERR_UNSUPPORTED = 7,	/* valid packet not implemented */
	M890_QERR_CAPACITY = 8,		/* MOE_ROUTE RECV: an expert over its cap */
};

/* spec §4.2: doorbells, one 4 KiB page per queue; write the new tail */
#define M890_REG_DOORBELL_BASE		0x80000
#define M890_REG_DOORBELL_STRIDE	0x1000
#define M890_REG_DOORBELL(q)		(M890_REG_DOORBELL_BASE + (q) * M890_REG_DOORBELL_STRIDE)

/* spec §8: switch management window (requests are relayed by the card) */
#define M890_REG_SW_CMD			0x7000	/* WO: opcode | arg << 8 */
#define  M890_SW_CMD_OP_MASK		0x000000ffu	/* enum m890_sw_op */
#define  M890_SW_CMD_ARG_SHIFT		8		/* port or index */
#define  M890_SW_CMD_ARG_MASK		0x0000ff00u
#define  M890_SW_CMD_RSVD_SHIFT		16
#define  M890_SW_CMD_RSVD_MASK		0xffff0000u	/* non-zero: EINVAL */
#define M890_REG_SW_STATUS		0x7004	/* RO: enum m890_sw_status */
#define M890_REG_SW_ARG0		0x7008	/* RW 64 */
#define M890_REG_SW_ARG1		0x7010	/* RW 64 */
#define M890_REG_SW_DATA(i)		(0x7040 + (i) * 8)	/* RO 64, i < 16 */
#define M890_SW_DATA_WORDS		16
#define M890_REG_SW_EVENT		0x70c0	/* RO: last event, see §8.4 */
#define M890_REG_SW_EVENT_SEQ		0x70c4	/* RO: events since reset */

enum m890_sw_op {
	M890_SW_OP_INFO = 1,		/* DATA0 ports, DATA1 version, DATA2 id */
	M890_SW_OP_PORT_GET = 2,	/* arg: port; DATA: enum m890_sw_port_word */
	M890_SW_OP_PORT_SET_ADMIN = 3,	/* arg: port; ARG0: 0 down, 1 up */
	M890_SW_OP_PORT_CLEAR = 4,	/* arg: port; counters to zero */
	M890_SW_OP_PORT_SET_PARTITION = 5, /* arg: port; ARG0: partition */
	M890_SW_OP_ROUTE_GET = 6,	/* arg: fabric id; DATA0: route entry */
	M890_SW_OP_ROUTE_SET = 7,	/* arg: fabric id; ARG0: route entry */
	M890_SW_OP_PORT_INJECT = 8,	/* arg: port; ARG0: kind; ARG1: count */
	/*
	 * Cross-VM windows (spec §8.7).  An export is a range of the issuing
	 * card's own HBM, named by a non-zero 64-bit key; a window is a grant
	 * from the issuing card to one export of another card.
	 */
	M890_SW_OP_EXPORT_ADD = 9,	/* arg: slot; ARG0: key; ARG1: range */
	M890_SW_OP_EXPORT_DEL = 10,	/* arg: slot; revokes its windows */
	/* arg: owner fabric id; ARG0: key; DATA0: range, DATA1: slot */
	M890_SW_OP_WINDOW_OPEN = 11,
	M890_SW_OP_WINDOW_CLOSE = 12,	/* arg: owner fabric id; ARG0: slot */
};

/* exports per card, and the range word of EXPORT_ADD / WINDOW_OPEN */
#define M890_SW_EXPORTS			64
#define M890_SW_RANGE_PAGE_SHIFT	12	/* 4 KiB units */
#define M890_SW_RANGE_OFFSET_MASK	0x00000000ffffffffull	/* first page */
#define M890_SW_RANGE_PAGES_SHIFT	32	/* pages, >= 1 */

enum m890_sw_status {
	M890_SW_OK = 0,
	M890_SW_EINVAL = 1,		/* bad opcode or argument */
	M890_SW_ERANGE = 2,		/* port >= ports */
	M890_SW_EPERM = 3,		/* not allowed from this card */
	M890_SW_ENODEV = 4,		/* card not attached to a switch */
	M890_SW_ENOENT = 5,		/* no such export (or wrong key) */
	M890_SW_EBUSY = 6,		/* export slot in use */
	M890_SW_ENOLINK = 7,		/* a port on the path is not oper UP */
};

/* PORT_GET result words in SW_DATA(i) */
enum m890_sw_port_word {
	M890_SW_PORT_STATE = 0,		/* admin | oper << 8 | present << 16 */
	M890_SW_PORT_FABRIC_ID = 1,	/* fabric id of attached card */
	M890_SW_PORT_PARTITION = 2,
	M890_SW_PORT_SPEED = 3,		/* Mbit/s */
	M890_SW_PORT_TX_BYTES = 4,
	M890_SW_PORT_RX_BYTES = 5,
	M890_SW_PORT_TX_PKTS = 6,
	M890_SW_PORT_RX_PKTS = 7,
	M890_SW_PORT_ERRORS = 8,
	M890_SW_PORT_LINK_DOWN = 9,
	M890_SW_PORT_INJECT_DROPS = 10,	/* transfers still to be dropped */
	M890_SW_PORT_WORDS = 11,
};

/* Fields of the M890_SW_PORT_STATE word, one byte each */
#define M890_SW_STATE_ADMIN(w)		((w) & 0xff)
#define M890_SW_STATE_OPER(w)		(((w) >> 8) & 0xff)
#define M890_SW_STATE_PRESENT(w)	(((w) >> 16) & 0xff)

#define M890_SW_PORTS			64
#define M890_SW_PARTITIONS		64	/* partition ids 0..63 */

/* ROUTE_GET/ROUTE_SET entry (spec §8.3, §8.5); other bits must be 0 */
#define M890_SW_ROUTE_EGRESS_MASK	0xffull	/* egress port, < 64 */
#define M890_SW_ROUTE_ENABLED		(1ull << 8)

/* PORT_INJECT kinds in ARG0 (spec §8.3, §8.5) */
enum m890_sw_inject {
	M890_SW_INJECT_CLEAR = 0,	/* cancel pending drops */
	M890_SW_INJECT_LINK_ERROR = 1,	/* oper UP -> ERROR */
	M890_SW_INJECT_DROP = 2,	/* drop the next ARG1 transfers */
};

#define M890_SW_INJECT_DROP_MAX		(1ull << 32)	/* ARG1 of kind 2 */

/* SW_EVENT word (spec §8.4) */
#define M890_SW_EVENT_ID_MASK		0x000000ffu	/* port or fabric id */
#define M890_SW_EVENT_VALUE_SHIFT	8
#define M890_SW_EVENT_VALUE_MASK	0x0000ff00u
#define M890_SW_EVENT_TYPE_SHIFT	16
#define M890_SW_EVENT_TYPE_MASK		0x00ff0000u

enum m890_sw_event_type {
	M890_SW_EVENT_LINK = 0,		/* port; value: new oper state */
	M890_SW_EVENT_PARTITION = 1,	/* port; value: new partition */
	M890_SW_EVENT_ROUTE = 2,	/* fabric id; value: egress or 0xff */
};

#define M890_SW_EVENT_ROUTE_DISABLED	0xff

/* port link states (spec §8.2) */
enum m890_link_state {
	M890_LINK_DOWN = 0,
	M890_LINK_TRAINING = 1,
	M890_LINK_UP = 2,
	M890_LINK_ERROR = 3,
};

#endif /* M890_REGS_H */
