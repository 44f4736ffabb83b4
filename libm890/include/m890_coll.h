/* SPDX-License-Identifier: MIT */
/*
 * libm890 communicators and collectives: the constructors (unique ids
 * included), registration, all-to-all(v), grouped send/recv, the device
 * collectives (allreduce, allgather, reduce-scatter, broadcast, barrier)
 * and groups of collectives.  Part of <m890.h>.
 */
#ifndef M890_COLL_H
#define M890_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "m890_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Communicators and all-to-all                                        */
/* ------------------------------------------------------------------ */

/**
 * typedef m890_comm_t - handle of a communicator: n ranks, one card each,
 * held by this process (m890_comm_create()) or spread over processes and
 * VMs (m890_comm_create_rank(), m890_comm_create_fabric(),
 * m890_comm_init_ranks()); destroyed with m890_comm_destroy().
 */
typedef struct m890_comm *m890_comm_t;

/**
 * struct m890_comm_config - options of every communicator constructor.
 * Start from M890_COMM_CONFIG_INIT, then change fields.
 * @size: sizeof(struct m890_comm_config), set by the initializer; checked.
 * @magic: M890_COMM_CONFIG_MAGIC, set by the initializer; checked.
 * @version: M890_COMM_CONFIG_VERSION, set by the initializer; checked.
 * @flags: none defined, 0.
 * @timeout_ns: how long m890_comm_synchronize() waits for the streams,
 *              and on per-rank communicators how long a collective waits
 *              for every rank to make the same call (M890_TIMEOUT_INFINITE:
 *              no limit), in nanoseconds; 10 s by default.
 * @chunk_bytes: largest COPY packet of one block; a block is sent as
 *               ceil(bytes / @chunk_bytes) packets so that no packet holds
 *               the card's command engine for long (0 = the default,
 *               M890_COMM_DEFAULT_CHUNK_BYTES).
 */
struct m890_comm_config {
	uint32_t size;
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint64_t timeout_ns;
	uint64_t chunk_bytes;
};
/**
 * M890_COMM_DEFAULT_CHUNK_BYTES - largest COPY packet of a transfer block
 * when struct m890_comm_config's @chunk_bytes is 0: 4 MiB.
 */
#define M890_COMM_DEFAULT_CHUNK_BYTES	(4ull << 20)
/**
 * M890_COMM_CONFIG_MAGIC - struct m890_comm_config's @magic ("M8CM").
 */
#define M890_COMM_CONFIG_MAGIC		0x4d38434du	/* "M8CM" */
/**
 * M890_COMM_CONFIG_VERSION - current version of struct m890_comm_config.
 */
#define M890_COMM_CONFIG_VERSION	1
/**
 * M890_COMM_CONFIG_INIT - initializer of struct m890_comm_config: no
 * flags, a 10 s timeout, the default chunk size.
 */
#define M890_COMM_CONFIG_INIT \
	{ .size = sizeof(struct m890_comm_config), \
	  .magic = M890_COMM_CONFIG_MAGIC, \
	  .version = M890_COMM_CONFIG_VERSION, \
	  .flags = 0, .timeout_ns = 10000000000ull, .chunk_bytes = 0 }

/**
 * m890_comm_create() - a communicator of @n ranks: rank i is @devices[i].
 * @devices: @n distinct open devices, all on one fabric partition.
 * @n: 1 .. 64.
 * @config: NULL for the defaults, else initialized with
 *          M890_COMM_CONFIG_INIT.
 * @comm: receives the handle; destroy it with m890_comm_destroy().
 *
 * Allocates per rank a small HBM semaphore area and a host progress area,
 * imports every peer's semaphore area, and zeroes them (briefly using a
 * stream of each device).  The devices cannot be closed while the
 * communicator exists.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (@n, NULL or
 * repeated devices, config); M890_ERROR_NOT_SUPPORTED (cards that cannot
 * reach each other); the allocation errors and M890_ERROR_BUSY (no free
 * queue).
 */
m890_status_t m890_comm_create(const m890_device_t *devices, int n,
			       const struct m890_comm_config *config,
			       m890_comm_t *comm);

/**
 * m890_comm_create_rank() - this process's rank of a communicator whose
 * ranks live in different processes of this machine, one card each.
 * Every rank calls it with its own card and rank number.
 * @device: this rank's card.
 * @rank: 0 .. @n - 1, distinct in every process.
 * @n: 1 .. 64 ranks.
 * @bootstrap_path: a Unix socket path every rank knows (e.g. under /tmp);
 *          rank 0 creates it and removes it once every rank connected;
 *          the others retry until the config's timeout.  Rank 0 replaces
 *          only a stale socket of its own user: anything else at the path
 *          fails the call (M890_ERROR_PERMISSION, or M890_ERROR_BUSY for
 *          a live listener) and is left alone.  Only processes of the
 *          same user meet (SO_PEERCRED): rank 0 ignores connections of
 *          other users, and a rank whose rank 0 is another user's fails
 *          with M890_ERROR_PERMISSION.  Only the setup and m890_comm_register() use it: the
 *          processes exchange the dma-bufs of their semaphore areas
 *          (SCM_RIGHTS) and each imports its peers' as windows.
 * @config: NULL for the defaults, else initialized with
 *          M890_COMM_CONFIG_INIT; its @timeout_ns also bounds the meeting.
 * @comm: receives the handle.
 *
 * Such a communicator runs m890_comm_register(), then m890_alltoall(),
 * m890_alltoallv() and m890_group_sendrecv() with arrays of one entry
 * (this rank's; m890_alltoall_rank() is the one-entry form of
 * m890_alltoall()); each collective first agrees with the peers on every
 * rank's arguments through the cards (see "Collectives on per-rank
 * communicators" below).  So do the EP calls (m890_ep_create() and
 * the calls on its object, one entry per array; see "Expert
 * parallelism").  m890_comm_synchronize() takes a
 * pointer to this rank's one stream; m890_comm_abort() also releases the
 * peers waiting for this rank.  The communicator uses one more hardware
 * queue of the card (its control stream).
 *
 * Return: M890_SUCCESS; the errors of m890_comm_create(); M890_ERROR_TIMEOUT
 * when the ranks did not all meet in time; M890_ERROR_PERMISSION and
 * M890_ERROR_BUSY for the socket path as above.
 */
