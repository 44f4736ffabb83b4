/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * M890 AI accelerator device model: shared state and internal interfaces.
 *
 * Register layout and packet formats come from the project's contract
 * headers (m890_regs.h, m890_packets.h), copied next to this file when the
 * device is built into the QEMU tree.
 */
#ifndef HW_M890_H
#define HW_M890_H

#include "hw/pci/pci_device.h"
#include "qom/object.h"
#include "system/hostmem.h"
#include "qemu/timer.h"
#include "qemu/thread.h"
#include "qemu/int128.h"
#include "qemu/queue.h"

#include "m890_regs.h"
#include "m890_packets.h"
#include "icn/icn_switch_core.h"
#include "icn/icn_switch_cmd.h"

#define TYPE_M890 "m890"
OBJECT_DECLARE_SIMPLE_TYPE(M890State, M890)

#define TYPE_ICN_SWITCH "icn-switch"
OBJECT_DECLARE_SIMPLE_TYPE(IcnSwitchState, ICN_SWITCH)

#define M890_NUM_CTX            1024    /* REG_NUM_CTX */
#define M890_TLB_ENTRIES        512
#define M890_BOUNCE_SIZE        (64 * 1024)
#define M890_BH_MAX_PACKETS     64
#define M890_BH_MAX_BYTES       (64ull << 20)
/*
 * The arithmetic of REDUCE, COPY_ROWS ADD and MX (m890_arith.c, integer
 * code of some 10 ns per element) has a budget of its own: a run computes
 * at most this many elements (a REDUCE element of k rows counts k), a few
 * milliseconds, as a run's 64 MiB of copies take.
 */
#define M890_BH_MAX_ELEMS       (512ull << 10)
/*
 * Every step of a packet (a page of a copy, a row of GATHER/SCATTER/REDUCE,
 * a block of MX) costs at least this much of a run's byte budget, so tiny
 * rows cannot turn one run into millions of steps under the BQL.
 */
#define M890_STEP_CHARGE        4096ull
#define M890_REDUCE_MAX_K       64      /* REDUCE k, spec 7.10 */
#define M890_ASYNC_MIN          (256 * 1024)    /* shorter COPYs stay inline */
#define M890_ASYNC_PIECE        (4ull << 20)    /* bytes per piece */
#define M890_ASYNC_SEGS         64              /* pages per piece */
#define M890_ASYNC_MAX_PIECES   64      /* per card, whatever the host */
#define M890_ASYNC_QUEUE_PIECES 16      /* per queue */
/*
 * A WAIT not woken by a SIGNAL is checked again M890_WAIT_POLL_NS after it
 * parked, then at intervals that double up to M890_WAIT_POLL_MAX_NS
 * (m890_process_bh()).
 */
#define M890_WAIT_POLL_NS       10000   /* 10 us */
#define M890_WAIT_POLL_MAX_NS   1000000 /* 1 ms */
#define M890_MAX_COPY           (1ull << 40)
#define M890_VA_LIMIT           (1ull << M890_VA_BITS)
#define M890_PORT_NONE          0xff

/*
 * Timing model 1.2 (spec §10, m890_clock.c): cost per byte in
 * half-femtoseconds (hfs) so that every rate is an integer, and fixed
 * costs in ns.
 */
#define M890_HFS_PER_NS         2000000ull
#define M890_HFS_PER_BYTE_HBM   625     /* 3.2 TB/s = 312.5 fs/B */
#define M890_HFS_PER_BYTE_HOST  31250   /* 64 GB/s = 15.625 ps/B */
#define M890_HFS_PER_BYTE_PEER  2500    /* 800 GB/s = 1.25 ps/B */
#define M890_NS_PER_PACKET      50      /* fetch */
#define M890_NS_SWITCH          500     /* one way through the switch */
#define M890_NS_ROUND_TRIP      (2 * M890_NS_SWITCH)
/*
 * Matrix engines (spec §10, CAPS.GEMM): hfs per multiply-add at the
 * card's peak, 1.0 PFLOP/s dense with a bf16 operand, 2.0 PFLOP/s for
 * MXFP8 activations by MXFP4 weights (one multiply-add is 2 FLOP).
 */
#define M890_HFS_PER_MAC_BF16   4
#define M890_HFS_PER_MAC_MX     2
#define M890_ENGINES_DEFAULT    4       /* data movers of a 1.1 card */
#define M890_PREFETCH           16      /* packets a queue fetches ahead */

