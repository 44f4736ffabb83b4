// SPDX-License-Identifier: MIT
/*
 * DOC: m890-a2a --fabric - the all-to-all across cards of several VMs
 *
 * Every VM runs `m890-a2a --fabric COMMID --ranks LIST` with the same
 * communicator id and the same list of fabric ids (one per rank, in rank
 * order); each takes its own cards (all, or -n), finds their ranks by
 * fabric id, and joins one communicator through the switch
 * (m890_comm_create_fabric(): no network between the VMs).  Rank i's block
 * for rank j holds the pattern of the pair (i, j), so each VM checks every
 * block its own ranks received, from every rank of every VM.
 *
 * --hold: join the communicator, register the receive buffers, print
 * "# holding" and sleep until killed, never taking part in a collective:
 * the peer that dies mid-operation in the two-VM tests.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <m890.h>

#include "a2a_fabric.h"
#include "a2a_pattern.h"
#include "cli_args.h"

#define FCHECK(call, ...) do { \
	m890_status_t st_ = (call); \
	if (st_ != M890_SUCCESS) { \
		fprintf(stderr, "m890-a2a: "); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, ": %s\n", m890_get_last_error()); \
		goto out; \
	} \
} while (0)

int a2a_parse_ranks(const char *s, uint32_t *fids, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (unsigned long v = a; v <= b; v++) {
			if (n == max || v > 63)
				return -1;
			fids[n++] = (uint32_t)v;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

struct fcard {
	m890_device_t dev;
	struct m890_device_info info;
	int rank;
	m890_stream_t stream;
	m890_buffer_t src, dst, host;
	uint8_t *host_ptr;
};

int a2a_fabric_run(const struct a2a_fabric_args *a)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	m890_buffer_t sb[64], rb[64];
	m890_stream_t ss[64];
	m890_device_t devs[64];
	struct fcard *c = NULL;
	m890_comm_t comm = NULL;
	uint64_t total, poison, bad_blocks = 0;
	int m = 0, n = a->nranks, rc = 1, avail;
	bool collective = false;
	int64_t t0, t1;

	FCHECK(m890_device_count(&avail), "cannot count devices");
	m = a->ncards < 0 ? avail : a->ncards;
	if (m < 1 || m > avail || m > n) {
		fprintf(stderr, "m890-a2a: %d local cards for %d ranks, %d present\n",
			m, n, avail);
		return 1;
	}
	if ((uint64_t)n > UINT64_MAX / a->block / 2) {
		fprintf(stderr, "m890-a2a: block size too large\n");
		return 2;
	}
	total = (uint64_t)n * a->block;
	poison = (total + 3) & ~3ull;
	c = calloc(m, sizeof(*c));
	if (!c) {
		perror("m890-a2a");
		return 1;
	}
	for (int l = 0; l < m; l++) {
		struct m890_stream_config scfg = M890_STREAM_CONFIG_INIT;
		void *p;

		c[l].info = (struct m890_device_info)M890_DEVICE_INFO_INIT;
		FCHECK(m890_device_open(l, &c[l].dev), "card %d: open", l);
		FCHECK(m890_device_get_info(c[l].dev, &c[l].info), "card %d: info", l);
		c[l].rank = -1;
		for (int i = 0; i < n; i++)
			if (a->fids[i] == c[l].info.fabric_id)
				c[l].rank = i;
		if (c[l].rank < 0) {
			fprintf(stderr, "m890-a2a: %s has fabric id %u, not one of the --ranks\n",
				c[l].info.node, c[l].info.fabric_id);
			goto out;
		}
		scfg.flags = M890_STREAM_DEFERRED;
		FCHECK(m890_stream_create_config(c[l].dev, &scfg, &c[l].stream),
		       "card %d: stream", l);
		FCHECK(m890_buffer_alloc(c[l].dev, total, M890_MEM_HBM, &c[l].src),
		       "card %d: %" PRIu64 " bytes of HBM for the source", l, total);
		FCHECK(m890_buffer_alloc(c[l].dev, total, M890_MEM_HBM, &c[l].dst),
		       "card %d: %" PRIu64 " bytes of HBM for the destination", l, total);
		FCHECK(m890_buffer_alloc(c[l].dev, total, M890_MEM_HOST, &c[l].host),
		       "card %d: %" PRIu64 " bytes of host memory", l, total);
		FCHECK(m890_buffer_map(c[l].host, &p), "card %d: map host buffer", l);
		c[l].host_ptr = p;
		devs[l] = c[l].dev;
	}

	/* Sources and poisoned destinations, before any peer may write. */
	for (int l = 0; l < m; l++) {
		uint64_t dva;

		for (int j = 0; j < n; j++)
			a2a_pattern_fill(c[l].host_ptr + (uint64_t)j * a->block,
					 c[l].rank, j, a->block);
		FCHECK(m890_memcpy_htod(c[l].stream, c[l].src, 0, c[l].host, 0, total),
		       "rank %d: upload", c[l].rank);
		FCHECK(m890_buffer_va(c[l].dst, &dva), "rank %d: va", c[l].rank);
		FCHECK(m890_memset32(c[l].stream, dva, 0xdeadbeef, poison),
		       "rank %d: poison destination", c[l].rank);
		FCHECK(m890_stream_synchronize(c[l].stream), "rank %d: upload", c[l].rank);
	}

	fc.comm_id = a->comm_id;
	fc.nranks = n;
	fc.ndevices = m;
	fc.fabric_ids = a->fids;
	fc.devices = devs;
	cfg.timeout_ns = a->timeout_ns;
	FCHECK(m890_comm_create_fabric(&fc, &cfg, &comm),
	       "communicator 0x%" PRIx64 " of %d ranks", a->comm_id, n);
	for (int l = 0; l < m; l++) {
		FCHECK(m890_comm_register(comm, c[l].dst), "rank %d: register", c[l].rank);
		sb[l] = c[l].src;
		rb[l] = c[l].dst;
		ss[l] = c[l].stream;
	}
	if (a->hold) {
		printf("# holding: %d of %d ranks joined communicator 0x%" PRIx64 "\n",
		       m, n, a->comm_id);
		fflush(stdout);
		for (;;)
			pause();
	}

	t0 = cli_now_ns();
	collective = true;
	FCHECK(m890_alltoall_local(comm, sb, rb, a->block, ss), "all-to-all");
	FCHECK(m890_comm_synchronize(comm, ss), "all-to-all");
	collective = false;
	t1 = cli_now_ns();

	for (int l = 0; l < m; l++) {
		memset(c[l].host_ptr, 0, total);
		FCHECK(m890_memcpy_dtoh(c[l].stream, c[l].host, 0, c[l].dst, 0, total),
		       "rank %d: download", c[l].rank);
		FCHECK(m890_stream_synchronize(c[l].stream), "rank %d: download", c[l].rank);
		for (int i = 0; i < n; i++) {
			const uint8_t *slot = c[l].host_ptr + (uint64_t)i * a->block;
			uint64_t bad = a2a_pattern_check(slot, i, c[l].rank, a->block);

			if (bad != a->block) {
				bad_blocks++;
				fprintf(stderr,
					"m890-a2a: MISMATCH rank %d slot %d (from rank %d, fabric id %u): first bad offset %" PRIu64 " (byte 0x%02x, expected 0x%02x)\n",
					c[l].rank, i, i, a->fids[i], bad, slot[bad],
					a2a_pattern_byte(i, c[l].rank, bad));
			}
		}
	}
	printf("# m890-a2a --fabric: communicator 0x%" PRIx64 ", %d ranks (%d here: ranks",
	       a->comm_id, n, m);
	for (int l = 0; l < m; l++)
		printf(" %d=%s/fabric-id %u", c[l].rank, c[l].info.node, c[l].info.fabric_id);
	printf("), %" PRIu64 " bytes per peer\n", a->block);
	if (t1 > t0) {
		double algbw = (double)total / ((double)(t1 - t0) * 1e-9) / 1e9;

		printf("# this VM's ranks: %.1f us wall: algbw %.2f GB/s busbw %.2f GB/s\n",
		       (t1 - t0) / 1e3, algbw, algbw * (n - 1) / n);
	}
	if (bad_blocks) {
		printf("# FAILED: %" PRIu64 " of %d blocks received here wrong\n",
		       bad_blocks, m * n);
	} else {
		printf("# OK: all %d blocks received by this VM's %d ranks verified (from %d ranks)\n",
		       m * n, m, n);
		rc = 0;
	}

out:
	if (comm) {
		/* A failed collective: release our streams before freeing. */
		if (collective)
			m890_comm_abort(comm);
		for (int l = 0; l < m && collective; l++)
			m890_stream_synchronize(c[l].stream);
		m890_comm_destroy(comm);
	}
	for (int l = 0; c && l < m; l++) {
		if (c[l].stream)
			m890_stream_destroy(c[l].stream);
		if (c[l].host)
			m890_buffer_free(c[l].host);
		if (c[l].dst)
			m890_buffer_free(c[l].dst);
		if (c[l].src)
			m890_buffer_free(c[l].src);
		if (c[l].dev)
			m890_device_close(c[l].dev);
	}
	free(c);
	return rc;
}
