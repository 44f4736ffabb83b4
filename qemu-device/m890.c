/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 PCIe function, registers and lifecycle
 *
 * The M890 card is one PCIe function: BAR0 holds the registers and the
 * doorbells (include/m890_regs.h), BAR2 is the card's HBM, backed by a
 * host memory backend so that peers (and other processes) can reach it,
 * and BAR4 holds the MSI-X table.  This file owns the PCI identity, the
 * register decoder, realize/unrealize and reset; the command processor,
 * MMU, packets and fabric live in their own files.
 *
 * Registers are decoded as 32-bit words; a 64-bit access is two word
 * accesses, low half first, which matches the rule in the register header.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"

#include "m890.h"
#include "trace.h"

void m890_msix_notify(M890State *s, uint32_t vector)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (vector >= msix_nr_vectors_allocated(pdev)) {
        qemu_log_mask(LOG_GUEST_ERROR, "m890: MSI-X vector %u not present\n",
                      vector);
        return;
    }
    if (msix_enabled(pdev)) {
        trace_m890_irq_msix(vector);
        msix_notify(pdev, vector);
    }
}

void m890_raise_event(M890State *s, uint32_t evt)
{
    uint32_t new = evt & ~s->evt_status;

    s->evt_status |= evt;
    trace_m890_event(evt, s->evt_status);
    if (new & ~s->evt_mask) {
        m890_msix_notify(s, M890_MSIX_VEC_EVENT);
    }
}

static void m890_soft_reset(M890State *s)
{
    unsigned int i;

    qemu_bh_cancel(s->bh);
    timer_del(s->wait_timer);
    for (i = 0; i < M890_MAX_QUEUES; i++) {
        m890_queue_reset(s, &s->queues[i]);
        s->queues[i].ring_base = 0;
        s->queues[i].ring_order = 0;
        s->queues[i].asid = 0;
        s->queues[i].fence_addr = 0;
        s->queues[i].fence_value = 0;
        s->queues[i].msix_vector = 0;
        s->queues[i].err_head = 0;
    }
    s->rr_next = 0;
    s->wait_poll_ns = M890_WAIT_POLL_NS;
    s->wait_poll_fired = false;
    s->scratch = 0;
    s->evt_status = 0;
    s->evt_mask = 0;
    s->qerr_status = 0;
    m890_clock_reset(s);
    s->mmu_ctx_base = 0;
    s->mmu_ctx_count = 0;
    s->mmu_control = 0;
    s->fault_addr = 0;
    s->fault_info = 0;
    s->fault_count = 0;
    m890_mmu_invalidate(s, true, 0);
    memset(s->sw_arg, 0, sizeof(s->sw_arg));
    memset(s->sw_data, 0, sizeof(s->sw_data));
    s->sw_status = 0;
    s->sw_event = 0;
    s->sw_event_seq = 0;
    trace_m890_reset();
}

uint32_t m890_caps(M890State *s)
{
    uint32_t caps = M890_HWCAP_MMU | M890_HWCAP_FABRIC |
                    M890_HWCAP_TIMESTAMP | M890_HWCAP_GATHER |
                    M890_HWCAP_REDUCE | M890_HWCAP_MX;

    if (s->engines) {
        caps |= M890_HWCAP_ENGINES | M890_HWCAP_ATOMICS | M890_HWCAP_ROWS |
                M890_HWCAP_GEMM;
    }
    return caps;
}

static M890Queue *m890_queue_of(M890State *s, hwaddr addr, uint32_t *reg)
{
    uint32_t qid = (addr - M890_REG_Q_BASE) / M890_REG_Q_STRIDE;

    if (qid >= s->num_queues) {
        return NULL;
    }
    *reg = (addr - M890_REG_Q_BASE) % M890_REG_Q_STRIDE;
    return &s->queues[qid];
}

static uint32_t lo32(uint64_t v)
{
    return (uint32_t)v;
}

static uint32_t hi32(uint64_t v)
{
    return (uint32_t)(v >> 32);
}

