/* SPDX-License-Identifier: MIT */
/*
 * libm890 - runtime library for M890 accelerator cards.
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
#ifndef M890_H
#define M890_H

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
 * macros match VERSION.
 */
#define M890_VERSION_MAJOR 1
#define M890_VERSION_MINOR 7
#define M890_VERSION_PATCH 0
/** Library version as major * 10000 + minor * 100 + patch. */
#define M890_VERSION_CODE \
	(M890_VERSION_MAJOR * 10000 + M890_VERSION_MINOR * 100 + M890_VERSION_PATCH)

/** enum m890_status - result of every call.  Values are never reused. */
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

/** m890_get_version() - library version as M890_VERSION_CODE. */
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

/** m890_device_get_info() - fill @info (see struct m890_device_info). */
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

/** m890_buffer_va() - device VA of byte 0, valid on the buffer's device. */
m890_status_t m890_buffer_va(m890_buffer_t buffer, uint64_t *va);

/** m890_buffer_size() - requested size in bytes. */
m890_status_t m890_buffer_size(m890_buffer_t buffer, uint64_t *bytes);

/** m890_buffer_device() - device the buffer lives on. */
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

/** m890_window_free() - drop a window; work using it must have completed. */
m890_status_t m890_window_free(m890_window_t window);

/** m890_window_va() - VA of the window's byte 0 on the importing device. */
m890_status_t m890_window_va(m890_window_t window, uint64_t *va);

/** m890_window_size() - bytes the window spans. */
m890_status_t m890_window_size(m890_window_t window, uint64_t *bytes);

/** m890_window_peer_fabric_id() - fabric id of the card owning the memory. */
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
 * has no free queue, or when @device already owns as many queues as the
 * driver allows one open file (module parameter queues_per_file).
 */
m890_status_t m890_stream_create(m890_device_t device, m890_stream_t *stream);

/** m890_stream_create_config() - m890_stream_create() with @config. */
m890_status_t m890_stream_create_config(m890_device_t device,
					const struct m890_stream_config *config,
					m890_stream_t *stream);

/**
 * m890_stream_destroy() - wait for the stream's work (up to its timeout),
 * then release the queue.  Events recorded on it stay valid.
 */
m890_status_t m890_stream_destroy(m890_stream_t stream);

/** m890_stream_flush() - submit staged packets of a deferred stream. */
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

/** m890_stream_device() - device of the stream. */
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

/** m890_memcpy_dtoh() - HBM buffer @src to host buffer @dst. */
m890_status_t m890_memcpy_dtoh(m890_stream_t stream,
			       m890_buffer_t dst, uint64_t dst_offset,
			       m890_buffer_t src, uint64_t src_offset,
			       uint64_t bytes);

/** m890_memcpy_dtod() - HBM buffer to HBM buffer of the same device. */
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

/** m890_event_create() - create an event usable on streams of @device. */
m890_status_t m890_event_create(m890_device_t device, m890_event_t *event);

/** m890_event_destroy() - destroy an event (no wait). */
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

/** m890_event_query() - M890_SUCCESS if complete, else M890_NOT_READY. */
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
/* Data types, MX formats and compute packets                          */
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

/** Elements sharing one E8M0 scale byte in the MX formats. */
#define M890_MX_BLOCK		32u
/** Scale byte of a block that held a NaN or infinity (E8M0 NaN). */
#define M890_MX_SCALE_NAN	0xffu
/** Index value that skips a row in gather, scatter and reduce. */
#define M890_ROW_NONE		0xffffffffu

/**
 * m890_bf16_to_float() - exact conversion of the bfloat16 @h to float.
 * m890_float_to_bf16() - @f rounded to nearest even; overflow gives
 * infinity, every NaN gives the quiet NaN 0x7fc0.  These are the
 * conversions of the device (hardware spec §7.10, §7.11).
 */
float m890_bf16_to_float(uint16_t h);
uint16_t m890_float_to_bf16(float f);

/**
 * m890_mx_quantize_host() - quantize @count elements on the CPU exactly as
 * the device's MX_QUANT packet does (hardware spec §7.11).
 * @mx_type: M890_TYPE_MXFP4 or M890_TYPE_MXFP8.
 * @wide_type: M890_TYPE_FP32 or M890_TYPE_BF16, the type at @src.
 * @src: @count wide elements.
 * @count: a multiple of M890_MX_BLOCK (0 is a no-op).
 * @elems: receives the elements: @count / 2 bytes (MXFP4) or @count bytes.
 * @scales: receives @count / M890_MX_BLOCK scale bytes.
 *
 * Per block: a block holding a NaN or infinity gets scale
 * M890_MX_SCALE_NAN and all element codes 0; otherwise the shared exponent
 * is floor(log2(amax)) minus the element format's largest exponent (2 for
 * E2M1, 8 for E4M3), -127 for an all-zero block, clamped to -127..127, and
 * each element is the nearest element value of v / 2^shared, ties to even,
 * saturating to +-6.0 / +-448 and keeping the sign of zero.
 * Errors: M890_ERROR_INVALID_ARGUMENT (types, @count, NULL pointers with a
 * non-zero @count).
 */
m890_status_t m890_mx_quantize_host(enum m890_data_type mx_type,
				    enum m890_data_type wide_type,
				    const void *src, uint64_t count,
				    void *elems, uint8_t *scales);

/**
 * m890_mx_dequantize_host() - the inverse, as the device's MX_DEQUANT:
 * each output is element * 2^(scale - 127) in binary32 (infinity on
 * overflow), rounded to nearest even for BF16 output; a NaN scale byte or
 * an E4M3 NaN element gives the quiet NaN 0x7fc00000 (FP32) or 0x7fc0
 * (BF16).  Arguments as m890_mx_quantize_host(), with @elems and @scales
 * read and @dst (@count elements of @wide_type) written.
 */
m890_status_t m890_mx_dequantize_host(enum m890_data_type mx_type,
				      enum m890_data_type wide_type,
				      const void *elems, const uint8_t *scales,
				      uint64_t count, void *dst);

/**
 * m890_reduce_host() - the device's REDUCE on the CPU (hardware spec
 * §7.10): for each output row r < @rows and element h < @hidden,
 * acc = +0.0f, then for j = 0..@k-1 with i = @idx[r * @k + j] not
 * M890_ROW_NONE, acc = acc + @weight[r * @k + j] * src[i][h], each step a
 * binary32 multiply and add rounded to nearest even; @dst[r][h] = acc
 * (rounded to nearest even for BF16).
 * @type: M890_TYPE_FP32 or M890_TYPE_BF16, the type of @src and @dst.
 * @src: rows of @hidden elements; every index used must be a row of it
 *       (not checked: the caller owns the table's size).
 * @k: 1..64.  @rows, @hidden: 0 is a no-op.
 * Errors: M890_ERROR_INVALID_ARGUMENT (@type, @k, NULL pointers).
 */
