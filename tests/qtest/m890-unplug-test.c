/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of M890 hot-unplug while work runs
 *
 * Next to the two cards of m890-qtest.h, a third card sits behind a PCIe
 * root port (slot 6, secondary bus 1) on switch port 2, so that QEMU can
 * unplug it.  The test plays the guest's part of native PCIe hot-plug:
 * device_del presses the slot's attention button, the test powers the
 * slot off (SLTCTL power controller off, power indicator off) and QEMU
 * unrealizes the card.  The card is unplugged in the middle of a 1 GiB
 * COPY whose pieces run on its copy worker, with a WAIT parked on another
 * queue and card 0 copying into its HBM over the fabric; afterwards QEMU
 * answers, card 0 sees the peer gone (FABRIC) and keeps working.
 */
#include "qemu/osdep.h"
#include "m890-qtest.h"

#define RP_DEVFN        QPCI_DEVFN(6, 0)
#define CARD2_DEVFN     (1 << 8 | QPCI_DEVFN(0, 0))     /* bus 1 */
#define VA_A            0x140000000ull  /* 1 GiB on HBM [4, 6) MiB */
#define VA_B            0x180000000ull  /* 1 GiB on HBM [6, 8) MiB */
#define VA_CARD2        0x1c0000000ull  /* card 2's HBM over the fabric */

static QOSState *qs;
static Card cards[3];

