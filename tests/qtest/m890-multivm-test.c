/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of M890 cards in several VMs on icn-switchd
 *
 * Runs the real icn-switchd (path in $ICN_SWITCHD) and two QEMU
 * processes with two cards each on it: VM A with ports 0 and 1, VM B
 * with ports 2 and 3 (Documentation/icn-switchd.rst).  Page tables
 * written by the test map every fabric id's HBM at its own VA window, so
 * the cards move data across the VMs the way a guest driver's peer PTEs
 * would.  Cards of different VMs are in different trust domains (spec
 * §8.7): a cross-VM access needs a window on an export of the target
 * card, so the test first checks that such accesses fault without one,
 * with a wrong key and right after EXPORT_DEL, then opens windows on the
 * whole HBM of every card for the rest.  Covered: exports and windows
 * across VMs; cross-VM peer writes and reads and their counters;
 * link events across VMs; partitions, routes and injected drops set in
 * one VM applied to the other's transfers (the partition check still
 * refuses accesses through open windows); a WAIT on another VM's
 * semaphore woken by its SIGNAL through the doorbell eventfd; a VM
 * frozen during a revoke (cut off after the fence's timeout, then back
 * without its exports and windows); a VM killed while a card of the
 * other VM waits on its semaphore (the WAIT fails with FABRIC); a new VM
 * on the freed ports, without the dead VM's exports and windows; the
 * daemon killed and restarted (ports down with events, ENODEV, FABRIC,
 * then reconnection, exports gone, and working peers once re-opened).
 */
#include "qemu/osdep.h"
#include <sys/wait.h>

#include "m890-qtest.h"

#define VA_FID(f)       (0x200000000ull + (uint64_t)(f) * HBM_SIZE)
#define FIDS            4               /* fabric ids mapped: 0..3 */

typedef struct VM {
    QOSState *qs;
    Card card[2];
} VM;

static char *sock_dir, *sock_path;
static const char *daemon_bin;
static pid_t daemon_pid = -1;
static VM vm_a, vm_b;

/* Wait up to @ms until the queue stops waiting (idle or error). */
static uint32_t wake_ms(Card *c, int q, int ms)
{
    uint32_t st = 0;
    int i;

    for (i = 0; i < ms; i++) {
        st = rd(c, M890_REG_Q(q) + M890_Q_STATUS);
        if (st & (M890_Q_STATUS_IDLE | M890_Q_STATUS_ERROR)) {
            return st;
        }
        g_usleep(1000);
    }
    return st;
}

static uint32_t sw_cmd(Card *c, uint32_t op, unsigned int arg, uint64_t arg0)
{
    wrq(c, M890_REG_SW_ARG0, arg0);
    wr(c, M890_REG_SW_CMD, op | arg << M890_SW_CMD_ARG_SHIFT);
    return rd(c, M890_REG_SW_STATUS);
}

#define RANGE(first, pages) ((uint64_t)(first) | \
                             (uint64_t)(pages) << M890_SW_RANGE_PAGES_SHIFT)
#define KEY(port)       (0x6b657900ull + (port))     /* export of a card */
#define WHOLE_HBM       RANGE(0, HBM_SIZE >> M890_SW_RANGE_PAGE_SHIFT)

static uint32_t export_add(Card *c, unsigned int slot, uint64_t key,
                           uint64_t range)
{
    wrq(c, M890_REG_SW_ARG1, range);
    return sw_cmd(c, M890_SW_OP_EXPORT_ADD, slot, key);
}

/* Every card of @user opens a window on the exports KEY(@p0 + 0, 1). */
static void open_windows(unsigned int p0, VM *user)
{
    unsigned int i, j;

    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) {
            g_assert_cmpuint(sw_cmd(&user->card[j], M890_SW_OP_WINDOW_OPEN,
                                    p0 + i, KEY(p0 + i)), ==, M890_SW_OK);
        }
    }
}

/*
 * Every card of @owner (ports @p0, @p0 + 1) exports its whole HBM in
 * slot 0 under KEY(port) and every card of @user opens a window on each.
 */
static void share(VM *owner, unsigned int p0, VM *user)
{
    unsigned int i;

    for (i = 0; i < 2; i++) {
        g_assert_cmpuint(export_add(&owner->card[i], 0, KEY(p0 + i),
                                    WHOLE_HBM), ==, M890_SW_OK);
    }
    open_windows(p0, user);
}