m890_status_t m890_comm_create_rank(m890_device_t device, int rank, int n,
				    const char *bootstrap_path,
				    const struct m890_comm_config *config,
				    m890_comm_t *comm);

/**
 * struct m890_comm_fabric_config - the ranks of m890_comm_create_fabric().
 * Start from M890_COMM_FABRIC_CONFIG_INIT, then set the fields.
 * @size: sizeof(struct m890_comm_fabric_config), set by the initializer; checked.
 * @magic: M890_COMM_FABRIC_CONFIG_MAGIC, set by the initializer; checked.
 * @version: M890_COMM_FABRIC_CONFIG_VERSION, set by the initializer; checked.
 * @flags: none defined, 0.
 * @comm_id: non-zero, the same in every process of the communicator and
 *           distinct from every other communicator using the same cards
 *           at the same time (it names the communicator on the switch).
 *           Random and secret (e.g. from getrandom(2)): the export keys
 *           of the ranks' memory are derived from it, so whoever knows it
 *           can open windows on that memory.
 * @nranks: 1 .. 64 ranks in all VMs.
 * @ndevices: 1 .. @nranks cards of this process in @devices.
 * @fabric_ids: [@nranks] the fabric id of each rank's card, in rank order,
 *              identical in every process (m890_device_get_info() gives a
 *              card's id; in `make run VMS=N` VM v's cards have ids
 *              v * cards .. (v + 1) * cards - 1).
 * @devices: [@ndevices] this process's open cards; each one's fabric id is
 *           in @fabric_ids, which gives its rank.  The per-rank calls take
 *           arrays in the order of @devices.
 */
struct m890_comm_fabric_config {
	uint32_t size;
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint64_t comm_id;
	int nranks;
	int ndevices;
	const uint32_t *fabric_ids;
	const m890_device_t *devices;
};
/**
 * M890_COMM_FABRIC_CONFIG_MAGIC - struct m890_comm_fabric_config's @magic
 * ("M8CF").
 */
#define M890_COMM_FABRIC_CONFIG_MAGIC	0x4d384346u	/* "M8CF" */
/**
 * M890_COMM_FABRIC_CONFIG_VERSION - current version of struct
 * m890_comm_fabric_config.
 */
#define M890_COMM_FABRIC_CONFIG_VERSION	1
/**
 * M890_COMM_FABRIC_CONFIG_INIT - initializer of struct
 * m890_comm_fabric_config: @size, @magic and @version set, every other
 * field 0 or NULL (to be set).
 */
#define M890_COMM_FABRIC_CONFIG_INIT \
	{ .size = sizeof(struct m890_comm_fabric_config), \
	  .magic = M890_COMM_FABRIC_CONFIG_MAGIC, \
	  .version = M890_COMM_FABRIC_CONFIG_VERSION }

/**
 * m890_comm_create_fabric() - this process's ranks of a communicator whose
 * cards are in several VMs (or processes) on one ICN switch.  Every
 * process calls it with the same @fabric->comm_id and fabric ids, and its
 * own cards.
 * @fabric: the ranks (see struct m890_comm_fabric_config).
 * @config: NULL for the defaults, else initialized with
 *          M890_COMM_CONFIG_INIT; its @timeout_ns also bounds the setup.
 * @comm: receives the handle.
 *
 * There is no network between VMs: the ranks meet through the switch.
 * Each local rank exports its semaphore area with DRM_M890_FABRIC_EXPORT
 * under a key derived from (@comm_id, rank), and opens a window on every
 * peer's, polling DRM_M890_FABRIC_IMPORT until the peer has exported it.
 * Peers in this process or VM go through the same path.  Choosing export
 * keys needs CAP_SYS_ADMIN (the driver gives unprivileged callers only
 * random keys, uapi.rst "Export keys and their threat model"): without
 * it the call fails with M890_ERROR_PERMISSION.  Readiness and
 * completion of each collective are SIGNAL/WAIT packets on the
 * semaphores through those windows, as for the other communicators.
 *
 * Such a communicator runs m890_comm_register() of each local rank's
 * receive buffers (exported under keys derived from the communicator id,
 * the rank and the registration's number), then m890_alltoall(),
 * m890_alltoallv() and m890_group_sendrecv() with arrays of one entry per
 * local rank in the order of @fabric->devices (m890_alltoall_local() and,
 * with one local rank, m890_alltoall_rank() are other names of
 * m890_alltoall()), and m890_comm_synchronize() with the local ranks'
 * streams, and the EP calls with the same arrays (see "Expert
 * parallelism").  Each local rank uses one more
 * hardware queue of its card (its control stream).  A peer that
 * dies or leaves makes the waits for it time out, or its writes fault
 * (M890_ERROR_DEVICE_FAULT): either way the message of
 * m890_comm_synchronize() names the rank and its fabric id.
 * m890_comm_abort() also releases the peers waiting for this process's
 * ranks.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (config, a device whose
 * fabric id is not a rank's, a comm_id whose keys are already exported on
 * a card), M890_ERROR_NOT_SUPPORTED (a card without fabric windows, or
 * peers in another partition), M890_ERROR_TIMEOUT naming the first rank
 * and fabric id that did not export in time; M890_ERROR_PERMISSION
 * without CAP_SYS_ADMIN; the allocation errors.
 */
m890_status_t m890_comm_create_fabric(const struct m890_comm_fabric_config *fabric,
				      const struct m890_comm_config *config,
				      m890_comm_t *comm);

/**
 * DOC: Communicators from a unique id
 *
 * m890_comm_init_rank() (one rank) and m890_comm_init_ranks() (several
 * ranks of this process) build every kind of communicator from an
 * opaque id that one process makes with m890_get_unique_id() and hands to
 * the others by its own means (fork, a launcher's environment through
 * m890_unique_id_to_string() and m890_unique_id_from_string(), a file):
 *
 * - every rank in this one call: as m890_comm_create() with the devices
 *   in rank order (the id is only checked);
 * - an id made with a card that has fabric windows (M890_CAP_FABRIC_WINDOWS):
 *   the ranks meet through the switch at that card (the "meeting card",
 *   which must be one rank's card; the caller's id names it by fabric id),
 *   in one process, one process per card or several VMs alike: each
 *   process writes its ranks' fabric ids into a meeting area the meeting
 *   card's process exports, reads every rank's, then builds as
 *   m890_comm_create_fabric() with the id's random communicator id;
 * - an id made without such a card (@device NULL): one process per rank
 *   on this machine, as m890_comm_create_rank() at a Unix socket path
 *   drawn at random.
 *
 * The older constructors stay, as the forms these reduce to: a caller of
 * m890_comm_create(), m890_comm_create_rank() or
 * m890_comm_create_fabric() gets the same communicator as from the
 * matching id.  The calls on the communicator take their arrays in the
 * order of the @devices given (increasing ranks).
 */