/* Memory classes of the timing model. */
enum {
    M890_CLS_HBM,               /* this card's HBM */
    M890_CLS_HOST,              /* host memory over PCIe */
    M890_CLS_PEER,              /* a peer's HBM through the switch port */
    M890_CLS_N
};

typedef struct IcnRemote IcnRemote;

/*
 * Trust domain (spec §8.7) of every card of another VM in the copy of
 * icn-switchd's switch: above the 0..255 of the "trust-domain" property.
 */
#define ICN_DOMAIN_REMOTE       0x100u

struct IcnSwitchState {
    Object parent_obj;
    uint32_t switch_id;
    char *socket;               /* icn-switchd's socket, NULL: in-process */
    uint32_t cards;             /* attached m890 devices */
    struct icn_switch *core;    /* the switch, or with a socket its copy */
    IcnRemote *remote;          /* connection to icn-switchd */
};

/*
 * What packet code comes to, as NVMe's status codes in QEMU's nvme
 * device: M890_ST_OK (0) lets a helper's caller go on; 1..0xff are the
 * queue errors of the contract (enum m890_qerr, spec 4.4), which stop the
 * queue with that code in Q_STATUS.ERR; the M890_EXEC_* outcomes, above
 * every error code, tell the command processor what a packet did.
 */
typedef enum M890Status {
    M890_ST_OK = M890_QERR_NONE,
    M890_ST_BAD_OPCODE = M890_QERR_BAD_OPCODE,
    M890_ST_BAD_FIELD = M890_QERR_BAD_FIELD,
    M890_ST_MMU_FAULT = M890_QERR_MMU_FAULT,
    M890_ST_DMA = M890_QERR_DMA,
    M890_ST_FABRIC = M890_QERR_FABRIC,
    M890_ST_BAD_RING = M890_QERR_BAD_RING,
    M890_ST_UNSUPPORTED = M890_QERR_UNSUPPORTED,
    M890_ST_CAPACITY = M890_QERR_CAPACITY,
    M890_EXEC_DONE = 0x100,     /* packet finished */
    M890_EXEC_MORE,             /* budget used up, call again */
    M890_EXEC_WAIT,             /* WAIT condition false */
    M890_EXEC_ASYNC,            /* pieces are on pool threads */
} M890Status;

/* True if @st is a queue error (its enum m890_qerr is @st itself). */
static inline bool m890_st_is_qerr(M890Status st)
{
    return st > M890_ST_OK && st < M890_EXEC_DONE;
}

typedef struct M890TlbEntry {
    bool valid;
    uint16_t asid;
    uint8_t shift;              /* 12 or 21 */
    uint64_t vpn;               /* va >> 12 of the cached page */
    uint64_t pte;               /* leaf PTE */
} M890TlbEntry;

/* A translated, contiguous piece of a VA range. */
typedef struct M890Xlate {
    uint8_t target;             /* M890_PTE_TARGET_* */
    uint8_t peer;               /* fabric id for PEER */
    bool writable;
    uint64_t addr;              /* DMA address or HBM offset of va */
    uint64_t len;               /* bytes from va to the end of the page */
} M890Xlate;

/* A piece of a COPY on a pool thread (m890_worker.c). */
typedef struct M890Piece M890Piece;

/*
 * Per-packet state of the spec 1.1 row packets (m890_rows.c), reset when
 * a packet is fetched (m890_rows_reset()).  Segment table entries are
 * read once per packet, the first time a row of their segment is used,
 * and kept in tab[] (tab[0]: the source table, tab[1]: the destination
 * table).  MOE_ROUTE keeps its counters here between pieces.
 */
typedef struct M890RowsState {
    uint64_t tab_valid[2][M890_TABLE_MAX_SEGMENTS / 64];
    uint64_t tab[2][M890_TABLE_MAX_SEGMENTS];
    uint32_t phase;             /* MOE_ROUTE: step of the packet */
    uint64_t total;             /* SEND: list entries; RECV: over cap */
    /* SEND: tokens per rank of pass 1 and 2, first list entry per rank */
    uint32_t cnt1[M890_ROUTE_MAX_RANKS];
    uint32_t cnt2[M890_ROUTE_MAX_RANKS];
    uint32_t first[M890_ROUTE_MAX_RANKS];
    /* RECV: rows per source; rows per local expert */
    uint32_t got[M890_ROUTE_MAX_RANKS];
    uint32_t ecount[M890_ROUTE_MAX_EXPERTS];
} M890RowsState;