static uint64_t sw_port(Card *c, unsigned int port, unsigned int word)
{
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_GET, port, 0), ==, M890_SW_OK);
    return rdq(c, M890_REG_SW_DATA(word));
}

static bool link_up(Card *c)
{
    return rd(c, M890_REG_FABRIC) & M890_FABRIC_LINK_UP;
}

/* Poll @c's REG_FABRIC until the link bit is @up, for up to 10 s. */
static bool wait_link(Card *c, bool up)
{
    int i;

    for (i = 0; i < 1000; i++) {
        if (link_up(c) == up) {
            return true;
        }
        g_usleep(10000);
    }
    return false;
}

/* Card @i of @vm, with every fabric id 0..3 mapped at VA_FID(id). */
static void vm_card_init(VM *vm, int i)
{
    Card *c = &vm->card[i];
    unsigned int e, f;

    card_init(vm->qs, c, i);
    for (f = 0; f < FIDS; f++) {
        for (e = 0; e < HBM_SIZE / MIB2; e++) {
            pt_set(c, c->root, VA_FID(f) + e * MIB2, 1,
                   e * MIB2 | PTE_PEER(f) | M890_PTE_LARGE);
        }
    }
}

/* Boot a VM with cards on ports @p0 and @p0 + 1 of the daemon's switch. */
static void vm_boot(VM *vm, unsigned int p0)
{
    vm->qs = qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                           "-nodefaults "
                           "-object icn-switch,id=sw0,socket=%s "
                           "-object memory-backend-memfd,id=hbm0,size=16M,"
                           "share=on "
                           "-object memory-backend-memfd,id=hbm1,size=16M,"
                           "share=on "
                           "-device m890,memdev=hbm0,switch=sw0,port=%u,"
                           "queues=%d,addr=04.0 "
                           "-device m890,memdev=hbm1,switch=sw0,port=%u,"
                           "queues=%d,addr=05.0",
                           sock_path, p0, M890T_NQ, p0 + 1, M890T_NQ);
    vm_card_init(vm, 0);
    vm_card_init(vm, 1);
}

/* A VM that dies without a word: SIGKILL, never shut down cleanly. */
static void vm_kill(VM *vm)
{
    pid_t pid = qtest_pid(vm->qs->qts);

    kill(pid, SIGKILL);
    /* the QTestState is abandoned: libqtest would report the signal */
    vm->qs = NULL;
}

static void daemon_kill_hook(void *opaque)
{
    if (daemon_pid > 0) {
        kill(daemon_pid, SIGKILL);
    }
}