m890_status_t m890_reduce_host(enum m890_data_type type, const void *src,
			       void *dst, const uint32_t *idx,
			       const float *weight, uint32_t rows,
			       uint32_t hidden, unsigned int k);

/**
 * m890_mx_quantize() - enqueue an MX_QUANT packet: @count elements of
 * @wide_type at @src_va (element aligned) become @mx_type elements at
 * @elems_va and scale bytes at @scales_va, with the rules of
 * m890_mx_quantize_host() (the results are bit-identical).  VAs are on the
 * stream's device; the three ranges must not overlap.
 * Errors: M890_ERROR_INVALID_ARGUMENT (types, @count not a multiple of
 * M890_MX_BLOCK or above 2^36, alignment, wrapping range); bad VAs and a
 * card without MX support are reported asynchronously
 * (M890_ERROR_DEVICE_FAULT, M890_ERROR_DEVICE_ERROR).
 */
m890_status_t m890_mx_quantize(m890_stream_t stream,
			       enum m890_data_type mx_type,
			       enum m890_data_type wide_type,
			       uint64_t src_va, uint64_t elems_va,
			       uint64_t scales_va, uint64_t count);

/**
 * m890_mx_dequantize() - enqueue an MX_DEQUANT packet: the inverse of
 * m890_mx_quantize(), writing @count @wide_type elements to @dst_va
 * (element aligned), bit-identical to m890_mx_dequantize_host().
 */
m890_status_t m890_mx_dequantize(m890_stream_t stream,
				 enum m890_data_type mx_type,
				 enum m890_data_type wide_type,
				 uint64_t elems_va, uint64_t scales_va,
				 uint64_t dst_va, uint64_t count);

/**
 * m890_gather() - enqueue a GATHER: for i < @count with idx[i] not
 * M890_ROW_NONE, copy @row_bytes bytes from @src_va + idx[i] * @row_bytes
 * to @dst_va + i * @row_bytes (rows whose index is M890_ROW_NONE are left
 * untouched).
 * @idx_va: @count uint32_t indices, 4-byte aligned.
 * @row_bytes: 1 .. 2^32 - 1.  @count: 0 .. 2^24 (0 is a no-op).
 * Errors: M890_ERROR_INVALID_ARGUMENT for the limits and alignment; an
 * index outside the mapped table is an async M890_ERROR_DEVICE_FAULT.
 */
m890_status_t m890_gather(m890_stream_t stream, uint64_t dst_va,
			  uint64_t src_va, uint64_t idx_va,
			  uint64_t row_bytes, uint64_t count);

/**
 * m890_scatter() - enqueue a SCATTER: for i < @count with idx[i] not
 * M890_ROW_NONE, copy row i of @src_va to @dst_va + idx[i] * @row_bytes,
 * in ascending i (of equal indices the larger i wins).  Limits and errors
 * as m890_gather().
 */
m890_status_t m890_scatter(m890_stream_t stream, uint64_t dst_va,
			   uint64_t src_va, uint64_t idx_va,
			   uint64_t row_bytes, uint64_t count);

/**
 * m890_reduce() - enqueue a REDUCE (the mixture-of-experts combine),
 * bit-identical to m890_reduce_host() with the same arguments as VAs.
 * @src_va, @dst_va: element aligned; @dst_va must not overlap the inputs.
 * @idx_va: @rows * @k uint32_t; @weight_va: @rows * @k floats; both 4-byte
 * aligned.  @rows: 0 .. 2^24, @hidden: 0 .. 2^20, @k: 1..64.
 * Errors: M890_ERROR_INVALID_ARGUMENT for the limits and alignment, async
 * errors as m890_gather().
 */
m890_status_t m890_reduce(m890_stream_t stream, enum m890_data_type type,
			  uint64_t dst_va, uint64_t src_va, uint64_t idx_va,
			  uint64_t weight_va, uint32_t rows, uint32_t hidden,
			  unsigned int k);

/* ------------------------------------------------------------------ */
/* Grouped GEMM: the expert FFN (hardware spec §7.15, CAPS.GEMM)       */
/* ------------------------------------------------------------------ */

/** GEMM flags. */
#define M890_GEMM_SWIGLU	(1u << 0)	/* out = silu(gate) * up */
#define M890_GEMM_SCATTER_ADD	(1u << 1)	/* weighted add by output index */

/**
 * struct m890_gemm_shape - shape of a grouped GEMM (m890_gemm(),
 * m890_gemm_host()).  Start from M890_GEMM_SHAPE_INIT.
 * @size: sizeof(struct m890_gemm_shape), set by the initializer; checked.
 * @flags: M890_GEMM_SWIGLU, M890_GEMM_SCATTER_ADD.
 * @a_type: activations, M890_TYPE_BF16 or M890_TYPE_MXFP8.
 * @w_type: weights, M890_TYPE_BF16 or M890_TYPE_MXFP4.
 * @groups: experts (matrices), 0 .. 2^24; with SCATTER_ADD at most 255.
 * @k: elements of an input row, a multiple of 32, 0 .. 16384.
 * @n: output columns, 0 .. 16384.
 * @cap: rows per group in the expert-major lists, 0 .. 2^24; @groups *
 *       @cap at most 2^24.
 *
 * Layout, with x = g * cap + p for row p < count[g] of group g:
 *   a       rows of m890_gemm_row_bytes(@a_type, @k): BF16 elements, or
 *           MX elements then their k / 32 E8M0 scales (the dispatch's
 *           receive rows); row @idx[x] (M890_ROW_NONE: skipped) when
 *           @idx is given without SCATTER_ADD, else row x.
 *   w       per group Nw = @n rows (2 * @n with SWIGLU: the gate rows,
 *           then the up rows) of m890_gemm_row_bytes(@w_type, @k), each
 *           one output column's K weights; group g at g * Nw * row bytes.
 *   out     bf16 rows of @n: row x; with SCATTER_ADD row @idx[x] gets
 *           @weight[x] * v added (its first write in the call stores it).
 *   counts  @groups uint32 (NULL/0: every group has @cap rows); a count
 *           above @cap fails with M890_ERROR_CAPACITY.
 * Each output element is sum_k a[k] * w[k] in binary32 from +0.0 in
 * ascending k, every product and sum rounded to nearest even (no FMA),
 * operands dequantized as MX_DEQUANT does; SWIGLU applies silu(gate) *
 * up as the spec defines it; the result is rounded once to bf16 (every
 * NaN 0x7fc0).  This is the layout m890_ep_get_recv() describes: rows,
 * expert_count and expert_rows of a device-routed dispatch are a, counts
 * and idx of the gate/up GEMM, and expert_rows and expert_weight the idx
 * and weight of a SCATTER_ADD down GEMM into partial.
 */
