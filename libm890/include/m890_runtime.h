/* SPDX-License-Identifier: MIT */
/*
 * libm890 runtime: status codes, versions, devices, buffers and windows,
 * streams, memory operations and events.  Included by <m890.h>, which
 * programs include.  The vocabulary and conventions below hold for every
 * header of the library.
 */

/**
 * DOC: Vocabulary and conventions
 *
 * Vocabulary: a device is one card (/dev/accel/accelN); a buffer is memory
 * allocated on a device (its HBM or DMA-able host memory) with a device
 * virtual address (VA); a window is another card's HBM buffer imported on a
 * device so that packets on that device can address it through the fabric;
 * a stream is one hardware queue on which work is enqueued in order; an
 * event marks a point in a stream.
 *
 * Conventions, for every call:
 * - The return value is an enum m890_status; M890_SUCCESS is 0.  On any
 *   other value m890_get_last_error() returns a message that names the
 *   cause (thread-local, valid until the next failing call of the thread).
 * - Output arguments are written only on success unless stated otherwise.
 * - Sizes, offsets and VAs are 64-bit byte counts.
 * - Handles are opaque.  Every call checks that a handle is live and of the
 *   right type (M890_ERROR_INVALID_HANDLE otherwise), so using a handle
 *   after its free/destroy call is reported rather than undefined, unless
 *   the memory was reused for a new object of the same type.
 * - Threading: calls on different objects may run on different threads.
 *   A stream (and the events recorded on it) must not be used by two
 *   threads at once.  A call holds the objects whose handles it was given
 *   until it returns: a free/destroy call of another thread on one of
 *   them waits for it (so destroying an object that a blocked call uses,
 *   such as a synchronize or a collective, waits until that call returns;
 *   abort a communicator first).  Of two threads freeing one object, one
 *   frees it and the other gets M890_ERROR_INVALID_HANDLE.
 * - Work enqueued on a stream runs asynchronously; enqueue calls return
 *   once the work is handed to the driver (or staged, for deferred
 *   streams).  An execution error makes the stream's async error sticky:
 *   every later call on the stream returns it.  An MMU fault or a bad
 *   packet stops every stream of the device handle (the driver stops the
 *   handle's whole device context): the other streams' pending work is
 *   cancelled and their next calls return the fault's status
 *   (M890_ERROR_DEVICE_FAULT for an MMU fault).  Close the device and
 *   open it again to continue; other device handles are unaffected.
 * - Argument errors common to every call, which the Return: sections
 *   below do not repeat: M890_ERROR_INVALID_HANDLE for a NULL, freed or
 *   wrong-type handle, M890_ERROR_INVALID_ARGUMENT for a NULL output
 *   pointer, M890_ERROR_OUT_OF_HOST_MEMORY when the library could not
 *   allocate its own records, and on calls that enqueue, the stream's
 *   sticky async error.  An errno the driver returns that has no closer
 *   status is M890_ERROR_SYSTEM, with the errno in the message.
 */
#ifndef M890_RUNTIME_H
#define M890_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * DOC: Version
 *
 * The stack has one version (the file VERSION at the top of the source
 * tree: package, library file name, pkg-config, m890.ko's MODULE_VERSION
 * and the tools).  The minor number follows the newest symbol node of
 * libm890.map (M890_1.<minor>); the library build checks that the macros
 * below match VERSION, tests/unit/version_test.sh the symbol node.  The
 * macros give the version a program was compiled against,
 * m890_get_version() the one of the library it runs with.
 */

/**
 * M890_VERSION_MAJOR - major version of these headers; a new major
 * version may break the ABI (libm890.so.<major>).
 */
#define M890_VERSION_MAJOR 1
/**
 * M890_VERSION_MINOR - minor version: each one adds calls or fields
 * (symbol node M890_1.<minor>) and keeps the older ones.
 */
#define M890_VERSION_MINOR 7
/**
 * M890_VERSION_PATCH - patch level: fixes only, no new symbol.
 */
#define M890_VERSION_PATCH 0
/**
 * M890_VERSION_CODE - the headers' version as major * 10000 + minor * 100
 * + patch (10700 for 1.7.0), the form m890_get_version() returns.
 */
#define M890_VERSION_CODE \
	(M890_VERSION_MAJOR * 10000 + M890_VERSION_MINOR * 100 + M890_VERSION_PATCH)

