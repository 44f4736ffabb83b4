/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 copy worker
 *
 * Long linear COPYs between memory the device can address directly (local
 * HBM, guest RAM) move their bytes on one worker thread per card, off the
 * BQL and off the main loop.  Device state stays under the BQL: the
 * bottom half checks the packet, translates every page through the MMU
 * (raising faults there), maps host pages with
 * address_space_map() after checking that they are RAM the device may
 * access directly, charges the run's budget and queues a job of at most
 * M890_ASYNC_PIECE bytes.  The worker only memmove()s between the host
 * pointers of the job, then schedules the completion bottom half, which
 * unmaps (marking written RAM dirty), charges the modelled clock, advances
 * the packet's progress and lets the queue run again; HEAD moves only
 * after that, so a completed packet's writes are visible (spec 4.3).
 *
 * A card has one job slot.  Short copies, MMIO or unassigned host
 * addresses, peer HBM, the overlapping backward copy and a busy slot take
 * the synchronous path in the bottom half, so MMIO is never touched off
 * the BQL and the re-entrancy guard still applies.
 *
 * Queue reset, device reset, FLR and unrealize call m890_async_cancel(): it
 * waits, holding the BQL (the worker never takes it), for a piece being
 * copied, at most one piece of 4 MiB, then drops the job without advancing
 * the packet, so once the reset completes the queue makes no further
 * access (spec 4.4).  Pausing a queue (ENABLE cleared) lets the piece in
 * flight complete, like any piece boundary.
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "hw/pci/pci_device.h"

#include "m890.h"
#include "trace.h"

/* Unmap the job's host pages; @written: the worker copied its bytes. */
void m890_job_unmap(M890State *s, bool written)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    M890Job *j = &s->job;
    unsigned int i;

    for (i = 0; i < j->nseg; i++) {
        M890JobSeg *g = &j->seg[i];

        if (g->src_map) {
            address_space_unmap(as, g->src_map, g->src_map_len, false,
                                g->src_map_len);
        }
        if (g->dst_map) {
            address_space_unmap(as, g->dst_map, g->dst_map_len, true,
                                written ? g->len : 0);
        }
    }
    j->nseg = 0;
    j->bytes = 0;
    memset(j->cls_bytes, 0, sizeof(j->cls_bytes));
}

static void *m890_worker_run(void *opaque)
{
    M890State *s = opaque;
    M890Job *j = &s->job;
    unsigned int i;

    qemu_mutex_lock(&s->worker_lock);
    for (;;) {
        while (!s->worker_stop && j->state != M890_JOB_QUEUED) {
            qemu_cond_wait(&s->worker_wake, &s->worker_lock);
        }
        if (s->worker_stop) {
            break;
        }
        j->state = M890_JOB_RUNNING;
        qemu_mutex_unlock(&s->worker_lock);
        for (i = 0; i < j->nseg; i++) {
            memmove(j->seg[i].dst, j->seg[i].src, j->seg[i].len);
        }
        qemu_mutex_lock(&s->worker_lock);
        j->state = M890_JOB_DONE;
        qemu_cond_broadcast(&s->worker_idle);
        qemu_bh_schedule(s->job_bh);
    }
    qemu_mutex_unlock(&s->worker_lock);
    return NULL;
}

/* Completion, under the BQL: account the piece and run the queue again. */
static void m890_job_done_bh(void *opaque)
{
    M890State *s = opaque;
    M890Job *j = &s->job;
    M890Queue *q;

    qemu_mutex_lock(&s->worker_lock);
    if (j->state != M890_JOB_DONE) {
        qemu_mutex_unlock(&s->worker_lock);
        return;                         /* cancelled by a reset */
    }
    j->state = M890_JOB_FREE;
    qemu_mutex_unlock(&s->worker_lock);

    q = &s->queues[j->qid];
    trace_m890_async_done(j->qid, j->bytes);
    m890_clock_job(s, q, j->cls_bytes);
    q->progress += j->bytes;
    q->busy = false;
    m890_job_unmap(s, true);
    qemu_bh_schedule(s->bh);
}

bool m890_async_idle(M890State *s)
{
    bool idle;

    qemu_mutex_lock(&s->worker_lock);
    idle = s->job.state == M890_JOB_FREE;
    qemu_mutex_unlock(&s->worker_lock);
    return idle;
}

/* Hand the job built for @q (state FREE, nseg > 0) to the worker. */
void m890_async_submit(M890State *s, M890Queue *q)
{
    trace_m890_async_queue(q->index, s->job.bytes);
    m890_clock_start(s, q);     /* the data mover takes the packet */
    q->busy = true;
    s->job.qid = q->index;
    qemu_mutex_lock(&s->worker_lock);
    s->job.state = M890_JOB_QUEUED;
    qemu_cond_signal(&s->worker_wake);
    qemu_mutex_unlock(&s->worker_lock);
}

/*
 * Drop the job of @q (of any queue if @q is NULL): wait for a piece being
 * copied, then unmap without advancing the packet.
 */
void m890_async_cancel(M890State *s, M890Queue *q)
{
    M890Job *j = &s->job;
    bool written;

    qemu_mutex_lock(&s->worker_lock);
    if (j->state == M890_JOB_FREE || (q && j->qid != q->index)) {
        qemu_mutex_unlock(&s->worker_lock);
        return;
    }
    while (j->state == M890_JOB_RUNNING) {
        qemu_cond_wait(&s->worker_idle, &s->worker_lock);
    }
    written = j->state == M890_JOB_DONE;
    j->state = M890_JOB_FREE;
    qemu_mutex_unlock(&s->worker_lock);

    trace_m890_async_cancel(j->qid, j->bytes);
    s->queues[j->qid].busy = false;
    m890_job_unmap(s, written);
}

void m890_async_init(M890State *s)
{
    qemu_mutex_init(&s->worker_lock);
    qemu_cond_init(&s->worker_wake);
    qemu_cond_init(&s->worker_idle);
    s->worker_stop = false;
    s->job.state = M890_JOB_FREE;
    s->job.nseg = 0;
    s->job_bh = qemu_bh_new_guarded(m890_job_done_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
    qemu_thread_create(&s->worker, "m890-copy", m890_worker_run, s,
                       QEMU_THREAD_JOINABLE);
}

void m890_async_fini(M890State *s)
{
    m890_async_cancel(s, NULL);
    qemu_mutex_lock(&s->worker_lock);
    s->worker_stop = true;
    qemu_cond_signal(&s->worker_wake);
    qemu_mutex_unlock(&s->worker_lock);
    qemu_thread_join(&s->worker);
    qemu_bh_delete(s->job_bh);
    s->job_bh = NULL;
    qemu_cond_destroy(&s->worker_idle);
    qemu_cond_destroy(&s->worker_wake);
    qemu_mutex_destroy(&s->worker_lock);
}
