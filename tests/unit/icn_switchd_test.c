// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: host test of icn-switchd and its protocol
 *
 * Runs the real daemon (argv[1], or icn-switchd next to this program) on a socket in a temporary
 * directory and talks to it as QEMU processes would, with fake cards
 * whose HBM is a memfd: version negotiation and refusals, attach and its
 * errors, PEER descriptors that map the other client's HBM, doorbell
 * eventfds, relayed commands and events, reported counters, a client
 * that goes away, a new client on the freed ports, management permission
 * withheld from all (-R) or granted by name (-M), exports and windows
 * (spec §8.7: EXPORT messages, the FENCE an EXPORT_DEL waits for, a
 * client dropped for not acknowledging it, exports sent after HELLO and
 * dropped with their card), and the daemon's restart (clean and killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "icn_proto.h"
#include "m890_regs.h"

#define HBM     (64 * 1024)
#define V       ICN_PROTO_VERSION

static int passed, failed;

#define CHECK(cond) do { \
    if (cond) { \
        passed++; \
        printf("ok %d - %s\n", passed + failed, #cond); \
    } else { \
        failed++; \
        printf("not ok %d - %s:%d: %s\n", passed + failed, __FILE__, \
               __LINE__, #cond); \
    } \
    fflush(stdout); \
} while (0)

static const char *daemon_bin;
static char sock_path[108], pid_path[128];

struct client {
    int fd;
    uint32_t seq;
    unsigned int version;
    struct icn_conn conn;
    /* last state seen per port, from PORT_STATE */
    struct icn_msg_port_state st[64];
    int peer_fd[64][2];         /* from PEER, -1 when none */
    unsigned int events;
    uint32_t last_event;
    struct icn_msg_export exp[64][M890_SW_EXPORTS];  /* from EXPORT */
    unsigned int exports;       /* EXPORT messages received */
    unsigned int fences;        /* FENCE messages received */
    uint64_t fence_id;          /* the last one's id */
};

/* Start the daemon with up to two extra arguments (NULL: none). */
static pid_t start_daemon2(const char *extra, const char *extra2)
{
    pid_t pid;
    int i;

    unlink(pid_path);
    pid = fork();
    if (pid == 0) {
        if (extra) {
            execl(daemon_bin, daemon_bin, "-s", sock_path, "-p", pid_path,
                  extra, extra2, (char *)NULL);
        } else {
            execl(daemon_bin, daemon_bin, "-s", sock_path, "-p", pid_path,
                  (char *)NULL);
        }
        _exit(127);
    }
    for (i = 0; i < 500 && access(pid_path, F_OK); i++) {
        usleep(10000);
    }
    return pid;
}

static pid_t start_daemon(const char *extra)
{
    return start_daemon2(extra, NULL);
}

static int stop_daemon(pid_t pid, int sig)
{
    int status = -1;

    kill(pid, sig);
    waitpid(pid, &status, 0);
    return status;
}

static int connect_raw(void)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    strcpy(sa.sun_path, sock_path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Receive one message within @ms; 1, 0 on EOF, -ETIMEDOUT or -EPROTO. */
static int recv_one(struct client *c, struct icn_msg *m, int ms)
{
    struct pollfd p = { .fd = c->fd, .events = POLLIN };
    int ret;

    for (;;) {
        ret = icn_conn_next(&c->conn, m);
        if (ret) {
            return ret;
        }
        if (poll(&p, 1, ms) <= 0) {
            return -ETIMEDOUT;
        }
        ret = icn_conn_fill(&c->conn);
        if (ret <= 0) {
            return ret;
        }
    }
}

/* Record what an unsolicited message says. */
static void absorb(struct client *c, struct icn_msg *m)
{
    unsigned int p;

    switch (m->hdr.type) {
    case ICN_MSG_PORT_STATE:
        c->st[m->u.port_state.port & 63] = m->u.port_state;
        break;
    case ICN_MSG_PEER:
        p = m->u.attach.port & 63;
        if (c->peer_fd[p][0] >= 0) {
            close(c->peer_fd[p][0]);
            close(c->peer_fd[p][1]);
        }
        c->peer_fd[p][0] = m->fds[0];
        c->peer_fd[p][1] = m->fds[1];
        m->nfds = 0;
        break;
    case ICN_MSG_PEER_GONE:
        p = m->u.port.port & 63;
        if (c->peer_fd[p][0] >= 0) {
            close(c->peer_fd[p][0]);
            close(c->peer_fd[p][1]);
            c->peer_fd[p][0] = c->peer_fd[p][1] = -1;
        }
        break;
    case ICN_MSG_EVENT:
        c->events++;
        c->last_event = m->u.event.event;
        break;
    case ICN_MSG_EXPORT:
        c->exports++;
        c->exp[m->u.export_state.port & 63]
              [m->u.export_state.slot % M890_SW_EXPORTS] = m->u.export_state;
        break;
    case ICN_MSG_FENCE:
        c->fences++;
        c->fence_id = m->u.fence.id;
        break;
    }
    for (unsigned int i = 0; i < m->nfds; i++) {
        close(m->fds[i]);
    }
    m->nfds = 0;
}

/* Read messages, absorbing them, until one of @type arrives (or 0 on EOF). */
static int wait_for(struct client *c, unsigned int type, struct icn_msg *out)
{
    struct icn_msg m;
    int ret;

    for (;;) {
        ret = recv_one(c, &m, 3000);
        if (ret <= 0) {
            return ret;
        }
        if (m.hdr.type == type) {
            if (out) {
                *out = m;
            }
            if (type != ICN_MSG_PEER || !out) {
                absorb(c, &m);
            }
            return 1;
        }
        absorb(c, &m);
    }
}

/* Absorb whatever arrives within @ms. */
static void drain(struct client *c, int ms)
{
    struct icn_msg m;

    while (recv_one(c, &m, ms) == 1) {
        absorb(c, &m);
    }
}

static int client_open(struct client *c, const char *name, int min, int max)
{
    struct icn_msg_hello h = { .min_version = (uint16_t)min,
                               .max_version = (uint16_t)max };
    struct icn_msg m;
    int i;

    memset(c, 0, sizeof(*c));
    for (i = 0; i < 64; i++) {
        c->peer_fd[i][0] = c->peer_fd[i][1] = -1;
    }
    c->fd = connect_raw();
    if (c->fd < 0) {
        return -ECONNREFUSED;
    }
    icn_conn_init(&c->conn, c->fd);
    snprintf(h.name, sizeof(h.name), "%s", name);
    icn_send(c->fd, 1, ICN_MSG_HELLO, ++c->seq, &h, NULL, 0);
    if (wait_for(c, ICN_MSG_HELLO_REPLY, &m) != 1) {
        return -EPIPE;
    }
    c->version = m.u.hello_reply.version;
    if (m.u.hello_reply.status) {
        return m.u.hello_reply.status;
    }
    /* the daemon sends the state of all 64 ports after HELLO */
    for (i = 0; i < 64; i++) {
        if (wait_for(c, ICN_MSG_PORT_STATE, NULL) != 1) {
            return -EPIPE;
        }
    }
    return (int)m.u.hello_reply.flags;
}

static void client_close(struct client *c)
{
    int i;

    for (i = 0; i < 64; i++) {
        if (c->peer_fd[i][0] >= 0) {
            close(c->peer_fd[i][0]);
            close(c->peer_fd[i][1]);
        }
    }
    icn_conn_release(&c->conn);
    close(c->fd);
    c->fd = -1;
}

struct fake_card {
    int hbm_fd, evt_fd;
    uint8_t *hbm;
};

static void card_new(struct fake_card *k, uint8_t fill)
{
    k->hbm_fd = memfd_create("hbm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (ftruncate(k->hbm_fd, HBM) ||
        fcntl(k->hbm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)) {
        abort();
    }
    k->hbm = mmap(NULL, HBM, PROT_READ | PROT_WRITE, MAP_SHARED, k->hbm_fd,
                  0);
    memset(k->hbm, fill, HBM);
    k->evt_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

static void card_free(struct fake_card *k)
{
    munmap(k->hbm, HBM);
    close(k->hbm_fd);
    close(k->evt_fd);
}

static int attach(struct client *c, unsigned int port, uint64_t size,
                  const struct fake_card *k)
{
    struct icn_msg_attach a = { .port = (uint8_t)port, .hbm_size = size };
    int fds[2] = { k->hbm_fd, k->evt_fd };
    struct icn_msg m;

    icn_send(c->fd, c->version, ICN_MSG_ATTACH, ++c->seq, &a, fds, 2);
    if (wait_for(c, ICN_MSG_STATUS, &m) != 1) {
        return -EPIPE;
    }
    return m.hdr.seq == c->seq ? m.u.status.status : -EBADMSG;
}

static uint32_t cmd(struct client *c, unsigned int port, unsigned int op,
                    unsigned int arg, uint64_t arg0, uint64_t *data)
{
    struct icn_msg_cmd q = { .port = (uint8_t)port, .op = (uint8_t)op,
                             .arg = (uint8_t)arg, .flags = ICN_CMD_F_MGMT,
                             .arg0 = arg0 };
    struct icn_msg m;

    icn_send(c->fd, c->version, ICN_MSG_CMD, ++c->seq, &q, NULL, 0);
    if (wait_for(c, ICN_MSG_CMD_REPLY, &m) != 1) {
        return 0xdead;
    }
    if (data) {
        memcpy(data, m.u.cmd_reply.data, sizeof(m.u.cmd_reply.data));
    }
    return m.u.cmd_reply.status;
}

static bool got_eof(struct client *c)
{
    struct icn_msg m;
    int ret;

    do {
        ret = recv_one(c, &m, 3000);
        if (ret == 1) {
            absorb(c, &m);
        }
    } while (ret == 1);
    return ret == 0;
}

static void test_hello(void)
{
    struct client c;
    struct icn_msg_hdr bad = { .magic = 0x12345678, .version = 1,
                               .type = ICN_MSG_HELLO, .len = 40 };
    char junk[56] = { 0 };
    struct icn_msg_port pm = { 0 };

    CHECK(client_open(&c, "newer", 1, 7) >= 0 && c.version == V);
    client_close(&c);
    CHECK(client_open(&c, "exact", V, V) >= 0 && c.version == V);
    client_close(&c);
    CHECK(client_open(&c, "future", V + 1, V + 2) == -EPROTONOSUPPORT);
    CHECK(got_eof(&c));
    client_close(&c);
    /* version 1 knows no exports: its cards would pass unchecked (§8.7) */
    CHECK(client_open(&c, "old", 1, 1) == -EPROTONOSUPPORT);
    CHECK(got_eof(&c));
    client_close(&c);
    CHECK(client_open(&c, "inverted", 1, 0) == -EINVAL);
    client_close(&c);

    /* a bad magic, and a request before HELLO, end the connection */
    c.fd = connect_raw();
    icn_conn_init(&c.conn, c.fd);
    memcpy(junk, &bad, sizeof(bad));
    CHECK(write(c.fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
    CHECK(got_eof(&c));
    close(c.fd);
    c.fd = connect_raw();
    icn_conn_init(&c.conn, c.fd);
    icn_send(c.fd, 1, ICN_MSG_DETACH, 1, &pm, NULL, 0);
    CHECK(got_eof(&c));
    close(c.fd);
}

static void test_fabric(void)
{
    struct client a, b, n;
    struct fake_card k0, k1, k2, kbig;
    uint64_t data[16], one = 1, v = 0;
    unsigned int ev;
    uint8_t *peer;
    int ret;

    card_new(&k0, 0xa0);
    card_new(&k1, 0xa1);
    card_new(&k2, 0xb2);
    card_new(&kbig, 0);

    ret = client_open(&a, "vm-a", V, V);
    CHECK(ret >= 0 && (ret & ICN_HELLO_F_MGMT));
    CHECK(a.st[0].present == 0 && a.st[0].admin == M890_LINK_UP &&
          a.st[0].route == (0 | 1u << 8));
    CHECK(attach(&a, 0, HBM, &k0) == 0);
    CHECK(attach(&a, 1, HBM, &k1) == 0);
    CHECK(a.st[1].present == 1 && a.st[1].oper == M890_LINK_UP);
    CHECK(attach(&a, 1, HBM, &k2) == -EBUSY);
    CHECK(attach(&a, 64, HBM, &k2) == -ERANGE);
    CHECK(attach(&a, 5, HBM * 2, &kbig) == -EINVAL);   /* file too small */
    CHECK(attach(&a, 5, 3000, &kbig) == -EINVAL);      /* not a power of 2 */
    {
        struct fake_card bad = k2;
        int pipefd[2];

        /* an HBM file its owner could shrink under the peers' mappings */
        bad.hbm_fd = memfd_create("hbm", MFD_CLOEXEC);
        CHECK(ftruncate(bad.hbm_fd, HBM) == 0);
        CHECK(attach(&a, 5, HBM, &bad) == -EINVAL);
        close(bad.hbm_fd);
        /* a doorbell that is not an eventfd */
        CHECK(pipe(pipefd) == 0);
        bad = k2;
        bad.evt_fd = pipefd[1];
        CHECK(attach(&a, 5, HBM, &bad) == -EINVAL);
        close(pipefd[0]);
        close(pipefd[1]);
    }

    /* b sees a's cards with their HBM files and doorbells */
    CHECK(client_open(&b, "vm-b", V, V) >= 0);
    CHECK(b.peer_fd[0][0] >= 0 && b.peer_fd[1][0] >= 0);
    CHECK(b.st[0].present && b.st[0].oper == M890_LINK_UP);
    peer = mmap(NULL, HBM, PROT_READ | PROT_WRITE, MAP_SHARED, b.peer_fd[1][0],
                0);
    CHECK(peer != MAP_FAILED && peer[100] == 0xa1);
    if (peer != MAP_FAILED) {
        memset(peer + 4096, 0x5b, 4096);            /* a peer write */
        CHECK(k1.hbm[4096] == 0x5b && k1.hbm[8191] == 0x5b);
        munmap(peer, HBM);
    }
    CHECK(write(b.peer_fd[0][1], &one, 8) == 8);    /* doorbell */
    CHECK(read(k0.evt_fd, &v, 8) == 8 && v == 1);

    /* b's card: a gets PEER, state and an event */
    CHECK(attach(&b, 2, HBM, &k2) == 0);
    CHECK(wait_for(&a, ICN_MSG_EVENT, NULL) == 1);
    CHECK(a.peer_fd[2][0] >= 0 && a.st[2].present &&
          a.last_event == (2 | M890_LINK_UP << 8));

    /* commands are relayed from the issuing card's port */
    CHECK(cmd(&b, 2, M890_SW_OP_INFO, 0, 0, data) == M890_SW_OK &&
          data[0] == 64 && data[1] == 0x00010000);
    CHECK(cmd(&b, 0, M890_SW_OP_INFO, 0, 0, data) == M890_SW_ENODEV);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_GET, 64, 0, data) == M890_SW_ERANGE);
    CHECK(cmd(&b, 2, 0x7f, 0, 0, data) == M890_SW_EINVAL);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_SET_ADMIN, 0, 7, data) == M890_SW_EINVAL);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_SET_ADMIN, 0, 0, data) == M890_SW_OK);
    CHECK(wait_for(&a, ICN_MSG_EVENT, NULL) == 1 &&
          a.last_event == (0 | M890_LINK_DOWN << 8) &&
          a.st[0].oper == M890_LINK_DOWN && a.st[0].admin == M890_LINK_DOWN);
    CHECK(cmd(&a, 0, M890_SW_OP_PORT_GET, 0, 0, data) == M890_SW_OK &&
          data[M890_SW_PORT_STATE] == (M890_LINK_DOWN | 1u << 16) &&
          data[M890_SW_PORT_LINK_DOWN] == 1);
    CHECK(cmd(&a, 0, M890_SW_OP_PORT_SET_ADMIN, 0, 1, data) == M890_SW_OK);
    /* a card without its own management permission */
    {
        struct icn_msg_cmd q = { .port = 0, .op = M890_SW_OP_PORT_CLEAR,
                                 .arg = 0 };
        struct icn_msg m;

        icn_send(a.fd, a.version, ICN_MSG_CMD, ++a.seq, &q, NULL, 0);
        CHECK(wait_for(&a, ICN_MSG_CMD_REPLY, &m) == 1 &&
              m.u.cmd_reply.status == M890_SW_EPERM);
        q.op = M890_SW_OP_PORT_GET;
        q.rsvd0 = 1;                    /* SW_CMD bits 31:16 */
        icn_send(a.fd, a.version, ICN_MSG_CMD, ++a.seq, &q, NULL, 0);
        CHECK(wait_for(&a, ICN_MSG_CMD_REPLY, &m) == 1 &&
              m.u.cmd_reply.status == M890_SW_EINVAL);
    }
    /* partitions and routes (spec §8.5) reach every client */
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_SET_PARTITION, 1, 5, data) ==
          M890_SW_OK);
    CHECK(wait_for(&a, ICN_MSG_EVENT, NULL) == 1 && a.st[1].partition == 5 &&
          a.last_event == (1 | 5 << 8 | M890_SW_EVENT_PARTITION << 16));
    CHECK(cmd(&b, 2, M890_SW_OP_ROUTE_SET, 1, 3, data) == M890_SW_OK);
    CHECK(wait_for(&a, ICN_MSG_EVENT, NULL) == 1 && a.st[1].route == 3);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_SET_PARTITION, 1, 0, data) ==
          M890_SW_OK);
    /* injected drops: mirrored, used up by a client, lowered */
    {
        struct icn_msg_cmd q = { .port = 2, .op = M890_SW_OP_PORT_INJECT,
                                 .arg = 1, .flags = ICN_CMD_F_MGMT,
                                 .arg0 = M890_SW_INJECT_DROP, .arg1 = 3 };
        struct icn_msg_counters used = { .port = 1, .errors = 2,
                                         .drops = 2 };
        struct icn_msg m;

        drain(&a, 100);
        icn_send(b.fd, b.version, ICN_MSG_CMD, ++b.seq, &q, NULL, 0);
        CHECK(wait_for(&b, ICN_MSG_CMD_REPLY, &m) == 1 &&
              m.u.cmd_reply.status == M890_SW_OK);
        drain(&a, 200);
        CHECK(a.st[1].drops == 3);
        icn_send(a.fd, a.version, ICN_MSG_COUNTERS, 0, &used, NULL, 0);
        drain(&a, 200);
        CHECK(a.st[1].drops == 1);
        CHECK(cmd(&b, 2, M890_SW_OP_PORT_GET, 1, 0, data) == M890_SW_OK &&
              data[M890_SW_PORT_INJECT_DROPS] == 1 &&
              data[M890_SW_PORT_ERRORS] == 2);
        icn_send(a.fd, a.version, ICN_MSG_COUNTERS, 0, &used, NULL, 0);
        drain(&a, 200);
        CHECK(a.st[1].drops == 0);
        CHECK(cmd(&b, 2, M890_SW_OP_PORT_CLEAR, 1, 0, data) == M890_SW_OK);
    }
    CHECK(cmd(&b, 2, M890_SW_OP_ROUTE_SET, 1, 1 | 1u << 8, data) ==
          M890_SW_OK);

    /* counters reported by a client add up in the daemon's switch */
    {
        struct icn_msg_counters tx = { .port = 1, .tx_bytes = 8192,
                                       .tx_pkts = 2 };
        struct icn_msg_counters rx = { .port = 2, .rx_bytes = 8192,
                                       .rx_pkts = 2, .errors = 1 };

        icn_send(a.fd, a.version, ICN_MSG_COUNTERS, 0, &tx, NULL, 0);
        icn_send(a.fd, a.version, ICN_MSG_COUNTERS, 0, &rx, NULL, 0);
        icn_send(a.fd, a.version, ICN_MSG_COUNTERS, 0, &rx, NULL, 0);
    }
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_GET, 1, 0, data) == M890_SW_OK &&
          data[M890_SW_PORT_TX_BYTES] == 8192 &&
          data[M890_SW_PORT_TX_PKTS] == 2);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_GET, 2, 0, data) == M890_SW_OK &&
          data[M890_SW_PORT_RX_BYTES] == 16384 &&
          data[M890_SW_PORT_ERRORS] == 2);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_CLEAR, 2, 0, data) == M890_SW_OK);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_GET, 2, 0, data) == M890_SW_OK &&
          data[M890_SW_PORT_RX_BYTES] == 0);

    /* a detaches port 1; b is told */
    {
        struct icn_msg_port pm = { .port = 1 };
        struct icn_msg m;

        icn_send(a.fd, a.version, ICN_MSG_DETACH, ++a.seq, &pm, NULL, 0);
        CHECK(wait_for(&a, ICN_MSG_STATUS, &m) == 1 && m.u.status.status == 0);
        icn_send(a.fd, a.version, ICN_MSG_DETACH, ++a.seq, &pm, NULL, 0);
        CHECK(wait_for(&a, ICN_MSG_STATUS, &m) == 1 &&
              m.u.status.status == -ENOENT);
        CHECK(wait_for(&b, ICN_MSG_PEER_GONE, NULL) == 1 &&
              b.peer_fd[1][0] < 0);
    }

    /* a VM that goes away: its ports go down, b carries on */
    drain(&b, 100);
    ev = b.events;
    client_close(&a);
    /* the port goes down (state, event) before its HBM is withdrawn */
    CHECK(wait_for(&b, ICN_MSG_PEER_GONE, NULL) == 1 && b.peer_fd[0][0] < 0);
    CHECK(b.events == ev + 1 && b.last_event == (0 | M890_LINK_DOWN << 8));
    drain(&b, 200);
    CHECK(!b.st[0].present && b.st[0].oper == M890_LINK_DOWN);
    CHECK(cmd(&b, 2, M890_SW_OP_PORT_GET, 0, 0, data) == M890_SW_OK &&
          data[M890_SW_PORT_FABRIC_ID] == M890_FABRIC_ID_NONE &&
          data[M890_SW_PORT_LINK_DOWN] == 2);

    /* and a new VM can take its port */
    CHECK(client_open(&n, "vm-new", V, V) >= 0);
    CHECK(n.peer_fd[2][0] >= 0 && n.peer_fd[0][0] < 0);
    CHECK(attach(&n, 0, HBM, &k0) == 0);
    CHECK(wait_for(&b, ICN_MSG_PEER, NULL) == 1 && b.peer_fd[0][0] >= 0);

    client_close(&n);
    client_close(&b);
    card_free(&k0);
    card_free(&k1);
    card_free(&k2);
    card_free(&kbig);
}