/**
 * enum m890_status - result of every call.  Values are never reused;
 * m890_status_string() names them, m890_get_last_error() gives the cause.
 * @M890_SUCCESS: the call did what it says (0).
 * @M890_NOT_READY: a query (m890_stream_query(), m890_event_query(), an
 *     event's times) found work still pending; not an error.
 * @M890_ERROR_INVALID_ARGUMENT: a bad value, size, offset, alignment, flag,
 *     NULL pointer or configuration, or a call the object's state does
 *     not allow; nothing was done.
 * @M890_ERROR_INVALID_HANDLE: a handle that is NULL, already freed or of
 *     another type.
 * @M890_ERROR_NO_DEVICE: no M890 card, or a device index out of range.
 * @M890_ERROR_DRIVER_NOT_LOADED: m890.ko is not loaded (no accel node of
 *     the "m890" driver).
 * @M890_ERROR_PERMISSION: the device node cannot be opened, or the call
 *     needs a privilege (CAP_SYS_ADMIN for chosen export keys) or meets a
 *     path or peer of another user.
 * @M890_ERROR_OUT_OF_HOST_MEMORY: a host allocation failed (the library's
 *     records or a host buffer).
 * @M890_ERROR_OUT_OF_DEVICE_MEMORY: the card's HBM or its VA space is
 *     exhausted.
 * @M890_ERROR_BUSY: every hardware queue of the card is taken, or the
 *     user's share of them (module parameter queues_per_user); also a
 *     resource another party holds (a live listener at a socket path).
 * @M890_ERROR_NOT_SUPPORTED: the card or driver lacks the capability the
 *     call needs (an M890_CAP_* bit, a CPU mapping, peer reach).
 * @M890_ERROR_DEVICE_FAULT: an MMU fault in enqueued work: a bad VA or a
 *     write to read-only or revoked memory.  It stops every stream of the
 *     device handle.
 * @M890_ERROR_DEVICE_ERROR: any other execution error of enqueued work
 *     (a malformed packet, an unreachable peer, a bad expert id).
 * @M890_ERROR_CANCELED: the driver cancelled the work (another stream's
 *     fault stopped the context) or m890_comm_abort() gave up on it.
 * @M890_ERROR_TIMEOUT: a wait passed its deadline (a stream's or
 *     communicator's timeout, a peer that did not arrive); the work may
 *     still be running.
 * @M890_ERROR_SYSTEM: an unexpected OS error; the message has the errno.
 * @M890_ERROR_DEVICE_MISMATCH: objects of different cards where one card
 *     is required (a buffer or event of another card than the stream's).
 * @M890_ERROR_CAPACITY: expert parallelism or a grouped GEMM: an expert
 *     got more rows than its capacity.
 * @M890_STATUS_COUNT: number of statuses, not a status: every value is
 *     below it.
 */
enum m890_status {
	M890_SUCCESS = 0,
	M890_NOT_READY = 1,			/* query: work still pending */
	M890_ERROR_INVALID_ARGUMENT = 2,	/* bad value, size, offset, flag */
	M890_ERROR_INVALID_HANDLE = 3,		/* NULL, freed or wrong type */
	M890_ERROR_NO_DEVICE = 4,		/* no M890 card / bad index */
	M890_ERROR_DRIVER_NOT_LOADED = 5,	/* m890.ko is not loaded */
	M890_ERROR_PERMISSION = 6,		/* cannot open the device node */
	M890_ERROR_OUT_OF_HOST_MEMORY = 7,
	M890_ERROR_OUT_OF_DEVICE_MEMORY = 8,	/* HBM or VA space exhausted */
	M890_ERROR_BUSY = 9,			/* every hardware queue taken */
	M890_ERROR_NOT_SUPPORTED = 10,		/* missing capability */
	M890_ERROR_DEVICE_FAULT = 11,		/* MMU fault in enqueued work */
	M890_ERROR_DEVICE_ERROR = 12,		/* other execution error */
	M890_ERROR_CANCELED = 13,		/* work cancelled by the driver */
	M890_ERROR_TIMEOUT = 14,
	M890_ERROR_SYSTEM = 15,			/* unexpected OS error */
	M890_ERROR_DEVICE_MISMATCH = 16,	/* objects of different cards */
	M890_ERROR_CAPACITY = 17,		/* EP: an expert got more rows
						 * than its capacity */
	M890_STATUS_COUNT
};
/**
 * typedef m890_status_t - the type every call returns: an enum m890_status.
 */
typedef enum m890_status m890_status_t;

/**
 * typedef m890_device_t - handle of an open card, from m890_device_open();
 * closed with m890_device_close().
 */
typedef struct m890_device *m890_device_t;
/**
 * typedef m890_buffer_t - handle of memory allocated on a card (HBM or
 * DMA-able host memory) with a device VA, from m890_buffer_alloc(); freed
 * with m890_buffer_free().
 */
typedef struct m890_buffer *m890_buffer_t;
/**
 * typedef m890_window_t - handle of another card's HBM buffer imported on
 * a card, from m890_buffer_import_peer(); freed with m890_window_free().
 */
typedef struct m890_window *m890_window_t;
/**
 * typedef m890_stream_t - handle of one hardware queue on which work runs
 * in order, from m890_stream_create(); destroyed with m890_stream_destroy().
 */
typedef struct m890_stream *m890_stream_t;
/**
 * typedef m890_event_t - handle of a point recorded in a stream, from
 * m890_event_create(); destroyed with m890_event_destroy().
 */
typedef struct m890_event *m890_event_t;

/**
 * m890_status_string() - short, constant, human-readable name of a status.
 * @status: any value, also one outside enum m890_status.
 *
 * Return: a static string ("success", "invalid argument", ...), never NULL;
 * "unknown status" for a value that is not a status.
 */
const char *m890_status_string(m890_status_t status);

/**
 * m890_get_last_error() - detailed message of the calling thread's last
 * failed call.
 *
 * The message names the object, the cause and, for OS errors, the errno,
 * and ends with the status's name.  Successful calls leave it alone.
 *
 * Return: a thread-local string owned by the library, valid until the
 * thread's next failing call; "" if the thread has had no failure.
 */
const char *m890_get_last_error(void);

/**
 * m890_get_version() - version of the library the program runs with.
 * @version: receives it as M890_VERSION_CODE (major * 10000 + minor * 100
 *           + patch); compare with the macro to detect an older library.
 *
 * Return: M890_SUCCESS, or M890_ERROR_INVALID_ARGUMENT for a NULL @version.
 */
m890_status_t m890_get_version(int *version);

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

