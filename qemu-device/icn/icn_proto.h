/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ICN fabric protocol: the messages between icn-switchd and the QEMU
 * processes whose cards it joins into one switch (spec of record:
 * Documentation/icn-switchd.rst).
 *
 * Plain C11 and POSIX only: used by the daemon, by the QEMU "icn-switch"
 * object when it has a "socket" property, and by the host tests.
 *
 * Transport: a Unix stream socket.  Every message is a 16-byte header
 * followed by "len" bytes of payload; integers are in the host's byte
 * order (both ends run on one host).  File descriptors travel as
 * SCM_RIGHTS ancillary data sent with the message they belong to (the
 * header's first byte); only ATTACH and PEER carry any (two each).
 */
#ifndef ICN_PROTO_H
#define ICN_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ICN_PROTO_MAGIC         0x4e435349u     /* "ISCN" in memory */
/*
 * Version 2 added EXPORT, FENCE and FENCE_ACK (spec §8.7).  Version 1 is
 * no longer spoken: a version-1 client would not learn exports and
 * windows, so its cards would reach other VMs' HBM unchecked.
 */
#define ICN_PROTO_VERSION       2u              /* newest version spoken */
#define ICN_PROTO_MIN_VERSION   2u              /* oldest version spoken */
#define ICN_PROTO_MAX_PAYLOAD   1024u           /* larger: protocol error */
#define ICN_PROTO_FDS           2u              /* fds of ATTACH and PEER */

/**
 * struct icn_msg_hdr - header of every message.
 * @magic: ICN_PROTO_MAGIC.
 * @version: protocol version of the message's layout: 1 for HELLO and
 *           HELLO_REPLY (their layout is fixed for every version), the
 *           negotiated version for every later message.
 * @type: enum icn_msg_type.
 * @len: payload bytes after the header, exactly the size of the type's
 *       payload struct.
 * @seq: a request's number, chosen by the sender; a reply (HELLO_REPLY,
 *       STATUS, CMD_REPLY) carries the number of the request it answers.
 *       Unsolicited messages carry 0.
 */
struct icn_msg_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t len;
    uint32_t seq;
};

/* C: client (a QEMU process), D: daemon. */
enum icn_msg_type {
    ICN_MSG_HELLO = 1,          /* C->D struct icn_msg_hello */
    ICN_MSG_HELLO_REPLY = 2,    /* D->C struct icn_msg_hello_reply */
    ICN_MSG_ATTACH = 3,         /* C->D struct icn_msg_attach + 2 fds */
    ICN_MSG_DETACH = 4,         /* C->D struct icn_msg_port */
    ICN_MSG_STATUS = 5,         /* D->C struct icn_msg_status */
    ICN_MSG_CMD = 6,            /* C->D struct icn_msg_cmd */
    ICN_MSG_CMD_REPLY = 7,      /* D->C struct icn_msg_cmd_reply */
    ICN_MSG_COUNTERS = 8,       /* C->D struct icn_msg_counters, no reply */
    ICN_MSG_PEER = 9,           /* D->C struct icn_msg_attach + 2 fds */
    ICN_MSG_PEER_GONE = 10,     /* D->C struct icn_msg_port */
    ICN_MSG_PORT_STATE = 11,    /* D->C struct icn_msg_port_state */
    ICN_MSG_EVENT = 12,         /* D->C struct icn_msg_event */
    ICN_MSG_EXPORT = 13,        /* D->C struct icn_msg_export (v2) */
    ICN_MSG_FENCE = 14,         /* D->C struct icn_msg_fence (v2) */
    ICN_MSG_FENCE_ACK = 15,     /* C->D struct icn_msg_fence (v2) */
    ICN_MSG_TYPES
};

/**
 * struct icn_msg_hello - first message of a client.
 * @min_version: oldest protocol version the client speaks (>= 1).
 * @max_version: newest version the client speaks (>= @min_version).
 * @flags: 0 (anything else is refused with -EINVAL).
 * @name: NUL-terminated name for logs (for example the VM's name).
 */
struct icn_msg_hello {
    uint16_t min_version;
    uint16_t max_version;
    uint32_t flags;
    char name[32];
};

#define ICN_HELLO_F_MGMT        (1u << 0)   /* cards may change the switch */

/**
 * struct icn_msg_hello_reply - answer to HELLO.
 * @status: 0, -EPROTONOSUPPORT (no common version: the daemon closes the
 *          connection after this reply) or -EINVAL (bad HELLO, closed).
 * @version: the version used from now on (highest common one).
 * @switch_id: the switch's id (INFO DATA2).
 * @flags: ICN_HELLO_F_MGMT when this client's cards have management
 *         permission (spec §8.3).
 */