struct m890_gemm_shape {
	uint32_t size;
	uint32_t flags;
	enum m890_data_type a_type;
	enum m890_data_type w_type;
	uint32_t groups;
	uint32_t k;
	uint32_t n;
	uint32_t cap;
};
#define M890_GEMM_SHAPE_INIT \
	{ .size = sizeof(struct m890_gemm_shape), .flags = 0, \
	  .a_type = M890_TYPE_BF16, .w_type = M890_TYPE_BF16, .groups = 0, \
	  .k = 0, .n = 0, .cap = 0 }

/**
 * m890_gemm_row_bytes() - bytes of one GEMM operand row of @k elements of
 * @type: 2k for BF16, k + k / 32 for MXFP8, k / 2 + k / 32 for MXFP4 (the
 * elements, then the scales); 0 for another type.
 */
uint64_t m890_gemm_row_bytes(enum m890_data_type type, uint64_t k);

/**
 * m890_gemm() - enqueue a grouped GEMM of @shape on @stream: VAs on the
 * stream's card; @idx_va, @counts_va, @weight_va 4-byte aligned or 0 (see
 * struct m890_gemm_shape); @out_va must not overlap the inputs.
 * Bit-identical to m890_gemm_host().  More than 255 groups become several
 * packets, in group order.  Errors: M890_ERROR_INVALID_ARGUMENT (shape,
 * flags, alignment, SCATTER_ADD without @idx_va or @weight_va, a weight
 * list without it), M890_ERROR_NOT_SUPPORTED (a card without CAPS.GEMM),
 * the stream's sticky error; asynchronously M890_ERROR_CAPACITY (a count
 * above @cap), M890_ERROR_DEVICE_FAULT and M890_ERROR_DEVICE_ERROR.
 */
m890_status_t m890_gemm(m890_stream_t stream,
			const struct m890_gemm_shape *shape, uint64_t a_va,
			uint64_t w_va, uint64_t out_va, uint64_t idx_va,
			uint64_t counts_va, uint64_t weight_va);

/**
 * m890_gemm_host() - the grouped GEMM on the CPU with the device's
 * arithmetic (host pointers, the layout of struct m890_gemm_shape;
 * indices are not checked against the buffers' sizes).  @idx, @counts,
 * @weight may be NULL as their VAs may be 0.  Errors:
 * M890_ERROR_INVALID_ARGUMENT (shape, NULL operands, a SCATTER_ADD row
 * number of 2^20 or more), M890_ERROR_CAPACITY (a count above @cap; the
 * groups before it are computed), M890_ERROR_OUT_OF_HOST_MEMORY.
 */
m890_status_t m890_gemm_host(const struct m890_gemm_shape *shape,
			     const void *a, const void *w, void *out,
			     const uint32_t *idx, const uint32_t *counts,
			     const float *weight);

/* ------------------------------------------------------------------ */
/* Communicators and all-to-all                                        */
/* ------------------------------------------------------------------ */

/** Opaque communicator over several cards of this process. */
typedef struct m890_comm *m890_comm_t;

/**
 * struct m890_comm_config - options of m890_comm_create().  Start from
 * M890_COMM_CONFIG_INIT, then change fields.
 * @size, @magic, @version: set by the initializer; checked.
 * @flags: none defined, 0.
 * @timeout_ns: how long m890_comm_synchronize() waits for the streams,
 *              and on per-rank communicators how long a collective waits
 *              for every rank to make the same call (M890_TIMEOUT_INFINITE:
 *              no limit).
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
#define M890_COMM_DEFAULT_CHUNK_BYTES	(4ull << 20)
#define M890_COMM_CONFIG_MAGIC		0x4d38434du	/* "M8CM" */
#define M890_COMM_CONFIG_VERSION	1
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
 * @comm: returned handle.
 *
 * Allocates per rank a small HBM semaphore area and a host progress area,
 * imports every peer's semaphore area, and zeroes them (briefly using a
 * stream of each device).  The devices cannot be closed while the
 * communicator exists.  Errors: M890_ERROR_INVALID_ARGUMENT (@n, NULL or
 * repeated devices, config), M890_ERROR_NOT_SUPPORTED (cards that cannot
 * reach each other), allocation and M890_ERROR_BUSY (no free queue).
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
 * @config, @comm: as m890_comm_create().
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
 * queue of the card (its control stream).  Errors: as
 * m890_comm_create(), and M890_ERROR_TIMEOUT when the ranks did not all
 * meet in time.
 */
m890_status_t m890_comm_create_rank(m890_device_t device, int rank, int n,
				    const char *bootstrap_path,
				    const struct m890_comm_config *config,
				    m890_comm_t *comm);

/**
 * struct m890_comm_fabric_config - the ranks of m890_comm_create_fabric().
 * Start from M890_COMM_FABRIC_CONFIG_INIT, then set the fields.
 * @size, @magic, @version: set by the initializer; checked.
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
#define M890_COMM_FABRIC_CONFIG_MAGIC	0x4d384346u	/* "M8CF" */
#define M890_COMM_FABRIC_CONFIG_VERSION	1
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
 * @config: as m890_comm_create(); its @timeout_ns also bounds the setup.
 * @comm: returned handle.
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
 * ranks.  Errors: M890_ERROR_INVALID_ARGUMENT (config, a device whose
 * fabric id is not a rank's, a comm_id whose keys are already exported on
 * a card), M890_ERROR_NOT_SUPPORTED (a card without fabric windows, or
 * peers in another partition), M890_ERROR_TIMEOUT naming the first rank
 * and fabric id that did not export in time, allocation errors.
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

/** Bytes of an m890_unique_id_t. */
#define M890_UNIQUE_ID_BYTES	128
/** Room m890_unique_id_to_string() needs, NUL included. */
#define M890_UNIQUE_ID_STRLEN	160

/** Opaque id of a communicator to build (see m890_get_unique_id()). */
typedef struct m890_unique_id {
	unsigned char internal[M890_UNIQUE_ID_BYTES];
} m890_unique_id_t;