/* A command with or without the card's management flag. */
static uint32_t cmd2(struct client *c, unsigned int port, unsigned int op,
                     unsigned int arg, uint64_t arg0, uint64_t arg1,
                     bool mgmt, uint64_t *data)
{
    struct icn_msg_cmd q = { .port = (uint8_t)port, .op = (uint8_t)op,
                             .arg = (uint8_t)arg,
                             .flags = mgmt ? ICN_CMD_F_MGMT : 0,
                             .arg0 = arg0, .arg1 = arg1 };
    struct icn_msg m;

    icn_send(c->fd, c->version, ICN_MSG_CMD, ++c->seq, &q, NULL, 0);
    if (wait_for(c, ICN_MSG_CMD_REPLY, &m) != 1) {
        return 0xdead;
    }
    memcpy(data, m.u.cmd_reply.data, sizeof(m.u.cmd_reply.data));
    return m.u.cmd_reply.status;
}

/* Send a command without waiting for its reply. */
static void cmd_send(struct client *c, unsigned int port, unsigned int op,
                     unsigned int arg)
{
    struct icn_msg_cmd q = { .port = (uint8_t)port, .op = (uint8_t)op,
                             .arg = (uint8_t)arg };

    icn_send(c->fd, c->version, ICN_MSG_CMD, ++c->seq, &q, NULL, 0);
}