/**
 * m890_device_count() - number of M890 cards this process can open.
 * @count: receives the count; set to 0 also when the call fails (after
 *         a non-NULL check).
 *
 * Cards are the /dev/accel/accel* nodes whose DRM driver is "m890".  With
 * no card, *@count is set to 0 and the status says why.
 *
 * Return: M890_SUCCESS (at least one card); M890_ERROR_DRIVER_NOT_LOADED,
 * M890_ERROR_NO_DEVICE, or M890_ERROR_PERMISSION when cards exist but none
 * can be opened; M890_ERROR_INVALID_ARGUMENT for a NULL @count.
 */
m890_status_t m890_device_count(int *count);

/**
 * m890_device_open() - open card @index.
 * @index: 0 .. count - 1 (m890_device_count()); cards are ordered by
 *         fabric id (detached cards last), then by accel minor number.
 * @device: receives the handle; close it with m890_device_close().
 *
 * Each open is a separate device context of the driver: its own streams,
 * buffers and fault domain (see the conventions).
 *
 * Return: M890_SUCCESS; M890_ERROR_NO_DEVICE for an @index out of range;
 * the statuses of m890_device_count() when no card can be opened.
 */
m890_status_t m890_device_open(int index, m890_device_t *device);

/**
 * m890_device_close() - close a device.
 * @device: the handle; invalid afterwards.
 *
 * Every buffer, window, stream and event of the device, and every
 * communicator using it, must have been freed first.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT when objects of the
 * device are still live (the device then stays open).
 */
m890_status_t m890_device_close(m890_device_t device);

/**
 * DOC: Capability bits
 *
 * struct m890_device_info's @capabilities holds M890_CAP_* bits, one per
 * feature of the card and driver (uapi.rst, "Capabilities", gives the
 * driver's side; bit 6 is the driver's and not exported here).  Calls
 * that need a missing capability fail with M890_ERROR_NOT_SUPPORTED
 * before enqueuing anything.
 */

/**
 * M890_CAP_HBM_BO - the card has HBM that m890_buffer_alloc() can
 * allocate (M890_MEM_HBM).
 */
#define M890_CAP_HBM_BO		(1ull << 0)
/**
 * M890_CAP_HOST_BO - the card reaches host memory by DMA (M890_MEM_HOST
 * buffers).
 */
#define M890_CAP_HOST_BO	(1ull << 1)
/**
 * M890_CAP_TIMELINE - completion is reported through timeline syncobjs,
 * which streams and events wait on.
 */
#define M890_CAP_TIMELINE	(1ull << 2)
/**
 * M890_CAP_PEER_IMPORT - the card imports other cards' HBM as windows
 * (m890_buffer_import_peer()).
 */
#define M890_CAP_PEER_IMPORT	(1ull << 3)
/**
 * M890_CAP_FABRIC - the card is cabled to an ICN switch and its packets
 * can address peers' windows.
 */
#define M890_CAP_FABRIC		(1ull << 4)
/**
 * M890_CAP_TIMESTAMP - the card has the TIMESTAMP packet that
 * m890_event_record() needs.
 */
#define M890_CAP_TIMESTAMP	(1ull << 5)
/**
 * M890_CAP_FABRIC_WINDOWS - windows on memory exported to the switch
 * under a key, across processes and VMs: m890_comm_create_fabric() and
 * fabric unique ids need it.
 */
#define M890_CAP_FABRIC_WINDOWS	(1ull << 7)	/* windows across VMs, m890_comm_create_fabric() */
/*
 * Spec 1.1 cards: several data movers, fabric atomics, COPY_ROWS and
 * MOE_ROUTE; all three are needed by M890_EP_F_DEVICE_ROUTING.
 */
/**
 * M890_CAP_ENGINES - spec 1.1: several data movers run a queue's RELAXED
 * packets side by side.  M890_EP_F_DEVICE_ROUTING needs it.
 */
#define M890_CAP_ENGINES	(1ull << 8)
/**
 * M890_CAP_ATOMICS - spec 1.1: posted atomic adds through the fabric.
 * M890_EP_F_DEVICE_ROUTING needs it.
 */
#define M890_CAP_ATOMICS	(1ull << 9)
/**
 * M890_CAP_ROWS - spec 1.1: the COPY_ROWS and MOE_ROUTE packets.
 * M890_EP_F_DEVICE_ROUTING needs it.
 */
#define M890_CAP_ROWS		(1ull << 10)
/**
 * M890_CAP_GEMM - matrix engines: the GEMM packet that m890_gemm() needs
 * (hardware spec §7.15).
 */
#define M890_CAP_GEMM		(1ull << 11)

/**
 * M890_DEVICE_NO_FABRIC - struct m890_device_info's @fabric_id of a card
 * that is not cabled to a switch (detached).
 */
#define M890_DEVICE_NO_FABRIC	0xffu

/**
 * struct m890_device_info - description of a card.
 * @size: sizeof(struct m890_device_info) as the caller compiled it, set by
 *        M890_DEVICE_INFO_INIT; fields past @size are left untouched, so
 *        callers built against older headers keep working.
 * @version: M890_DEVICE_INFO_VERSION, set by the initializer; not 0.
 * @pci_vendor: PCI vendor id of the card.
 * @pci_device: PCI device id of the card.
 * @spec_version: hardware spec version the card implements, major << 16 |
 *                minor (0x10001 for spec 1.1).
 * @num_queues: hardware queues (streams that can exist at once, all
 *              processes together).
 * @fabric_id: ICN fabric id, M890_DEVICE_NO_FABRIC when detached.
 * @fabric_port: switch port the card is cabled to.
 * @hbm_bytes: on-card HBM, bytes.
 * @va_start: first byte of the device VA range of this device handle.
 * @va_bytes: size of that range, bytes.
 * @capabilities: M890_CAP_* bits.
 * @max_submit_packets: most packets per driver submission (the largest
 *                      batch of a deferred stream).
 * @minor: accel minor number of the node (N of /dev/accel/accelN).
 * @node: device node name, NUL-terminated, e.g. "accel0".
 *
 * Versioned: declare it as ``struct m890_device_info info =
 * M890_DEVICE_INFO_INIT;`` before m890_device_get_info().
 */