static uint32_t m890_read_queue(M890State *s, hwaddr addr)
{
    uint32_t reg;
    M890Queue *q = m890_queue_of(s, addr, &reg);

    if (!q) {
        trace_m890_ub_queue_reg(addr);
        return 0;
    }
    switch (reg) {
    case M890_Q_RING_BASE:
        return lo32(q->ring_base);
    case M890_Q_RING_BASE + 4:
        return hi32(q->ring_base);
    case M890_Q_RING_ORDER:
        return q->ring_order;
    case M890_Q_ASID:
        return q->asid;
    case M890_Q_CONTROL:
        /* RESET clears once abandoned pieces are done (spec §4.4) */
        return (q->enabled ? M890_Q_CONTROL_ENABLE : 0) |
               (q->orphans ? M890_Q_CONTROL_RESET : 0);
    case M890_Q_STATUS:
        return m890_queue_status(s, q);
    case M890_Q_HEAD:
        return q->head;
    case M890_Q_TAIL:
        return q->tail;
    case M890_Q_FENCE_ADDR:
        return lo32(q->fence_addr);
    case M890_Q_FENCE_ADDR + 4:
        return hi32(q->fence_addr);
    case M890_Q_FENCE_VALUE:
        return lo32(q->fence_value);
    case M890_Q_FENCE_VALUE + 4:
        return hi32(q->fence_value);
    case M890_Q_MSIX_VECTOR:
        return q->msix_vector;
    case M890_Q_ERR_HEAD:
        return q->err_head;
    }
    return 0;
}

/*
 * The registers are read and written per block of BAR0 (spec §3): the
 * identification and global control block (§3.1), the MMU (§5), the
 * queues (§4) and the switch management window (§8.3).  Each block's
 * function returns false for an address not in it.
 */

/* Identification and global control (spec §3.1). */
static bool m890_read_dev(M890State *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case M890_REG_ID:
        *val = M890_ID_MAGIC;
        return true;
    case M890_REG_VERSION:
        *val = s->engines ? M890_SPEC_VERSION : M890_SPEC_VERSION_1_0;
        return true;
    case M890_REG_CAPS:
        *val = m890_caps(s);
        return true;
    case M890_REG_NUM_QUEUES:
        *val = s->num_queues;
        return true;
    case M890_REG_HBM_SIZE:
        *val = lo32(s->hbm_size);
        return true;
    case M890_REG_HBM_SIZE + 4:
        *val = hi32(s->hbm_size);
        return true;
    case M890_REG_FABRIC:
        *val = m890_switch_fabric_reg(s);
        return true;
    case M890_REG_STATUS:
        /* a reset is done once abandoned pieces are (spec §9.1) */
        *val = m890_async_quiet(s) ? M890_STATUS_READY : 0;
        return true;
    case M890_REG_SCRATCH:
        *val = s->scratch;
        return true;
    case M890_REG_CLOCK:
        *val = lo32(m890_clock_ns(s));
        return true;
    case M890_REG_CLOCK + 4:
        *val = hi32(m890_clock_ns(s));
        return true;
    case M890_REG_NUM_CTX:
        *val = M890_NUM_CTX;
        return true;
    case M890_REG_NUM_ENGINES:
        *val = s->engines;
        return true;
    case M890_REG_EVT_STATUS:
        *val = s->evt_status;
        return true;
    case M890_REG_EVT_MASK:
        *val = s->evt_mask;
        return true;
    case M890_REG_QERR_STATUS:
        *val = lo32(s->qerr_status);
        return true;
    case M890_REG_QERR_STATUS_HI:
        *val = hi32(s->qerr_status);
        return true;
    }
    return false;
}