static void daemon_start(void)
{
    g_autofree char *pidfile = g_strdup_printf("%s/pid", sock_dir);
    int i;

    unlink(pidfile);
    daemon_pid = fork();
    g_assert(daemon_pid >= 0);
    if (daemon_pid == 0) {
        /* a 1 s fence timeout: test_revoke_frozen_vm() waits it out */
        execl(daemon_bin, daemon_bin, "-s", sock_path, "-p", pidfile,
              "-F", "1000", (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 500 && access(pidfile, F_OK); i++) {
        g_usleep(10000);
    }
    g_assert(access(pidfile, F_OK) == 0);
}

static void daemon_stop(int sig)
{
    int status;

    if (daemon_pid > 0) {
        kill(daemon_pid, sig);
        waitpid(daemon_pid, &status, 0);
        daemon_pid = -1;
    }
}

/* Exports and windows across the two VMs (spec §8.7). */
static void test_windows(void)
{
    Card *a0 = &vm_a.card[0], *a1 = &vm_a.card[1], *b0 = &vm_b.card[0];
    union m890_packet in_win = copy_pkt(VA_HBM, VA_FID(2) + 0x101000, 64);
    union m890_packet below = copy_pkt(VA_HBM, VA_FID(2) + 0x100000, 64);
    union m890_packet across = copy_pkt(VA_HBM, VA_FID(2) + 0x102fc0, 128);
    union m890_packet local = copy_pkt(VA_HBM, VA_FID(1) + 0x1000, 64);
    uint64_t err, v = 0x77aa55, got = 0;

    /* no window: a cross-VM access faults FABRIC and counts one error */
    err = sw_port(a0, 0, M890_SW_PORT_ERRORS);
    g_assert_cmpuint(qerr(run(a0, 0, &in_win)), ==, M890_QERR_FABRIC);
    g_assert_cmpuint(rd(a0, M890_REG_MMU_FAULT_INFO) >>
                     M890_FAULT_REASON_SHIFT & 0xff, ==, M890_FAULT_FABRIC);
    recover(a0, 0);
    g_assert_cmpuint(sw_port(a0, 0, M890_SW_PORT_ERRORS), ==, err + 1);
    /* inside one VM no window is needed */
    g_assert_cmphex(run(a0, 0, &local), ==, M890T_IDLE);

    /* B's card 0 exports pages 0x101..0x102 (8 KiB) under a key */
    g_assert_cmpuint(export_add(b0, 7, 0xfeed, RANGE(0x101, 2)), ==,
                     M890_SW_OK);
    g_assert_cmpuint(export_add(b0, 8, 0xfeed, RANGE(0, 1)), ==,
                     M890_SW_EBUSY);
    /* an export alone opens nothing */
    expect_error(a0, 0, &in_win, M890_QERR_FABRIC);
    /* the wrong key: ENOENT, still no access */
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_OPEN, 2, 0xbeef), ==,
                     M890_SW_ENOENT);
    expect_error(a0, 0, &in_win, M890_QERR_FABRIC);
    /* the right key: DATA0 the range, DATA1 the slot */
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_OPEN, 2, 0xfeed), ==,
                     M890_SW_OK);
    g_assert_cmphex(rdq(a0, M890_REG_SW_DATA(0)), ==, RANGE(0x101, 2));
    g_assert_cmpuint(rdq(a0, M890_REG_SW_DATA(1)), ==, 7);
    qpci_memwrite(a0->dev, a0->hbm, 0, &v, 8);
    g_assert_cmphex(run(a0, 0, &in_win), ==, M890T_IDLE);
    qpci_memread(b0->dev, b0->hbm, 0x101000, &got, 8);
    g_assert_cmphex(got, ==, v);
    /* outside the window, or only partly inside: FABRIC */
    expect_error(a0, 0, &below, M890_QERR_FABRIC);
    expect_error(a0, 0, &across, M890_QERR_FABRIC);
    /* the window is card 0's: card 1 of the same VM has none */
    expect_error(a1, 0, &in_win, M890_QERR_FABRIC);

    /* EXPORT_DEL: in force in VM A once B's command returned */
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_EXPORT_DEL, 7, 0), ==, M890_SW_OK);
    expect_error(a0, 0, &in_win, M890_QERR_FABRIC);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_OPEN, 2, 0xfeed), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_CLOSE, 2, 7), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_EXPORT_DEL, 7, 0), ==,
                     M890_SW_ENOENT);

    /* WINDOW_CLOSE ends the issuer's access */
    g_assert_cmpuint(export_add(b0, 7, 0xfeed, RANGE(0x101, 2)), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_OPEN, 2, 0xfeed), ==,
                     M890_SW_OK);
    g_assert_cmphex(run(a0, 0, &in_win), ==, M890T_IDLE);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_CLOSE, 2, 7), ==,
                     M890_SW_OK);
    expect_error(a0, 0, &in_win, M890_QERR_FABRIC);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_EXPORT_DEL, 7, 0), ==, M890_SW_OK);

    /* from here on every card may reach every card of the other VM */
    share(&vm_b, 2, &vm_a);
    share(&vm_a, 0, &vm_b);
    g_assert_cmphex(run(a0, 0, &in_win), ==, M890T_IDLE);
}

