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
 */
#ifndef M890_RUNTIME_H
#define M890_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The stack's one version (the file VERSION at the top of the source tree:
 * package, library file name, pkg-config, m890.ko's MODULE_VERSION and
 * the tools).  The minor number follows the newest symbol node of
 * libm890.map (M890_1.<minor>); the library build checks that these
 * macros match VERSION, tests/unit/version_test.sh the symbol node.
 */
#define M890_VERSION_MAJOR 1
#define M890_VERSION_MINOR 7
#define M890_VERSION_PATCH 0
/** Library version as major * 10000 + minor * 100 + patch. */
#define M890_VERSION_CODE \
	(M890_VERSION_MAJOR * 10000 + M890_VERSION_MINOR * 100 + M890_VERSION_PATCH)

/**
 * enum m890_status - result of every call.  Values are never reused.
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
typedef enum m890_status m890_status_t;

/** Opaque handles. */
typedef struct m890_device *m890_device_t;
typedef struct m890_buffer *m890_buffer_t;
typedef struct m890_window *m890_window_t;
typedef struct m890_stream *m890_stream_t;
typedef struct m890_event *m890_event_t;

/**
 * m890_status_string() - short, constant, human-readable name of @status.
 * Never NULL; unknown values give "unknown status".
 */
const char *m890_status_string(m890_status_t status);

/**
 * m890_get_last_error() - detailed message of the calling thread's last
 * failed call ("" if none).  The string is owned by the library.
 */
const char *m890_get_last_error(void);

/**
 * m890_get_version() - library version as M890_VERSION_CODE.
 */
m890_status_t m890_get_version(int *version);

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

/**
 * m890_device_count() - number of M890 cards this process can open.
 * @count: returned count.
 *
 * Cards are the /dev/accel/accel* nodes whose DRM driver is "m890".  With
 * no card, *@count is set to 0 and the status says why:
 * M890_ERROR_DRIVER_NOT_LOADED, M890_ERROR_NO_DEVICE, or
 * M890_ERROR_PERMISSION when cards exist but none can be opened.
 */
m890_status_t m890_device_count(int *count);

/**
 * m890_device_open() - open card @index.
 * @index: 0..count-1; cards are ordered by fabric id (detached cards last),
 *         then by accel minor number.
 * @device: returned handle; close it with m890_device_close().
 */
m890_status_t m890_device_open(int index, m890_device_t *device);

/**
 * m890_device_close() - close a device.  Every buffer, window, stream and
 * event of the device must have been freed first
 * (M890_ERROR_INVALID_ARGUMENT otherwise, and the device stays open).
 */
m890_status_t m890_device_close(m890_device_t device);

#define M890_CAP_HBM_BO		(1ull << 0)
#define M890_CAP_HOST_BO	(1ull << 1)
#define M890_CAP_TIMELINE	(1ull << 2)
#define M890_CAP_PEER_IMPORT	(1ull << 3)
#define M890_CAP_FABRIC		(1ull << 4)
#define M890_CAP_TIMESTAMP	(1ull << 5)
#define M890_CAP_FABRIC_WINDOWS	(1ull << 7)	/* windows across VMs, m890_comm_create_fabric() */
/* Spec 1.1 cards: several data movers, fabric atomics, COPY_ROWS and
 * MOE_ROUTE; all three are needed by M890_EP_F_DEVICE_ROUTING. */
#define M890_CAP_ENGINES	(1ull << 8)
#define M890_CAP_ATOMICS	(1ull << 9)
#define M890_CAP_ROWS		(1ull << 10)
/* Matrix engines: the GEMM packet, m890_gemm() (hardware spec §7.15). */
#define M890_CAP_GEMM		(1ull << 11)

#define M890_DEVICE_NO_FABRIC	0xffu

