/* SPDX-License-Identifier: MIT */
/*
 * Timing model 1.2 of hardware spec §10, for one queue of one card, as
 * the benchmarks compute their formulas: a command processor fetching
 * 50 ns per packet with a 16-packet prefetch window, M12_ENGINES data
 * movers, HBM, host and link bandwidth served first come first served,
 * per-queue order (RELAXED packets wait only for the last drain),
 * drains (WAIT, TIMESTAMP, FENCE) that wait for the queue's earlier
 * packets.  Times in ns (doubles: the benchmarks' formulas, not the
 * card's exact integer clock).  An independent implementation of the
 * rules, so that the measured modelled times check both.
 *
 * The matrix engines (CAPS.GEMM) are one more resource served first
 * come first served: a GEMM packet (m12_gemm) reserves its HBM bytes and
 * its multiply-adds from its start, and ends when the later of them does.
 *
 * Model 1.1 (spec 1.0 cards) is the special case m12_model_1_1: one data
 * mover, a fetch that starts only once the packet before has started,
 * and drains that hold the command processor until they end.
 */
#ifndef M890_BENCH_MODEL12_H
#define M890_BENCH_MODEL12_H

#define M12_ENGINES	4
#define M12_PREFETCH	16
#define M12_FETCH_NS	50.0
#define M12_TRIP_NS	1000.0	/* switch round trip */
#define M12_DELIVERY_NS	500.0	/* one way through the switch */
#define M12_HBM_BPNS	3200.0
#define M12_HOST_BPNS	64.0
#define M12_LINK_BPNS	800.0
#define M12_MAX_PKTS	4096
/*
 * Matrix engines' multiply-adds per ns (spec §10; the card's clock
 * charges 4 and 2 half-femtoseconds per multiply-add): 1.0 PFLOP/s with
 * a bf16 operand, 2.0 PFLOP/s for MXFP8 activations by MXFP4 weights
 * (the MX rate), one multiply-add being 2 FLOP.
 */
#define M12_MACS_PER_NS_BF16	500000.0
#define M12_MACS_PER_NS_MX	1000000.0

enum { M12_HBM, M12_HOST, M12_LINK, M12_CLASSES };

/* Which model the formulas follow: 1.2 unless m12_model_1_1() was called. */
static int m12_engines = M12_ENGINES, m12_prefetch = M12_PREFETCH;
static int m12_drain_holds_cp;

static inline void m12_model_1_1(void)
{
	m12_engines = 1;
	m12_prefetch = 1;
	m12_drain_holds_cp = 1;
}

struct m12 {
	double cp, dm[M12_ENGINES], free[M12_CLASSES], done, drained;
	double mxu;		/* the matrix engines are free */
	double drain_start;	/* no packet is fetched before it */
	double start[M12_MAX_PKTS];
	int n;
};

static const double m12_rate[M12_CLASSES] = {
	M12_HBM_BPNS, M12_HOST_BPNS, M12_LINK_BPNS
};

/* Fetch the next packet: returns the time its fetch ended. */
static inline double m12_fetch(struct m12 *m)
{
	double f = m->cp > m->drain_start ? m->cp : m->drain_start;

	if (m->n >= m12_prefetch && m->n - m12_prefetch < M12_MAX_PKTS &&
	    m->start[m->n - m12_prefetch] > f)
		f = m->start[m->n - m12_prefetch];
	m->cp = f + M12_FETCH_NS;
	return m->cp;
}

static inline void m12_started(struct m12 *m, double t)
{
	if (m->n < M12_MAX_PKTS)
		m->start[m->n] = t;
	m->n++;
}

/*
 * A data packet moving @b[class] bytes (a GEMM: and @macs multiply-adds
 * at @macs_per_ns on the matrix engines), waiting for @trips round
 * trips; @relaxed: M890_PKT_F_RELAXED.  Returns its start.
 */
static inline double m12_packet(struct m12 *m, int relaxed, const double *b,
				double macs, double macs_per_ns, int trips)
{
	double fe = m12_fetch(m), start, end;
	int k = 0;

	for (int i = 1; i < m12_engines; i++)
		if (m->dm[i] < m->dm[k])
			k = i;
	start = fe;
	if (m->dm[k] > start)
		start = m->dm[k];
	if ((relaxed ? m->drained : m->done) > start)
		start = relaxed ? m->drained : m->done;
	end = start;
	for (int c = 0; c < M12_CLASSES; c++) {
		double s;

		if (b[c] <= 0)
			continue;
		s = m->free[c] > start ? m->free[c] : start;
		m->free[c] = s + b[c] / m12_rate[c];
		if (m->free[c] > end)
			end = m->free[c];
	}
	if (macs > 0) {
		m->mxu = (m->mxu > start ? m->mxu : start) + macs / macs_per_ns;
		if (m->mxu > end)
			end = m->mxu;
	}
	end += trips * M12_TRIP_NS;
	m->dm[k] = end;
	if (end > m->done)
		m->done = end;
	m12_started(m, start);
	return start;
}

/*
 * A data packet moving @hbm, @host and @link bytes, waiting for @trips
 * round trips; @relaxed: M890_PKT_F_RELAXED.  Returns its start.
 */
static inline double m12_data(struct m12 *m, int relaxed, double hbm,
			      double host, double link, int trips)
{
	const double b[M12_CLASSES] = { hbm, host, link };

	return m12_packet(m, relaxed, b, 0, 1, trips);
}

/*
 * A GEMM packet (spec §7.15) moving @hbm bytes of this card's HBM and
 * doing @macs multiply-adds at @macs_per_ns (M12_MACS_PER_NS_MX or
 * _BF16): it takes the longer of the two.  Returns its start.
 */
static inline double m12_gemm(struct m12 *m, double hbm, double macs,
			      double macs_per_ns)
{
	const double b[M12_CLASSES] = { hbm, 0, 0 };

	return m12_packet(m, 0, b, macs, macs_per_ns, 0);
}

/* A drain with @bytes in class @c (a WAIT's check, a TIMESTAMP's or
 * FENCE's write).  Returns its start (what a TIMESTAMP writes). */
static inline double m12_drain(struct m12 *m, int c, double bytes)
{
	double fe = m12_fetch(m), start;

	start = fe > m->done ? fe : m->done;
	m->drain_start = start;
	m->done = m->drained = start + bytes / m12_rate[c];
	if (m12_drain_holds_cp)
		m->cp = m->done;
	m12_started(m, start);
	return start;
}

#endif /* M890_BENCH_MODEL12_H */