struct m890_device_info {
	uint32_t size;
	uint32_t version;
	uint32_t pci_vendor;
	uint32_t pci_device;
	uint32_t spec_version;
	uint32_t num_queues;
	uint32_t fabric_id;
	uint32_t fabric_port;
	uint64_t hbm_bytes;
	uint64_t va_start;
	uint64_t va_bytes;
	uint64_t capabilities;
	uint32_t max_submit_packets;
	uint32_t minor;
	char node[32];
};
/**
 * M890_DEVICE_INFO_VERSION - current version of struct m890_device_info.
 */
#define M890_DEVICE_INFO_VERSION 1
/**
 * M890_DEVICE_INFO_INIT - initializer of struct m890_device_info: sets
 * @size and @version.
 */
#define M890_DEVICE_INFO_INIT \
	{ .size = sizeof(struct m890_device_info), \
	  .version = M890_DEVICE_INFO_VERSION }

/**
 * m890_device_get_info() - describe a card.
 * @device: the card.
 * @info: initialized with M890_DEVICE_INFO_INIT; the first @info->size
 *        bytes are written (see struct m890_device_info).
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT for a NULL @info or
 * one not initialized (@size below 8 or @version 0).
 */
m890_status_t m890_device_get_info(m890_device_t device,
				   struct m890_device_info *info);

/* ------------------------------------------------------------------ */
/* Buffers and windows                                                 */
/* ------------------------------------------------------------------ */

/**
 * enum m890_mem_flags - where m890_buffer_alloc() puts a buffer.
 * @M890_MEM_HBM: on-card HBM (64 KiB granules); peers can import it.
 * @M890_MEM_HOST: host memory the card reaches by DMA (4 KiB pages);
 *                 CPU-mappable, local to its card.
 */
enum m890_mem_flags {
	M890_MEM_HBM = 1u << 0,		/* on-card HBM */
	M890_MEM_HOST = 1u << 1,	/* host memory the card reaches by DMA */
};

/**
 * m890_buffer_alloc() - allocate a buffer on a card.
 * @device: the card.
 * @bytes: size, > 0 (zero is M890_ERROR_INVALID_ARGUMENT: a buffer always
 *         has a VA).  The driver rounds the size up (4 KiB host, 64 KiB
 *         HBM); m890_buffer_size() returns the requested size, and offsets
 *         are checked against it.
 * @flags: exactly one of M890_MEM_HBM, M890_MEM_HOST.
 * @buffer: receives the handle; free it with m890_buffer_free().
 *
 * The VA is aligned to the driver's granule (at least 4 KiB).  Contents
 * are undefined until written.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (@bytes 0, @flags);
 * M890_ERROR_OUT_OF_DEVICE_MEMORY (HBM or VA space);
 * M890_ERROR_OUT_OF_HOST_MEMORY (host memory); M890_ERROR_NOT_SUPPORTED
 * (a card without that kind of memory).
 */
m890_status_t m890_buffer_alloc(m890_device_t device, uint64_t bytes,
				unsigned int flags, m890_buffer_t *buffer);

/**
 * m890_buffer_free() - free a buffer.
 * @buffer: the handle; invalid afterwards.
 *
 * Work still using it must have completed; a mapping from
 * m890_buffer_map() is removed.  Windows imported from it on other
 * devices stay valid (the memory lives until the last window is freed).
 *
 * Return: M890_SUCCESS, or the handle's error.
 */
m890_status_t m890_buffer_free(m890_buffer_t buffer);

/**
 * m890_buffer_map() - map a buffer into the process.
 * @buffer: the buffer.
 * @ptr: receives the host pointer to byte 0, valid until
 *       m890_buffer_free(); the mapping spans the rounded size.
 *
 * Mapping twice returns the same pointer.  CPU accesses are not ordered
 * with stream work: synchronize first.
 *
 * Return: M890_SUCCESS; M890_ERROR_NOT_SUPPORTED when the driver offers
 * no CPU mapping of this buffer (HBM may not be mappable); the mmap's
 * errno as a status.
 */
m890_status_t m890_buffer_map(m890_buffer_t buffer, void **ptr);

/**
 * m890_buffer_va() - device VA of a buffer.
 * @buffer: the buffer.
 * @va: receives the VA of byte 0, valid in packets on the buffer's device
 *      only (peers use a window's VA).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_buffer_va(m890_buffer_t buffer, uint64_t *va);

/**
 * m890_buffer_size() - size of a buffer.
 * @buffer: the buffer.
 * @bytes: receives the size requested at m890_buffer_alloc(), in bytes
 *         (not the driver's rounded size).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_buffer_size(m890_buffer_t buffer, uint64_t *bytes);

/**
 * m890_buffer_device() - device a buffer lives on.
 * @buffer: the buffer.
 * @device: receives the device handle it was allocated on (not a new
 *          reference: do not close it for the buffer's sake).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_buffer_device(m890_buffer_t buffer, m890_device_t *device);

/**
 * m890_buffer_import_peer() - make another card's HBM buffer addressable
 * from a card through the fabric.
 * @device: the importing card.
 * @peer_buffer: an M890_MEM_HBM buffer of a different card.
 * @window: receives the window; its VA is valid in packets on @device.
 *
 * The buffer is exported as a dma-buf and imported with DRM PRIME.
 * Importing the same buffer twice is allowed: each window is freed on its
 * own.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT for a host buffer or
 * a buffer of @device itself; M890_ERROR_NOT_SUPPORTED when either card
 * lacks peer import or the cards cannot reach each other (detached,
 * other partition); the driver's errors as statuses.
 */
