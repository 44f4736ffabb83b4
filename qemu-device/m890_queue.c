/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 queues and command processor
 *
 * A queue is a ring of 64-byte packet slots in host memory.  A doorbell
 * write only latches the new TAIL and schedules the device's bottom half;
 * the bottom half walks the enabled queues round-robin and runs at most
 * M890_BH_MAX_PACKETS packets, M890_BH_MAX_BYTES bytes or M890_BH_MAX_ELEMS
 * elements of arithmetic per run before rescheduling itself, so no guest
 * input can hold the main loop.  Each packet is copied out of the ring
 * once into the queue's private copy and only that copy is validated and
 * executed; a long packet keeps its copy and a progress counter across
 * runs.
 *
 * A WAIT whose condition is false parks the queue (WAITING) and notes
 * its semaphore (q->wait_sem); it is re-checked only when something may
 * have changed it (spec §7.6), as q->wait_kicked records: a SIGNAL on any
 * card of the switch that writes that semaphore (m890_kick_sem(), or
 * m890_kick() for a SIGNAL of another VM), and a timer armed only while
 * some queue waits: 10 us after a WAIT parked or completed, then at
 * doubling intervals up to 1 ms.  Doorbells and other queues' work do not
 * re-check it, so the modelled cost of its checks (spec §10) does not
 * depend on unrelated activity.  Any packet error stops the queue,
 * records the error and raises the event vector.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/pci/pci_device.h"

#include "m890.h"
#include "m890_exec.h"
#include "trace.h"

void m890_queue_reset(M890State *s, M890Queue *q)
{
    m890_async_cancel(s, q);
    q->enabled = false;
    q->err = M890_QERR_NONE;
    q->head = 0;
    q->tail = 0;
    q->have_pkt = false;
    q->waiting = false;
    q->wait_kicked = false;
    q->wait_sem = NULL;
    q->progress = 0;
    q->piece_err = M890_ST_OK;
    q->snap_valid = false;
    memset(&q->pkt, 0, sizeof(q->pkt));
    m890_clock_queue_reset(s, q);
    s->qerr_status &= ~(1ull << q->index);
}

uint32_t m890_queue_status(M890State *s, M890Queue *q)
{
    uint32_t st = 0;

    if (q->enabled) {
        st |= M890_Q_STATUS_ENABLED;
    }
    if (q->head == q->tail && !q->have_pkt) {
        st |= M890_Q_STATUS_IDLE;
    }
    if (q->waiting) {
        st |= M890_Q_STATUS_WAITING;
    }
    if (q->err) {
        st |= M890_Q_STATUS_ERROR | q->err << M890_Q_STATUS_ERR_SHIFT;
    }
    return st;
}

void m890_queue_error(M890State *s, M890Queue *q, M890Status err)
{
    m890_async_cancel(s, q);
    q->piece_err = M890_ST_OK;
    q->err = err;
    q->err_head = q->head;
    q->have_pkt = false;
    q->waiting = false;
    s->qerr_status |= 1ull << q->index;
    trace_m890_err_queue(q->index, err, q->head);
    qemu_log_mask(LOG_GUEST_ERROR, "m890: queue %u stopped, error %u at %u\n",
                  q->index, err, q->head);
    m890_raise_event(s, M890_EVT_QUEUE_ERROR);
}

static bool m890_queue_runnable(M890Queue *q)
{
    return q->enabled && !q->err && !q->piece_wait && !q->orphans &&
           (q->have_pkt || q->head != q->tail);
}

void m890_queue_write_control(M890State *s, M890Queue *q, uint32_t val)
{
    if (val & ~(M890_Q_CONTROL_ENABLE | M890_Q_CONTROL_RESET)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "m890: queue %u reserved CONTROL bits 0x%x\n",
                      q->index, val);
    }
    if (val & M890_Q_CONTROL_RESET) {
        m890_queue_reset(s, q);
        trace_m890_queue_reset(q->index);
        return;
    }
    if (!(val & M890_Q_CONTROL_ENABLE)) {
        q->enabled = false;
        q->waiting = false;
        trace_m890_queue_disable(q->index);
        return;
    }
    if (q->enabled) {
        return;
    }
    q->enabled = true;
    trace_m890_queue_enable(q->index, q->ring_base, q->ring_order, q->asid);
    if (q->err) {
        return;
    }
    if (q->ring_base & 0xfff) {
        trace_m890_err_ring_base(q->index, q->ring_base);
        m890_queue_error(s, q, M890_ST_BAD_RING);
        return;
    }
    if (q->ring_order < 4 || q->ring_order > 16) {
        trace_m890_err_ring_order(q->index, q->ring_order);
        m890_queue_error(s, q, M890_ST_BAD_RING);
        return;
    }
    if (m890_queue_runnable(q)) {
        qemu_bh_schedule(s->bh);
    }
}

void m890_doorbell(M890State *s, uint32_t qid, uint32_t tail)
{
    M890Queue *q;

    if (qid >= s->num_queues) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "m890: doorbell of queue %u beyond %u queues\n",
                      qid, s->num_queues);
        trace_m890_ub_doorbell(qid);
        return;
    }
    q = &s->queues[qid];
    q->tail = tail;
    trace_m890_doorbell(qid, tail);
    if (m890_queue_runnable(q)) {
        qemu_bh_schedule(s->bh);
    }
}