/* The MMU's context table and fault registers (spec §5). */
static bool m890_read_mmu(M890State *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case M890_REG_MMU_CTX_BASE:
        *val = lo32(s->mmu_ctx_base);
        return true;
    case M890_REG_MMU_CTX_BASE + 4:
        *val = hi32(s->mmu_ctx_base);
        return true;
    case M890_REG_MMU_CTX_COUNT:
        *val = s->mmu_ctx_count;
        return true;
    case M890_REG_MMU_CONTROL:
        *val = s->mmu_control;
        return true;
    case M890_REG_MMU_FAULT_ADDR:
        *val = lo32(s->fault_addr);
        return true;
    case M890_REG_MMU_FAULT_ADDR + 4:
        *val = hi32(s->fault_addr);
        return true;
    case M890_REG_MMU_FAULT_INFO:
        *val = s->fault_info;
        return true;
    case M890_REG_MMU_FAULT_COUNT:
        *val = s->fault_count;
        return true;
    }
    return false;
}

/* The switch management window (spec §8.3). */
static bool m890_read_sw(M890State *s, hwaddr addr, uint32_t *val)
{
    if (addr >= M890_REG_SW_DATA(0) &&
        addr < M890_REG_SW_DATA(M890_SW_DATA_WORDS)) {
        uint64_t v = s->sw_data[(addr - M890_REG_SW_DATA(0)) / 8];

        *val = (addr & 4) ? hi32(v) : lo32(v);
        return true;
    }
    switch (addr) {
    case M890_REG_SW_STATUS:
        *val = s->sw_status;
        return true;
    case M890_REG_SW_ARG0:
        *val = lo32(s->sw_arg[0]);
        return true;
    case M890_REG_SW_ARG0 + 4:
        *val = hi32(s->sw_arg[0]);
        return true;
    case M890_REG_SW_ARG1:
        *val = lo32(s->sw_arg[1]);
        return true;
    case M890_REG_SW_ARG1 + 4:
        *val = hi32(s->sw_arg[1]);
        return true;
    case M890_REG_SW_EVENT:
        *val = s->sw_event;
        return true;
    case M890_REG_SW_EVENT_SEQ:
        *val = s->sw_event_seq;
        return true;
    }
    return false;
}

static uint32_t m890_read32(M890State *s, hwaddr addr)
{
    uint32_t val;

    if (addr >= M890_REG_Q_BASE &&
        addr < M890_REG_Q(M890_MAX_QUEUES)) {
        return m890_read_queue(s, addr);
    }
    if (m890_read_dev(s, addr, &val) || m890_read_mmu(s, addr, &val) ||
        m890_read_sw(s, addr, &val)) {
        return val;
    }
    trace_m890_ub_read(addr);
    return 0;
}

static void m890_bad_write(hwaddr addr, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR,
                  "m890: write 0x%x to read-only or unknown register 0x%"
                  HWADDR_PRIx "\n", val, addr);
    trace_m890_ub_write(addr, val);
}

/*
 * RING_BASE, RING_ORDER and ASID say where the command processor reads and
 * which context it translates in: they are read-only while ENABLE is set
 * (spec 4.1), so a held packet never changes ring or context under it.
 */
static bool m890_ring_reg_locked(M890Queue *q, hwaddr addr, uint32_t val)
{
    if (!q->enabled) {
        return false;
    }
    qemu_log_mask(LOG_GUEST_ERROR,
                  "m890: queue %u ring register 0x%" HWADDR_PRIx
                  " written while enabled, 0x%x ignored\n",
                  q->index, addr, val);
    trace_m890_ub_write(addr, val);
    return true;
}