/* Absorb messages for @ms; true if a CMD_REPLY arrived (into *@r). */
static bool reply_within(struct client *c, int ms, struct icn_msg_cmd_reply *r)
{
    struct icn_msg m;

    while (recv_one(c, &m, ms) == 1) {
        if (m.hdr.type == ICN_MSG_CMD_REPLY) {
            *r = m.u.cmd_reply;
            return true;
        }
        absorb(c, &m);
    }
    return false;
}

#define RANGE(first, pages) ((uint64_t)(first) | (uint64_t)(pages) << 32)

/* Exports and windows across two clients (spec §8.7). */
static void test_exports(void)
{
    struct client a, b, n;
    struct fake_card k0, k2;
    struct icn_msg_cmd_reply r;
    struct icn_msg_fence ack;
    uint64_t data[16];
    struct timespec t0, t1;
    long ms;

    card_new(&k0, 0);
    card_new(&k2, 0);
    CHECK(client_open(&a, "vm-a", V, V) >= 0 && attach(&a, 0, HBM, &k0) == 0);
    CHECK(client_open(&b, "vm-b", V, V) >= 0 && attach(&b, 2, HBM, &k2) == 0);

    /* statuses through the daemon; no management permission needed */
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 64, 0x55, RANGE(0, 1), false,
               data) == M890_SW_ERANGE);
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 1, 0x55, RANGE(15, 2), false,
               data) == M890_SW_EINVAL);    /* past the 16 pages of HBM */
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 1, 0, RANGE(0, 1), false,
               data) == M890_SW_EINVAL);
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 1, 0x55, RANGE(1, 2), false,
               data) == M890_SW_OK);
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 2, 0x55, RANGE(1, 2), false,
               data) == M890_SW_EBUSY);
    /* only the issuing client's own ports */
    CHECK(cmd2(&a, 2, M890_SW_OP_EXPORT_DEL, 1, 0, 0, false, data) ==
          M890_SW_ENODEV);
    /* every client learns the export, without its key */
    drain(&a, 100);
    CHECK(a.exp[2][1].range == RANGE(1, 2) && a.exp[2][1].windows == 0);
    CHECK(b.exp[2][1].range == RANGE(1, 2));

    /* a window: the issuer's copy has it before the reply */
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_OPEN, 2, 0x56, 0, false, data) ==
          M890_SW_ENOENT);
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_OPEN, 2, 0x55, 0, false, data) ==
          M890_SW_OK && data[0] == RANGE(1, 2) && data[1] == 1);
    CHECK(a.exp[2][1].windows == 1);
    drain(&b, 100);
    CHECK(b.exp[2][1].windows == 1);
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_CLOSE, 2, 1, 0, false, data) ==
          M890_SW_OK && a.exp[2][1].windows == 0);
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_CLOSE, 2, 1, 0, false, data) ==
          M890_SW_ENOENT);
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_OPEN, 2, 0x55, 0, false, data) ==
          M890_SW_OK);

    /* a new client gets every export after the ports' state */
    CHECK(client_open(&n, "vm-n", V, V) >= 0);
    drain(&n, 100);
    CHECK(n.exports == 1 && n.exp[2][1].range == RANGE(1, 2) &&
          n.exp[2][1].windows == 1);

    /* EXPORT_DEL: no reply before every other client acknowledged */
    drain(&a, 50);
    a.fences = 0;
    cmd_send(&b, 2, M890_SW_OP_EXPORT_DEL, 1);
    CHECK(!reply_within(&b, 300, &r));
    drain(&a, 50);
    CHECK(a.fences == 1 && a.exp[2][1].range == 0 &&
          a.exp[2][1].windows == 0);
    ack.id = a.fence_id;
    icn_send(a.fd, a.version, ICN_MSG_FENCE_ACK, 0, &ack, NULL, 0);
    CHECK(!reply_within(&b, 300, &r));      /* n has not answered yet */
    drain(&n, 50);
    CHECK(n.fences == 1 && n.fence_id == ack.id);
    icn_send(n.fd, n.version, ICN_MSG_FENCE_ACK, 0, &ack, NULL, 0);
    CHECK(reply_within(&b, 1000, &r) && r.status == M890_SW_OK);
    CHECK(b.fences == 0);                   /* not the revoker's own */
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_OPEN, 2, 0x55, 0, false, data) ==
          M890_SW_ENOENT);
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_DEL, 1, 0, 0, false, data) ==
          M890_SW_ENOENT);                  /* a failure: no fence */

    /* a FENCE_ACK for a fence never sent is a protocol error */
    ack.id += 100;
    icn_send(n.fd, n.version, ICN_MSG_FENCE_ACK, 0, &ack, NULL, 0);
    CHECK(got_eof(&n));
    client_close(&n);

    /* a client that does not acknowledge is dropped, then the reply */
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 3, 0x77, RANGE(0, 16), false,
               data) == M890_SW_OK);
    CHECK(cmd2(&a, 0, M890_SW_OP_WINDOW_OPEN, 2, 0x77, 0, false, data) ==
          M890_SW_OK);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cmd_send(&b, 2, M890_SW_OP_EXPORT_DEL, 3);
    CHECK(reply_within(&b, 4000, &r) && r.status == M890_SW_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    CHECK(ms >= 1950);  /* -F 2000 */
    CHECK(got_eof(&a));
    client_close(&a);
    /* a's card left: b is told, and a's windows went with it */
    drain(&b, 100);
    CHECK(b.peer_fd[0][0] < 0 && !b.st[0].present);

    /* a card that leaves takes its exports along */
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_ADD, 4, 0x88, RANGE(0, 1), false,
               data) == M890_SW_OK);
    {
        struct icn_msg_port pm = { .port = 2 };
        struct icn_msg m;

        icn_send(b.fd, b.version, ICN_MSG_DETACH, ++b.seq, &pm, NULL, 0);
        CHECK(wait_for(&b, ICN_MSG_STATUS, &m) == 1 && m.u.status.status == 0);
    }
    CHECK(client_open(&n, "vm-n2", V, V) >= 0);
    drain(&n, 100);
    CHECK(n.exports == 0);
    CHECK(attach(&b, 2, HBM, &k2) == 0);
    CHECK(cmd2(&b, 2, M890_SW_OP_EXPORT_DEL, 4, 0, 0, false, data) ==
          M890_SW_ENOENT);
    client_close(&n);
    client_close(&b);
    card_free(&k0);
    card_free(&k2);
}