struct icn_msg_hello_reply {
    int32_t status;
    uint16_t version;
    uint16_t rsvd;
    uint32_t switch_id;
    uint32_t flags;
};

/**
 * struct icn_msg_attach - a card cabled to a port (ATTACH) or a card of
 * another client now reachable through the fabric (PEER).
 * @port: switch port, 0..63; the card's fabric id.
 * @rsvd: 0.
 * @hbm_size: bytes of HBM: a power of two >= 4 KiB, not larger than the
 *            HBM file.
 *
 * fds[0]: the card's HBM, a memfd sealed against shrinking (F_SEAL_SHRINK,
 * as QEMU's memory-backend-memfd seals it), mapped from offset 0 with
 * MAP_SHARED; fds[1]: an eventfd the card reads: writing 1 to it asks the
 * card to re-check its WAITs (a peer SIGNALled).
 */
struct icn_msg_attach {
    uint8_t port;
    uint8_t rsvd[7];
    uint64_t hbm_size;
};

/** struct icn_msg_port - DETACH, PEER_GONE: @port, @rsvd 0. */
struct icn_msg_port {
    uint8_t port;
    uint8_t rsvd[7];
};

/**
 * struct icn_msg_status - answer to ATTACH and DETACH.
 * @status: 0 or a negative errno: -ERANGE (port >= 64), -EBUSY (port
 *          taken), -EINVAL (reserved field, HBM size, a file smaller than
 *          that or not sealed against shrinking, a second fd that is not
 *          an eventfd), -ENOENT (DETACH of a port not attached by this
 *          client).
 * @port: the request's port.
 */
struct icn_msg_status {
    int32_t status;
    uint32_t port;
};

/**
 * struct icn_msg_cmd - a switch management command a card relays from its
 * SW_CMD register (spec §8.3).
 * @port: the issuing card's port; the client must have attached it.
 * @op: SW_CMD bits 7:0 (enum m890_sw_op).
 * @arg: SW_CMD bits 15:8 (port, fabric id).
 * @flags: ICN_CMD_F_MGMT if the card itself has management permission
 *         (its "switch-mgmt" property); the command may change the switch
 *         only if both the card and the client (HELLO_REPLY) have it.
 * @rsvd: 0.
 * @rsvd0: SW_CMD bits 31:16 (non-zero: EINVAL, as on the card).
 * @arg0, @arg1: SW_ARG0, SW_ARG1.
 */
struct icn_msg_cmd {
    uint8_t port;
    uint8_t op;
    uint8_t arg;
    uint8_t flags;
    uint8_t rsvd[2];
    uint16_t rsvd0;
    uint64_t arg0;
    uint64_t arg1;
};

/**
 * struct icn_msg_cmd_reply - result of a command.
 * @status: enum m890_sw_status.
 * @rsvd: 0.
 * @data: the 16 SW_DATA words (all 0 unless M890_SW_OK).
 */
#define ICN_CMD_F_MGMT          (1u << 0)

struct icn_msg_cmd_reply {
    uint32_t status;
    uint32_t rsvd;
    uint64_t data[16];
};

/**
 * struct icn_msg_counters - traffic a client's cards moved through the
 * fabric since its last report, to add to the switch counters of @port.
 * @port: 0..63, any port (the receiving side of a peer write is counted
 *        by the issuing client too).
 * @rsvd: 0.
 * @tx_bytes, @rx_bytes, @tx_pkts, @rx_pkts, @errors: increments (§8.5).
 * @drops: injected drops (PORT_INJECT kind 2) the client's transfers
 *         used up on @port; the daemon lowers the port's pending count.
 */
struct icn_msg_counters {
    uint8_t port;
    uint8_t rsvd[7];
    uint64_t tx_bytes;
    uint64_t rx_bytes;
    uint64_t tx_pkts;
    uint64_t rx_pkts;
    uint64_t errors;
    uint64_t drops;
};

/**
 * struct icn_msg_port_state - the switch's view of one port, sent to every
 * client when anything below changes and for all 64 ports after HELLO.
 * @port: 0..63.
 * @admin, @oper: enum m890_link_state.
 * @present: 1 if a card (of any client) is cabled to the port.
 * @partition: 0..63.
 * @route: route entry of destination fabric id @port: bits 7:0 egress
 *         port, bit 8 enabled (spec §8.5).
 * @rsvd: 0.
 * @drops: transfers still to be dropped by injection on the port.
 */
struct icn_msg_port_state {
    uint8_t port;
    uint8_t admin;
    uint8_t oper;
    uint8_t present;
    uint32_t partition;
    uint32_t route;
    uint32_t rsvd;
    uint64_t drops;
};

/**
 * struct icn_msg_event - a switch event for every card of the client
 * (spec §8.4); always after the PORT_STATE that reflects it.
 * @event: the SW_EVENT word.
 * @rsvd: 0.
 */