static void test_peer_rw(void)
{
    Card *a0 = &vm_a.card[0], *b0 = &vm_b.card[0];
    const size_t n = 64 * 1024 + 100;
    g_autofree uint8_t *in = g_malloc(n), *out = g_malloc0(n);
    union m890_packet p, f = { 0 };
    uint64_t t0;
    size_t i;

    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_PORT_CLEAR, 0, 0), ==, M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_PORT_CLEAR, 2, 0), ==, M890_SW_OK);
    /* each VM sees all four ports present */
    for (i = 0; i < 4; i++) {
        g_assert_cmphex(sw_port(a0, i, M890_SW_PORT_STATE), ==,
                        M890_LINK_UP | M890_LINK_UP << 8 | 1 << 16);
        g_assert_cmpuint(sw_port(b0, i, M890_SW_PORT_FABRIC_ID), ==, i);
    }

    for (i = 0; i < n; i++) {
        in[i] = i * 13 + 5;
    }
    qpci_memwrite(a0->dev, a0->hbm, 0x10000, in, n);
    /* VM A writes into the HBM of a card of VM B ... */
    p = copy_pkt(VA_HBM + 0x10000, VA_FID(2) + 0x300001, n);
    g_assert_cmphex(run(a0, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    qpci_memread(b0->dev, b0->hbm, 0x300001, out, n);
    g_assert(memcmp(in, out, n) == 0);
    /* ... and VM B reads it back from VM A's other card */
    p = copy_pkt(VA_HBM + 0x300001, VA_FID(1) + 0x5000, n);
    g_assert_cmphex(run(b0, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    memset(out, 0, n);
    qpci_memread(vm_a.card[1].dev, vm_a.card[1].hbm, 0x5000, out, n);
    g_assert(memcmp(in, out, n) == 0);

    /* the daemon's counters: A's write, as A reads them */
    g_assert_cmpuint(sw_port(a0, 0, M890_SW_PORT_TX_BYTES), ==, n);
    g_assert_cmpuint(sw_port(a0, 2, M890_SW_PORT_RX_BYTES), ==, n);
    /* and B's traffic, as B reads it: port 2 sent n more to port 1 */
    g_assert_cmpuint(sw_port(b0, 2, M890_SW_PORT_TX_BYTES), ==, n);
    g_assert_cmpuint(sw_port(b0, 2, M890_SW_PORT_RX_BYTES), ==, n);

    /*
     * Timing model across VMs (spec §10), from a drained card (FENCE):
     * 80000 bytes written into the other VM's card cost the 50 ns fetch
     * plus 100 ns on the link, posted; read back, one switch round trip
     * (1000 ns) more.  Whole ns, so the differences are exact.
     */
    f.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    g_assert_cmphex(run(a0, 0, &f), ==, M890T_IDLE);
    t0 = rdq(a0, M890_REG_CLOCK);
    p = copy_pkt(VA_HBM + 0x10000, VA_FID(2) + 0x400000, 80000);
    g_assert_cmphex(run(a0, 0, &p), ==, M890T_IDLE);
    g_assert_cmpuint(rdq(a0, M890_REG_CLOCK) - t0, ==, 150);
    g_assert_cmphex(run(a0, 0, &f), ==, M890T_IDLE);
    t0 = rdq(a0, M890_REG_CLOCK);
    p = copy_pkt(VA_FID(2) + 0x400000, VA_HBM + 0x400000, 80000);
    g_assert_cmphex(run(a0, 0, &p), ==, M890T_IDLE);
    g_assert_cmpuint(rdq(a0, M890_REG_CLOCK) - t0, ==, 1150);
    memset(out, 0, n);
    qpci_memread(a0->dev, a0->hbm, 0x400000, out, n);
    g_assert(memcmp(in, out, n) == 0);
}

static void test_events(void)
{
    Card *a0 = &vm_a.card[0], *b0 = &vm_b.card[0], *b1 = &vm_b.card[1];
    union m890_packet p = copy_pkt(VA_HBM, VA_FID(3), 64);
    uint32_t seq = rd(b0, M890_REG_SW_EVENT_SEQ);
    int i;

    /* VM A takes a port of VM B down; VM B's cards get the event */
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_PORT_SET_ADMIN, 3, 0), ==,
                     M890_SW_OK);
    for (i = 0; i < 500 && rd(b0, M890_REG_SW_EVENT_SEQ) == seq; i++) {
        g_usleep(10000);
    }
    g_assert_cmpuint(rd(b0, M890_REG_SW_EVENT_SEQ), ==, seq + 1);
    g_assert_cmphex(rd(b0, M890_REG_SW_EVENT), ==, 3 | M890_LINK_DOWN << 8);
    g_assert_cmphex(rd(b0, M890_REG_EVT_STATUS) & M890_EVT_FABRIC, ==,
                    M890_EVT_FABRIC);
    g_assert(!link_up(b1));
    g_assert_cmpuint(qerr(run(a0, 1, &p)), ==, M890_QERR_FABRIC);
    queue_start(a0, 1);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_PORT_SET_ADMIN, 3, 1), ==,
                     M890_SW_OK);
    g_assert(wait_link(b1, true));
    for (i = 0; i < 500 && sw_port(a0, 3, M890_SW_PORT_STATE) !=
         (M890_LINK_UP | M890_LINK_UP << 8 | 1 << 16); i++) {
        g_usleep(10000);
    }
    g_assert_cmphex(run(a0, 1, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    g_assert_cmpuint(sw_port(b0, 3, M890_SW_PORT_LINK_DOWN), ==, 1);
}

/* Poll until @c sees PORT_GET word @word of @port equal @want (~5 s). */
static bool wait_port(Card *c, unsigned int port, unsigned int word,
                      uint64_t want)
{
    int i;

    for (i = 0; i < 500; i++) {
        if (sw_port(c, port, word) == want) {
            return true;
        }
        g_usleep(10000);
    }
    return false;
}

/* Partitions, routes and injected drops set in one VM act in the other. */
static void test_partition_route_drop(void)
{
    Card *a0 = &vm_a.card[0], *b0 = &vm_b.card[0], *b1 = &vm_b.card[1];
    union m890_packet p = copy_pkt(VA_HBM, VA_FID(2) + 0x600000, 4096);
    union m890_packet q = copy_pkt(VA_HBM, VA_FID(3) + 0x600000, 4096);
    uint64_t v = 0x5a5a, got = 0;

    /* VM A moves VM B's card 0 to partition 1: neither side reaches it */
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_PORT_SET_PARTITION, 2, 1), ==,
                     M890_SW_OK);
    g_assert(wait_port(b0, 2, M890_SW_PORT_PARTITION, 1));
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    recover(a0, 0);
    g_assert_cmpuint(qerr(run(b0, 0, &q)), ==, M890_QERR_FABRIC);
    recover(b0, 0);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_PORT_SET_PARTITION, 2, 0), ==,
                     M890_SW_OK);
    g_assert(wait_port(a0, 2, M890_SW_PORT_PARTITION, 0));
    g_assert_cmphex(run(a0, 0, &p), ==, M890T_IDLE);

    /* VM A routes fabric id 3 to port 2: its writes land in VM B's card 0 */
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_ROUTE_SET, 3,
                            2 | M890_SW_ROUTE_ENABLED), ==, M890_SW_OK);
    qpci_memwrite(a0->dev, a0->hbm, 0, &v, 8);
    g_assert_cmphex(run(a0, 0, &q), ==, M890T_IDLE);
    qpci_memread(b0->dev, b0->hbm, 0x600000, &got, 8);
    g_assert_cmphex(got, ==, v);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_ROUTE_SET, 3,
                            3 | M890_SW_ROUTE_ENABLED), ==, M890_SW_OK);
    g_assert_cmphex(run(a0, 0, &q), ==, M890T_IDLE);
    qpci_memread(b1->dev, b1->hbm, 0x600000, &got, 8);
    g_assert_cmphex(got, ==, v);

    /* VM B drops the next transfer through its port 2; VM A's fails once */
    wrq(b0, M890_REG_SW_ARG1, 1);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_PORT_INJECT, 2,
                            M890_SW_INJECT_DROP), ==, M890_SW_OK);
    g_assert(wait_port(a0, 2, M890_SW_PORT_INJECT_DROPS, 1));
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    recover(a0, 0);
    g_assert_cmphex(run(a0, 0, &p), ==, M890T_IDLE);
    /* the drop A used up is reported: the daemon's count reaches 0 */
    g_assert(wait_port(b0, 2, M890_SW_PORT_INJECT_DROPS, 0));
}