m890_status_t m890_buffer_import_peer(m890_device_t device,
				      m890_buffer_t peer_buffer,
				      m890_window_t *window);

/**
 * m890_window_free() - drop a window.
 * @window: the handle; invalid afterwards.
 *
 * Work using it must have completed.  The peer's memory is released once
 * its buffer and every window on it are freed.
 *
 * Return: M890_SUCCESS, or the handle's error.
 */
m890_status_t m890_window_free(m890_window_t window);

/**
 * m890_window_va() - device VA of a window.
 * @window: the window.
 * @va: receives the VA of the window's byte 0 on the importing device.
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_window_va(m890_window_t window, uint64_t *va);

/**
 * m890_window_size() - size of a window.
 * @window: the window.
 * @bytes: receives the bytes the window spans (the peer buffer's size as
 *         the driver reports it; m890_memcpy_peer() checks ranges
 *         against it).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_window_size(m890_window_t window, uint64_t *bytes);

/**
 * m890_window_peer_fabric_id() - fabric id of the card owning a window's
 * memory.
 * @window: the window.
 * @fabric_id: receives the owning card's fabric id.
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_window_peer_fabric_id(m890_window_t window,
					 uint32_t *fabric_id);

/* ------------------------------------------------------------------ */
/* Streams                                                             */
/* ------------------------------------------------------------------ */

/**
 * M890_STREAM_DEFERRED - struct m890_stream_config flag: stage packets
 * until flush, synchronize, query, event record or a full batch, instead
 * of one driver submission per enqueue call.
 */
#define M890_STREAM_DEFERRED	(1u << 0)
/**
 * M890_STREAM_FLAGS - every defined M890_STREAM_* flag; other bits are
 * refused.
 */
#define M890_STREAM_FLAGS	(M890_STREAM_DEFERRED)

/**
 * M890_TIMEOUT_INFINITE - a timeout (nanoseconds) that never expires.
 */
#define M890_TIMEOUT_INFINITE	UINT64_MAX

/**
 * struct m890_stream_config - options of m890_stream_create_config().
 * @size: sizeof(struct m890_stream_config), set by the initializer;
 *        checked (at least the current size).
 * @magic: M890_STREAM_CONFIG_MAGIC, set by the initializer; checked.
 * @version: M890_STREAM_CONFIG_VERSION, set by the initializer; checked.
 * @flags: M890_STREAM_* bits.
 * @timeout_ns: how long m890_stream_synchronize() and
 *              m890_stream_destroy() wait, in nanoseconds, before
 *              returning M890_ERROR_TIMEOUT (the work keeps running);
 *              M890_TIMEOUT_INFINITE (the default) waits for ever.
 * @batch_packets: most packets staged by a deferred stream before it
 *                 submits by itself; 0 or more than the device maximum
 *                 (struct m890_device_info's @max_submit_packets) = the
 *                 device maximum.
 * @reserved: 0.
 *
 * Start from M890_STREAM_CONFIG_INIT, then change fields.
 */
struct m890_stream_config {
	uint32_t size;
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint64_t timeout_ns;
	uint32_t batch_packets;
	uint32_t reserved;
};
/**
 * M890_STREAM_CONFIG_MAGIC - struct m890_stream_config's @magic ("M8SC").
 */
#define M890_STREAM_CONFIG_MAGIC	0x4d385343u	/* "M8SC" */
/**
 * M890_STREAM_CONFIG_VERSION - current version of struct
 * m890_stream_config.
 */
#define M890_STREAM_CONFIG_VERSION	1
/**
 * M890_STREAM_CONFIG_INIT - initializer of struct m890_stream_config: the
 * defaults of m890_stream_create() (immediate submission, no timeout,
 * device-maximum batches).
 */
#define M890_STREAM_CONFIG_INIT \
	{ .size = sizeof(struct m890_stream_config), \
	  .magic = M890_STREAM_CONFIG_MAGIC, \
	  .version = M890_STREAM_CONFIG_VERSION, \
	  .flags = 0, .timeout_ns = M890_TIMEOUT_INFINITE, \
	  .batch_packets = 0, .reserved = 0 }

/**
 * m890_stream_create() - create a stream with default options.
 * @device: the card.
 * @stream: receives the handle; destroy it with m890_stream_destroy().
 *
 * A stream is one hardware queue and its timeline syncobj, with the
 * options of M890_STREAM_CONFIG_INIT.
 *
 * Return: M890_SUCCESS; M890_ERROR_BUSY when the card has no free queue,
 * or when the user's open files of the card (this process's and any
 * other's of the same real uid) already own as many queues as the driver
 * allows one user (module parameter queues_per_user).
 */
m890_status_t m890_stream_create(m890_device_t device, m890_stream_t *stream);

/**
 * m890_stream_create_config() - create a stream with options.
 * @device: the card.
 * @config: initialized with M890_STREAM_CONFIG_INIT (see struct
 *          m890_stream_config); not NULL.
 * @stream: receives the handle.
 *
 * Return: as m890_stream_create(), and M890_ERROR_INVALID_ARGUMENT for a
 * NULL or uninitialized @config, unknown flags or a non-zero @reserved.
 */