/**
 * M890_UNIQUE_ID_BYTES - size of an m890_unique_id_t, bytes.
 */
#define M890_UNIQUE_ID_BYTES	128
/**
 * M890_UNIQUE_ID_STRLEN - room m890_unique_id_to_string() needs, NUL
 * included: a buffer of this many bytes always suffices.
 */
#define M890_UNIQUE_ID_STRLEN	160

/**
 * struct m890_unique_id - opaque id of a communicator to build, as
 * m890_unique_id_t (see m890_get_unique_id()).  Plain bytes: copy it,
 * send it to the other processes or write it to a file as it is.
 * @internal: the encoded id; its layout is private.
 */
typedef struct m890_unique_id {
	unsigned char internal[M890_UNIQUE_ID_BYTES];
} m890_unique_id_t;

/**
 * m890_get_unique_id() - a new random communicator id in @id.
 * @device: NULL for ranks of one machine that meet at a Unix socket (one
 *          per process); or the meeting card, whose rank's process must
 *          take part: with fabric windows the ranks meet through the
 *          switch (any process, VM or card), else as for NULL.
 * @id: receives the id.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (NULL @id);
 * M890_ERROR_INVALID_HANDLE (a bad @device); M890_ERROR_SYSTEM (no
 * randomness from getrandom(2)).
 */
m890_status_t m890_get_unique_id(m890_device_t device, m890_unique_id_t *id);

/**
 * m890_unique_id_to_string() - a unique id as text, for an environment
 * variable or a command line.
 * @id: an id of m890_get_unique_id() or m890_unique_id_from_string().
 * @buf: receives the NUL-terminated text, less than M890_UNIQUE_ID_STRLEN
 *       bytes: "m890-fabric:<16 hex digits>:<fabric id>" or
 *       "m890-socket:<16 hex digits>:<path>".
 * @len: bytes at @buf; M890_UNIQUE_ID_STRLEN always suffices.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (not an id, NULL
 * pointers, @buf too small).
 */
m890_status_t m890_unique_id_to_string(const m890_unique_id_t *id, char *buf,
				       size_t len);

/**
 * m890_unique_id_from_string() - parse a unique id's text.
 * @text: what m890_unique_id_to_string() wrote (also text a launcher
 *        wrote in that form; its ranks then meet where it says).
 * @id: receives the id.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT naming the expected
 * form.
 */
m890_status_t m890_unique_id_from_string(const char *text, m890_unique_id_t *id);

/**
 * m890_comm_init_ranks() - this process's ranks of the communicator of
 * @id (see "Communicators from a unique id"); every process calls it with
 * the same @id and @nranks and its own ranks.
 * @id: the communicator's id (m890_get_unique_id()).
 * @nranks: 1 .. 64, the ranks in all processes.
 * @ndevices: 1 .. @nranks, the ranks this process holds.
 * @ranks: [@ndevices] increasing rank numbers.
 * @devices: [@ndevices] their open cards, distinct; the per-rank calls
 *           take their arrays in this order.
 * @config: NULL for the defaults, else initialized with
 *          M890_COMM_CONFIG_INIT; its timeout also bounds the meeting.
 * @comm: receives the handle.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (not an id, ranks, another @nranks
 * at the meeting, a rank claimed by two cards, several but not all ranks
 * in one process with a socket id), M890_ERROR_NOT_SUPPORTED (a card
 * without fabric windows with a fabric id, another partition),
 * M890_ERROR_TIMEOUT naming the first rank that did not join (or the
 * meeting card that did not open the meeting), and the errors of the
 * constructor it reduces to.
 */
m890_status_t m890_comm_init_ranks(const m890_unique_id_t *id, int nranks,
				   int ndevices, const int *ranks,
				   const m890_device_t *devices,
				   const struct m890_comm_config *config,
				   m890_comm_t *comm);

/**
 * m890_comm_init_rank() - m890_comm_init_ranks() of one rank.
 * @id: the communicator's id (m890_get_unique_id()).
 * @nranks: 1 .. 64, the ranks in all processes.
 * @rank: this process's rank, 0 .. @nranks - 1.
 * @device: its open card.
 * @config: NULL or initialized with M890_COMM_CONFIG_INIT.
 * @comm: receives the handle.
 *
 * Return: as m890_comm_init_ranks().
 */
m890_status_t m890_comm_init_rank(const m890_unique_id_t *id, int nranks,
				  int rank, m890_device_t device,
				  const struct m890_comm_config *config,
				  m890_comm_t *comm);

/**
 * m890_comm_rank() - this process's rank in a communicator.
 * @comm: the communicator.
 * @rank: receives the rank, or -1 when the process holds several ranks of
 *        the communicator (every rank for m890_comm_create(); for
 *        m890_comm_create_fabric() the ranks follow from the fabric ids of
 *        its devices).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_comm_rank(m890_comm_t comm, int *rank);

/**
 * m890_comm_register() - register a receive buffer with the peers.
 * @comm: a per-rank communicator (m890_comm_create_rank(),
 *        m890_comm_create_fabric(), or the same from a unique id).
 * @buffer: an HBM buffer of one of this process's ranks' cards.
 *
 * Collective over the processes of the communicator: every
 * rank registers one of its HBM buffers, in the same order everywhere, and
 * imports every peer's as a window, so that collectives can write into it.
 * On a fabric communicator the buffer's device names the local rank; the
 * call only exports it, and the windows on the peers' buffers of the same
 * registration number are opened by the first collective that uses it
 * (waiting for the peers up to the timeout).  The k-th registration of
 * a rank is paired with the k-th of every peer: a collective names its
 * receive buffer to the peers by that number, so a peer may register a
 * buffer of another size (bounds are checked against each peer's own).
 * The buffer must stay allocated until m890_comm_destroy() or
 * m890_comm_deregister().
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (a communicator with every rank local, a
 * host buffer, a peer that failed to register), M890_ERROR_TIMEOUT (a
 * peer did not take part), import errors.
 */
