// SPDX-License-Identifier: MIT
/*
 * DOC: m890-a2a - all-to-all exchange across M890 cards
 *
 * Without a communicator: opens N cards, gives each an HBM source and an
 * HBM destination of N blocks, writes block j of card i's source with a
 * pattern unique to the pair (i, j), imports every peer's destination as a
 * window, and has card i copy block j into slot i of card j's destination
 * (peers visited in rotated order, j = (i + k) % N, so that the cards do
 * not all hit the same peer at once).  All streams run concurrently; the
 * program then reads every destination back (through one card's host
 * staging buffer at a time, so that 64 cards need no more guest memory
 * than one) and checks every byte, and
 * reports per-card and total bandwidth in wall time (host) and modelled
 * device time.  busbw = algbw * (N - 1) / N as for nccl-tests' alltoall.
 *
 * With --fabric COMMID --ranks LIST the cards of several VMs take part,
 * each VM running the program for its own cards (a2a_fabric.c).
 *
 * Exit status: 0 when every byte matched, 1 on a mismatch or an error
 * (naming card, slot and first bad offset), 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <m890.h>

#include "a2a_fabric.h"
#include "a2a_pattern.h"
#include "cli_args.h"

struct card {
	m890_device_t dev;
	struct m890_device_info info;
	m890_stream_t stream;
	m890_buffer_t src, dst;
	m890_window_t *win;	/* [n]: window on card j's dst, NULL for self */
	m890_event_t ev_start, ev_end;
};

static int verbose;

#define CHECK(call, ...) do { \
	m890_status_t st_ = (call); \
	if (st_ != M890_SUCCESS) { \
		fprintf(stderr, "m890-a2a: "); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, ": %s\n", m890_get_last_error()); \
		goto fail; \
	} \
} while (0)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: m890-a2a [-n CARDS] [-b BLOCK_BYTES] [-v]\n"
		"       m890-a2a --fabric COMMID --ranks FABRIC_IDS [-n CARDS] [-b BYTES]\n"
		"                [--timeout SECONDS] [--hold]\n"
		"  -n CARDS   cards of this VM taking part (default: all)\n"
		"  -b BYTES   bytes each card sends to each card, K/M/G suffix\n"
		"             allowed (default 1M; above 8 cards 64M / CARDS^2,\n"
		"             rounded down to a power of two: 64 MiB in all)\n"
		"  -v         verbose\n"
		"  --fabric COMMID    one communicator over the cards of several VMs\n"
		"                     (every VM runs m890-a2a with the same COMMID)\n"
		"  --ranks IDS        fabric ids of the ranks in rank order, e.g. 0-7\n"
		"  --timeout SECONDS  for the peers to join and finish (default 60)\n"
		"  --hold             join, then wait until killed without exchanging\n");
}

/* A host staging buffer of @bytes on @card's device, mapped at *@ptr. */
static m890_status_t staging_get(struct card *card, uint64_t bytes,
				 m890_buffer_t *buf, uint8_t **ptr)
{
	m890_status_t st;
	void *p;

	st = m890_buffer_alloc(card->dev, bytes, M890_MEM_HOST, buf);
	if (st)
		return st;
	st = m890_buffer_map(*buf, &p);
	if (st) {
		m890_buffer_free(*buf);
		*buf = NULL;
		return st;
	}
	*ptr = p;
	return M890_SUCCESS;
}

static void staging_put(m890_buffer_t *buf)
{
	if (*buf)
		m890_buffer_free(*buf);
	*buf = NULL;
}

/*
 * 1 MiB per peer up to 8 cards (64 MiB in all); above, the exchange stays
 * at 64 MiB in all (16 KiB per peer on 64 cards), which keeps the byte
 * check of every block quick in an emulated guest.
 */
static uint64_t default_block(int n)
{
	uint64_t b = 1ull << 20;

	while (b > 4096 && b * (uint64_t)n * (uint64_t)n > (64ull << 20))
		b >>= 1;
	return b;
}

static void vlog(const char *msg, int n)
{
	if (verbose)
		fprintf(stderr, "m890-a2a: %s (%d cards)\n", msg, n);
}