#define M890_GEMM_TILE_ROWS     8       /* rows of a GEMM piece */
#define M890_GEMM_TILE_COLS     16      /* output columns of a piece, at most */

/*
 * Per-packet state of GEMM (m890_gemm.c), reset when a packet is fetched
 * (m890_gemm_reset()).  The current group's count and the current row
 * tile's index and weight entries are read once and kept here for all
 * the tile's pieces.  seen: with SCATTER_ADD, the output rows written so
 * far (M890_GEMM_MAX_OUT_ROWS bits, allocated on first use, freed with
 * the device).
 */
typedef struct M890GemmState {
    bool started;               /* the packet's first piece ran */
    bool group_valid;           /* count holds group g's rows */
    bool tile_valid;            /* the tile at pos is read and checked */
    uint32_t g;                 /* current group */
    uint32_t count;             /* its rows */
    uint32_t pos;               /* first row of the current tile */
    uint32_t ct;                /* current column tile */
    uint32_t nrows;             /* rows of the tile */
    uint32_t live;              /* of them, rows not NONE */
    uint32_t arow[M890_GEMM_TILE_ROWS];     /* activation row numbers */
    uint32_t orow[M890_GEMM_TILE_ROWS];     /* output row numbers */
    uint32_t w[M890_GEMM_TILE_ROWS];        /* SCATTER_ADD weights, fp32 */
    bool fresh[M890_GEMM_TILE_ROWS];        /* first write of its row */
    unsigned long *seen;
} M890GemmState;

typedef struct M890Queue {
    uint32_t index;
    /* registers */
    uint64_t ring_base;
    uint32_t ring_order;
    uint32_t asid;
    bool enabled;
    uint32_t err;               /* enum m890_qerr, 0 = none */
    uint32_t head;
    uint32_t tail;
    uint64_t fence_addr;
    uint64_t fence_value;
    uint32_t msix_vector;
    uint32_t err_head;
    /* command processor */
    bool have_pkt;              /* pkt holds the packet at head */
    bool waiting;               /* pkt is a WAIT whose condition is false */
    bool wait_kicked;           /* its semaphore may have changed: check */
    const void *wait_sem;       /* its semaphore: HBM pointer, NULL: host */
    union m890_packet pkt;      /* private copy, read once from the ring */
    uint64_t progress;          /* bytes/rows/elements of pkt done */
    /* timing model of the queue (m890_clock.c), hfs */
    Int128 t_done;              /* its latest packet so far ends */
    Int128 t_drained;           /* its last drain ends */
    Int128 t_dstart;            /* its last drain started */
    Int128 t_hist[M890_PREFETCH];   /* start of packet n, at n % 16 */
    /* pkt's modelled phase */
    Int128 t_fetched;           /* its fetch ended */
    Int128 t_start;             /* its phase started (once t_started) */
    Int128 t_end;               /* its bytes end, without round trips */
    Int128 t_wake;              /* WAIT: a SIGNAL of this card woke it */
    bool t_started;             /* began: a DM (or the CP) took it */
    bool t_sync;                /* WAIT/TIMESTAMP/FENCE: run on the CP */
    bool t_peer_read;           /* paid its peer read round trip */
    uint32_t t_engine;          /* its DM */
    uint64_t t_trips;           /* switch round trips waited for */
    /* pieces of pkt on pool threads (m890_worker.c), under the BQL */
    QTAILQ_HEAD(, M890Piece) pieces;    /* in flight, oldest first */
    unsigned int npieces;
    uint64_t piece_bytes;       /* bytes of pkt in pieces, after progress */
    bool piece_wait;            /* pkt can go on only once a piece retires */
    M890Status piece_err;       /* qerr to raise once its pieces retired */
    unsigned int orphans;       /* pieces of abandoned work still running */
    /*
     * Index (and REDUCE weight) list entries of row snap_row, read once
     * when the row starts and used for all its pieces, even across runs:
     * the list in guest memory may change, the checked copy may not.
     */
    bool snap_valid;
    uint64_t snap_row;
    uint32_t snap_idx[M890_REDUCE_MAX_K];   /* CPU order */
    uint32_t snap_w[M890_REDUCE_MAX_K];     /* fp32 bits, CPU order */
    M890RowsState rows;         /* COPY_ROWS, REDUCE tables, MOE_ROUTE */
    M890GemmState gemm;         /* GEMM */
} M890Queue;