m890_status_t m890_comm_register(m890_comm_t comm, m890_buffer_t buffer);

/**
 * m890_comm_deregister() - undo m890_comm_register() of a buffer.
 * @comm: the communicator.
 * @buffer: a buffer registered on @comm (any buffer of a rank's card on
 *          an m890_comm_create() communicator).
 *
 * Afterwards the buffer can be freed (or reused elsewhere) while the
 * communicator lives.  Every collective that used it must have completed.
 *
 * On a m890_comm_create_rank() communicator it is collective, as the
 * registration: every rank deregisters its buffer of the same
 * registration number, in the same order (checked: otherwise every rank
 * fails with M890_ERROR_INVALID_ARGUMENT naming the ranks and numbers,
 * and nothing is dropped).  On a m890_comm_create_fabric() communicator
 * the buffer's device names the local rank; the call withdraws the
 * buffer from the switch and drops that rank's windows on its peers'
 * buffers of the same number, without meeting the peers: they must
 * deregister theirs as well before a collective could name that number
 * (a peer still writing there faults, M890_ERROR_DEVICE_FAULT, instead of
 * landing).  Registration numbers are never reused: the next
 * m890_comm_register() takes the next number, as before.
 * On a m890_comm_create() communicator (no registration) it drops the
 * windows every rank keeps cached on @buffer since a collective wrote
 * into it (so its memory is released when it is freed), and always
 * succeeds for a live buffer.
 *
 * Return: M890_SUCCESS; the sticky communicator error, M890_ERROR_INVALID_HANDLE,
 * M890_ERROR_DEVICE_MISMATCH (a buffer of a card without a rank here),
 * M890_ERROR_INVALID_ARGUMENT (not registered by its rank, a peer's
 * failure or another number), M890_ERROR_TIMEOUT (a peer did not take
 * part).
 */
m890_status_t m890_comm_deregister(m890_comm_t comm, m890_buffer_t buffer);

/**
 * m890_alltoall_rank() - m890_alltoall() on a communicator of which this
 * process holds one rank, with that rank's buffers and stream: sends
 * bytes [j * @bytes_per_peer, (j + 1) * @bytes_per_peer) of @sendbuf to
 * rank j, which receives them at offset rank * @bytes_per_peer of its
 * registered receive buffer.  Every rank must pass the same
 * @bytes_per_peer: otherwise every rank fails with
 * M890_ERROR_INVALID_ARGUMENT naming rank 0's and the first other size.
 * @comm: a communicator of which this process holds exactly one rank.
 * @sendbuf: this rank's send buffer, n * @bytes_per_peer bytes, HBM or
 *           host.
 * @recvbuf: this rank's registered HBM receive buffer, n *
 *           @bytes_per_peer bytes, not @sendbuf.
 * @bytes_per_peer: bytes to every rank, the same at every rank.
 * @stream: this rank's stream.
 *
 * Return: those of m890_alltoall(), and M890_ERROR_INVALID_ARGUMENT for a
 * communicator of which this process holds several ranks or every rank
 * (only this process then fails: use m890_alltoall()).
 */
m890_status_t m890_alltoall_rank(m890_comm_t comm, m890_buffer_t sendbuf,
				 m890_buffer_t recvbuf,
				 uint64_t bytes_per_peer,
				 m890_stream_t stream);

/**
 * m890_alltoall_local() - m890_alltoall() on a per-rank communicator
 * (kept for existing callers).
 * @comm: an m890_comm_create_rank() or m890_comm_create_fabric()
 *        communicator.
 * @sendbufs: one send buffer per local rank, in the order of the fabric
 *            config's devices (one entry for m890_comm_create_rank()).
 * @recvbufs: one registered HBM receive buffer per local rank.
 * @bytes_per_peer: bytes from each rank to each rank, the same at every
 *                  rank.
 * @streams: one stream per local rank.
 *
 * Return: those of m890_alltoall(), and M890_ERROR_INVALID_ARGUMENT on a
 * m890_comm_create() communicator.
 */
m890_status_t m890_alltoall_local(m890_comm_t comm, const m890_buffer_t *sendbufs,
				  const m890_buffer_t *recvbufs,
				  uint64_t bytes_per_peer,
				  const m890_stream_t *streams);

/**
 * m890_comm_destroy() - free a communicator and the windows it imported.
 * @comm: the handle; invalid afterwards.
 *
 * On a fabric communicator, the registered buffers are also withdrawn
 * from the switch, so that another communicator can register them.
 * Every stream that ran its collectives must have completed (synchronize
 * them, or abort first).  Not collective: each process destroys its own.
 *
 * Return: M890_SUCCESS, or the handle's error.
 */
m890_status_t m890_comm_destroy(m890_comm_t comm);

/**
 * m890_comm_abort() - give up on the communicator's outstanding work.
 * @comm: the communicator.
 *
 * Every stream blocked in one of its waits is released (the transfers not
 * yet made are skipped or land late; received data is undefined), and the
 * communicator's error becomes M890_ERROR_CANCELED unless an error was
 * already recorded.  Every later collective returns that error.  Peers
 * in other processes are released through this process's slots in their
 * semaphore areas, except the peers a local rank is stuck waiting for
 * (likely gone: writing into a window their exit revoked would fault this
 * process's context); a peer that left after the collective may still
 * make that write fault (M890_ERROR_DEVICE_FAULT).  The handle stays
 * valid for m890_comm_destroy().
 *
 * Return: M890_SUCCESS; M890_ERROR_BUSY when a card has no free queue to
 * send the release.
 */
m890_status_t m890_comm_abort(m890_comm_t comm);

/**
 * m890_comm_count() - number of ranks of a communicator.
 * @comm: the communicator.
 * @n: receives the number of ranks in all processes.
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_comm_count(m890_comm_t comm, int *n);

/**
 * m890_comm_get_async_error() - a communicator's sticky error.
 * @comm: the communicator.
 * @error: receives the sticky error, M890_SUCCESS if none;
 *         m890_get_last_error() then names the rank and the peer involved.
 *
 * Return: M890_SUCCESS (also when *@error is an error), or the argument
 * errors.
 */