/* Bridge the root port to bus 1 with windows over [@lo, @hi]. */
static void root_port_open(QPCIDevice *rp, uint64_t lo, uint64_t hi)
{
    uint16_t base = (lo >> 16) & 0xfff0, limit = (hi >> 16) & 0xfff0;

    qpci_config_writew(rp, PCI_MEMORY_BASE, base);
    qpci_config_writew(rp, PCI_MEMORY_LIMIT, limit);
    qpci_config_writew(rp, PCI_PREF_MEMORY_BASE, base);
    qpci_config_writew(rp, PCI_PREF_MEMORY_LIMIT, limit);
    qpci_config_writel(rp, PCI_PREF_BASE_UPPER32, 0);
    qpci_config_writel(rp, PCI_PREF_LIMIT_UPPER32, 0);
    qpci_config_writew(rp, PCI_COMMAND,
                       PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

/* An L1 table whose 512 entries all map the 2 MiB HBM page at @off. */
static void map_alias(Card *c, uint64_t va, uint64_t off)
{
    uint64_t l1 = pt_new(c);
    unsigned int e;

    for (e = 0; e < 512; e++) {
        wq64(c, l1 + e * 8, off | PTE_HBM | M890_PTE_LARGE);
    }
    pt_set(c, c->root, va, 2, l1 | M890_PTE_VALID);
}

static void test_unplug_busy(void)
{
    Card *a = &cards[0], *z = &cards[2];
    QPCIDevice *rp = qpci_device_find(qs->pcibus, RP_DEVFN);
    union m890_packet p = copy_pkt(VA_A, VA_B, GIB), w = { 0 }, f = { 0 };
    uint8_t cap = qpci_find_capability(rp, PCI_CAP_ID_EXP, 0);
    uint16_t ctl;
    uint64_t t0;
    QDict *rsp;
    int i;

    map_alias(z, VA_A, 4 * MIB2);
    map_alias(z, VA_B, 6 * MIB2);
    pt_set(a, a->root, VA_CARD2, 1, PTE_PEER(2) | M890_PTE_LARGE);

    /* a WAIT parked on queue 1, the long COPY on queue 0 */
    w.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    w.wait.addr = VA_HBM + 0x100000;
    w.wait.value = 1;
    g_assert_cmphex(run(z, 1, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    t0 = rdq(z, M890_REG_CLOCK);
    post(z, 0, &p);
    for (i = 0; i < 5000 && rdq(z, M890_REG_CLOCK) == t0; i++) {
        g_usleep(1000);
    }
    g_assert_cmpuint(rdq(z, M890_REG_CLOCK), >, t0);
    g_assert_cmpuint(qrd(z, 0, M890_Q_HEAD), ==, 0);
    /* card 0 writes into card 2's HBM over the fabric meanwhile */
    f.fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
    f.fill.dst = VA_CARD2;
    f.fill.size = MIB2;
    f.fill.pattern = 0x5a5a5a5a;
    g_assert_cmphex(run(a, 2, &f), ==, M890T_IDLE);

    /* device_del, then the guest powers the slot off */
    if (qrd(z, 0, M890_Q_HEAD)) {
        g_test_message("the COPY ended before the unplug");
    }
    qtest_qmp_device_del_send(qs->qts, "card2");
    g_assert_cmphex(qpci_config_readw(rp, cap + PCI_EXP_SLTSTA) &
                    PCI_EXP_SLTSTA_ABP, ==, PCI_EXP_SLTSTA_ABP);
    ctl = qpci_config_readw(rp, cap + PCI_EXP_SLTCTL);
    ctl = (ctl & ~PCI_EXP_SLTCTL_PIC) | PCI_EXP_SLTCTL_PWR_IND_OFF |
          PCI_EXP_SLTCTL_PWR_OFF;
    post(a, 2, &f);             /* racing with the unplug */
    qpci_config_writew(rp, cap + PCI_EXP_SLTCTL, ctl);
    qtest_qmp_eventwait(qs->qts, "DEVICE_DELETED");
    g_assert_cmphex(qpci_config_readw(z->dev, PCI_VENDOR_ID), ==, 0xffff);

    /* QEMU answers; card 0 finds the peer gone and keeps working */
    rsp = qtest_qmp(qs->qts, "{ 'execute': 'query-status' }");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    g_assert(rd(a, M890_REG_ID) == M890_ID_MAGIC);
    i = qerr(settle(a, 2));
    g_assert(i == M890_QERR_NONE || i == M890_QERR_FABRIC);
    recover(a, 2);
    expect_error(a, 2, &f, M890_QERR_FABRIC);
    p = copy_pkt(VA_HBM, VA_HBM + 0x1000, 4096);
    g_assert_cmphex(run(a, 2, &p), ==, M890T_IDLE);
    g_free(rp);
}

int main(int argc, char **argv)
{
    QPCIDevice *rp;
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* native PCIe hot-plug on the root port, not ACPI's */
    qs = qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                       "-nodefaults -global "
                       "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off "
                       "-object icn-switch,id=sw0 "
                       "-object memory-backend-ram,id=hbm0,size=16M "
                       "-object memory-backend-ram,id=hbm1,size=16M "
                       "-object memory-backend-ram,id=hbm2,size=16M "
                       "-device m890,memdev=hbm0,switch=sw0,port=0,"
                       "queues=%d,addr=04.0,id=card0 "
                       "-device m890,memdev=hbm1,switch=sw0,port=1,"
                       "queues=%d,addr=05.0,id=card1 "
                       "-device pcie-root-port,id=rp0,addr=06.0,chassis=1,"
                       "slot=1 "
                       "-device m890,memdev=hbm2,switch=sw0,port=2,"
                       "queues=%d,bus=rp0,id=card2",
                       M890T_NQ, M890T_NQ, M890T_NQ);
    rp = qpci_device_find(qs->pcibus, RP_DEVFN);
    g_assert(rp);
    qpci_config_writeb(rp, PCI_PRIMARY_BUS, 0);
    qpci_config_writeb(rp, PCI_SECONDARY_BUS, 1);
    qpci_config_writeb(rp, PCI_SUBORDINATE_BUS, 1);
    /*
     * Card 2 first: its BARs get the lowest addresses, and the windows
     * cover exactly them, not the BARs of cards 0 and 1 mapped later.
     */
    cards[2].qs = qs;
    cards[2].dev = qpci_device_find(qs->pcibus, CARD2_DEVFN);
    g_assert(cards[2].dev);
    card_enable(&cards[2]);
    root_port_open(rp, cards[2].bar_addr[0],
                   MAX(cards[2].bar_addr[1] + HBM_SIZE - 1,
                       cards[2].bar_addr[2] + 4095));
    g_free(rp);
    card_setup(&cards[2], 0);
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    qtest_add_func("/m890/unplug/busy-card", test_unplug_busy);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