/**
 * struct m890_device_info - description of a card (versioned: set @size and
 * @version with M890_DEVICE_INFO_INIT before the call; fields past @size
 * are left untouched, so old callers keep working).
 * @hbm_bytes: on-card HBM.  @va_start, @va_bytes: device VA range.
 * @fabric_id: ICN fabric id, M890_DEVICE_NO_FABRIC when detached.
 * @fabric_port: switch port the card is cabled to.
 * @num_queues: hardware queues (streams that can exist at once, all
 *              processes together).
 * @max_submit_packets: packets per driver submission.
 * @capabilities: M890_CAP_* bits.
 * @node: device node name, e.g. "accel0".
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
#define M890_DEVICE_INFO_VERSION 1
#define M890_DEVICE_INFO_INIT \
	{ .size = sizeof(struct m890_device_info), \
	  .version = M890_DEVICE_INFO_VERSION }

/**
 * m890_device_get_info() - fill @info (see struct m890_device_info).
 */
m890_status_t m890_device_get_info(m890_device_t device,
				   struct m890_device_info *info);

/* ------------------------------------------------------------------ */
/* Buffers and windows                                                 */
/* ------------------------------------------------------------------ */

enum m890_mem_flags {
	M890_MEM_HBM = 1u << 0,		/* on-card HBM */
	M890_MEM_HOST = 1u << 1,	/* host memory the card reaches by DMA */
};

/**
 * m890_buffer_alloc() - allocate @bytes on @device.
 * @flags: exactly one of M890_MEM_HBM, M890_MEM_HOST.
 * @bytes: > 0 (zero is M890_ERROR_INVALID_ARGUMENT: a buffer always has a
 *         VA).  The driver rounds the size up (4 KiB host, 64 KiB HBM);
 *         m890_buffer_size() returns the requested size, and offsets are
 *         checked against it.
 * Contents are undefined until written.
 */
m890_status_t m890_buffer_alloc(m890_device_t device, uint64_t bytes,
				unsigned int flags, m890_buffer_t *buffer);

/**
 * m890_buffer_free() - free a buffer.  Work still using it must have
 * completed; a mapping from m890_buffer_map() is removed.  Windows imported
 * from it on other devices stay valid (the memory lives until the last
 * window is freed).
 */
m890_status_t m890_buffer_free(m890_buffer_t buffer);

/**
 * m890_buffer_map() - map a buffer into the process.
 * @ptr: returned host pointer to byte 0, valid until m890_buffer_free().
 * Mapping twice returns the same pointer.  M890_ERROR_NOT_SUPPORTED when
 * the driver offers no CPU mapping of this buffer (HBM may not be).
 * CPU accesses are not ordered with stream work: synchronize first.
 */
m890_status_t m890_buffer_map(m890_buffer_t buffer, void **ptr);

/**
 * m890_buffer_va() - device VA of byte 0, valid on the buffer's device.
 */
m890_status_t m890_buffer_va(m890_buffer_t buffer, uint64_t *va);

/**
 * m890_buffer_size() - requested size in bytes.
 */
m890_status_t m890_buffer_size(m890_buffer_t buffer, uint64_t *bytes);

/**
 * m890_buffer_device() - device the buffer lives on.
 */
m890_status_t m890_buffer_device(m890_buffer_t buffer, m890_device_t *device);

/**
 * m890_buffer_import_peer() - make @peer_buffer (HBM on another card)
 * addressable from @device through the fabric.
 * @device: the importing card.
 * @peer_buffer: an M890_MEM_HBM buffer of a different card.
 * @window: returned window; its VA is valid in packets on @device.
 *
 * The buffer is exported as a dma-buf and imported with DRM PRIME.  Errors:
 * M890_ERROR_INVALID_ARGUMENT for a host buffer or a buffer of @device
 * itself, M890_ERROR_NOT_SUPPORTED when either card lacks peer import or
 * the cards cannot reach each other (detached, other partition).
 * Importing the same buffer twice is allowed: each window is freed on its
 * own.
 */
m890_status_t m890_buffer_import_peer(m890_device_t device,
				      m890_buffer_t peer_buffer,
				      m890_window_t *window);

/**
 * m890_window_free() - drop a window; work using it must have completed.
 */
m890_status_t m890_window_free(m890_window_t window);