m890_status_t m890_comm_get_async_error(m890_comm_t comm,
					m890_status_t *error);

/**
 * DOC: Collectives on per-rank communicators
 *
 * m890_alltoall(), m890_alltoallv() and m890_group_sendrecv() work on
 * every kind of communicator.  Their arrays (buffers, streams, rows of
 * counts and displacements) have one entry or row per rank that this
 * process holds, in local order: every rank in rank order for
 * m890_comm_create(), this rank for m890_comm_create_rank(), the fabric
 * config's devices for m890_comm_create_fabric().  On the two per-rank
 * kinds every rank of every process must make the same call, and receive
 * buffers must be registered (m890_comm_register()).
 *
 * Before anything is enqueued, each process sends its ranks' arguments
 * (rows, operations, buffer sizes, registration numbers, and the outcome
 * of its local checks) to every other through the cards -- the control
 * stream of each rank copies a record into every peer's semaphore area
 * through the windows (Documentation/architecture.rst, "Collective
 * metadata exchange") -- and every process runs the same checks on the
 * same records.  So a mismatch anywhere (counts that disagree, a range
 * past a peer's registered buffer, unmatched sends, another
 * @bytes_per_peer, a rank that refused its own arguments, a rank that
 * called another collective) fails at every rank with the same status and
 * a message naming the ranks, and nothing is enqueued anywhere.  The call
 * therefore blocks until every rank has made it, up to the
 * communicator's timeout: then it fails with M890_ERROR_TIMEOUT naming
 * the ranks not seen (and their fabric ids), or with
 * M890_ERROR_DEVICE_FAULT when writing into a dead peer's revoked window
 * faulted, and the error is sticky (m890_comm_abort() releases the
 * waits).  A rank that arrives only after its peers posted their
 * records and gave up still finds every record: its call succeeds and
 * enqueues, and the failure shows at m890_comm_synchronize() as a timeout
 * naming the peers that never joined the data exchange.  The data then
 * moves as described at m890_alltoallv().
 */

/**
 * m890_alltoall() - enqueue an all-to-all: rank i sends bytes
 * [j * @bytes_per_peer, (j + 1) * @bytes_per_peer) of its send buffer to
 * rank j, which receives them at offset i * @bytes_per_peer of its
 * receive buffer.  Same as m890_alltoallv() with equal counts.
 * @comm: the communicator, any kind.
 * @sendbufs: one per rank of this process, in local order (see
 *     "Collectives on per-rank communicators"): n * @bytes_per_peer bytes,
 *     HBM or host.
 * @recvbufs: one per local rank: n * @bytes_per_peer bytes of HBM,
 *     registered on a per-rank communicator, not the send buffer.
 * @streams: one per local rank, of its card.
 * @bytes_per_peer: the same at every rank; on a per-rank communicator a
 *     rank that passes another size makes every rank fail with
 *     M890_ERROR_INVALID_ARGUMENT naming rank 0's size and the first
 *     other one.
 *
 * Return: M890_SUCCESS once enqueued; those of m890_alltoallv();
 * @bytes_per_peer times n overflowing 64 bits is
 * M890_ERROR_INVALID_ARGUMENT.
 */
m890_status_t m890_alltoall(m890_comm_t comm, const m890_buffer_t *sendbufs,
			    const m890_buffer_t *recvbufs,
			    uint64_t bytes_per_peer,
			    const m890_stream_t *streams);

/**
 * m890_alltoallv() - enqueue an all-to-all with per-pair sizes.
 * @comm: the communicator, any kind.
 * @sendbufs: m entries, m the number of ranks this process holds (n for
 *     m890_comm_create()): entry l is local rank l's send buffer, HBM or
 *     host memory, of its card.
 * @sendcounts: m * n byte counts (64-bit), row l for local rank l: it
 *     sends @sendcounts[l * n + j] bytes to rank j.  Counts of 0 are legal.
 * @sdispls: m * n byte offsets: the block to rank j starts at
 *     @sdispls[l * n + j] of @sendbufs[l].
 * @recvbufs: m entries: local rank l's receive buffer, HBM (peers write
 *     it through the fabric) and, on a per-rank communicator, registered.
 *     A rank's send and receive buffer must differ (in place is refused).
 * @recvcounts: m * n byte counts, row l for local rank l: it receives
 *     @recvcounts[l * n + i] bytes from rank i.
 * @rdispls: m * n byte offsets: the block from rank i lands at
 *     @rdispls[l * n + i] of @recvbufs[l].
 *     For m890_comm_create() l is the rank: rows are row-major by
 *     sender and by receiver over all n ranks.
 * @streams: m entries: local rank l's stream, of its card.
 *
 * Each rank's stream first tells every peer that it reached the
 * collective (so its earlier work on its receive buffer is done), then
 * copies its blocks directly into the peers' receive buffers in rotated
 * peer order (rank i copies its own block, then peer i + 1's, ...), each
 * block as COPY packets of at most the communicator's chunk_bytes,
 * signalling each peer after its block, and waits until every peer's
 * block has arrived.  The call
 * returns once the work is enqueued; m890_comm_synchronize() or the
 * streams' own synchronization waits for it.  Receive buffers stay
 * imported by the peers (cached) until m890_comm_destroy().
 *
 * Return: M890_SUCCESS once enqueued; on failure nothing is enqueued, at
 * any rank (on per-rank communicators every rank gets the same status and
 * message): the sticky communicator error; M890_ERROR_INVALID_ARGUMENT for
 * NULL arrays, in-place buffers,
 * an unregistered receive buffer, a range past a buffer (the peer's
 * registered size), a count mismatch (rank i sends to j a count
 * other than the one j expects from i), the message naming both ranks,
 * or two non-empty receive blocks of one rank that overlap (their data
 * would be undefined; as m890_group_sendrecv() refuses them);
 * M890_ERROR_DEVICE_MISMATCH for a buffer or stream of the wrong card;
 * the streams' sticky errors; those of the exchange (see "Collectives on
 * per-rank communicators").
 */