/* Fetch the packet at HEAD into q->pkt: M890_ST_OK or a queue error. */
static M890Status m890_fetch(M890State *s, M890Queue *q)
{
    uint32_t entries = 1u << q->ring_order;
    uint64_t slot_addr;

    if (q->tail - q->head > entries) {
        trace_m890_err_ring_overflow(q->index, q->head, q->tail);
        return M890_ST_BAD_RING;
    }
    slot_addr = q->ring_base + (uint64_t)(q->head & (entries - 1)) *
                M890_PKT_SIZE;
    if (pci_dma_read(PCI_DEVICE(s), slot_addr, &q->pkt, M890_PKT_SIZE)
        != MEMTX_OK) {
        trace_m890_err_ring_dma(q->index, slot_addr);
        return M890_ST_DMA;
    }
    q->have_pkt = true;
    q->progress = 0;
    q->piece_err = M890_ST_OK;
    q->snap_valid = false;
    m890_rows_reset(q);
    m890_gemm_reset(q);
    m890_clock_fetch(s, q);
    trace_m890_fetch(q->index, q->head, le32_to_cpu(q->pkt.hdr));
    return 0;
}

/*
 * Run @q until it idles, waits, fails or the budget is used up.
 * Returns true if the queue moved forward.
 */
static bool m890_run_queue(M890State *s, M890Queue *q, M890Budget *b)
{
    bool moved = false;
    M890Status ret;

    while (b->packets && m890_budget_left(b) && m890_queue_runnable(q)) {
        if (q->waiting && !q->wait_kicked) {
            return moved;               /* nothing changed its semaphore */
        }
        q->wait_kicked = false;
        if (!q->have_pkt) {
            ret = m890_fetch(s, q);
            if (ret) {
                m890_queue_error(s, q, ret);
                return true;
            }
        }
        ret = m890_execute(s, q, b);
        switch (ret) {
        case M890_EXEC_DONE:
            if (q->waiting) {
                b->wait_changed = true;
            }
            m890_clock_done(s, q);
            q->have_pkt = false;
            q->waiting = false;
            q->head++;
            b->packets--;
            moved = true;
            break;
        case M890_EXEC_MORE:
        case M890_EXEC_ASYNC:
            return true;
        case M890_EXEC_WAIT:
            if (!q->waiting) {
                trace_m890_queue_wait(q->index, q->head);
                b->wait_changed = true;
            }
            q->waiting = true;
            return moved;
        default:
            m890_queue_error(s, q, ret);
            return true;
        }
    }
    return moved;
}

void m890_process_bh(void *opaque)
{
    M890State *s = opaque;
    M890Budget b = {
        .packets = M890_BH_MAX_PACKETS,
        .bytes = M890_BH_MAX_BYTES,
        .elems = M890_BH_MAX_ELEMS,
    };
    bool moved = true, more = false, waiting = false;
    unsigned int i, n = s->num_queues;

    while (moved && b.packets && m890_budget_left(&b)) {
        moved = false;
        for (i = 0; i < n && b.packets && m890_budget_left(&b); i++) {
            M890Queue *q = &s->queues[(s->rr_next + i) % n];

            moved |= m890_run_queue(s, q, &b);
        }
        s->rr_next = (s->rr_next + 1) % n;
    }
    for (i = 0; i < n; i++) {
        M890Queue *q = &s->queues[i];

        if (m890_queue_runnable(q)) {
            if (q->waiting) {
                waiting = true;
            } else {
                more = true;
            }
        }
    }
    if (more) {
        qemu_bh_schedule(s->bh);
    }
    /*
     * SIGNALs wake the WAITs on their semaphore; the timer is for writes
     * that are no SIGNAL (the CPU's).  Its interval starts at
     * M890_WAIT_POLL_NS when a WAIT parks or completes and doubles with
     * every expiry that found nothing new, up to M890_WAIT_POLL_MAX_NS, so
     * that cards blocked for long cost the host little.
     */
    if (waiting) {
        if (b.wait_changed) {
            s->wait_poll_ns = M890_WAIT_POLL_NS;
        } else if (s->wait_poll_fired) {
            s->wait_poll_ns = MIN(2 * s->wait_poll_ns, M890_WAIT_POLL_MAX_NS);
        }
        timer_mod_anticipate_ns(s->wait_timer,
                                qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                s->wait_poll_ns);
    }
    s->wait_poll_fired = false;
    trace_m890_bh_done(M890_BH_MAX_PACKETS - b.packets, more, waiting);
}

void m890_wait_timer_cb(void *opaque)
{
    M890State *s = opaque;
    unsigned int i;

    /* the semaphores may have been written by the CPU: check them all */
    for (i = 0; i < s->num_queues; i++) {
        s->queues[i].wait_kicked = s->queues[i].waiting;
    }
    s->wait_poll_fired = true;
    qemu_bh_schedule(s->bh);
}