/**
 * m890_get_unique_id() - a new random communicator id in @id.
 * @device: NULL for ranks of one machine that meet at a Unix socket (one
 *          per process); or the meeting card, whose rank's process must
 *          take part: with fabric windows the ranks meet through the
 *          switch (any process, VM or card), else as for NULL.
 * Errors: M890_ERROR_INVALID_ARGUMENT (NULL @id), INVALID_HANDLE,
 * M890_ERROR_SYSTEM (no randomness from getrandom(2)).
 */
m890_status_t m890_get_unique_id(m890_device_t device, m890_unique_id_t *id);

/**
 * m890_unique_id_to_string() - @id as text of less than
 * M890_UNIQUE_ID_STRLEN bytes, "m890-fabric:<16 hex digits>:<fabric id>"
 * or "m890-socket:<16 hex digits>:<path>", into @buf of @len bytes.
 * Errors: M890_ERROR_INVALID_ARGUMENT (not an id, @buf too small).
 */
m890_status_t m890_unique_id_to_string(const m890_unique_id_t *id, char *buf,
				       size_t len);

/**
 * m890_unique_id_from_string() - the id that m890_unique_id_to_string()
 * wrote as @text (also one a launcher wrote in that form; its ranks then
 * meet where it says).  Errors: M890_ERROR_INVALID_ARGUMENT naming the
 * expected form.
 */
m890_status_t m890_unique_id_from_string(const char *text, m890_unique_id_t *id);

/**
 * m890_comm_init_ranks() - this process's ranks of the communicator of
 * @id (see "Communicators from a unique id"); every process calls it with
 * the same @id and @nranks and its own ranks.
 * @nranks: 1 .. 64.  @ndevices: 1 .. @nranks.
 * @ranks: [@ndevices] increasing rank numbers; @devices: [@ndevices] their
 *         open cards, distinct.
 * @config, @comm: as m890_comm_create(); the config's timeout also bounds
 *         the meeting.
 * Errors: M890_ERROR_INVALID_ARGUMENT (not an id, ranks, another @nranks
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
 * m890_comm_init_rank() - m890_comm_init_ranks() of one rank: @rank of
 * @nranks on @device.
 */
m890_status_t m890_comm_init_rank(const m890_unique_id_t *id, int nranks,
				  int rank, m890_device_t device,
				  const struct m890_comm_config *config,
				  m890_comm_t *comm);

/**
 * m890_comm_rank() - this process's rank in @rank, or -1 when the process
 * holds several ranks of the communicator (every rank for
 * m890_comm_create(); for m890_comm_create_fabric() the ranks follow from
 * the fabric ids of its devices).
 */
m890_status_t m890_comm_rank(m890_comm_t comm, int *rank);

/**
 * m890_comm_register() - collective over the processes of a
 * m890_comm_create_rank() or m890_comm_create_fabric() communicator: every
 * rank registers one of its HBM buffers, in the same order everywhere, and
 * imports every peer's as a window, so that collectives can write into it.
 * On a fabric communicator the buffer's device names the local rank; the
 * call only exports it, and the windows on the peers' buffers of the same
 * registration number are opened by the first collective that uses it
 * (waiting for the peers up to the timeout).  The k-th registration of
 * a rank is paired with the k-th of every peer: a collective names its
 * receive buffer to the peers by that number, so a peer may register a
 * buffer of another size (bounds are checked against each peer's own).
 * The buffer must stay allocated until m890_comm_destroy().  Errors:
 * M890_ERROR_INVALID_ARGUMENT (a communicator with every rank local, a
 * host buffer, a peer that failed to register), M890_ERROR_TIMEOUT (a
 * peer did not take part), import errors.
 */
m890_status_t m890_comm_register(m890_comm_t comm, m890_buffer_t buffer);

/**
 * m890_comm_deregister() - undo m890_comm_register() of @buffer, so that
 * it can be freed (or reused elsewhere) while the communicator lives.
 * Every collective that used it must have completed.
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
 * Errors: the sticky communicator error, M890_ERROR_INVALID_HANDLE,
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
 * Errors: those of m890_alltoall(), and M890_ERROR_INVALID_ARGUMENT for a
 * communicator of which this process holds several ranks or every rank
 * (only this process then fails: use m890_alltoall()).
 */
m890_status_t m890_alltoall_rank(m890_comm_t comm, m890_buffer_t sendbuf,
				 m890_buffer_t recvbuf,
				 uint64_t bytes_per_peer,
				 m890_stream_t stream);

/**
 * m890_alltoall_local() - m890_alltoall() on a m890_comm_create_rank() or
 * m890_comm_create_fabric() communicator (kept for existing callers):
 * @sendbufs, @recvbufs (registered) and @streams have one entry per
 * local rank, in the order of the fabric config's devices (one entry
 * for m890_comm_create_rank()).  Errors: those of m890_alltoall(), and
 * M890_ERROR_INVALID_ARGUMENT on a m890_comm_create() communicator.
 */
m890_status_t m890_alltoall_local(m890_comm_t comm, const m890_buffer_t *sendbufs,
				  const m890_buffer_t *recvbufs,
				  uint64_t bytes_per_peer,
				  const m890_stream_t *streams);

/**
 * m890_comm_destroy() - free a communicator and the windows it imported
 * (on a fabric communicator, the registered buffers are also withdrawn
 * from the switch, so that another communicator can register them).
 * Every stream that ran its collectives must have completed (synchronize
 * them, or abort first).
 */
m890_status_t m890_comm_destroy(m890_comm_t comm);

/**
 * m890_comm_abort() - give up on the communicator's outstanding work:
 * every stream blocked in one of its waits is released (the transfers not
 * yet made are skipped or land late; received data is undefined), and the
 * communicator's error becomes M890_ERROR_CANCELED unless an error was
 * already recorded.  Every later collective returns that error.  Peers
 * in other processes are released through this process's slots in their
 * semaphore areas, except the peers a local rank is stuck waiting for
 * (likely gone: writing into a window their exit revoked would fault this
 * process's context); a peer that left after the collective may still
 * make that write fault (M890_ERROR_DEVICE_FAULT).  The handle stays
 * valid for m890_comm_destroy().  M890_ERROR_BUSY when a card
 * has no free queue to send the release.
 */
m890_status_t m890_comm_abort(m890_comm_t comm);

/** m890_comm_count() - number of ranks, in @n. */
m890_status_t m890_comm_count(m890_comm_t comm, int *n);