m890_status_t m890_alltoallv(m890_comm_t comm, const m890_buffer_t *sendbufs,
			     const uint64_t *sendcounts,
			     const uint64_t *sdispls,
			     const m890_buffer_t *recvbufs,
			     const uint64_t *recvcounts,
			     const uint64_t *rdispls,
			     const m890_stream_t *streams);

/**
 * enum m890_p2p_kind - one side of a point-to-point transfer.
 * @M890_P2P_SEND: the rank sends @bytes from its buffer to the peer.
 * @M890_P2P_RECV: the rank receives @bytes from the peer into its buffer.
 */
enum m890_p2p_kind {
	M890_P2P_SEND = 0,
	M890_P2P_RECV = 1,
};

/**
 * struct m890_p2p - one send or receive of a grouped batch.
 * @kind: enum m890_p2p_kind.
 * @rank: the rank doing it, one of this process's.
 * @peer: the other rank (may equal @rank).
 * @reserved: 0.
 * @buffer: @rank's buffer: the source of a send (HBM or host), the
 *          destination of a receive (HBM, peers write it through the
 *          fabric; registered on a per-rank communicator unless @peer
 *          is @rank).
 * @offset: start of the range in @buffer, bytes.
 * @bytes: length of the range, within @buffer; 0 bytes is legal.
 */
struct m890_p2p {
	uint32_t kind;
	int32_t rank;
	int32_t peer;
	uint32_t reserved;
	m890_buffer_t buffer;
	uint64_t offset;
	uint64_t bytes;
};

/**
 * m890_group_sendrecv() - enqueue a batch of sends and receives as one
 * collective (NCCL's grouped send/recv).  The k-th send from rank i to
 * rank j is matched with the k-th receive of rank j from rank i, in the
 * order of @ops; their sizes must be equal.  Transfers run as all-to-all
 * blocks do (direct writes into the receiver's buffer, rotated, chunked,
 * signalled); every rank takes part, with or without operations.
 * @comm: the communicator, any kind.
 * @ops: @count operations of this process's ranks in any order (the
 *        order of one rank's operations with one peer is their matching
 *        order).
 * @count: number of entries of @ops; 0 is legal (the rank takes part
 *         with nothing to do).
 * @streams: one per rank of this process, in local order.
 *
 * On a per-rank communicator each process passes its ranks' operations;
 * the matching runs on every rank's operations, gathered through the
 * cards (see "Collectives on per-rank communicators").
 * Return: M890_SUCCESS once enqueued; on failure nothing is enqueued at
 * any rank (the same at every rank of a per-rank communicator):
 * M890_ERROR_INVALID_ARGUMENT for a send or a
 * receive without its match or with another size (the message names
 * both ranks), a bad kind or rank, a rank of another process, reserved
 * not 0, a range past its buffer, a host or unregistered receive buffer,
 * a receive range that overlaps another receive's or a send's (in place
 * is refused); M890_ERROR_DEVICE_MISMATCH; the sticky errors.
 */
m890_status_t m890_group_sendrecv(m890_comm_t comm, const struct m890_p2p *ops,
				  size_t count, const m890_stream_t *streams);

/**
 * m890_comm_synchronize() - wait until the streams of a communicator's
 * local ranks have executed their work.
 * @comm: the communicator.
 * @streams: the streams as passed to the collectives: n for
 *           m890_comm_create(); for a communicator of
 *           m890_comm_create_rank(), a pointer to this rank's one stream;
 *           for one of m890_comm_create_fabric(), the local ranks' streams
 *           in the order of its devices.
 *
 * Waits up to the communicator's timeout.
 * On failure the error is made sticky and the message names the rank and
 * the peers that have not joined the collective, else those whose data
 * has not arrived, as its semaphores record them; live peers held up
 * behind a missing one (which they wait for, or stopped at, before they
 * come to this rank) are counted, not named.
 *
 * Return: M890_SUCCESS; M890_ERROR_TIMEOUT when the deadline passed (the
 * work keeps running; m890_comm_abort() releases it); the stream's own
 * async error; the communicator's sticky error.
 */
m890_status_t m890_comm_synchronize(m890_comm_t comm,
				    const m890_stream_t *streams);

/* ------------------------------------------------------------------ */
/* Device collectives: allreduce, allgather, reduce-scatter, broadcast */
/* ------------------------------------------------------------------ */

/**
 * DOC: Device collectives
 *
 * m890_allreduce(), m890_reduce_scatter(), m890_allgather(),
 * m890_broadcast() and m890_barrier() run on the cards, on every kind of
 * communicator, with the array conventions of "Collectives on per-rank
 * communicators": one entry per rank of this process, in local order,
 * and on a per-rank communicator every rank of every process makes the
 * same call (same counts, type, operation, root and algorithm), which
 * first agrees on the arguments through the cards: a mismatch or a
 * rank's local refusal fails at every rank with the same status and a
 * message naming the ranks, and nothing is enqueued anywhere; a rank
 * that never makes the call makes the others time out naming it.
 * Buffers are used from byte 0.  A buffer that the peers write (the
 * receive buffer of allreduce, allgather and broadcast) is HBM and, on
 * a per-rank communicator, registered with m890_comm_register(); send
 * buffers may be host memory.  Counts of 0 are legal (nothing moves,
 * the events are still recorded).  The calls return once the work is
 * enqueued; m890_comm_synchronize() or the streams wait for it.
 *
 * Reductions (allreduce, reduce-scatter) gather the operands in a
 * scratch area of M890_COMM_SCRATCH_BYTES of HBM per rank that the
 * communicator's first reduction allocates (and, on a per-rank
 * communicator, registers: it takes the next registration number of
 * each rank, so every rank must have registered the same number of
 * buffers before it) and keeps until m890_comm_destroy().  One REDUCE
 * packet per rank and piece sums the n operands of each element in
 * binary32 in rank order, ((+0 + x_0) + x_1) + ... + x_{n-1}, each step
 * rounded to nearest even, then rounds once to the output type (bf16:
 * nearest even, every NaN the quiet NaN 0x7fc0): m890_reduce_host()
 * with n rows, indices 0 .. n-1 and weights 1.0 gives the same bits.
 * The result does not depend on the algorithm or on piece sizes.
 *
 * Completion events: struct m890_coll_opts may name one event per local
 * rank, recorded on its stream after the call's work (as
 * m890_event_record() right after the call would be: streams run in
 * order).  Pass the event to m890_stream_wait_event() on another stream
 * to start dependent work on the card.  The other calls on a
 * communicator (all-to-all(v), grouped send/recv, EP) record their
 * completion the same way: m890_event_record() on the call's stream
 * right after the call.
 */