/**
 * m890_window_va() - VA of the window's byte 0 on the importing device.
 */
m890_status_t m890_window_va(m890_window_t window, uint64_t *va);

/**
 * m890_window_size() - bytes the window spans.
 */
m890_status_t m890_window_size(m890_window_t window, uint64_t *bytes);

/**
 * m890_window_peer_fabric_id() - fabric id of the card owning the memory.
 */
m890_status_t m890_window_peer_fabric_id(m890_window_t window,
					 uint32_t *fabric_id);

/* ------------------------------------------------------------------ */
/* Streams                                                             */
/* ------------------------------------------------------------------ */

/* Stage packets until flush/synchronize/query/event record or a full
 * batch, instead of one driver submission per enqueue call. */
#define M890_STREAM_DEFERRED	(1u << 0)
#define M890_STREAM_FLAGS	(M890_STREAM_DEFERRED)

#define M890_TIMEOUT_INFINITE	UINT64_MAX

/**
 * struct m890_stream_config - options of m890_stream_create_config().
 * Start from M890_STREAM_CONFIG_INIT, then change fields.
 * @size, @magic, @version: set by the initializer; checked.
 * @flags: M890_STREAM_* bits.
 * @timeout_ns: how long m890_stream_synchronize() waits before returning
 *              M890_ERROR_TIMEOUT (the work keeps running).
 * @batch_packets: most packets staged by a deferred stream before it
 *                 submits by itself; 0 = the device maximum.
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
#define M890_STREAM_CONFIG_MAGIC	0x4d385343u	/* "M8SC" */
#define M890_STREAM_CONFIG_VERSION	1
#define M890_STREAM_CONFIG_INIT \
	{ .size = sizeof(struct m890_stream_config), \
	  .magic = M890_STREAM_CONFIG_MAGIC, \
	  .version = M890_STREAM_CONFIG_VERSION, \
	  .flags = 0, .timeout_ns = M890_TIMEOUT_INFINITE, \
	  .batch_packets = 0, .reserved = 0 }

/**
 * m890_stream_create() - create a stream (one hardware queue and its
 * timeline syncobj) with default options.  M890_ERROR_BUSY when the card
 * has no free queue, or when the user's open files of the card (this
 * process's and any other's of the same real uid) already own as many
 * queues as the driver allows one user (module parameter queues_per_user).
 */
m890_status_t m890_stream_create(m890_device_t device, m890_stream_t *stream);

/**
 * m890_stream_create_config() - m890_stream_create() with @config.
 */
m890_status_t m890_stream_create_config(m890_device_t device,
					const struct m890_stream_config *config,
					m890_stream_t *stream);

/**
 * m890_stream_destroy() - wait for the stream's work (up to its timeout),
 * then release the queue.  Events recorded on it stay valid.
 */
m890_status_t m890_stream_destroy(m890_stream_t stream);

/**
 * m890_stream_flush() - submit staged packets of a deferred stream.
 */
m890_status_t m890_stream_flush(m890_stream_t stream);

/**
 * m890_stream_synchronize() - flush, then wait until all work enqueued so
 * far has executed.  Returns the sticky async error if the work failed:
 * M890_ERROR_DEVICE_FAULT (MMU fault: bad VA or permission),
 * M890_ERROR_DEVICE_ERROR (other packet error, unreachable peer),
 * M890_ERROR_CANCELED, or M890_ERROR_TIMEOUT.
 */
m890_status_t m890_stream_synchronize(m890_stream_t stream);

/**
 * m890_stream_query() - flush, then M890_SUCCESS if all work has executed,
 * M890_NOT_READY if some is pending, or the sticky async error.
 */
m890_status_t m890_stream_query(m890_stream_t stream);

/**
 * m890_stream_get_async_error() - the sticky async error without waiting
 * (M890_SUCCESS if none observed yet), in @error.
 */
m890_status_t m890_stream_get_async_error(m890_stream_t stream,
					  m890_status_t *error);

/**
 * m890_stream_device() - device of the stream.
 */