/**
 * m890_comm_get_async_error() - the communicator's sticky error in
 * @error (M890_SUCCESS if none); m890_get_last_error() then names the rank
 * and the peer involved.
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
 * @sendbufs, @recvbufs, @streams: one per rank of this process, in local
 *     order (see "Collectives on per-rank communicators").
 * @bytes_per_peer: the same at every rank; on a per-rank communicator a
 *     rank that passes another size makes every rank fail with
 *     M890_ERROR_INVALID_ARGUMENT naming rank 0's size and the first
 *     other one.
 * Errors: those of m890_alltoallv(); @bytes_per_peer times n overflowing
 * 64 bits is M890_ERROR_INVALID_ARGUMENT.
 */
m890_status_t m890_alltoall(m890_comm_t comm, const m890_buffer_t *sendbufs,
			    const m890_buffer_t *recvbufs,
			    uint64_t bytes_per_peer,
			    const m890_stream_t *streams);

/**
 * m890_alltoallv() - enqueue an all-to-all with per-pair sizes.
 * @sendbufs, @recvbufs, @streams: arrays of m, the number of ranks this
 *     process holds (n for m890_comm_create()): entry l is local rank
 *     l's buffer or stream, all of its device.  Receive buffers are HBM
 *     (peers write them through the fabric) and, on a per-rank
 *     communicator, registered; send buffers are HBM or host memory.  A
 *     rank's send and receive buffer must differ (in place is refused).
 * @sendcounts, @sdispls: m * n bytes and offsets (64-bit), row l for
 *     local rank l: it sends @sendcounts[l * n + j] bytes from offset
 *     @sdispls[l * n + j] of @sendbufs[l] to rank j.
 * @recvcounts, @rdispls: m * n, row l for local rank l: it receives
 *     @recvcounts[l * n + i] bytes from rank i at offset
 *     @rdispls[l * n + i] of @recvbufs[l].  Counts of 0 are legal.
 *     For m890_comm_create() l is the rank: rows are row-major by
 *     sender and by receiver over all n ranks.
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
 * Errors (nothing is enqueued, at any rank; on per-rank communicators
 * every rank gets the same status and message): the sticky communicator
 * error; M890_ERROR_INVALID_ARGUMENT for NULL arrays, in-place buffers,
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

/** enum m890_p2p_kind - one side of a point-to-point transfer. */
enum m890_p2p_kind {
	M890_P2P_SEND = 0,
	M890_P2P_RECV = 1,
};

/**
 * struct m890_p2p - one send or receive of a grouped batch.
 * @kind: enum m890_p2p_kind.
 * @rank: the rank doing it, one of this process's; @peer: the other
 *        rank (may equal @rank).
 * @reserved: 0.
 * @buffer: @rank's buffer: the source of a send (HBM or host), the
 *          destination of a receive (HBM, peers write it through the
 *          fabric; registered on a per-rank communicator unless @peer
 *          is @rank).
 * @offset, @bytes: the range in @buffer; 0 bytes is legal.
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
 * @ops: @count operations of this process's ranks in any order (the
 *        order of one rank's operations with one peer is their matching
 *        order).  @streams: one per rank of this process, in local order.
 * On a per-rank communicator each process passes its ranks' operations;
 * the matching runs on every rank's operations, gathered through the
 * cards (see "Collectives on per-rank communicators").
 * Errors (nothing enqueued at any rank; the same at every rank of a
 * per-rank communicator): M890_ERROR_INVALID_ARGUMENT for a send or a
 * receive without its match or with another size (the message names
 * both ranks), a bad kind or rank, a rank of another process, reserved
 * not 0, a range past its buffer, a host or unregistered receive buffer,
 * a receive range that overlaps another receive's or a send's (in place
 * is refused); M890_ERROR_DEVICE_MISMATCH; the sticky errors.
 */
m890_status_t m890_group_sendrecv(m890_comm_t comm, const struct m890_p2p *ops,
				  size_t count, const m890_stream_t *streams);

/**
 * m890_comm_synchronize() - wait, up to the communicator's timeout, until
 * the n @streams (as passed to the collectives; for a communicator of
 * m890_comm_create_rank(), a pointer to this rank's one stream; for one of
 * m890_comm_create_fabric(), the local ranks' streams in the order of its
 * devices) have executed their work.
 * On failure the error is made sticky and the message names the rank and
 * the peers whose data has not arrived: M890_ERROR_TIMEOUT when the
 * deadline passed (the work keeps running; m890_comm_abort() releases
 * it), or the stream's own async error.
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

/** enum m890_red_op - reduction operations.  Values are never reused. */
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

/** Scratch HBM per rank of a communicator that ran a reduction. */
#define M890_COMM_SCRATCH_BYTES		(4ull << 20)
/** M890_ALGO_AUTO's largest one-shot allreduce, bytes per rank. */
#define M890_ALLREDUCE_ONE_SHOT_MAX_BYTES	(256ull << 10)

/**
 * struct m890_coll_opts - options of one device collective.  Start from
 * M890_COLL_OPTS_INIT, then change fields; NULL means the defaults.
 * @size, @magic, @version: set by the initializer; checked.
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
#define M890_COLL_OPTS_MAGIC	0x4d384f50u	/* "M8OP" */
#define M890_COLL_OPTS_VERSION	1
#define M890_COLL_OPTS_INIT \
	{ .size = sizeof(struct m890_coll_opts), \
	  .magic = M890_COLL_OPTS_MAGIC, .version = M890_COLL_OPTS_VERSION, \
	  .flags = 0, .algorithm = M890_ALGO_AUTO, .reserved = 0, \
	  .events = NULL }

/**
 * m890_allreduce() - enqueue an allreduce: every rank's @recvbufs entry
 * receives, for each element e < @count, the sum over ranks in rank order
 * of element e of their @sendbufs entries (see "Device collectives").
 * @sendbufs: @count elements of @type each (HBM or host).
 * @recvbufs: @count elements each, HBM, registered on a per-rank
 *            communicator; equal to the send buffer for in place.
 * @count: elements, 0 .. 2^40.  @type: M890_TYPE_FP32 or M890_TYPE_BF16.
 * @op: M890_OP_SUM.  @streams: one per local rank.  @opts: NULL or see
 * struct m890_coll_opts.
 * Errors (nothing enqueued, at every rank alike): INVALID_ARGUMENT (NULL
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
 * only (HBM or host, never registered for this).  Arguments and errors
 * as m890_allreduce().
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
 * i's part is already at i * @bytes_per_rank.  Errors as
 * m890_allreduce().
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
 * place.  Errors as m890_allreduce(), and INVALID_ARGUMENT for a @root
 * that is not a rank.
 */