/**
 * enum m890_red_op - reduction operations.  Values are never reused.
 * @M890_OP_SUM: the sum, in binary32 in rank order (see "Device
 *               collectives").
 */
enum m890_red_op {
	M890_OP_SUM = 0,
};

/**
 * enum m890_coll_algo - how m890_allreduce() moves data (see
 * Documentation/architecture.rst, "Device collectives").
 * @M890_ALGO_AUTO: one-shot up to M890_ALLREDUCE_ONE_SHOT_MAX_BYTES per
 *                  rank (and never more than the scratch's n-th part)
 *                  and always on one or two ranks, else two-shot.
 * @M890_ALGO_ONE_SHOT: each rank writes its whole operand into every
 *                  peer's scratch, then each rank reduces all n copies;
 *                  one exchange, n - 1 operands on each rank's link.
 * @M890_ALGO_TWO_SHOT: reduce-scatter (rank j reduces block j of n)
 *                  then allgather of the reduced blocks; two exchanges,
 *                  2 (n - 1) / n operands on each rank's link.
 */
enum m890_coll_algo {
	M890_ALGO_AUTO = 0,
	M890_ALGO_ONE_SHOT = 1,
	M890_ALGO_TWO_SHOT = 2,
};

/**
 * M890_COMM_SCRATCH_BYTES - scratch HBM per rank of a communicator that
 * ran a reduction (4 MiB): larger reductions run in pieces of it.
 */
#define M890_COMM_SCRATCH_BYTES		(4ull << 20)
/**
 * M890_ALLREDUCE_ONE_SHOT_MAX_BYTES - M890_ALGO_AUTO's largest one-shot
 * allreduce, bytes per rank (256 KiB).
 */
#define M890_ALLREDUCE_ONE_SHOT_MAX_BYTES	(256ull << 10)

/**
 * struct m890_coll_opts - options of one device collective.  Start from
 * M890_COLL_OPTS_INIT, then change fields; NULL means the defaults.
 * @size: sizeof(struct m890_coll_opts), set by the initializer; checked.
 * @magic: M890_COLL_OPTS_MAGIC, set by the initializer; checked.
 * @version: M890_COLL_OPTS_VERSION, set by the initializer; checked.
 * @flags: none defined, 0.
 * @algorithm: enum m890_coll_algo (m890_allreduce() only; the same at
 *             every rank).
 * @reserved: 0.
 * @events: NULL, or one event (or NULL) per local rank, of its card:
 *          recorded on its stream after the call's work.
 */
struct m890_coll_opts {
	uint32_t size;
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t algorithm;
	uint32_t reserved;
	const m890_event_t *events;
};
/**
 * M890_COLL_OPTS_MAGIC - struct m890_coll_opts's @magic ("M8OP").
 */
#define M890_COLL_OPTS_MAGIC	0x4d384f50u	/* "M8OP" */
/**
 * M890_COLL_OPTS_VERSION - current version of struct m890_coll_opts.
 */
#define M890_COLL_OPTS_VERSION	1
/**
 * M890_COLL_OPTS_INIT - initializer of struct m890_coll_opts: the
 * defaults (M890_ALGO_AUTO, no events).
 */
#define M890_COLL_OPTS_INIT \
	{ .size = sizeof(struct m890_coll_opts), \
	  .magic = M890_COLL_OPTS_MAGIC, .version = M890_COLL_OPTS_VERSION, \
	  .flags = 0, .algorithm = M890_ALGO_AUTO, .reserved = 0, \
	  .events = NULL }

/**
 * m890_allreduce() - enqueue an allreduce: every rank's @recvbufs entry
 * receives, for each element e < @count, the sum over ranks in rank order
 * of element e of their @sendbufs entries (see "Device collectives").
 * @comm: the communicator, any kind.
 * @sendbufs: one per local rank: @count elements of @type (HBM or host).
 * @recvbufs: one per local rank: @count elements, HBM, registered on a
 *            per-rank communicator; equal to the send buffer for in place.
 * @count: elements, 0 .. 2^40, the same at every rank.
 * @type: M890_TYPE_FP32 or M890_TYPE_BF16.
 * @op: M890_OP_SUM.
 * @streams: one per local rank, of its card.
 * @opts: NULL for the defaults, or see struct m890_coll_opts.
 *
 * Return: M890_SUCCESS once enqueued; on failure nothing is enqueued, at
 * every rank alike: INVALID_ARGUMENT (NULL
 * arrays, type, op, options, buffers too small, an unregistered or host
 * receive buffer, different arguments at another rank, naming it),
 * DEVICE_MISMATCH, the sticky errors, TIMEOUT naming the ranks that did
 * not make the call, and the scratch's allocation errors (sticky).
 */
m890_status_t m890_allreduce(m890_comm_t comm, const m890_buffer_t *sendbufs,
			     const m890_buffer_t *recvbufs, uint64_t count,
			     enum m890_data_type type, enum m890_red_op op,
			     const m890_stream_t *streams,
			     const struct m890_coll_opts *opts);

/**
 * m890_reduce_scatter() - enqueue a reduce-scatter: rank i receives in
 * its @recvbufs entry the @recvcount elements i * @recvcount .. of the
 * rank-order sum of every rank's @sendbufs entry (n * @recvcount
 * elements).  In place (send buffer == receive buffer): the result is
 * written at element i * @recvcount of that buffer, the rest of it is
 * left as it was.  The receive buffer is written by the rank's own card
 * only (HBM or host, never registered for this).
 * @comm: the communicator, any kind.
 * @sendbufs: one per local rank: n * @recvcount elements of @type (HBM or
 *            host).
 * @recvbufs: one per local rank: @recvcount elements (HBM or host), or
 *            the send buffer for in place.
 * @recvcount: elements each rank receives, 0 .. 2^40, the same at every
 *             rank.
 * @type: M890_TYPE_FP32 or M890_TYPE_BF16.
 * @op: M890_OP_SUM.
 * @streams: one per local rank, of its card.
 * @opts: NULL for the defaults, or see struct m890_coll_opts
 *        (@algorithm is not used).
 *
 * Return: as m890_allreduce().
 */