m890_status_t m890_stream_create_config(m890_device_t device,
					const struct m890_stream_config *config,
					m890_stream_t *stream);

/**
 * m890_stream_destroy() - wait for a stream's work, then release its queue.
 * @stream: the handle; invalid afterwards.
 *
 * Without a sticky error, the staged packets are submitted and the call
 * waits for the work up to the stream's timeout; errors of that work are
 * not reported (collect them with m890_stream_synchronize() first).
 * Events recorded on the stream stay valid.
 *
 * Return: M890_SUCCESS, or the handle's error.
 */
m890_status_t m890_stream_destroy(m890_stream_t stream);

/**
 * m890_stream_flush() - submit the staged packets of a deferred stream.
 * @stream: the stream; on an immediate stream nothing is staged.
 *
 * Return: M890_SUCCESS; the stream's sticky async error; the
 * submission's errors (which become sticky).
 */
m890_status_t m890_stream_flush(m890_stream_t stream);

/**
 * m890_stream_synchronize() - wait until a stream's work has executed.
 * @stream: the stream.
 *
 * Flushes, then waits until all work enqueued so far has executed, up to
 * the stream's timeout.
 *
 * Return: M890_SUCCESS; the sticky async error if the work failed:
 * M890_ERROR_DEVICE_FAULT (MMU fault: bad VA or permission),
 * M890_ERROR_DEVICE_ERROR (other packet error, unreachable peer),
 * M890_ERROR_CANCELED; M890_ERROR_TIMEOUT when the timeout passed.
 */
m890_status_t m890_stream_synchronize(m890_stream_t stream);

/**
 * m890_stream_query() - whether a stream's work has executed, without
 * waiting.
 * @stream: the stream.
 *
 * Flushes first, so that staged work makes progress.
 *
 * Return: M890_SUCCESS if all work has executed, M890_NOT_READY if some
 * is pending, or the sticky async error.
 */
m890_status_t m890_stream_query(m890_stream_t stream);

/**
 * m890_stream_get_async_error() - a stream's sticky async error, without
 * waiting.
 * @stream: the stream.
 * @error: receives the sticky error, M890_SUCCESS if none observed yet
 *         (errors of work still running show only once it completes).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_stream_get_async_error(m890_stream_t stream,
					  m890_status_t *error);

/**
 * m890_stream_device() - device of a stream.
 * @stream: the stream.
 * @device: receives the device handle it was created on.
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_stream_device(m890_stream_t stream, m890_device_t *device);

/* ------------------------------------------------------------------ */
/* Memory operations (enqueued on a stream)                           */
/* ------------------------------------------------------------------ */

/**
 * m890_memcpy() - enqueue a copy between two device VAs.
 * @stream: the stream; both VAs are of its device.
 * @dst_va: destination: a host buffer, HBM buffer or peer window VA.
 * @src_va: source, of the same kinds.
 * @bytes: bytes to copy; 0 is a legal no-op.
 *
 * Any alignment; overlapping ranges copy as if through a temporary.  The
 * VAs are not checked against buffers.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for a
 * range that wraps the address space; bad VAs are reported
 * asynchronously (M890_ERROR_DEVICE_FAULT).
 */
m890_status_t m890_memcpy(m890_stream_t stream, uint64_t dst_va,
			  uint64_t src_va, uint64_t bytes);

/**
 * m890_memcpy_htod() - enqueue a copy from a host buffer to an HBM buffer.
 * @stream: the stream; both buffers are on its device.
 * @dst: M890_MEM_HBM buffer.
 * @dst_offset: byte offset in @dst.
 * @src: M890_MEM_HOST buffer.
 * @src_offset: byte offset in @src.
 * @bytes: bytes to copy; both ranges must lie within their buffers'
 *         requested sizes; 0 is a no-op.
 *
 * Any alignment.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for a
 * range past a buffer or a buffer of the wrong kind;
 * M890_ERROR_DEVICE_MISMATCH for a buffer of another card.
 */