static void test_readonly(void)
{
    struct client c;
    struct fake_card k;
    uint64_t data[16];
    pid_t pid = start_daemon("-R");
    int ret;

    card_new(&k, 0);
    ret = client_open(&c, "tenant", V, V);
    CHECK(ret >= 0 && !(ret & ICN_HELLO_F_MGMT));
    CHECK(attach(&c, 3, HBM, &k) == 0);
    CHECK(cmd(&c, 3, M890_SW_OP_PORT_GET, 3, 0, data) == M890_SW_OK);
    CHECK(cmd(&c, 3, M890_SW_OP_PORT_SET_ADMIN, 3, 0, data) == M890_SW_EPERM);
    CHECK(cmd(&c, 3, M890_SW_OP_PORT_CLEAR, 64, 0, data) == M890_SW_ERANGE);
    client_close(&c);
    card_free(&k);
    CHECK(WIFEXITED(stop_daemon(pid, SIGTERM)));
}

/* -M: management permission for the named VM only (spec §8.6). */
static void test_mgmt_names(void)
{
    struct client adm, ten;
    struct fake_card k1, k2;
    uint64_t data[16];
    pid_t pid = start_daemon2("-M", "fabric-manager");
    int ret;

    card_new(&k1, 0);
    card_new(&k2, 0);
    ret = client_open(&adm, "fabric-manager", V, V);
    CHECK(ret >= 0 && (ret & ICN_HELLO_F_MGMT));
    ret = client_open(&ten, "tenant", V, V);
    CHECK(ret >= 0 && !(ret & ICN_HELLO_F_MGMT));
    CHECK(attach(&adm, 0, HBM, &k1) == 0 && attach(&ten, 1, HBM, &k2) == 0);
    CHECK(cmd(&ten, 1, M890_SW_OP_PORT_SET_ADMIN, 0, 0, data) ==
          M890_SW_EPERM);
    CHECK(cmd(&ten, 1, M890_SW_OP_PORT_GET, 0, 0, data) == M890_SW_OK &&
          (data[M890_SW_PORT_STATE] >> 8 & 0xff) == M890_LINK_UP);
    CHECK(cmd(&adm, 0, M890_SW_OP_PORT_SET_ADMIN, 1, 0, data) == M890_SW_OK);
    CHECK(cmd(&adm, 0, M890_SW_OP_PORT_SET_ADMIN, 1, 1, data) == M890_SW_OK);
    client_close(&ten);
    client_close(&adm);
    card_free(&k1);
    card_free(&k2);
    CHECK(WIFEXITED(stop_daemon(pid, SIGTERM)));
}