m890_status_t m890_reduce_scatter(m890_comm_t comm, const m890_buffer_t *sendbufs,
				  const m890_buffer_t *recvbufs, uint64_t recvcount,
				  enum m890_data_type type, enum m890_red_op op,
				  const m890_stream_t *streams,
				  const struct m890_coll_opts *opts);

/**
 * m890_allgather() - enqueue an allgather: bytes [0, @bytes_per_rank) of
 * rank i's send buffer land at byte i * @bytes_per_rank of every rank's
 * receive buffer (n * @bytes_per_rank bytes, HBM, registered on a
 * per-rank communicator).  In place (send buffer == receive buffer): rank
 * i's part is already at i * @bytes_per_rank.
 * @comm: the communicator, any kind.
 * @sendbufs: one per local rank: @bytes_per_rank bytes (HBM or host).
 * @recvbufs: one per local rank: n * @bytes_per_rank bytes of HBM,
 *            registered on a per-rank communicator.
 * @bytes_per_rank: bytes each rank contributes, 0 .. 2^40, any
 *                  alignment, the same at every rank.
 * @streams: one per local rank, of its card.
 * @opts: NULL for the defaults, or see struct m890_coll_opts (events
 *        only).
 *
 * Return: as m890_allreduce().
 */
m890_status_t m890_allgather(m890_comm_t comm, const m890_buffer_t *sendbufs,
			     const m890_buffer_t *recvbufs,
			     uint64_t bytes_per_rank,
			     const m890_stream_t *streams,
			     const struct m890_coll_opts *opts);

/**
 * m890_broadcast() - enqueue a broadcast of @bytes from the send buffer of
 * rank @root to every rank's receive buffer (HBM, registered on a
 * per-rank communicator).  The root's card writes every receive buffer
 * directly through the fabric.  @sendbufs entries of other ranks are not
 * used (may be NULL); at the root, send buffer == receive buffer is in
 * place.
 * @comm: the communicator, any kind.
 * @sendbufs: one per local rank; the root's holds @bytes (HBM or host).
 * @recvbufs: one per local rank: @bytes of HBM, registered on a per-rank
 *            communicator.
 * @bytes: bytes to broadcast, 0 .. 2^40, the same at every rank.
 * @root: the sending rank, 0 .. n - 1, the same at every rank.
 * @streams: one per local rank, of its card.
 * @opts: NULL for the defaults, or see struct m890_coll_opts (events
 *        only).
 *
 * Return: as m890_allreduce(), and INVALID_ARGUMENT for a @root that is
 * not a rank.
 */
m890_status_t m890_broadcast(m890_comm_t comm, const m890_buffer_t *sendbufs,
			     const m890_buffer_t *recvbufs, uint64_t bytes,
			     int root, const m890_stream_t *streams,
			     const struct m890_coll_opts *opts);

/**
 * m890_barrier() - enqueue a barrier on the cards: work enqueued on a
 * rank's stream after the call starts only once every rank's stream has
 * reached the barrier (earlier work done).  The host does not wait.
 * @comm: the communicator, any kind.
 * @streams: one per local rank, of its card.
 * @opts: NULL for the defaults, or see struct m890_coll_opts (events
 *        only).
 *
 * Return: as m890_allreduce().
 */
m890_status_t m890_barrier(m890_comm_t comm, const m890_stream_t *streams,
			   const struct m890_coll_opts *opts);

/* ------------------------------------------------------------------ */
/* Groups of collectives                                               */
/* ------------------------------------------------------------------ */

/**
 * DOC: Groups of collectives
 *
 * Between m890_group_start() and m890_group_end() on one thread, the
 * collectives m890_allreduce(), m890_reduce_scatter(), m890_allgather(),
 * m890_broadcast(), m890_barrier(), m890_alltoall() (and its
 * m890_alltoall_rank() and m890_alltoall_local() forms), m890_alltoallv()
 * and m890_group_sendrecv() of any communicators only check the
 * communicator handle, copy their arguments (the arrays, the options and
 * their events; not the buffers' contents) and return M890_SUCCESS.
 * m890_group_end() runs them: one communicator after the other in the
 * order of its first call in the group, its calls in the order they were
 * made, each as it would run alone (its own transfers, events and stream
 * order).  The buffers, streams and events they name must stay valid
 * until m890_group_end() returns; so must the communicators.
 *
 * What the group changes: the calls of one communicator agree on their
 * arguments together -- two metadata rounds for the whole group on a
 * per-rank communicator instead of one or two per call -- and they are
 * checked together: a refusal of any call (a mismatch, a rank's local
 * refusal, ranks whose groups hold other calls or another number of
 * them) fails m890_group_end() at every rank alike, with a message naming
 * the call ("group call K: ...") and the ranks, and nothing of that
 * communicator's group is enqueued anywhere.  On a per-rank communicator
 * every rank's group must hold the same calls on it in the same order
 * (at most 64).  m890_event_record() in a group is kept and made after
 * the group's calls (and m890_stream_wait_event() on such an event is
 * refused until m890_group_end()).  Other calls (EP, registration,
 * synchronization) are not deferred: they run at once, ahead of the
 * group's.  Groups nest: only
 * the outermost m890_group_end() runs the calls.
 */

/**
 * m890_group_start() - start (or nest) a group on the calling thread.
 *
 * The collectives that follow on this thread are deferred to
 * m890_group_end() (see "Groups of collectives").
 *
 * Return: M890_SUCCESS (always).
 */
m890_status_t m890_group_start(void);

/**
 * m890_group_end() - end the group; the outermost one runs its calls.
 *
 * See "Groups of collectives".  The calls of the other communicators
 * still run when one communicator's fail.
 *
 * Return: M890_SUCCESS; else the first failure, with its message: the
 * failing call's errors (nothing of its communicator's group
 * enqueued when the failure was one of the agreement or the checks),
 * M890_ERROR_INVALID_ARGUMENT when there is no open group or the ranks'
 * groups differ, M890_ERROR_OUT_OF_HOST_MEMORY when a call could not be
 * recorded.
 */
m890_status_t m890_group_end(void);

#ifdef __cplusplus
}
#endif

#endif /* M890_COLL_H */