m890_status_t m890_memcpy_htod(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_dtoh() - enqueue a copy from an HBM buffer to a host buffer.
 * @stream: the stream; both buffers are on its device.
 * @dst: M890_MEM_HOST buffer.
 * @dst_offset: byte offset in @dst.
 * @src: M890_MEM_HBM buffer.
 * @src_offset: byte offset in @src.
 * @bytes: bytes to copy, within both buffers; 0 is a no-op.
 *
 * Return: as m890_memcpy_htod().
 */
m890_status_t m890_memcpy_dtoh(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_dtod() - enqueue a copy between two HBM buffers of the same
 * device.
 * @stream: the stream; both buffers are on its device.
 * @dst: M890_MEM_HBM buffer.
 * @dst_offset: byte offset in @dst.
 * @src: M890_MEM_HBM buffer (may be @dst).
 * @src_offset: byte offset in @src.
 * @bytes: bytes to copy, within both buffers; 0 is a no-op.  Overlapping
 *         ranges copy as if through a temporary.
 *
 * Return: as m890_memcpy_htod().
 */
m890_status_t m890_memcpy_dtod(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_peer() - enqueue a copy from a local buffer to another
 * card's memory through the fabric.
 * @stream: the stream.
 * @dst: window imported on the stream's device.
 * @dst_offset: byte offset in the window.
 * @src: buffer of the stream's device, HBM or host.
 * @src_offset: byte offset in @src.
 * @bytes: bytes to copy, within the window and @src; 0 is a no-op.
 *
 * Return: as m890_memcpy_htod(); M890_ERROR_DEVICE_MISMATCH also for a
 * window imported on another card.
 */
m890_status_t m890_memcpy_peer(m890_stream_t stream,
			       m890_window_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_2d() - enqueue a strided copy (COPY_2D, hardware spec §7.3).
 * @stream: the stream; VAs are of its device.
 * @dst_va: destination of row 0.
 * @dst_pitch: bytes from one destination row to the next, >= @width, at
 *             most 2^48.
 * @src_va: source of row 0.
 * @src_pitch: bytes from one source row to the next, >= @width, at most
 *             2^48.
 * @width: bytes per row, 0 .. 2^32 - 1.
 * @height: rows, 0 .. 2^32 - 1; @width * @height at most 2^40.
 *
 * Row r goes from @src_va + r * @src_pitch to @dst_va + r * @dst_pitch, in
 * ascending r.  Any alignment; either @width or @height 0 is a no-op.
 * Overlapping source and destination rows give undefined data.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for the
 * limits and for a last row that wraps the address space; bad VAs are
 * asynchronous (M890_ERROR_DEVICE_FAULT).
 */
m890_status_t m890_memcpy_2d(m890_stream_t stream, uint64_t dst_va,
			     uint64_t dst_pitch, uint64_t src_va,
			     uint64_t src_pitch, uint64_t width,
			     uint64_t height);

/**
 * m890_memset32() - enqueue a fill with a 32-bit pattern.
 * @stream: the stream; @dst_va is of its device.
 * @dst_va: start, 4-byte aligned.
 * @pattern: the 32-bit value, stored little-endian in every word.
 * @bytes: a multiple of 4; 0 is a no-op.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for the
 * alignment or size; bad VAs are asynchronous (M890_ERROR_DEVICE_FAULT).
 */
m890_status_t m890_memset32(m890_stream_t stream, uint64_t dst_va,
			    uint32_t pattern, uint64_t bytes);

/**
 * enum m890_sem_op - how m890_signal() updates a 64-bit semaphore.
 * @M890_SEM_SET: *sem = value.
 * @M890_SEM_ADD: *sem += value (modulo 2^64).
 */
enum m890_sem_op {
	M890_SEM_SET = 0,		/* *sem = value */
	M890_SEM_ADD = 1,		/* *sem += value */
};

/**
 * enum m890_sem_cond - what m890_wait() waits for.
 * @M890_SEM_GE: until *sem >= value, compared as unsigned 64-bit.
 * @M890_SEM_EQ: until *sem == value.
 */
enum m890_sem_cond {
	M890_SEM_GE = 0,		/* until *sem >= value (unsigned) */
	M890_SEM_EQ = 1,		/* until *sem == value */
};

/**
 * m890_signal() - enqueue a semaphore update (SIGNAL packet).
 * @stream: the stream.
 * @sem_va: VA of a 64-bit semaphore, 8-byte aligned: local memory or a
 *          peer window.
 * @value: the operand of @op.
 * @op: M890_SEM_SET or M890_SEM_ADD.
 *
 * The semaphore is updated when the stream reaches this point (the work
 * before it has executed).
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for the
 * alignment or an unknown @op; a bad VA is asynchronous
 * (M890_ERROR_DEVICE_FAULT).
 */
m890_status_t m890_signal(m890_stream_t stream, uint64_t sem_va,
			  uint64_t value, enum m890_sem_op op);

/**
 * m890_wait() - enqueue a wait on a semaphore (WAIT packet).
 * @stream: the stream; work enqueued after the wait starts once it is
 *          satisfied.
 * @sem_va: VA of a 64-bit semaphore, 8-byte aligned, local or a window.
 * @value: the value @cond compares with.
 * @cond: M890_SEM_GE or M890_SEM_EQ.
 *
 * A wait never satisfied ends with the driver's job timeout, reported as
 * the stream's async error.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for the
 * alignment or an unknown @cond.
 */
m890_status_t m890_wait(m890_stream_t stream, uint64_t sem_va,
			uint64_t value, enum m890_sem_cond cond);

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/**
 * m890_event_create() - create an event.
 * @device: the card whose streams the event is recorded on and waited
 *          from.
 * @event: receives the handle; destroy it with m890_event_destroy().
 *
 * The event holds a small host buffer of @device (its timestamp and
 * semaphore) and a syncobj; it starts unrecorded.
 *
 * Return: M890_SUCCESS; the allocation errors of m890_buffer_alloc().
 */
m890_status_t m890_event_create(m890_device_t device, m890_event_t *event);

/**
 * m890_event_destroy() - destroy an event, without waiting.
 * @event: the handle; invalid afterwards.  A pending record still
 *         completes on the card; waits already enqueued on it stay
 *         correct.
 *
 * Return: M890_SUCCESS, or the handle's error.
 */
m890_status_t m890_event_destroy(m890_event_t event);

/**
 * m890_event_record() - record the current point of a stream in an event.
 * @event: the event.
 * @stream: a stream of the event's device.
 *
 * Flushes @stream and enqueues a device-clock TIMESTAMP; the event
 * completes when the stream's earlier work and the timestamp have
 * executed.  Re-recording replaces the previous point.  Inside a group
 * (m890_group_start()) the record is kept and made at m890_group_end(),
 * after the group's calls, in the order the records were made.
 *
 * Return: M890_SUCCESS once enqueued (or kept, in a group);
 * M890_ERROR_DEVICE_MISMATCH for a
 * stream of another card; M890_ERROR_NOT_SUPPORTED for a card without
 * M890_CAP_TIMESTAMP; the stream's sticky error.
 */
m890_status_t m890_event_record(m890_event_t event, m890_stream_t stream);

/**
 * m890_event_synchronize() - wait until an event has completed.
 * @event: the event, recorded at least once.
 *
 * Waits without a time limit.
 *
 * Return: M890_SUCCESS; the stream's error if the recorded work failed;
 * M890_ERROR_INVALID_ARGUMENT if never recorded.
 */
m890_status_t m890_event_synchronize(m890_event_t event);

/**
 * m890_event_query() - whether an event has completed, without waiting.
 * @event: the event, recorded at least once.
 *
 * Consistent with waits on the card: once a stream that waited on the
 * event (m890_stream_wait_event()) has completed, the query answers
 * M890_SUCCESS; it then waits the moment the recorded submission's fence
 * still takes to signal.
 *
 * Return: M890_SUCCESS if complete, M890_NOT_READY if not, the recorded
 * work's error, or M890_ERROR_INVALID_ARGUMENT if never recorded.
 */
m890_status_t m890_event_query(m890_event_t event);

/**
 * m890_event_elapsed_time() - time between two completed events.
 * @start: the earlier event.
 * @end: the later event.
 * @wall_ns: receives the host time between the two completions in ns
 *           (kernel fence timestamps, CLOCK_MONOTONIC); may be NULL.
 * @device_ns: receives the modelled device time between the two
 *             TIMESTAMPs in ns; may be NULL; both events must then be of
 *             the same device.
 *
 * Values are signed: end before start gives a negative number.
 *
 * Return: M890_SUCCESS; M890_NOT_READY if either event has not completed;
 * M890_ERROR_INVALID_ARGUMENT when both outputs are NULL or an event was
 * never recorded; M890_ERROR_DEVICE_MISMATCH for @device_ns across cards.
 */
m890_status_t m890_event_elapsed_time(m890_event_t start, m890_event_t end,
				      int64_t *wall_ns, int64_t *device_ns);

/**
 * m890_event_get_timestamp() - absolute times of a completed event.
 * @event: the event.
 * @wall_ns: receives the CLOCK_MONOTONIC time (ns) at which the host saw
 *           the event complete (its fence's signal time); may be NULL.
 *           Fences completed together share one time: use it for
 *           end-to-end timing from a host clock_gettime(CLOCK_MONOTONIC)
 *           reading.
 * @device_ns: receives the modelled device clock (ns) of the TIMESTAMP;
 *             may be NULL.
 *
 * Return: M890_SUCCESS; M890_NOT_READY if the event has not completed;
 * M890_ERROR_INVALID_ARGUMENT when both outputs are NULL or the event was
 * never recorded.
 */
m890_status_t m890_event_get_timestamp(m890_event_t event, int64_t *wall_ns,
				       uint64_t *device_ns);

/**
 * m890_stream_wait_event() - make a stream wait on the card for an event.
 * @stream: a stream of the event's device (M890_ERROR_DEVICE_MISMATCH
 *          otherwise: the semaphore lives in the event's host memory,
 *          which only its card maps).
 * @event: recorded at least once (M890_ERROR_INVALID_ARGUMENT otherwise).
 *
 * Work enqueued on @stream after this call starts only once the work
 * recorded in @event (its last m890_event_record() before this call) has
 * executed.  The host does not wait: a WAIT packet on the event's
 * semaphore is enqueued (each record of an event sets its semaphore,
 * after the record's TIMESTAMP, to the number of records so far; the
 * wait is for at least the current number).  This is how communication
 * on one stream overlaps compute on another: record an event after the
 * producer's work, wait on it from the consumer's stream.
 *
 * Re-recording @event later does not affect an enqueued wait, as long
 * as the records of one event complete in the order they were made
 * (record it on one stream, or order its streams).  If the recorded
 * work fails, the wait is never satisfied and ends with the waiting
 * stream's job timeout (an async error of @stream), unless the failure
 * stopped the device context, which cancels @stream's work at once.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_DEVICE_MISMATCH,
 * M890_ERROR_INVALID_ARGUMENT as above, and also inside a group for an
 * event recorded in that group (its record is made only at
 * m890_group_end(): wait after it); the handles' errors and the sticky
 * error of @stream.
 */
m890_status_t m890_stream_wait_event(m890_stream_t stream, m890_event_t event);

/* ------------------------------------------------------------------ */
/* Element types                                                       */
/* ------------------------------------------------------------------ */

/**
 * enum m890_data_type - element types of the compute operations.
 * @M890_TYPE_FP32: IEEE-754 binary32, little-endian, 4 bytes.
 * @M890_TYPE_BF16: bfloat16 (the upper 16 bits of a binary32), 2 bytes.
 * @M890_TYPE_MXFP4: OCP MX v1.0 MXFP4: E2M1 elements, two per byte (the
 *                   even element in bits 3:0), and one E8M0 scale byte per
 *                   block of M890_MX_BLOCK elements.
 * @M890_TYPE_MXFP8: OCP MX v1.0 MXFP8: E4M3 elements, one per byte, and one
 *                   E8M0 scale byte per block.
 */
enum m890_data_type {
	M890_TYPE_FP32 = 0,
	M890_TYPE_BF16 = 1,
	M890_TYPE_MXFP4 = 2,
	M890_TYPE_MXFP8 = 3,
};

#ifdef __cplusplus
}
#endif

#endif /* M890_RUNTIME_H */