m890_status_t m890_broadcast(m890_comm_t comm, const m890_buffer_t *sendbufs,
			     const m890_buffer_t *recvbufs, uint64_t bytes,
			     int root, const m890_stream_t *streams,
			     const struct m890_coll_opts *opts);

/**
 * m890_barrier() - enqueue a barrier on the cards: work enqueued on a
 * rank's stream after the call starts only once every rank's stream has
 * reached the barrier (earlier work done).  The host does not wait.
 * Errors as m890_allreduce().
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
 * (at most 64).  Other calls (EP, registration, synchronization) are not
 * deferred: they run at once, ahead of the group's.  Groups nest: only
 * the outermost m890_group_end() runs the calls.
 */

/**
 * m890_group_start() - start (or nest) a group on the calling thread; the
 * collectives that follow are deferred to m890_group_end().
 */
m890_status_t m890_group_start(void);

/**
 * m890_group_end() - end the group; the outermost one runs its calls
 * (see "Groups of collectives") and returns the first failure, with its
 * message: the failing call's errors (nothing of its communicator's group
 * enqueued when the failure was one of the agreement or the checks),
 * M890_ERROR_INVALID_ARGUMENT when there is no open group or the ranks'
 * groups differ, M890_ERROR_OUT_OF_HOST_MEMORY when a call could not be
 * recorded.  The calls of the other communicators still run.
 */
m890_status_t m890_group_end(void);

/* ------------------------------------------------------------------ */
/* Expert parallelism: MoE dispatch and combine                        */
/* ------------------------------------------------------------------ */

/*
 * An EP object runs the token dispatch and combine of a mixture-of-experts
 * layer over a communicator of n ranks (one card each), of any kind: every
 * rank in this process (m890_comm_create()), one process per card
 * (m890_comm_create_rank()) or cards in several processes or VMs
 * (m890_comm_create_fabric()).  Expert e lives on rank e / L, as local
 * expert e % L, with L = num_experts / n.
 *
 * Arrays of the calls have one entry per rank this process holds, in
 * local order: rank order for m890_comm_create(), the one rank for
 * m890_comm_create_rank(), the order of the fabric config's devices for
 * m890_comm_create_fabric().  On the last two ("per-rank" communicators)
 * every call below that takes the EP object is collective: every process
 * calls it, in the same order, and the receive and expert output buffers
 * the peers reach must be registered with m890_comm_register() (any
 * registration number: each rank tells the others its own).
 *
 * Shapes and units, per rank (T = max_tokens_per_rank, H = hidden,
 * C = expert capacity, k = top_k):
 *   x           HBM, T rows of H bf16 (row t at t * 2H bytes): the tokens.
 *   topk_idx    host, num_tokens * k int32: expert ids, -1 = none; the ids
 *               of one token must differ.
 *   topk_w      host, num_tokens * k float: the combine weights.
 *   recv        HBM, L * C rows of row_bytes: expert-major receive buffer;
 *               local expert l owns rows [l * C, l * C + counts[l]).  A row
 *               holds H payload elements (bf16, or MX elements: MXFP8 one
 *               byte each, MXFP4 two per byte with the even element in bits
 *               3:0) followed, for MX payloads, by H / 32 E8M0 scale bytes.
 *               Rows of an expert are ordered by source rank, then token,
 *               then top-k slot.  Rows past the count are not written.
 *   counts      HBM, L uint32: rows received per local expert.
 *   expert_out  HBM, L * C rows of H bf16, the same row order as recv: the
 *               experts' outputs, written by the caller between dispatch
 *               and combine.
 *   out         HBM, T rows of H bf16: the combine result, for each token
 *               t < num_tokens: the binary32 sum, in ascending top-k slot,
 *               of weight * expert_out row (rounded once to bf16), exactly
 *               as m890_reduce_host(); a token with no expert gets zeros.
 *
 * Where the work runs: the card quantizes (MX_QUANT), packs rows
 * (COPY_2D), gathers the rows for each destination (GATHER), writes them
 * straight into the peers' receive buffers through the fabric (SCATTER),
 * fetches expert outputs from the peers (GATHER from their windows) and
 * sums them (REDUCE); the host only enqueues.  The routing layout - the
 * per-expert counts and each row's slot - is computed on the host from
 * the topk_idx arrays the caller passes (the card has no counting packet);
 * the index lists and counts are put in host memory the cards read by DMA,
 * and each card copies its counts into @counts.  Capacity is therefore
 * checked before anything is enqueued.
 *
 * Host metadata round (per-rank communicators): a rank's slots depend on
 * how many rows every rank sends to each expert, which only the other
 * processes know.  So m890_ep_dispatch() first exchanges one record per
 * rank between the processes (its status, token count, registration of
 * @recv and its row count per expert: 16 + 4 * num_experts bytes), the
 * counterpart of DeepEP's notify step in its normal mode; the records
 * move through the cards (SIGNAL/WAIT and COPY through the communicator's
 * windows; there is no network) and the call blocks until every rank's
 * record arrived, up to the communicator's timeout.  Every process then
 * holds the same n x num_experts count matrix: the capacity check gives
 * the same verdict at every rank, m890_ep_layout_counts() the counts of
 * every expert, and a rank whose own checks failed makes the call fail
 * at every rank with nothing enqueued.  m890_ep_combine() exchanges only
 * a status and the registration of @expert_out (16 bytes per rank), and
 * m890_ep_create() the configuration, which must be the same at every
 * rank.  A call refused before its round (an invalid handle, a NULL
 * array, a layout of another EP object or without a dispatch, the
 * communicator's sticky error) does not take part in it: the peers'
 * calls then time out naming this rank.  Everything else - the index lists, quantization, the transfers,
 * the sums - is computed by each process for its own ranks and runs on
 * the cards as above.  With every rank in one process there is no round.
 *
 * Determinism: the slots depend only on the routing, the transfers of
 * different sources never overlap, and REDUCE sums in a fixed order, so
 * repeated runs give bit-identical recv, counts and out.
 */
typedef struct m890_ep *m890_ep_t;
/** Opaque routing layout of one dispatch, consumed by the combine. */
typedef struct m890_ep_layout *m890_ep_layout_t;