int main(int argc, char **argv)
{
	uint64_t block = 0, total, poison_bytes;
	m890_buffer_t host = NULL;
	uint8_t *host_ptr;
	struct card *c = NULL;
	int ncards = -1, avail, n = 0, opt, i, j, k, rc = 1;
	int64_t t0, t1;
	uint64_t mismatches = 0;
	static const struct option longopts[] = {
		{ "fabric", required_argument, NULL, 'F' },
		{ "ranks", required_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "hold", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct a2a_fabric_args fab = { .nranks = 0, .timeout_ns = 60000000000ull };
	bool fabric = false;
	char *end;

	while ((opt = getopt_long(argc, argv, "n:b:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			errno = 0;
			fab.comm_id = strtoull(optarg, &end, 0);
			if (errno || *end || !fab.comm_id || *optarg == '-') {
				fprintf(stderr, "m890-a2a: --fabric needs a non-zero communicator id, not '%s'\n",
					optarg);
				return 2;
			}
			fabric = true;
			break;
		case 'R':
			fab.nranks = a2a_parse_ranks(optarg, fab.fids, 64);
			if (fab.nranks < 1) {
				fprintf(stderr, "m890-a2a: bad --ranks '%s' (fabric ids < 64, e.g. 0-3,8)\n",
					optarg);
				return 2;
			}
			break;
		case 'T': {
			unsigned long s = strtoul(optarg, &end, 10);

			if (*end || !s || s > 3600 || *optarg == '-') {
				fprintf(stderr, "m890-a2a: --timeout needs 1..3600 seconds\n");
				return 2;
			}
			fab.timeout_ns = s * 1000000000ull;
			break;
		}
		case 'H':
			fab.hold = true;
			break;
		case 'n':
			ncards = atoi(optarg);
			if (ncards < 1) {
				fprintf(stderr, "m890-a2a: -n needs a positive count\n");
				return 2;
			}
			break;
		case 'b':
			if (cli_parse_size(optarg, &block) || block == 0) {
				fprintf(stderr, "m890-a2a: bad block size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (fabric != (fab.nranks > 0) || (fab.hold && !fabric)) {
		fprintf(stderr, "m890-a2a: --fabric and --ranks go together (--hold needs them)\n");
		return 2;
	}
	if (fabric) {
		fab.ncards = ncards;
		fab.block = block ? block : default_block(fab.nranks);
		return a2a_fabric_run(&fab);
	}

	CHECK(m890_device_count(&avail), "cannot count devices");
	n = ncards < 0 ? avail : ncards;
	if (n > avail) {
		fprintf(stderr, "m890-a2a: %d cards requested, %d present\n",
			n, avail);
		return 1;
	}
	if (!block)
		block = default_block(n);
	if ((uint64_t)n > UINT64_MAX / block) {
		fprintf(stderr, "m890-a2a: block size too large\n");
		return 2;
	}
	total = (uint64_t)n * block;
	poison_bytes = (total + 3) & ~3ull;

	c = calloc(n, sizeof(*c));
	if (!c) {
		perror("m890-a2a");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct m890_stream_config cfg = M890_STREAM_CONFIG_INIT;

		c[i].info = (struct m890_device_info)M890_DEVICE_INFO_INIT;
		c[i].win = calloc(n, sizeof(*c[i].win));
		if (!c[i].win) {
			perror("m890-a2a");
			goto fail;
		}
		CHECK(m890_device_open(i, &c[i].dev), "card %d: open", i);
		CHECK(m890_device_get_info(c[i].dev, &c[i].info), "card %d: info", i);
		cfg.flags = M890_STREAM_DEFERRED;
		CHECK(m890_stream_create_config(c[i].dev, &cfg, &c[i].stream),
		      "card %d: stream", i);
		CHECK(m890_buffer_alloc(c[i].dev, total, M890_MEM_HBM, &c[i].src),
		      "card %d: %" PRIu64 " bytes of HBM for the source", i, total);
		CHECK(m890_buffer_alloc(c[i].dev, total, M890_MEM_HBM, &c[i].dst),
		      "card %d: %" PRIu64 " bytes of HBM for the destination", i, total);
		CHECK(m890_event_create(c[i].dev, &c[i].ev_start), "card %d: event", i);
		CHECK(m890_event_create(c[i].dev, &c[i].ev_end), "card %d: event", i);
		if (verbose)
			fprintf(stderr, "m890-a2a: card %d = %s fabric-id %u hbm %" PRIu64 "\n",
				i, c[i].info.node, c[i].info.fabric_id,
				c[i].info.hbm_bytes);
	}

	/*
	 * Source patterns through host memory, destinations poisoned; one
	 * card's host staging buffer at a time.
	 */
	vlog("writing source patterns", n);
	for (i = 0; i < n; i++) {
		uint64_t dva;

		CHECK(staging_get(&c[i], total, &host, &host_ptr),
		      "card %d: %" PRIu64 " bytes of host memory", i, total);
		for (j = 0; j < n; j++)
			a2a_pattern_fill(host_ptr + (uint64_t)j * block, i, j, block);
		CHECK(m890_memcpy_htod(c[i].stream, c[i].src, 0, host, 0, total),
		      "card %d: upload", i);
		CHECK(m890_buffer_va(c[i].dst, &dva), "card %d: va", i);
		CHECK(m890_memset32(c[i].stream, dva, 0xdeadbeef, poison_bytes),
		      "card %d: poison destination", i);
		CHECK(m890_stream_synchronize(c[i].stream), "card %d: upload", i);
		staging_put(&host);
	}

	vlog("importing peer windows", n);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (j != i)
				CHECK(m890_buffer_import_peer(c[i].dev, c[j].dst,
							      &c[i].win[j]),
				      "card %d: window on card %d", i, j);

	vlog("exchanging", n);
	t0 = cli_now_ns();
	for (i = 0; i < n; i++) {
		CHECK(m890_event_record(c[i].ev_start, c[i].stream),
		      "card %d: start event", i);
		for (k = 0; k < n; k++) {
			j = (i + k) % n;
			if (j == i)
				CHECK(m890_memcpy_dtod(c[i].stream, c[i].dst,
						       (uint64_t)i * block, c[i].src,
						       (uint64_t)i * block, block),
				      "card %d: local block", i);
			else
				CHECK(m890_memcpy_peer(c[i].stream, c[i].win[j],
						       (uint64_t)i * block, c[i].src,
						       (uint64_t)j * block, block),
				      "card %d: block to card %d", i, j);
		}
		CHECK(m890_event_record(c[i].ev_end, c[i].stream),
		      "card %d: end event", i);
	}
	for (i = 0; i < n; i++)
		CHECK(m890_stream_synchronize(c[i].stream),
		      "card %d: exchange", i);
	t1 = cli_now_ns();

	vlog("reading back", n);
	for (j = 0; j < n; j++) {
		CHECK(staging_get(&c[j], total, &host, &host_ptr),
		      "card %d: %" PRIu64 " bytes of host memory", j, total);
		memset(host_ptr, 0, total);
		CHECK(m890_memcpy_dtoh(c[j].stream, host, 0, c[j].dst, 0, total),
		      "card %d: download", j);
		CHECK(m890_stream_synchronize(c[j].stream), "card %d: download", j);
		for (i = 0; i < n; i++) {
			const uint8_t *slot = host_ptr + (uint64_t)i * block;
			uint64_t bad = a2a_pattern_check(slot, i, j, block);

			if (bad != block) {
				mismatches++;
				fprintf(stderr,
					"m890-a2a: MISMATCH card %d slot %d (from card %d): first bad offset %" PRIu64 " (byte 0x%02x, expected 0x%02x)\n",
					j, i, i, bad, slot[bad],
					a2a_pattern_byte(i, j, bad));
			}
		}
		staging_put(&host);
	}

	printf("# m890-a2a: %d cards, %" PRIu64 " bytes per peer, %" PRIu64 " bytes per card\n",
	       n, block, total);
	printf("# wall-us: from the first enqueue to the card's completion as the host saw it\n");
	printf("# %4s %8s %9s %14s %12s %12s %12s\n", "card", "node",
	       "fabric-id", "bytes-moved", "wall-us", "device-us", "dev-GB/s");
	{
		int64_t max_dev = 0;

		for (i = 0; i < n; i++) {
			int64_t wall = 0, dev = 0, done = 0;
			uint64_t moved = total;

			CHECK(m890_event_elapsed_time(c[i].ev_start, c[i].ev_end,
						      NULL, &dev),
			      "card %d: elapsed time", i);
			CHECK(m890_event_get_timestamp(c[i].ev_end, &done, NULL),
			      "card %d: completion time", i);
			wall = done - t0;
			if (dev > max_dev)
				max_dev = dev;
			printf("  %4d %8s %9u %14" PRIu64 " %12.1f %12.1f %12.2f\n",
			       i, c[i].info.node, c[i].info.fabric_id, moved,
			       wall / 1e3, dev / 1e3,
			       dev > 0 ? (double)moved / (double)dev : 0.0);
		}
		{
			double wall_s = (double)(t1 - t0) * 1e-9;
			double dev_algbw = max_dev > 0 ?
				(double)total / (double)max_dev : 0.0;

			if (t1 > t0) {
				double algbw = (double)total / wall_s / 1e9;

				printf("# total %" PRIu64 " bytes in %.1f us wall: algbw %.2f GB/s busbw %.2f GB/s\n",
				       total * (uint64_t)n, wall_s * 1e6, algbw,
				       algbw * (n - 1) / n);
			} else {
				printf("# total %" PRIu64 " bytes: wall time below the clock's resolution\n",
				       total * (uint64_t)n);
			}
			printf("# modelled device time %.1f us: algbw %.2f GB/s busbw %.2f GB/s\n",
			       max_dev / 1e3, dev_algbw, dev_algbw * (n - 1) / n);
		}
	}
	if (mismatches) {
		printf("# FAILED: %" PRIu64 " of %d blocks wrong\n", mismatches,
		       n * n);
		rc = 1;
	} else {
		printf("# OK: all %d blocks verified\n", n * n);
		rc = 0;
	}

fail:
	staging_put(&host);
	if (c) {
		for (i = 0; i < n; i++) {
			for (j = 0; j < n; j++)
				if (c[i].win && c[i].win[j])
					m890_window_free(c[i].win[j]);
		}
		for (i = 0; i < n; i++) {
			if (c[i].ev_start)
				m890_event_destroy(c[i].ev_start);
			if (c[i].ev_end)
				m890_event_destroy(c[i].ev_end);
			if (c[i].stream)
				m890_stream_destroy(c[i].stream);
			if (c[i].dst)
				m890_buffer_free(c[i].dst);
			if (c[i].src)
				m890_buffer_free(c[i].src);
			if (c[i].dev)
				m890_device_close(c[i].dev);
			free(c[i].win);
		}
		free(c);
	}
	return rc;
}
