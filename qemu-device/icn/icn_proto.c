// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: ICN fabric protocol framing
 *
 * Sending and receiving the messages of icn_proto.h over a Unix stream
 * socket.  The receive side keeps the bytes of a partly received message
 * and a FIFO of received descriptors: the kernel delivers SCM_RIGHTS
 * descriptors with the recvmsg() that reads the first byte of the message
 * they were sent with, so by the time a message is complete its
 * descriptors are at the head of the FIFO.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "icn_proto.h"

_Static_assert(sizeof(struct icn_msg_hdr) == 16, "header size");
_Static_assert(sizeof(struct icn_msg_hello) == 40, "hello size");
_Static_assert(sizeof(struct icn_msg_hello_reply) == 16, "hello reply size");
_Static_assert(sizeof(struct icn_msg_attach) == 16, "attach size");
_Static_assert(sizeof(struct icn_msg_port) == 8, "port size");
_Static_assert(sizeof(struct icn_msg_status) == 8, "status size");
_Static_assert(sizeof(struct icn_msg_cmd) == 24, "cmd size");
_Static_assert(sizeof(struct icn_msg_cmd_reply) == 136, "cmd reply size");
_Static_assert(sizeof(struct icn_msg_counters) == 56, "counters size");
_Static_assert(sizeof(struct icn_msg_port_state) == 24, "port state size");
_Static_assert(sizeof(struct icn_msg_event) == 8, "event size");
_Static_assert(sizeof(struct icn_msg_export) == 24, "export size");
_Static_assert(sizeof(struct icn_msg_fence) == 8, "fence size");

static const struct {
    const char *name;
    size_t size;
} icn_msg_types[ICN_MSG_TYPES] = {
    [ICN_MSG_HELLO] = { "HELLO", sizeof(struct icn_msg_hello) },
    [ICN_MSG_HELLO_REPLY] = { "HELLO_REPLY",
                              sizeof(struct icn_msg_hello_reply) },
    [ICN_MSG_ATTACH] = { "ATTACH", sizeof(struct icn_msg_attach) },
    [ICN_MSG_DETACH] = { "DETACH", sizeof(struct icn_msg_port) },
    [ICN_MSG_STATUS] = { "STATUS", sizeof(struct icn_msg_status) },
    [ICN_MSG_CMD] = { "CMD", sizeof(struct icn_msg_cmd) },
    [ICN_MSG_CMD_REPLY] = { "CMD_REPLY", sizeof(struct icn_msg_cmd_reply) },
    [ICN_MSG_COUNTERS] = { "COUNTERS", sizeof(struct icn_msg_counters) },
    [ICN_MSG_PEER] = { "PEER", sizeof(struct icn_msg_attach) },
    [ICN_MSG_PEER_GONE] = { "PEER_GONE", sizeof(struct icn_msg_port) },
    [ICN_MSG_PORT_STATE] = { "PORT_STATE",
                             sizeof(struct icn_msg_port_state) },
    [ICN_MSG_EVENT] = { "EVENT", sizeof(struct icn_msg_event) },
    [ICN_MSG_EXPORT] = { "EXPORT", sizeof(struct icn_msg_export) },
    [ICN_MSG_FENCE] = { "FENCE", sizeof(struct icn_msg_fence) },
    [ICN_MSG_FENCE_ACK] = { "FENCE_ACK", sizeof(struct icn_msg_fence) },
};

size_t icn_msg_payload_size(unsigned int type)
{
    return type < ICN_MSG_TYPES ? icn_msg_types[type].size : 0;
}

const char *icn_msg_name(unsigned int type)
{
    return type < ICN_MSG_TYPES && icn_msg_types[type].name ?
           icn_msg_types[type].name : "?";
}

static unsigned int icn_msg_nfds(unsigned int type)
{
    return type == ICN_MSG_ATTACH || type == ICN_MSG_PEER ? ICN_PROTO_FDS : 0;
}