/**
 * struct m890_ep_config - shape of an EP object.  Start from
 * M890_EP_CONFIG_INIT, then set the fields.
 * @size, @magic, @version: set by the initializer; checked.
 * @flags: 0, or M890_EP_F_DEVICE_ROUTING (below).
 * @max_tokens_per_rank: T, 1 .. 65536.
 * @hidden: H, elements per token, a multiple of 32, 32 .. 65536.
 * @num_experts: a multiple of the ranks, up to 65536.
 * @top_k: 1 .. 64.
 * @dispatch_type: M890_TYPE_BF16, M890_TYPE_MXFP8 or M890_TYPE_MXFP4: the
 *                 payload of recv (the combine is always bf16).
 * @expert_capacity: C, rows per local expert; 0 = n * T, which no routing
 *                   can overflow.
 */
struct m890_ep_config {
	uint32_t size;
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t max_tokens_per_rank;
	uint32_t hidden;
	uint32_t num_experts;
	uint32_t top_k;
	uint32_t dispatch_type;
	uint32_t expert_capacity;
	uint64_t reserved;
};
#define M890_EP_CONFIG_MAGIC	0x4d384550u	/* "M8EP" */
#define M890_EP_CONFIG_VERSION	1
#define M890_EP_CONFIG_INIT \
	{ .size = sizeof(struct m890_ep_config), \
	  .magic = M890_EP_CONFIG_MAGIC, .version = M890_EP_CONFIG_VERSION, \
	  .flags = 0, .max_tokens_per_rank = 0, .hidden = 0, \
	  .num_experts = 0, .top_k = 0, .dispatch_type = M890_TYPE_BF16, \
	  .expert_capacity = 0, .reserved = 0 }

/**
 * struct m890_ep_info - sizes derived from the configuration, in bytes
 * unless stated.  Buffers passed to dispatch and combine must be at least
 * this large.
 * @num_ranks: n.  @num_local_experts: L.  @expert_capacity: C (rows).
 * @row_bytes: one recv row.  @elem_bytes: its payload part (the scales,
 *             row_bytes - elem_bytes bytes, follow).
 * @x_bytes, @out_bytes: T * H * 2.  @recv_bytes: L * C * row_bytes.
 * @expert_out_bytes: L * C * H * 2.  @counts_bytes: L * 4.
 * @scratch_bytes: HBM the EP object itself holds on each card.
 */
struct m890_ep_info {
	uint32_t num_ranks;
	uint32_t num_local_experts;
	uint32_t expert_capacity;
	uint32_t row_bytes;
	uint32_t elem_bytes;
	uint32_t reserved;
	uint64_t x_bytes;
	uint64_t out_bytes;
	uint64_t recv_bytes;
	uint64_t expert_out_bytes;
	uint64_t counts_bytes;
	uint64_t scratch_bytes;
};

/**
 * m890_ep_create() - an EP object over @comm with the shape @config.
 * Allocates per local card the HBM scratch (packed rows, send rows,
 * fetched expert outputs) and a host area for the routing layout.  The
 * communicator must outlive the object.  Collective on a per-rank
 * communicator: every process passes the same @config.
 * Errors: M890_ERROR_INVALID_ARGUMENT (config, limits, num_experts not a
 * multiple of the ranks, a rank whose config differs or whose creation
 * failed, named), M890_ERROR_OUT_OF_DEVICE_MEMORY, M890_ERROR_TIMEOUT
 * naming the ranks that did not take part, the communicator's sticky
 * error.
 */
m890_status_t m890_ep_create(m890_comm_t comm,
			     const struct m890_ep_config *config,
			     m890_ep_t *ep);

/** m890_ep_destroy() - free @ep; its enqueued work must have completed. */
m890_status_t m890_ep_destroy(m890_ep_t ep);

/** m890_ep_get_info() - the derived sizes of @ep. */
m890_status_t m890_ep_get_info(m890_ep_t ep, struct m890_ep_info *info);

/**
 * m890_ep_layout_create() - a layout handle for @ep (host memory for the
 * index lists of one dispatch and its combine).  A layout can be reused:
 * dispatch first waits for the work that last used it.
 */
m890_status_t m890_ep_layout_create(m890_ep_t ep, m890_ep_layout_t *layout);

/** m890_ep_layout_destroy() - free a layout; its work must have completed. */
m890_status_t m890_ep_layout_destroy(m890_ep_layout_t layout);

/**
 * m890_ep_layout_counts() - host copy of the per-expert counts of the
 * layout's last dispatch: @counts receives num_experts uint32, expert e
 * at index e (global numbering), every rank's experts also on a per-rank
 * communicator.  M890_ERROR_INVALID_ARGUMENT before the first dispatch.
 */
m890_status_t m890_ep_layout_counts(m890_ep_layout_t layout,
				    uint32_t *counts);

/**
 * m890_ep_dispatch() - enqueue the dispatch of the local ranks' tokens.
 * Arrays have one entry per local rank (see above; local rank l's
 * objects are on its card).
 * @layout: filled with this dispatch's routing; pass it to the combine.
 * @x: tokens (see the shapes above).  @num_tokens: 0 .. T per rank; the
 *     ranks' counts may differ.
 * @topk_idx, @topk_w: host arrays of num_tokens[l] * k.
 * @recv, @counts: the outputs (see above); on a per-rank communicator
 *     each @recv registered.
 * @streams: local rank l's stream.
 *
 * On a per-rank communicator the call first runs the metadata round (see
 * above) and blocks until every rank joined it.  It returns once the work
 * is enqueued; m890_comm_synchronize() (or the streams) waits for it.
 * @x must not change and @recv must not be read until then.  Errors
 * (nothing enqueued, at every rank alike): M890_ERROR_CAPACITY when an
 * expert would receive more than C rows (the message names the expert,
 * its count and C); M890_ERROR_INVALID_ARGUMENT for NULL arrays, token
 * counts above T, expert ids out of range or repeated within a token,
 * buffers smaller than the sizes of m890_ep_get_info(), host buffers, a
 * @recv not registered (at the other ranks: "rank N refused the call");
 * M890_ERROR_DEVICE_MISMATCH; M890_ERROR_TIMEOUT (sticky) naming the
 * ranks whose record did not arrive; the communicator's and streams'
 * sticky errors.
 */
m890_status_t m890_ep_dispatch(m890_ep_t ep, m890_ep_layout_t layout,
			       const m890_buffer_t *x,
			       const uint32_t *num_tokens,
			       const int32_t *const *topk_idx,
			       const float *const *topk_w,
			       const m890_buffer_t *recv,
			       const m890_buffer_t *counts,
			       const m890_stream_t *streams);

