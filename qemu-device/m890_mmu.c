/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 device MMU
 *
 * Every packet address is a 48-bit device VA of the queue's context
 * (Q_ASID).  The context descriptor at MMU_CTX_BASE + 16 * ASID gives the
 * root of a 4-level table (512 entries of 8 bytes per level, 4 KiB pages,
 * 2 MiB leaves at level 1).  Leaves target host memory (a DMA address),
 * local HBM (an offset) or a peer's HBM through the fabric.
 *
 * Translations are cached in a small direct-mapped TLB, dropped by
 * MMU_INVALIDATE (one ASID or all) and by any change of the MMU registers.
 * A failed translation stores the VA and the reason in the fault registers,
 * counts it and raises EVT_STATUS.MMU_FAULT; the caller stops the queue.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci_device.h"

#include "m890.h"
#include "trace.h"

void m890_mmu_fault(M890State *s, M890Queue *q, uint64_t va, bool write,
                    uint32_t reason)
{
    s->fault_addr = va;
    s->fault_info = (q->asid & M890_FAULT_ASID_MASK) |
                    (reason << M890_FAULT_REASON_SHIFT) |
                    (write ? M890_FAULT_WRITE : 0) |
                    (q->index << M890_FAULT_QUEUE_SHIFT);
    s->fault_count++;
    trace_m890_err_mmu_fault(q->index, q->asid, va, write, reason);
    qemu_log_mask(LOG_GUEST_ERROR,
                  "m890: MMU fault queue %u asid %u va 0x%" PRIx64
                  " %s reason %u\n", q->index, q->asid, va,
                  write ? "write" : "read", reason);
    m890_raise_event(s, M890_EVT_MMU_FAULT);
}

void m890_mmu_invalidate(M890State *s, bool all, uint16_t asid)
{
    unsigned int i;

    for (i = 0; i < M890_TLB_ENTRIES; i++) {
        if (all || s->tlb[i].asid == asid) {
            s->tlb[i].valid = false;
        }
    }
    trace_m890_mmu_invalidate(all, asid);
}

static unsigned int m890_tlb_index(uint16_t asid, uint64_t vpn)
{
    return (vpn ^ (vpn >> 9) ^ asid) % M890_TLB_ENTRIES;
}

/* Walk the tables.  Returns 0 with the leaf in *pte, or a fault reason. */
static uint32_t m890_walk(M890State *s, uint16_t asid, uint64_t va,
                          uint64_t *pte, uint8_t *shift)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint64_t desc[2], table, e = 0;
    int level;

    if (!(s->mmu_control & M890_MMU_CONTROL_ENABLE) ||
        asid >= s->mmu_ctx_count) {
        return M890_FAULT_CTX_INVALID;
    }
    /* one read of the whole descriptor: what is checked is what is used */
    if (pci_dma_read(pdev, s->mmu_ctx_base + (uint64_t)asid *
                     M890_CTX_DESC_SIZE, desc, sizeof(desc)) != MEMTX_OK) {
        return M890_FAULT_TABLE_DMA;
    }
    desc[0] = le64_to_cpu(desc[0]);
    if (!(desc[0] & M890_CTX_VALID) || (desc[0] & M890_CTX_RSVD_MASK) ||
        desc[1]) {
        return M890_FAULT_CTX_INVALID;
    }
    table = desc[0] & M890_CTX_ROOT_MASK;
    for (level = M890_PT_LEVELS - 1; level >= 0; level--) {
        unsigned int idx = (va >> (M890_PAGE_SHIFT + 9 * level)) & 511;

        if (ldq_le_pci_dma(pdev, table + idx * 8, &e,
                           MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            return M890_FAULT_TABLE_DMA;
        }
        if (!(e & M890_PTE_VALID)) {
            return M890_FAULT_NOT_PRESENT;
        }
        if (e & M890_PTE_RSVD_MASK) {
            return M890_FAULT_BAD_PTE;
        }
        if (level == 0 || (level == 1 && (e & M890_PTE_LARGE))) {
            break;
        }
        if (e & M890_PTE_LARGE) {
            return M890_FAULT_BAD_PTE;  /* LARGE only at level 1 */
        }
        if (e & M890_PTE_TABLE_RSVD_MASK) {
            return M890_FAULT_BAD_PTE;  /* TARGET/PEER of a table entry */
        }
        table = e & M890_PTE_ADDR_MASK;
    }
    if (level == 0 && (e & M890_PTE_LARGE)) {
        return M890_FAULT_BAD_PTE;
    }
    if (level == 1 && (e & M890_PTE_ADDR_MASK &
                       ((1ull << M890_LARGE_PAGE_SHIFT) - 1))) {
        return M890_FAULT_BAD_PTE;      /* 2 MiB leaf not 2 MiB aligned */
    }
    if (((e & M890_PTE_TARGET_MASK) >> M890_PTE_TARGET_SHIFT) >
        M890_PTE_TARGET_PEER) {
        return M890_FAULT_BAD_PTE;
    }
    *pte = e;
    *shift = level ? M890_LARGE_PAGE_SHIFT : M890_PAGE_SHIFT;
    return 0;
}

M890Status m890_mmu_translate(M890State *s, M890Queue *q, uint64_t va,
                              bool write, M890Xlate *x)
{
    uint16_t asid = q->asid & M890_FAULT_ASID_MASK;
    uint64_t vpn = va >> M890_PAGE_SHIFT, pte, page_mask;
    M890TlbEntry *t = &s->tlb[m890_tlb_index(asid, vpn)];
    uint8_t shift;
    uint32_t reason;

    if (va >= M890_VA_LIMIT || q->asid > M890_FAULT_ASID_MASK) {
        m890_mmu_fault(s, q, va, write, va >= M890_VA_LIMIT ?
                       M890_FAULT_NOT_PRESENT : M890_FAULT_CTX_INVALID);
        return M890_ST_MMU_FAULT;
    }
    if (t->valid && t->asid == asid && t->vpn == vpn) {
        pte = t->pte;
        shift = t->shift;
    } else {
        reason = m890_walk(s, asid, va, &pte, &shift);
        if (reason) {
            m890_mmu_fault(s, q, va, write, reason);
            return M890_ST_MMU_FAULT;
        }
        t->valid = true;
        t->asid = asid;
        t->vpn = vpn;
        t->pte = pte;
        t->shift = shift;
    }
    if (write && !(pte & M890_PTE_WRITE)) {
        m890_mmu_fault(s, q, va, write, M890_FAULT_WRITE_PROTECT);
        return M890_ST_MMU_FAULT;
    }
    page_mask = (1ull << shift) - 1;
    x->target = (pte & M890_PTE_TARGET_MASK) >> M890_PTE_TARGET_SHIFT;
    x->peer = (pte & M890_PTE_PEER_MASK) >> M890_PTE_PEER_SHIFT;
    x->writable = pte & M890_PTE_WRITE;
    x->addr = (pte & M890_PTE_ADDR_MASK & ~page_mask) | (va & page_mask);
    x->len = (page_mask + 1) - (va & page_mask);
    return 0;
}