int icn_send(int fd, unsigned int version, unsigned int type, uint32_t seq,
             const void *payload, const int *fds, unsigned int nfds)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * ICN_PROTO_FDS)];
    } ctl;
    struct icn_msg_hdr hdr = {
        .magic = ICN_PROTO_MAGIC,
        .version = (uint16_t)version,
        .type = (uint16_t)type,
        .len = (uint32_t)icn_msg_payload_size(type),
        .seq = seq,
    };
    uint8_t out[sizeof(hdr) + ICN_PROTO_MAX_PAYLOAD];
    size_t total = sizeof(hdr) + hdr.len, done = 0;
    struct msghdr mh;
    struct iovec iov;
    ssize_t n;

    if (!hdr.len || nfds > ICN_PROTO_FDS) {
        return -EINVAL;
    }
    memcpy(out, &hdr, sizeof(hdr));
    memcpy(out + sizeof(hdr), payload, hdr.len);
    while (done < total) {
        memset(&mh, 0, sizeof(mh));
        iov.iov_base = out + done;
        iov.iov_len = total - done;
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        if (!done && nfds) {
            struct cmsghdr *cm;

            memset(&ctl, 0, sizeof(ctl));
            mh.msg_control = ctl.buf;
            mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
            cm = CMSG_FIRSTHDR(&mh);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
        }
        n = sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        done += (size_t)n;
    }
    return 0;
}

void icn_conn_init(struct icn_conn *c, int fd)
{
    c->fd = fd;
    c->len = 0;
    c->nfds = 0;
}

void icn_conn_release(struct icn_conn *c)
{
    unsigned int i;

    for (i = 0; i < c->nfds; i++) {
        close(c->fds[i]);
    }
    c->nfds = 0;
    c->len = 0;
}

int icn_conn_fill(struct icn_conn *c)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * ICN_CONN_MAX_FDS)];
    } ctl;
    struct msghdr mh = { 0 };
    struct cmsghdr *cm;
    struct iovec iov;
    int ret = 0;
    ssize_t n;

    if (c->len == sizeof(c->buf)) {
        return -EPROTO;     /* cannot happen: messages are smaller */
    }
    iov.iov_base = c->buf + c->len;
    iov.iov_len = sizeof(c->buf) - c->len;
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl.buf;
    mh.msg_controllen = sizeof(ctl.buf);
    do {
        n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        return -errno;
    }
    for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
        size_t k, cnt;
        int fd;

        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
            ret = -EPROTO;
            continue;
        }
        cnt = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (k = 0; k < cnt; k++) {
            memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
            if (c->nfds < ICN_CONN_MAX_FDS) {
                c->fds[c->nfds++] = fd;
            } else {
                close(fd);
                ret = -EPROTO;
            }
        }
    }
    if (mh.msg_flags & MSG_CTRUNC) {
        ret = -EPROTO;
    }
    c->len += (size_t)n;
    return ret ? ret : (int)n;
}

int icn_conn_next(struct icn_conn *c, struct icn_msg *m)
{
    struct icn_msg_hdr hdr;
    size_t size, total;
    unsigned int i;

    if (c->len < sizeof(hdr)) {
        return 0;
    }
    memcpy(&hdr, c->buf, sizeof(hdr));
    size = icn_msg_payload_size(hdr.type);
    if (hdr.magic != ICN_PROTO_MAGIC || !size || hdr.len != size) {
        return -EPROTO;
    }
    total = sizeof(hdr) + size;
    if (c->len < total) {
        return 0;
    }
    m->hdr = hdr;
    memset(&m->u, 0, sizeof(m->u));
    memcpy(&m->u, c->buf + sizeof(hdr), size);
    m->nfds = icn_msg_nfds(hdr.type);
    if (c->nfds < m->nfds) {
        return -EPROTO;
    }
    for (i = 0; i < m->nfds; i++) {
        m->fds[i] = c->fds[i];
    }
    c->nfds -= m->nfds;
    memmove(c->fds, c->fds + m->nfds, c->nfds * sizeof(int));
    c->len -= total;
    memmove(c->buf, c->buf + total, c->len);
    return 1;
}