static void m890_write_queue(M890State *s, hwaddr addr, uint32_t val)
{
    uint32_t reg;
    M890Queue *q = m890_queue_of(s, addr, &reg);

    if (!q) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "m890: write to queue register 0x%" HWADDR_PRIx
                      " beyond %u queues\n", addr, s->num_queues);
        trace_m890_ub_queue_reg(addr);
        return;
    }
    switch (reg) {
    case M890_Q_RING_BASE:
    case M890_Q_RING_BASE + 4:
    case M890_Q_RING_ORDER:
    case M890_Q_ASID:
        if (m890_ring_reg_locked(q, addr, val)) {
            return;
        }
        break;
    }
    switch (reg) {
    case M890_Q_RING_BASE:
        q->ring_base = deposit64(q->ring_base, 0, 32, val);
        break;
    case M890_Q_RING_BASE + 4:
        q->ring_base = deposit64(q->ring_base, 32, 32, val);
        break;
    case M890_Q_RING_ORDER:
        q->ring_order = val;
        break;
    case M890_Q_ASID:
        q->asid = val;
        break;
    case M890_Q_CONTROL:
        m890_queue_write_control(s, q, val);
        break;
    case M890_Q_FENCE_ADDR:
        q->fence_addr = deposit64(q->fence_addr, 0, 32, val);
        break;
    case M890_Q_FENCE_ADDR + 4:
        q->fence_addr = deposit64(q->fence_addr, 32, 32, val);
        break;
    case M890_Q_MSIX_VECTOR:
        q->msix_vector = val;
        break;
    default:
        m890_bad_write(addr, val);
        break;
    }
}

/* CONTROL, SCRATCH and the event registers (spec §3.1). */
static bool m890_write_dev(M890State *s, hwaddr addr, uint32_t val)
{
    uint32_t unmasked;

    switch (addr) {
    case M890_REG_CONTROL:
        if (val & M890_CONTROL_RESET) {
            m890_soft_reset(s);
        }
        if (val & ~M890_CONTROL_RESET) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "m890: reserved CONTROL bits 0x%x\n", val);
        }
        return true;
    case M890_REG_SCRATCH:
        s->scratch = val;
        return true;
    case M890_REG_EVT_STATUS:
        s->evt_status &= ~val;
        return true;
    case M890_REG_EVT_MASK:
        unmasked = s->evt_mask & ~val;
        s->evt_mask = val;
        if (s->evt_status & unmasked) {
            m890_msix_notify(s, M890_MSIX_VEC_EVENT);
        }
        return true;
    case M890_REG_QERR_STATUS:
        s->qerr_status &= ~(uint64_t)val;
        return true;
    case M890_REG_QERR_STATUS_HI:
        s->qerr_status &= ~((uint64_t)val << 32);
        return true;
    }
    return false;
}

/*
 * The MMU (spec §5): a write to the context table's registers drops
 * every cached translation.
 */
static bool m890_write_mmu(M890State *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case M890_REG_MMU_CTX_BASE:
        s->mmu_ctx_base = deposit64(s->mmu_ctx_base, 0, 32, val);
        break;
    case M890_REG_MMU_CTX_BASE + 4:
        s->mmu_ctx_base = deposit64(s->mmu_ctx_base, 32, 32, val);
        break;
    case M890_REG_MMU_CTX_COUNT:
        if (val > M890_NUM_CTX) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "m890: MMU_CTX_COUNT %u > %u, clamped\n",
                          val, M890_NUM_CTX);
            val = M890_NUM_CTX;
        }
        s->mmu_ctx_count = val;
        break;
    case M890_REG_MMU_CONTROL:
        s->mmu_control = val & M890_MMU_CONTROL_ENABLE;
        break;
    case M890_REG_MMU_INVALIDATE:
        m890_mmu_invalidate(s, val & M890_MMU_INV_ALL,
                            val & M890_MMU_INV_ASID_MASK);
        return true;
    default:
        return false;
    }
    m890_mmu_invalidate(s, true, 0);
    return true;
}

/* The switch command and its arguments (spec §8.3). */
static bool m890_write_sw(M890State *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case M890_REG_SW_CMD:
        m890_switch_cmd(s, val);
        return true;
    case M890_REG_SW_ARG0:
        s->sw_arg[0] = deposit64(s->sw_arg[0], 0, 32, val);
        return true;
    case M890_REG_SW_ARG0 + 4:
        s->sw_arg[0] = deposit64(s->sw_arg[0], 32, 32, val);
        return true;
    case M890_REG_SW_ARG1:
        s->sw_arg[1] = deposit64(s->sw_arg[1], 0, 32, val);
        return true;
    case M890_REG_SW_ARG1 + 4:
        s->sw_arg[1] = deposit64(s->sw_arg[1], 32, 32, val);
        return true;
    }
    return false;
}