static union m890_packet wait_pkt(uint64_t va, uint64_t value)
{
    union m890_packet w = { 0 };

    w.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    w.wait.cond = M890_WAIT_GE;
    w.wait.addr = va;
    w.wait.value = value;
    return w;
}

static void test_signal_wait(void)
{
    Card *a1 = &vm_a.card[1], *b1 = &vm_b.card[1];
    union m890_packet w = wait_pkt(VA_HBM + 0x200000, 1), s = { 0 };
    uint64_t zero = 0;

    qpci_memwrite(b1->dev, b1->hbm, 0x200000, &zero, 8);
    g_assert_cmphex(run(b1, 0, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    /*
     * qtest's virtual clock stands still, so the 10 us re-check never
     * runs: only the doorbell eventfd can wake the WAIT.
     */
    s.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
    s.signal.op = M890_SIGNAL_ADD;
    s.signal.addr = VA_FID(3) + 0x200000;
    s.signal.value = 1;
    g_assert_cmphex(run(a1, 0, &s), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    g_assert_cmphex(wake_ms(b1, 0, 5000), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
}

/*
 * A VM frozen during a revoke: EXPORT_DEL completes after the fence times
 * out, the frozen VM is cut off, and once thawed it reconnects without
 * its old exports and windows (icn-switchd.rst, "Cross-VM windows").
 */
static void test_revoke_frozen_vm(void)
{
    Card *a0 = &vm_a.card[0], *b0 = &vm_b.card[0];
    union m890_packet p = copy_pkt(VA_HBM, VA_FID(2) + 0x200000, 4096);
    pid_t pid_a = qtest_pid(vm_a.qs->qts);
    uint32_t seq = rd(a0, M890_REG_SW_EVENT_SEQ);
    gint64 t0, ms;
    int i;

    g_assert_cmpuint(export_add(b0, 5, 0xdead, RANGE(0x200, 1)), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_OPEN, 2, 0xdead), ==,
                     M890_SW_OK);
    g_assert_cmpuint(kill(pid_a, SIGSTOP), ==, 0);
    t0 = g_get_monotonic_time();
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_EXPORT_DEL, 5, 0), ==, M890_SW_OK);
    ms = (g_get_monotonic_time() - t0) / 1000;
    /* the fence waited for VM A, then the daemon cut it off */
    g_assert_cmpint(ms, >=, 900);
    g_assert_cmphex(sw_port(b0, 0, M890_SW_PORT_STATE) >> 16 & 1, ==, 0);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_WINDOW_OPEN, 0, KEY(0)), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(kill(pid_a, SIGCONT), ==, 0);

    /*
     * VM A comes back by itself: its two ports go down (two events), it
     * reconnects and they come up again (two more).
     */
    for (i = 0; i < 1000 && !(rd(a0, M890_REG_SW_EVENT_SEQ) >= seq + 4 &&
                              link_up(a0)); i++) {
        g_usleep(10000);
    }
    g_assert_cmpuint(rd(a0, M890_REG_SW_EVENT_SEQ), >=, seq + 4);
    g_assert(link_up(a0));
    g_assert(wait_port(b0, 0, M890_SW_PORT_FABRIC_ID, 0));
    g_assert(wait_port(b0, 1, M890_SW_PORT_FABRIC_ID, 1));
    g_assert(wait_port(a0, 2, M890_SW_PORT_STATE,
                       M890_LINK_UP | M890_LINK_UP << 8 | 1 << 16));
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    recover(a0, 0);
    g_assert_cmpuint(sw_cmd(b0, M890_SW_OP_WINDOW_OPEN, 0, KEY(0)), ==,
                     M890_SW_ENOENT);
    share(&vm_a, 0, &vm_b);
    open_windows(2, &vm_a);         /* B's exports are still there */
    g_assert_cmphex(run(a0, 0, &p), ==, M890T_IDLE);
}