m890_status_t m890_stream_device(m890_stream_t stream, m890_device_t *device);

/* ------------------------------------------------------------------ */
/* Memory operations (enqueued on a stream)                           */
/* ------------------------------------------------------------------ */

/**
 * m890_memcpy() - copy @bytes from @src_va to @dst_va, both VAs on the
 * stream's device (host buffer, HBM buffer or peer window).  Any
 * alignment; 0 bytes is a legal no-op; overlapping ranges copy as if
 * through a temporary.  Bad VAs are reported asynchronously
 * (M890_ERROR_DEVICE_FAULT).
 */
m890_status_t m890_memcpy(m890_stream_t stream, uint64_t dst_va,
			  uint64_t src_va, uint64_t bytes);

/**
 * m890_memcpy_htod() - host buffer @src (+@src_offset) to HBM buffer @dst
 * (+@dst_offset), both on the stream's device; ranges are checked
 * (M890_ERROR_INVALID_ARGUMENT, M890_ERROR_DEVICE_MISMATCH).
 */
m890_status_t m890_memcpy_htod(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_dtoh() - HBM buffer @src to host buffer @dst.
 */
m890_status_t m890_memcpy_dtoh(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_dtod() - HBM buffer to HBM buffer of the same device.
 */
m890_status_t m890_memcpy_dtod(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_peer() - local buffer @src (HBM or host, on the stream's
 * device) to the peer memory behind window @dst (imported on the stream's
 * device), through the fabric.
 */
m890_status_t m890_memcpy_peer(m890_stream_t stream,
			       m890_window_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/**
 * m890_memcpy_2d() - enqueue a strided copy (COPY_2D, hardware spec §7.3):
 * @height rows of @width bytes, row r from @src_va + r * @src_pitch to
 * @dst_va + r * @dst_pitch, in ascending r.  Any alignment.
 * @width, @height: 0 .. 2^32 - 1 (either 0 is a no-op); width * height at
 * most 2^40.  @src_pitch, @dst_pitch: >= @width, at most 2^48.
 * Overlapping source and destination rows give undefined data.
 * Errors: M890_ERROR_INVALID_ARGUMENT for the limits and for a last row
 * that wraps the address space; bad VAs are asynchronous
 * (M890_ERROR_DEVICE_FAULT).
 */
m890_status_t m890_memcpy_2d(m890_stream_t stream, uint64_t dst_va,
			     uint64_t dst_pitch, uint64_t src_va,
			     uint64_t src_pitch, uint64_t width,
			     uint64_t height);

/**
 * m890_memset32() - fill @bytes at @dst_va with the 32-bit @pattern
 * (little-endian).  @dst_va 4-byte aligned, @bytes a multiple of 4
 * (M890_ERROR_INVALID_ARGUMENT otherwise); 0 bytes is a no-op.
 */
m890_status_t m890_memset32(m890_stream_t stream, uint64_t dst_va,
			    uint32_t pattern, uint64_t bytes);

enum m890_sem_op {
	M890_SEM_SET = 0,		/* *sem = value */
	M890_SEM_ADD = 1,		/* *sem += value */
};

enum m890_sem_cond {
	M890_SEM_GE = 0,		/* until *sem >= value (unsigned) */
	M890_SEM_EQ = 1,		/* until *sem == value */
};

/**
 * m890_signal() - when the stream reaches this point, update the 64-bit
 * semaphore at @sem_va (8-byte aligned; local memory or a peer window).
 */
m890_status_t m890_signal(m890_stream_t stream, uint64_t sem_va,
			  uint64_t value, enum m890_sem_op op);

/**
 * m890_wait() - block the stream until the semaphore at @sem_va satisfies
 * @cond against @value.  A wait never satisfied ends with the driver's job
 * timeout (reported as an async error).
 */
m890_status_t m890_wait(m890_stream_t stream, uint64_t sem_va,
			uint64_t value, enum m890_sem_cond cond);

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/**
 * m890_event_create() - create an event usable on streams of @device.
 */
m890_status_t m890_event_create(m890_device_t device, m890_event_t *event);

/**
 * m890_event_destroy() - destroy an event (no wait).
 */
m890_status_t m890_event_destroy(m890_event_t event);

/**
 * m890_event_record() - flush @stream and enqueue a device-clock
 * TIMESTAMP; the event completes when the stream's earlier work and the
 * timestamp have executed.  Re-recording replaces the previous point.
 */
m890_status_t m890_event_record(m890_event_t event, m890_stream_t stream);

/**
 * m890_event_synchronize() - wait until the event completed (returns the
 * stream's error if the recorded work failed).  M890_ERROR_INVALID_ARGUMENT
 * if never recorded.
 */
m890_status_t m890_event_synchronize(m890_event_t event);

/**
 * m890_event_query() - M890_SUCCESS if complete, else M890_NOT_READY.
 * Consistent with waits on the card: once a stream that waited on the
 * event (m890_stream_wait_event()) has completed, the query answers
 * M890_SUCCESS; it then waits the moment the recorded submission's fence
 * still takes to signal.
 */
m890_status_t m890_event_query(m890_event_t event);

/**
 * m890_event_elapsed_time() - time between two completed events.
 * @wall_ns: returned host time between the two completions (kernel fence
 *           timestamps, CLOCK_MONOTONIC), may be NULL.
 * @device_ns: returned modelled device time between the two TIMESTAMPs,
 *             may be NULL; both events must be of the same device
 *             (M890_ERROR_DEVICE_MISMATCH).
 * Values are signed: end before start gives a negative number.
 * M890_NOT_READY if either event has not completed.
 */
m890_status_t m890_event_elapsed_time(m890_event_t start, m890_event_t end,
				      int64_t *wall_ns, int64_t *device_ns);

/**
 * m890_event_get_timestamp() - absolute times of a completed event.
 * @wall_ns: returned CLOCK_MONOTONIC time (ns) at which the host saw the
 *           event complete (its fence's signal time), may be NULL.  Fences
 *           completed together share one time: use it for end-to-end
 *           timing from a host clock_gettime(CLOCK_MONOTONIC) reading.
 * @device_ns: returned modelled device clock (ns) of the TIMESTAMP, may be
 *             NULL.
 * M890_NOT_READY if the event has not completed.
 */
m890_status_t m890_event_get_timestamp(m890_event_t event, int64_t *wall_ns,
				       uint64_t *device_ns);

/**
 * m890_stream_wait_event() - make @stream wait on the card until the work
 * recorded in @event (its last m890_event_record() before this call) has
 * executed; work enqueued on @stream after this call starts only then.
 * The host does not wait: a WAIT packet on the event's semaphore is
 * enqueued (each record of an event sets its semaphore, after the
 * record's TIMESTAMP, to the number of records so far; the wait is for
 * at least the current number).  This is how communication on one
 * stream overlaps compute on another: record an event after the
 * producer's work, wait on it from the consumer's stream.
 * @stream: a stream of the event's device (M890_ERROR_DEVICE_MISMATCH
 *          otherwise: the semaphore lives in the event's host memory,
 *          which only its card maps).
 * @event: recorded at least once (M890_ERROR_INVALID_ARGUMENT otherwise).
 * Re-recording @event later does not affect an enqueued wait, as long
 * as the records of one event complete in the order they were made
 * (record it on one stream, or order its streams).  If the recorded
 * work fails, the wait is never satisfied and ends with the waiting
 * stream's job timeout (an async error of @stream), unless the failure
 * stopped the device context, which cancels @stream's work at once.
 * Errors: the handles', and the sticky error of @stream.
 */
m890_status_t m890_stream_wait_event(m890_stream_t stream, m890_event_t event);

/* ------------------------------------------------------------------ */
/* Element types                                                       */
/* ------------------------------------------------------------------ */

/**
 * enum m890_data_type - element types of the compute operations.
 * @M890_TYPE_FP32: IEEE-754 binary32, little-endian.
 * @M890_TYPE_BF16: bfloat16 (the upper 16 bits of a binary32).
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