static void m890_write32(M890State *s, hwaddr addr, uint32_t val)
{
    if (addr >= M890_REG_Q_BASE &&
        addr < M890_REG_Q(M890_MAX_QUEUES)) {
        m890_write_queue(s, addr, val);
        return;
    }
    if (!m890_write_dev(s, addr, val) && !m890_write_mmu(s, addr, val) &&
        !m890_write_sw(s, addr, val)) {
        m890_bad_write(addr, val);
    }
}

static uint64_t m890_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    M890State *s = opaque;
    uint64_t val;

    if (addr & 3) {
        qemu_log_mask(LOG_GUEST_ERROR, "m890: unaligned read at 0x%"
                      HWADDR_PRIx "\n", addr);
        return 0;
    }
    if (addr >= M890_REG_DOORBELL_BASE) {
        return 0;       /* doorbells are write-only */
    }
    val = m890_read32(s, addr);
    if (size == 8) {
        val |= (uint64_t)m890_read32(s, addr + 4) << 32;
    }
    trace_m890_mmio_read(addr, size, val);
    return val;
}

static void m890_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    M890State *s = opaque;

    trace_m890_mmio_write(addr, size, val);
    if (addr & 3) {
        qemu_log_mask(LOG_GUEST_ERROR, "m890: unaligned write at 0x%"
                      HWADDR_PRIx "\n", addr);
        return;
    }
    if (addr >= M890_REG_DOORBELL_BASE) {
        hwaddr off = addr - M890_REG_DOORBELL_BASE;

        if (off % M890_REG_DOORBELL_STRIDE == 0) {
            m890_doorbell(s, off / M890_REG_DOORBELL_STRIDE, (uint32_t)val);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "m890: write inside doorbell page"
                          " at 0x%" HWADDR_PRIx "\n", addr);
        }
        return;
    }
    m890_write32(s, addr, (uint32_t)val);
    if (size == 8) {
        m890_write32(s, addr + 4, (uint32_t)(val >> 32));
    }
}

static const MemoryRegionOps m890_mmio_ops = {
    .read = m890_mmio_read,
    .write = m890_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};

/*
 * A SIGNAL whose semaphore this card cannot tell (one of another VM's
 * cards): re-check every queue blocked in a WAIT.
 */
void m890_kick(M890State *s)
{
    bool any = false;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        if (s->queues[i].waiting) {
            s->queues[i].wait_kicked = true;
            any = true;
        }
    }
    if (any) {
        qemu_bh_schedule(s->bh);
    }
}

/*
 * A SIGNAL wrote the semaphore at @sem (a host pointer into a card's HBM,
 * NULL for host memory): re-check the queues whose WAIT reads it.
 */
void m890_kick_sem(M890State *s, const void *sem)
{
    bool any = false;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        if (s->queues[i].waiting && s->queues[i].wait_sem == sem) {
            s->queues[i].wait_kicked = true;
            any = true;
        }
    }
    if (any) {
        qemu_bh_schedule(s->bh);
    }
}

void m890_fabric_event(M890State *s, const struct icn_event *ev)
{
    s->sw_event = icn_event_word(ev);
    s->sw_event_seq++;
    trace_m890_fabric_event(ev->type, ev->port, ev->value, ev->admin,
                            ev->oper, ev->present);
    m890_raise_event(s, M890_EVT_FABRIC);
}