struct icn_msg_event {
    uint32_t event;
    uint32_t rsvd;
};

/**
 * struct icn_msg_export - the state of one export slot (spec §8.7), sent
 * to every client whenever EXPORT_ADD, EXPORT_DEL, WINDOW_OPEN or
 * WINDOW_CLOSE changed it, and for every used slot after HELLO (after
 * the PEER and PORT_STATE messages).  Slots of a card that leaves the
 * switch are not sent: PEER_GONE (or the client's own DETACH) drops them
 * with the card.  The key stays in the daemon: a client checks accesses,
 * it never looks exports up.
 * @port: the exporting card's port, 0..63.
 * @slot: 0..M890_SW_EXPORTS-1.
 * @rsvd: 0.
 * @range: first page | pages << 32 in 4 KiB pages; 0: the slot is free.
 * @windows: bit N set: the card on port N holds a window on the export.
 */
struct icn_msg_export {
    uint8_t port;
    uint8_t slot;
    uint8_t rsvd[6];
    uint64_t range;
    uint64_t windows;
};

/**
 * struct icn_msg_fence - FENCE and FENCE_ACK.  The daemon sends FENCE
 * after the EXPORT messages of an EXPORT_DEL to every client other than
 * the revoking one; a client answers FENCE_ACK with the same @id once it
 * has applied every message received before the FENCE, so that none of
 * its accesses checked earlier is still running (under QEMU's BQL) and
 * every later one sees the revoke.  The daemon answers the EXPORT_DEL
 * only then (Documentation/icn-switchd.rst, "Cross-VM windows").
 * @id: the fence's number, increasing from 1.
 */
struct icn_msg_fence {
    uint64_t id;
};

/** union icn_msg_payload - every payload, for a receive buffer. */
union icn_msg_payload {
    struct icn_msg_hello hello;
    struct icn_msg_hello_reply hello_reply;
    struct icn_msg_attach attach;
    struct icn_msg_port port;
    struct icn_msg_status status;
    struct icn_msg_cmd cmd;
    struct icn_msg_cmd_reply cmd_reply;
    struct icn_msg_counters counters;
    struct icn_msg_port_state port_state;
    struct icn_msg_event event;
    struct icn_msg_export export_state;
    struct icn_msg_fence fence;
};

/**
 * struct icn_msg - one received message.
 * @hdr: the header, checked (magic, type, length).
 * @u: the payload.
 * @fds: the message's file descriptors, owned by the receiver.
 * @nfds: ICN_PROTO_FDS for ATTACH and PEER, else 0.
 */
struct icn_msg {
    struct icn_msg_hdr hdr;
    union icn_msg_payload u;
    int fds[ICN_PROTO_FDS];
    unsigned int nfds;
};

#define ICN_CONN_BUF        4096u
#define ICN_CONN_MAX_FDS    16u

/**
 * struct icn_conn - receive side of a connection: bytes read but not yet
 * parsed, and received file descriptors in arrival order.
 */
struct icn_conn {
    int fd;
    size_t len;
    unsigned int nfds;
    int fds[ICN_CONN_MAX_FDS];
    uint8_t buf[ICN_CONN_BUF];
};

/* Payload size of @type, or 0 for an unknown type. */
size_t icn_msg_payload_size(unsigned int type);
/* Name of @type for logs ("?" if unknown). */
const char *icn_msg_name(unsigned int type);

/*
 * Send one message with @nfds descriptors (0 or ICN_PROTO_FDS).  Writes
 * it whole (retrying short writes, never raising SIGPIPE).  Returns 0 or
 * a negative errno (-EPIPE when the peer has gone).
 */
int icn_send(int fd, unsigned int version, unsigned int type, uint32_t seq,
             const void *payload, const int *fds, unsigned int nfds);

/* Start receiving on @fd (the caller keeps owning @fd). */
void icn_conn_init(struct icn_conn *c, int fd);
/* Close every received descriptor not yet handed out. */
void icn_conn_release(struct icn_conn *c);
/*
 * Read once from the socket, never blocking (sends on the same socket may
 * block, so the socket itself stays blocking).  Returns bytes read (> 0),
 * 0 at end of stream, or a negative errno (-EAGAIN when nothing is there:
 * another reader may have taken what poll() announced; -EPROTO for
 * truncated or unexpected ancillary data or too many queued descriptors).
 */
int icn_conn_fill(struct icn_conn *c);
/*
 * Take the next complete message out of the buffer.  Returns 1 with *@m
 * filled (the caller owns m->fds), 0 when more bytes are needed, or
 * -EPROTO for a bad magic, unknown type, wrong length or missing fds.
 */
int icn_conn_next(struct icn_conn *c, struct icn_msg *m);

#endif /* ICN_PROTO_H */