struct M890State {
    PCIDevice parent_obj;

    /* properties */
    HostMemoryBackend *hostmem;
    IcnSwitchState *sw;
    uint8_t port;
    bool sw_mgmt;               /* may change switch state (spec §8.3) */
    uint8_t trust_domain;       /* test hook, spec §8.7; see m890_switch.c */
    uint32_t num_queues;
    uint8_t engines;            /* NUM_ENGINES; 0: a spec 1.0 card */

    MemoryRegion regs;
    MemoryRegion *hbm_mr;
    uint8_t *hbm;
    uint64_t hbm_size;
    bool attached;              /* cabled to sw->core at port */

    QEMUBH *bh;
    QEMUTimer *wait_timer;
    int64_t wait_poll_ns;       /* the wait timer's current interval */
    bool wait_poll_fired;       /* the wait timer scheduled this run */
    uint32_t rr_next;
    uint8_t *bounce;

    /* global registers */
    uint32_t scratch;
    uint32_t evt_status;
    uint32_t evt_mask;
    uint64_t qerr_status;
    /* modelled clock, hfs (m890_clock.c) */
    Int128 t_cp;                /* the command processor is free */
    Int128 t_dm[M890_MAX_ENGINES];      /* data mover k is free */
    Int128 t_free[M890_CLS_N];  /* memory class c is free */
    Int128 t_mxu;               /* the matrix engines are free */
    Int128 t_now;               /* REG_CLOCK: the latest of them all */

    /* MMU */
    uint64_t mmu_ctx_base;
    uint32_t mmu_ctx_count;
    uint32_t mmu_control;
    uint64_t fault_addr;
    uint32_t fault_info;
    uint32_t fault_count;
    M890TlbEntry tlb[M890_TLB_ENTRIES];

    /* switch window */
    uint64_t sw_arg[2];
    uint64_t sw_data[M890_SW_DATA_WORDS];
    uint32_t sw_status;
    uint32_t sw_event;
    uint32_t sw_event_seq;

    M890Queue queues[M890_MAX_QUEUES];

    /* pieces on pool threads, see m890_worker.c (BQL) */
    QEMUBH *job_bh;             /* retires finished pieces */
    unsigned int max_pieces;    /* in flight per card: the host's cores */
    unsigned int npieces;       /* in flight, of every queue */
    unsigned int orphans;       /* abandoned, still on a pool thread */
    QTAILQ_HEAD(, M890Piece) orphan_list;
};

/* m890.c */
uint32_t m890_caps(M890State *s);       /* REG_CAPS */
void m890_raise_event(M890State *s, uint32_t evt);
void m890_msix_notify(M890State *s, uint32_t vector);
void m890_fabric_event(M890State *s, const struct icn_event *ev);
void m890_kick(M890State *s);
void m890_kick_sem(M890State *s, const void *sem);

/*
 * m890_clock.c: timing model 1.2, spec §10.  Packet code charges the
 * phase of its queue's current packet: m890_clock_bytes() for bytes of one
 * memory class as they move (each call is one piece of the phase and
 * reserves the class's bandwidth), m890_clock_job() for a piece with
 * bytes in several classes, m890_clock_peer_read() for a non-posted peer
 * access (one round trip per packet), m890_clock_compute() for
 * multiply-adds on the matrix engines (GEMM).  Drains call m890_clock_drain()
 * before their first access, a WAIT m890_clock_check() before every
 * check; m890_clock_signalled() tells the card's waiting queues when a
 * SIGNAL wrote their semaphore.
 */
uint64_t m890_clock_ns(M890State *s);
uint64_t m890_clock_drain_ns(M890Queue *q);
void m890_clock_reset(M890State *s);
void m890_clock_queue_reset(M890State *s, M890Queue *q);
void m890_clock_fetch(M890State *s, M890Queue *q);
void m890_clock_start(M890State *s, M890Queue *q);
void m890_clock_drain(M890State *s, M890Queue *q);
void m890_clock_bytes(M890State *s, M890Queue *q, unsigned int cls,
                      uint64_t n);