static void test_restart(void)
{
    struct client c, e;
    struct fake_card k;
    pid_t pid = start_daemon(NULL);
    int status;

    card_new(&k, 0);
    CHECK(client_open(&c, "vm", V, V) >= 0 && attach(&c, 4, HBM, &k) == 0);
    /* a clean stop closes every connection and removes the socket */
    status = stop_daemon(pid, SIGTERM);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(got_eof(&c));
    CHECK(access(sock_path, F_OK) != 0);
    client_close(&c);

    /* a new daemon starts from power-on and takes the same clients back */
    pid = start_daemon(NULL);
    CHECK(client_open(&c, "vm", V, V) >= 0);
    CHECK(!c.st[4].present && c.st[4].admin == M890_LINK_UP);
    CHECK(attach(&c, 4, HBM, &k) == 0);

    /* killed: its clients see EOF; the stale socket file is replaced */
    CHECK(WIFSIGNALED(stop_daemon(pid, SIGKILL)));
    CHECK(got_eof(&c));
    client_close(&c);
    CHECK(access(sock_path, F_OK) == 0);
    CHECK(connect_raw() < 0);
    pid = start_daemon(NULL);
    CHECK(client_open(&e, "vm", V, V) >= 0 && attach(&e, 4, HBM, &k) == 0);
    client_close(&e);
    /* a second daemon on a live socket refuses to start */
    {
        pid_t p2 = fork();

        if (p2 == 0) {
            int devnull = open("/dev/null", O_WRONLY);

            dup2(devnull, 2);
            execl(daemon_bin, daemon_bin, "-s", sock_path, (char *)NULL);
            _exit(127);
        }
        waitpid(p2, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    }
    CHECK(WIFEXITED(stop_daemon(pid, SIGTERM)));
    card_free(&k);
}

/* -F outside 50..9000 ms, or not a number, is refused (status 2). */
static void test_bad_fence_timeout(void)
{
    static const char *const bad[] = { "49", "9001", "1s", "", "-5" };
    unsigned int i;
    int status;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pid_t p = fork();

        if (p == 0) {
            int devnull = open("/dev/null", O_WRONLY);

            dup2(devnull, 2);
            execl(daemon_bin, daemon_bin, "-s", sock_path, "-F", bad[i],
                  (char *)NULL);
            _exit(127);
        }
        waitpid(p, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    }
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/icn-switchd-test.XXXXXX";
    pid_t pid;

    static char next_to_me[4096];

    if (argc > 2) {
        fprintf(stderr, "usage: %s [ICN_SWITCHD]\n", argv[0]);
        return 2;
    }
    if (argc == 2) {
        daemon_bin = argv[1];
    } else {
        /* the daemon built the same way, next to this test */
        snprintf(next_to_me, sizeof(next_to_me), "%s", argv[0]);
        if (strrchr(next_to_me, '/')) {
            strcpy(strrchr(next_to_me, '/') + 1, "icn-switchd");
        } else {
            strcpy(next_to_me, "./icn-switchd");
        }
        daemon_bin = next_to_me;
    }
    if (access(daemon_bin, X_OK)) {
        printf("not ok 1 - daemon %s not found\n1..1\n", daemon_bin);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(sock_path, sizeof(sock_path), "%s/icn.sock", dir);
    snprintf(pid_path, sizeof(pid_path), "%s/pid", dir);

    test_bad_fence_timeout();
    /* a short fence timeout, for the drop of a client that does not ack */
    pid = start_daemon2("-F", "2000");
    CHECK(access(pid_path, F_OK) == 0);
    test_hello();
    test_fabric();
    test_exports();
    CHECK(WIFEXITED(stop_daemon(pid, SIGTERM)));
    test_readonly();
    test_mgmt_names();
    test_restart();

    unlink(sock_path);
    unlink(pid_path);
    rmdir(dir);
    printf("1..%d\n# %d passed, %d failed\n", passed + failed, passed, failed);
    return failed ? 1 : 0;
}