static bool m890_check_props(M890State *s, Error **errp)
{
    uint64_t size;

    if (!s->hostmem) {
        error_setg(errp, "m890: 'memdev' property is required");
        return false;
    }
    if (host_memory_backend_is_mapped(s->hostmem)) {
        error_setg(errp, "m890: memdev '%s' is already in use",
                   object_get_canonical_path_component(OBJECT(s->hostmem)));
        return false;
    }
    if (s->num_queues < 1 || s->num_queues > M890_MAX_QUEUES) {
        error_setg(errp, "m890: 'queues' must be 1..%d, got %u",
                   M890_MAX_QUEUES, s->num_queues);
        return false;
    }
    if (s->engines > M890_MAX_ENGINES) {
        error_setg(errp, "m890: 'engines' must be 0 (a spec 1.0 card) .. %d,"
                   " got %u", M890_MAX_ENGINES, s->engines);
        return false;
    }
    if (s->sw && s->port == M890_PORT_NONE) {
        error_setg(errp, "m890: 'port' is required with 'switch'");
        return false;
    }
    if (s->port != M890_PORT_NONE && s->port >= M890_SW_PORTS) {
        error_setg(errp, "m890: port %u >= %d", s->port, M890_SW_PORTS);
        return false;
    }
    if (!s->sw && s->port != M890_PORT_NONE) {
        error_setg(errp, "m890: 'port' needs a 'switch'");
        return false;
    }
    size = memory_region_size(host_memory_backend_get_memory(s->hostmem));
    if (size < 4096 || !is_power_of_2(size)) {
        error_setg(errp, "m890: memdev size 0x%" PRIx64
                   " is not a power of two >= 4 KiB", size);
        return false;
    }
    return true;
}

static void m890_realize(PCIDevice *pdev, Error **errp)
{
    M890State *s = M890(pdev);
    uint8_t *conf = pdev->config;
    unsigned int i;

    if (!m890_check_props(s, errp)) {
        return;
    }
    s->hbm_mr = host_memory_backend_get_memory(s->hostmem);
    s->hbm = memory_region_get_ram_ptr(s->hbm_mr);
    s->hbm_size = memory_region_size(s->hbm_mr);

    pci_config_set_vendor_id(conf, M890_PCI_VENDOR_ID);
    pci_config_set_device_id(conf, M890_PCI_DEVICE_ID);
    pci_config_set_revision(conf, M890_PCI_REVISION);
    pci_config_set_class(conf, M890_PCI_CLASS);
    conf[PCI_INTERRUPT_PIN] = 0;

    if (pci_is_express(pdev)) {
        if (pcie_endpoint_cap_init(pdev, 0x80) < 0) {
            error_setg(errp, "m890: cannot add the PCIe capability");
            return;
        }
        pcie_cap_flr_init(pdev);
    }

    memory_region_init_io(&s->regs, OBJECT(s), &m890_mmio_ops, s,
                          "m890-regs", M890_REGS_SIZE);
    pci_register_bar(pdev, M890_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->regs);
    pci_register_bar(pdev, M890_BAR_HBM, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, s->hbm_mr);

    if (msix_init_exclusive_bar(pdev, M890_MSIX_VEC_QUEUE0 + s->num_queues,
                                M890_BAR_MSIX, errp)) {
        goto err_pcie;
    }
    for (i = 0; i < M890_MSIX_VEC_QUEUE0 + s->num_queues; i++) {
        msix_vector_use(pdev, i);
    }

    s->bounce = g_malloc(M890_BOUNCE_SIZE);
    for (i = 0; i < M890_MAX_QUEUES; i++) {
        s->queues[i].index = i;
    }
    s->bh = qemu_bh_new_guarded(m890_process_bh, s,
                                &DEVICE(s)->mem_reentrancy_guard);
    s->wait_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, m890_wait_timer_cb, s);

    if (s->sw && m890_switch_attach(s, errp) < 0) {
        goto err_timers;
    }
    m890_async_init(s);
    host_memory_backend_set_mapped(s->hostmem, true);
    m890_soft_reset(s);
    return;

err_timers:
    timer_free(s->wait_timer);
    s->wait_timer = NULL;
    qemu_bh_delete(s->bh);
    s->bh = NULL;
    g_free(s->bounce);
    s->bounce = NULL;
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
err_pcie:
    if (pci_is_express(pdev)) {
        pcie_cap_exit(pdev);
    }
}