/**
 * m890_ep_combine() - enqueue the combine of @layout's dispatch: each
 * token's owner fetches the expert outputs of its token from
 * @expert_out (on the experts' ranks; registered on a per-rank
 * communicator) and writes the weighted sum to @out.  Arrays as for
 * m890_ep_dispatch().  @expert_out must not change until the work has
 * completed.  Errors as m890_ep_dispatch(); M890_ERROR_INVALID_ARGUMENT
 * when @layout holds no dispatch of @ep.
 */
m890_status_t m890_ep_combine(m890_ep_t ep, m890_ep_layout_t layout,
			      const m890_buffer_t *expert_out,
			      const m890_buffer_t *out,
			      const m890_stream_t *streams);

/*
 * EP with routing on the card (M890_EP_F_DEVICE_ROUTING)
 * ======================================================
 *
 * The mode of expert parallelism for serving, in the spirit of DeepEP's
 * low-latency kernels, on cards of spec 1.1 (CAPS ROWS, ATOMICS and
 * ENGINES; hardware spec §7.13, §7.14, §10).  The top-k ids and weights
 * stay in HBM, the routing is computed on the card (MOE_ROUTE), each
 * token goes once to each rank that holds one of its experts (one
 * COPY_ROWS over every peer's window, quantizing on the way), arrival is
 * one counter per rank fed by posted atomic adds, and the combine pulls
 * and sums one row per token and rank straight from the peers' windows
 * (one REDUCE).  No call blocks the host on the other ranks, on any kind
 * of communicator: everything the ranks must agree on is agreed by
 * m890_ep_create().  The receive regions belong to the EP object, are
 * registered once and double-buffered: dispatch k uses half k % 2.
 *
 * Per dispatch, on local rank l's card (T = max_tokens_per_rank, n ranks,
 * L local experts, C = expert_capacity, H = hidden, k = top_k):
 *
 *   x          HBM, T rows of H bf16: the tokens (the caller's).
 *   topk_idx   HBM, T rows of k int32 (-1: none; else < num_experts,
 *              distinct within a token): the caller's.
 *   topk_w     HBM, T rows of k float: the caller's.
 *   rows       (the object's) n * T rows of row_bytes: row s * T + i is
 *              the i-th token rank s sent to this rank, in the payload
 *              format (bf16, or MX elements then scales); a source's
 *              tokens keep their order.  Rows past a source's count are
 *              not written.
 *   meta       (the object's) n * T rows of 8 * k bytes: the sender's
 *              top-k ids (k int32) then weights (k float) of that token.
 *   expert_count, expert_rows, expert_weight  (the object's) L uint32,
 *              L * C uint32 and L * C float: for local expert e, its rows
 *              expert_rows[e * C .. + count) (row numbers into rows, in
 *              (source, token, slot) order) and their weights.
 *   partial    (the object's) n * T rows of H bf16: the combine's input,
 *              written by the caller between dispatch and combine: for
 *              row s * T + i, the sum over this rank's experts of that
 *              token of weight * expert output (the expert computation
 *              writes it; rows without a token are not read).
 *   out        HBM, T rows of H bf16, the caller's: for token t the sum,
 *              in binary32 in ascending top-k slot, of the partial rows
 *              of the ranks its experts are on (each rank once, at the
 *              first slot that names it), rounded once to bf16; zeros
 *              for a token without experts.  Bit-exact and repeatable.
 *
 * m890_ep_get_recv() gives the buffers and byte offsets of a dispatch's
 * half.  Errors found on the card are the streams' sticky errors, named
 * by the next call or synchronize: an expert id out of range
 * (M890_ERROR_DEVICE_ERROR), more than C rows for a local expert
 * (M890_ERROR_CAPACITY, naming the rank and expert; the counts are
 * still right), a peer that does not arrive (the driver's job timeout;
 * m890_comm_synchronize() names the missing ranks).
 */
#define M890_EP_F_DEVICE_ROUTING	(1u << 0)

/**
 * struct m890_ep_recv - where a device-routed dispatch left its results
 * on local rank l's card (see above).  Each buffer is the EP object's;
 * the *_offset fields are the byte offsets of this dispatch's half.
 */
struct m890_ep_recv {
	m890_buffer_t rows;
	uint64_t rows_offset;
	m890_buffer_t meta;
	uint64_t meta_offset;
	m890_buffer_t partial;
	uint64_t partial_offset;
	m890_buffer_t experts;		/* expert_count, _rows, _weight */
	uint64_t expert_count_offset;
	uint64_t expert_rows_offset;
	uint64_t expert_weight_offset;
};

/**
 * m890_ep_dispatch_device() - enqueue a device-routed dispatch (the EP
 * object was created with M890_EP_F_DEVICE_ROUTING).  Arrays have one
 * entry per local rank.  @num_tokens: 0 .. T per rank (host values).
 * @topk_idx, @topk_w: HBM buffers (see above), on the rank's card.
 * Returns once enqueued, without waiting for any other rank.  The
 * previous dispatch of @ep must have had its combine enqueued (the
 * halves alternate).  Errors (nothing enqueued): INVALID_ARGUMENT (a
 * host routing EP object, NULL arrays, counts above T, buffers too small
 * or not HBM, a dispatch without a combine before), DEVICE_MISMATCH,
 * the streams' and the communicator's sticky errors.
 */
m890_status_t m890_ep_dispatch_device(m890_ep_t ep, m890_ep_layout_t layout,
				      const m890_buffer_t *x,
				      const uint32_t *num_tokens,
				      const m890_buffer_t *topk_idx,
				      const m890_buffer_t *topk_w,
				      const m890_stream_t *streams);

/**
 * m890_ep_get_recv() - the results of @layout's dispatch on local rank
 * @l (0 .. local ranks - 1).  INVALID_ARGUMENT before a dispatch.
 */
m890_status_t m890_ep_get_recv(m890_ep_layout_t layout, int l,
			       struct m890_ep_recv *recv);

/**
 * m890_ep_combine_device() - enqueue the combine of @layout's dispatch:
 * every rank tells its peers its partial rows are written, then pulls
 * and sums its tokens' rows from them into @out (HBM, T rows of H bf16,
 * one per local rank).  Errors as m890_ep_dispatch_device();
 * INVALID_ARGUMENT when @layout holds no dispatch or was combined.
 */
m890_status_t m890_ep_combine_device(m890_ep_t ep, m890_ep_layout_t layout,
				     const m890_buffer_t *out,
				     const m890_stream_t *streams);

#ifdef __cplusplus
}
#endif

#endif /* M890_H */