static void test_vm_killed(void)
{
    Card *a0 = &vm_a.card[0], *b0;
    union m890_packet w = wait_pkt(VA_FID(2) + 0x400000, 1);
    union m890_packet p = copy_pkt(VA_HBM, VA_FID(2), 4096);
    union m890_packet back = copy_pkt(VA_HBM + 0x8000, VA_FID(0) + 0x8000,
                                      4096);
    uint64_t zero = 0, v = 0xabcdef;
    uint32_t st;

    /* A's card waits on a semaphore in B's card; then B dies */
    qpci_memwrite(vm_b.card[0].dev, vm_b.card[0].hbm, 0x400000, &zero, 8);
    g_assert_cmphex(run(a0, 0, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    vm_kill(&vm_b);
    g_assert(wait_link(&vm_a.card[1], true));       /* A's own ports stay */
    /* the link event re-checks the WAIT: it fails, it does not hang */
    st = wake_ms(a0, 0, 10000);
    g_assert_cmpuint(qerr(st), ==, M890_QERR_FABRIC);
    g_assert_cmpuint(rd(a0, M890_REG_MMU_FAULT_INFO) >>
                     M890_FAULT_REASON_SHIFT & 0xff, ==, M890_FAULT_FABRIC);
    queue_start(a0, 0);
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    queue_start(a0, 0);
    g_assert_cmpuint(sw_port(a0, 2, M890_SW_PORT_FABRIC_ID), ==,
                     M890_FABRIC_ID_NONE);

    /* the daemon serves a new VM on the freed ports */
    vm_boot(&vm_b, 2);
    b0 = &vm_b.card[0];
    g_assert(wait_link(b0, true));
    /* the dead VM's exports and windows went with it, both ways */
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_WINDOW_OPEN, 2, KEY(2)), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    queue_start(a0, 0);
    g_assert_cmpuint(qerr(run(b0, 0, &back)), ==, M890_QERR_FABRIC);
    queue_start(b0, 0);
    share(&vm_b, 2, &vm_a);
    open_windows(0, &vm_b);         /* A's exports are still there */
    g_assert_cmphex(run(b0, 0, &back), ==, M890T_IDLE);
    qpci_memwrite(a0->dev, a0->hbm, 0, &v, 8);
    g_assert_cmphex(run(a0, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    v = 0;
    qpci_memread(b0->dev, b0->hbm, 0, &v, 8);
    g_assert_cmphex(v, ==, 0xabcdef);
}

static void test_daemon_restart(void)
{
    Card *a0 = &vm_a.card[0], *b0 = &vm_b.card[0];
    union m890_packet p = copy_pkt(VA_HBM, VA_FID(2) + 0x1000, 4096);
    uint32_t seq = rd(a0, M890_REG_SW_EVENT_SEQ);
    uint64_t v = 0x1234;

    daemon_stop(SIGKILL);
    /* spec §8.6: own ports DOWN with events, ENODEV, FABRIC */
    g_assert(wait_link(a0, false));
    g_assert(wait_link(&vm_a.card[1], false));
    g_assert_cmpuint(rd(a0, M890_REG_SW_EVENT_SEQ), ==, seq + 2);
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_INFO, 0, 0), ==, M890_SW_ENODEV);
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    queue_start(a0, 0);
    g_assert(wait_link(b0, false));

    /* a new daemon: both VMs come back by themselves */
    daemon_start();
    g_assert(wait_link(a0, true));
    g_assert(wait_link(b0, true));
    g_assert(wait_link(&vm_b.card[1], true));
    g_assert_cmpuint(sw_cmd(a0, M890_SW_OP_INFO, 0, 0), ==, M890_SW_OK);
    /* the new daemon knows no exports: no window, FABRIC */
    g_assert_cmpuint(qerr(run(a0, 0, &p)), ==, M890_QERR_FABRIC);
    queue_start(a0, 0);
    share(&vm_b, 2, &vm_a);
    qpci_memwrite(a0->dev, a0->hbm, 0, &v, 8);
    g_assert_cmphex(run(a0, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    v = 0;
    qpci_memread(b0->dev, b0->hbm, 0x1000, &v, 8);
    g_assert_cmphex(v, ==, 0x1234);
    /* power-on state: the counters started again */
    g_assert_cmpuint(sw_port(a0, 0, M890_SW_PORT_TX_BYTES), ==, 4096);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    daemon_bin = getenv("ICN_SWITCHD");
    if (!daemon_bin || access(daemon_bin, X_OK)) {
        g_test_skip("set ICN_SWITCHD to the icn-switchd binary");
        return g_test_run();
    }
    signal(SIGPIPE, SIG_IGN);
    sock_dir = g_dir_make_tmp("m890-multivm-XXXXXX", NULL);
    g_assert(sock_dir);
    sock_path = g_strdup_printf("%s/icn.sock", sock_dir);
    qtest_add_abrt_handler(daemon_kill_hook, NULL);
    daemon_start();
    vm_boot(&vm_a, 0);
    vm_boot(&vm_b, 2);

    qtest_add_func("/m890-multivm/windows", test_windows);
    qtest_add_func("/m890-multivm/peer-rw", test_peer_rw);
    qtest_add_func("/m890-multivm/events", test_events);
    qtest_add_func("/m890-multivm/partition-route-drop",
                   test_partition_route_drop);
    qtest_add_func("/m890-multivm/signal-wait", test_signal_wait);
    qtest_add_func("/m890-multivm/revoke-frozen-vm", test_revoke_frozen_vm);
    qtest_add_func("/m890-multivm/vm-killed", test_vm_killed);
    qtest_add_func("/m890-multivm/daemon-restart", test_daemon_restart);
    ret = g_test_run();

    qtest_shutdown(vm_a.qs);
    if (vm_b.qs) {
        qtest_shutdown(vm_b.qs);
    }
    daemon_stop(SIGTERM);
    unlink(sock_path);
    rmdir(sock_dir);
    return ret;
}