static void m890_exit(PCIDevice *pdev)
{
    M890State *s = M890(pdev);

    m890_async_fini(s);
    m890_gemm_fini(s);
    m890_switch_detach(s);
    timer_free(s->wait_timer);
    s->wait_timer = NULL;
    qemu_bh_delete(s->bh);
    s->bh = NULL;
    g_free(s->bounce);
    s->bounce = NULL;
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
    if (pci_is_express(pdev)) {
        pcie_cap_exit(pdev);
    }
    host_memory_backend_set_mapped(s->hostmem, false);
    s->hbm = NULL;
}

static void m890_reset_hold(Object *obj, ResetType type)
{
    M890State *s = M890(obj);

    if (s->bh) {
        m890_soft_reset(s);
    }
}

static void m890_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    if (pci_is_express(pdev)) {
        pcie_cap_flr_write_config(pdev, addr, val, len);
    }
}

static const VMStateDescription m890_vmstate = {
    .name = "m890",
    .unmigratable = 1,
};

static const Property m890_properties[] = {
    DEFINE_PROP_LINK("memdev", M890State, hostmem, TYPE_MEMORY_BACKEND,
                     HostMemoryBackend *),
    DEFINE_PROP_LINK("switch", M890State, sw, TYPE_ICN_SWITCH,
                     IcnSwitchState *),
    DEFINE_PROP_UINT8("port", M890State, port, M890_PORT_NONE),
    DEFINE_PROP_BOOL("switch-mgmt", M890State, sw_mgmt, true),
    DEFINE_PROP_UINT8("trust-domain", M890State, trust_domain, 0),
    DEFINE_PROP_UINT32("queues", M890State, num_queues, 16),
    DEFINE_PROP_UINT8("engines", M890State, engines, M890_ENGINES_DEFAULT),
};

/* What `-device m890,help` says of each property (one line each). */
static const struct {
    const char *name;
    const char *desc;
} m890_property_descs[] = {
    { "memdev", "memory backend holding the card's HBM (required; a power "
      "of two of at least 4 KiB; shared memory for several VMs)" },
    { "switch", "icn-switch object the card is cabled to (none: no fabric)" },
    { "port", "switch port 0..63 of the card (required with 'switch'; "
      "255: not cabled)" },
    { "switch-mgmt", "whether the card may change switch state: ports, "
      "routes, partitions (spec 8.3)" },
    { "trust-domain", "trust domain of the card on the switch: exports are "
      "checked between domains (spec 8.7; test setups)" },
    { "queues", "hardware queues of the card, 1..16" },
    { "engines", "data movers of the card, 1..16 for a spec 1.1 card "
      "(timing model 1.2); 0: a spec 1.0 card under timing model 1.1" },
};

static void m890_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    pc->realize = m890_realize;
    pc->exit = m890_exit;
    pc->config_write = m890_write_config;
    pc->vendor_id = M890_PCI_VENDOR_ID;
    pc->device_id = M890_PCI_DEVICE_ID;
    pc->revision = M890_PCI_REVISION;
    pc->class_id = M890_PCI_CLASS;
    pc->subsystem_vendor_id = M890_PCI_SUBSYS_VENDOR_ID;
    pc->subsystem_id = M890_PCI_SUBSYS_ID;
    rc->phases.hold = m890_reset_hold;
    dc->desc = "M890 AI accelerator";
    dc->vmsd = &m890_vmstate;
    device_class_set_props(dc, m890_properties);
    for (size_t i = 0; i < ARRAY_SIZE(m890_property_descs); i++) {
        object_class_property_set_description(klass,
                                              m890_property_descs[i].name,
                                              m890_property_descs[i].desc);
    }
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo m890_info = {
    .name = TYPE_M890,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(M890State),
    .class_init = m890_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void m890_register_types(void)
{
    type_register_static(&m890_info);
}

type_init(m890_register_types)