void m890_clock_job(M890State *s, M890Queue *q, const uint64_t *bytes);
void m890_clock_peer_read(M890State *s, M890Queue *q);
void m890_clock_compute(M890State *s, M890Queue *q, uint64_t macs,
                        unsigned int hfs_per_mac);
void m890_clock_check(M890State *s, M890Queue *q);
void m890_clock_signalled(M890State *s, M890Queue *q, const void *sem);
void m890_clock_done(M890State *s, M890Queue *q);

/* m890_queue.c */
void m890_queue_reset(M890State *s, M890Queue *q);
void m890_queue_write_control(M890State *s, M890Queue *q, uint32_t val);
uint32_t m890_queue_status(M890State *s, M890Queue *q);
void m890_doorbell(M890State *s, uint32_t qid, uint32_t tail);
void m890_queue_error(M890State *s, M890Queue *q, M890Status err);
void m890_process_bh(void *opaque);
void m890_wait_timer_cb(void *opaque);

/* m890_mmu.c */
M890Status m890_mmu_translate(M890State *s, M890Queue *q, uint64_t va,
                              bool write, M890Xlate *x);
void m890_mmu_fault(M890State *s, M890Queue *q, uint64_t va, bool write,
                    uint32_t reason);
void m890_mmu_invalidate(M890State *s, bool all, uint16_t asid);

/* m890_packets.c */
typedef struct M890Budget {
    uint32_t packets;
    uint64_t bytes;
    uint64_t elems;             /* arithmetic elements, M890_BH_MAX_ELEMS */
    bool wait_changed;          /* a WAIT parked or completed in this run */
} M890Budget;

/* m890_gemm.c: frees the queues' GEMM state */
void m890_gemm_fini(M890State *s);

/* True while neither the run's bytes nor its arithmetic are used up. */
static inline bool m890_budget_left(const M890Budget *b)
{
    return b->bytes && b->elems;
}

/*
 * Charge a step of @bytes moved (at least M890_STEP_CHARGE) and @elems
 * elements computed to the run's budget @b.
 */
static inline void m890_budget_charge(M890Budget *b, uint64_t bytes,
                                      uint64_t elems)
{
    b->bytes -= MIN(b->bytes, MAX(bytes, M890_STEP_CHARGE));
    b->elems -= MIN(b->elems, elems);
}
/* Returns an M890_EXEC_* outcome or a queue error. */
M890Status m890_execute(M890State *s, M890Queue *q, M890Budget *b);

/*
 * m890_worker.c: pieces of long COPYs on QEMU's thread pool.  Packet code
 * asks m890_async_slot() whether @q may start another piece, builds one
 * with m890_piece_new() and m890_piece_add() (false: that segment is not
 * memory a thread may copy; the piece is unchanged), then submits it
 * with m890_piece_submit() or drops it with m890_piece_free().  Finished
 * pieces are retired in order: q->progress grows, q->piece_wait clears
 * and the bottom half runs.  Resets orphan what is in flight
 * (m890_async_cancel()); m890_async_quiet() is false until the orphans
 * are done.
 */
void m890_async_init(M890State *s);
void m890_async_fini(M890State *s);
bool m890_async_slot(M890State *s, M890Queue *q);
M890Piece *m890_piece_new(M890State *s, M890Queue *q);
uint64_t m890_piece_bytes(const M890Piece *p);
void m890_piece_submit(M890State *s, M890Queue *q, M890Piece *p);
void m890_piece_free(M890Piece *p);
void m890_async_cancel(M890State *s, M890Queue *q);
bool m890_async_quiet(M890State *s);

/* m890_switch.c */
int m890_switch_attach(M890State *s, Error **errp);
void m890_switch_detach(M890State *s);
void m890_switch_cmd(M890State *s, uint32_t cmd);
uint32_t m890_switch_fabric_reg(M890State *s);

/* m890_switch_remote.c: the icn-switch object's link to icn-switchd */
bool icn_remote_open(IcnSwitchState *sw, Error **errp);
void icn_remote_close(IcnSwitchState *sw);
bool icn_remote_connected(IcnRemote *r);
int icn_remote_attach(IcnRemote *r, M890State *s, Error **errp);
void icn_remote_detach(IcnRemote *r, M890State *s);
uint32_t icn_remote_cmd(IcnRemote *r, M890State *s, uint32_t cmd,
                        uint64_t *data);
void icn_remote_flush(IcnRemote *r);

#endif /* HW_M890_H */
