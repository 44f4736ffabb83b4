/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of windows between trust domains in one VM
 *
 * The two cards of m890-qtest.h with the test hook "trust-domain" set to
 * 1 and 2: each card is a trust domain of its own, as if it were in a VM
 * of its own (Documentation/hardware-spec.rst §8.7), so one
 * QEMU process can check what the switch does with cross-domain peer
 * accesses: refused without a window (FABRIC, one error on the issuing
 * port), allowed for writes, reads and SIGNALs inside the window only,
 * refused again from the moment EXPORT_DEL or WINDOW_CLOSE completes,
 * kept across a device reset of the owner, and refused between
 * partitions even with the window open.
 */
#include "qemu/osdep.h"

#include "m890-qtest.h"

#define RANGE(first, pages) ((uint64_t)(first) | \
                             (uint64_t)(pages) << M890_SW_RANGE_PAGES_SHIFT)
#define KEY             0x0123456789abcdefull
#define WIN_OFF         0x10000ull      /* the export: pages 0x10..0x11 */
#define WIN_PAGES       2

static Card cards[2];

static uint32_t sw_cmd(Card *c, uint32_t op, unsigned int arg, uint64_t arg0,
                       uint64_t arg1)
{
    wrq(c, M890_REG_SW_ARG0, arg0);
    wrq(c, M890_REG_SW_ARG1, arg1);
    wr(c, M890_REG_SW_CMD, op | arg << M890_SW_CMD_ARG_SHIFT);
    return rd(c, M890_REG_SW_STATUS);
}

static uint64_t port_errors(unsigned int port)
{
    g_assert_cmpuint(sw_cmd(&cards[0], M890_SW_OP_PORT_GET, port, 0, 0), ==,
                     M890_SW_OK);
    return rdq(&cards[0], M890_REG_SW_DATA(M890_SW_PORT_ERRORS));
}

static uint64_t hbm_read64(Card *c, uint64_t off)
{
    uint64_t v;

    qpci_memread(c->dev, c->hbm, off, &v, sizeof(v));
    return v;
}

/* A peer access by @c that must fault FABRIC (and count one error). */
static void expect_fabric(Card *c, unsigned int port,
                          const union m890_packet *p)
{
    uint64_t err = port_errors(port);
    uint32_t st = run(c, 0, p);

    g_assert_cmpuint(qerr(st), ==, M890_QERR_FABRIC);
    g_assert_cmpuint(rd(c, M890_REG_MMU_FAULT_INFO) >>
                     M890_FAULT_REASON_SHIFT & 0xff, ==, M890_FAULT_FABRIC);
    recover(c, 0);
    g_assert_cmpuint(port_errors(port), ==, err + 1);
}

static void test_no_window(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet w = copy_pkt(VA_HBM, VA_PEER + WIN_OFF, 64);
    union m890_packet r = copy_pkt(VA_PEER + WIN_OFF, VA_HBM, 64);

    /* both directions, writes and reads */
    expect_fabric(a, 0, &w);
    expect_fabric(a, 0, &r);
    expect_fabric(b, 1, &w);
    /* an export alone opens nothing */
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, KEY,
                            RANGE(WIN_OFF >> 12, WIN_PAGES)), ==, M890_SW_OK);
    expect_fabric(a, 0, &w);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_DEL, 0, 0, 0), ==,
                     M890_SW_OK);
}

static void test_window(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet w = copy_pkt(VA_HBM, VA_PEER + WIN_OFF, 8192);
    union m890_packet r = copy_pkt(VA_PEER + WIN_OFF + 4096, VA_HBM + 8192,
                                   4096);
    union m890_packet past = copy_pkt(VA_HBM, VA_PEER + WIN_OFF + 4096,
                                      8192);
    union m890_packet before = copy_pkt(VA_HBM, VA_PEER + WIN_OFF - 8, 16);
    union m890_packet sig = { 0 };

    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 3, KEY,
                            RANGE(WIN_OFF >> 12, WIN_PAGES)), ==, M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 1, KEY ^ 1, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 1, KEY, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(0)), ==,
                    RANGE(WIN_OFF >> 12, WIN_PAGES));
    g_assert_cmpuint(rdq(a, M890_REG_SW_DATA(1)), ==, 3);

    /* a write and a read inside the window */
    hbm_set(a, 0, 0x3c, 8192);
    hbm_set(b, WIN_OFF, 0, 8192);
    g_assert_cmphex(run(a, 0, &w), ==, M890T_IDLE);
    g_assert(hbm_is(b, WIN_OFF, 0x3c, 8192));
    hbm_set(b, WIN_OFF + 4096, 0xc3, 4096);
    g_assert_cmphex(run(a, 0, &r), ==, M890T_IDLE);
    g_assert(hbm_is(a, 8192, 0xc3, 4096));
    /* a SIGNAL on a semaphore inside it */
    hbm_set(b, WIN_OFF + 64, 0, 8);
    sig.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
    sig.signal.op = M890_SIGNAL_ADD;
    sig.signal.addr = VA_PEER + WIN_OFF + 64;
    sig.signal.value = 5;
    g_assert_cmphex(run(a, 0, &sig), ==, M890T_IDLE);
    g_assert_cmphex(hbm_read64(b, WIN_OFF + 64), ==, 5);

    /* partly outside, or just before: refused, nothing written */
    hbm_set(b, WIN_OFF - 4096, 0, 4096);
    expect_fabric(a, 0, &past);
    expect_fabric(a, 0, &before);
    g_assert(hbm_is(b, WIN_OFF - 4096, 0, 4096));
    /* the window is a's: b reaching a still needs its own */
    expect_fabric(b, 1, &w);

    /* a device reset of the owner leaves switch state alone (§8.7) */
    wr(b, M890_REG_CONTROL, M890_CONTROL_RESET);
    card_restart(b);
    g_assert_cmphex(run(a, 0, &w), ==, M890T_IDLE);

    /* another partition: the window stays, accesses fail (§8.1) */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 1, 2, 0), ==,
                     M890_SW_OK);
    expect_fabric(a, 0, &w);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 1, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(run(a, 0, &w), ==, M890T_IDLE);

    /* WINDOW_CLOSE: refused from the next access on */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 1, 3, 0), ==,
                     M890_SW_OK);
    expect_fabric(a, 0, &w);
    /* EXPORT_DEL revokes a window that is open */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 1, KEY, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(run(a, 0, &w), ==, M890T_IDLE);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_DEL, 3, 0, 0), ==,
                     M890_SW_OK);
    expect_fabric(a, 0, &w);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 1, 3, 0), ==,
                     M890_SW_ENOENT);
}

int main(int argc, char **argv)
{
    QOSState *qs;
    int ret;

    g_test_init(&argc, &argv, NULL);
    qs = qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                       "-nodefaults "
                       "-object icn-switch,id=sw0 "
                       "-object memory-backend-ram,id=hbm0,size=16M "
                       "-object memory-backend-ram,id=hbm1,size=16M "
                       "-device m890,memdev=hbm0,switch=sw0,port=0,"
                       "trust-domain=1,queues=%d,addr=04.0 "
                       "-device m890,memdev=hbm1,switch=sw0,port=1,"
                       "trust-domain=2,queues=%d,addr=05.0",
                       M890T_NQ, M890T_NQ);
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    qtest_add_func("/m890-domain/no-window", test_no_window);
    qtest_add_func("/m890-domain/window", test_window);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
