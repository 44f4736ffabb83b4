/* SPDX-License-Identifier: MIT */
/*
 * DOC: perf_args.h - the perf tools' nccl-tests options and --version
 *
 * a2a_perf and the collective tools (coll_perf.c) take nccl-tests' command
 * line.  Their own options (-b -e -f -i -n -w -c -g, and -d -o -r as each
 * tool has them) do what nccl-tests' do.  The other options of
 * nccl-tests set something these programs do one way only: those are
 * accepted with the one value that applies and refused with any other,
 * and the ones of CUDA with no counterpart are refused whatever their
 * value; a refusal says why and is a usage error (status 2).  The table
 * below is the one list: the parser, the long options and --help read it.
 *
 * --version (a2a_perf, ep_perf, the collective tools) prints the stack's
 * one version (the file VERSION, through m890.h) and the version of the
 * libm890 the program runs with.
 */
#ifndef M890_PERF_ARGS_H
#define M890_PERF_ARGS_H

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <m890.h>

/* getopt_long's value of --version (no short option, as in nccl-tests). */
#define PERF_OPT_VERSION 0x100

/*
 * struct perf_fixed_opt - an nccl-tests option with one meaning here.
 * @opt: its letter.  @name: its long name.  @value: the one value
 * accepted, or NULL when the option is refused.  @why: the reason.
 */
struct perf_fixed_opt {
	int opt;
	const char *name;
	const char *value;
	const char *why;
};

static const struct perf_fixed_opt perf_fixed_opts[] = {
	{ 't', "nthreads", "1", "one thread drives every card" },
	{ 'm', "agg_iters", "1", "one operation per timed iteration" },
	{ 'N', "run_cycles", "1", "the sweep runs once" },
	{ 'p', "parallel_init", "0", "one call creates the communicator of every card" },
	{ 'z', "blocking", "0", "the iterations are enqueued back to back" },
	{ 'C', "report_cputime", "0", "the time columns are wall time and modelled time" },
	{ 'a', "average", "3", "the time of the slowest rank (the wall time is one for all)" },
	{ 'T', "timeout", NULL, "libm890's calls time out by themselves" },
	{ 'y', "stream_null", NULL, "CUDA's null stream has no counterpart" },
	{ 'G', "cudagraph", NULL, "CUDA graphs have no counterpart" },
	{ 'R', "local_register", NULL,
	  "libm890 maps the buffers itself (windows cached per communicator)" },
};

#define PERF_NFIXED (sizeof(perf_fixed_opts) / sizeof(perf_fixed_opts[0]))
/* Room for a tool's own long options, the table's and --version. */
#define PERF_MAX_LONGOPTS 48

/*
 * perf_getopt_init() - the getopt_long() arguments of a tool: its own
 * short options @own_short and long options @own_long (ending with a NULL
 * name) plus the table's and --version, into @shortopts (@short_size
 * bytes) and @longopts (PERF_MAX_LONGOPTS entries).
 */
static inline void perf_getopt_init(const char *own_short, const struct option *own_long,
				    char *shortopts, size_t short_size,
				    struct option *longopts)
{
	size_t k = 0, at = 0;

	at += (size_t)snprintf(shortopts, short_size, "%s", own_short);
	for (; own_long[k].name && k < PERF_MAX_LONGOPTS - PERF_NFIXED - 2; k++)
		longopts[k] = own_long[k];
	for (size_t i = 0; i < PERF_NFIXED; i++) {
		if (at + 3 < short_size) {
			shortopts[at++] = (char)perf_fixed_opts[i].opt;
			shortopts[at++] = ':';
			shortopts[at] = '\0';
		}
		longopts[k++] = (struct option){ perf_fixed_opts[i].name, required_argument,
						 NULL, perf_fixed_opts[i].opt };
	}
	longopts[k++] = (struct option){ "version", no_argument, NULL, PERF_OPT_VERSION };
	longopts[k] = (struct option){ NULL, 0, NULL, 0 };
}

/*
 * perf_value_opt() - an option of one value: 0 when @arg is @value, else
 * 2 after saying that only -@opt @value applies here, and @why.
 */
static inline int perf_value_opt(const char *prog, int opt, const char *name,
				 const char *arg, const char *value, const char *why)
{
	if (!strcmp(arg, value))
		return 0;
	fprintf(stderr, "%s: -%c (--%s) %s: only -%c %s applies here (%s)\n",
		prog, opt, name, arg, opt, value, why);
	return 2;
}

/* perf_refuse_opt() - an option without a meaning here: says so, 2. */
static inline int perf_refuse_opt(const char *prog, int opt, const char *name, const char *why)
{
	fprintf(stderr, "%s: -%c (--%s) is not supported: %s\n", prog, opt, name, why);
	return 2;
}

/*
 * perf_fixed_opt() - @opt with @arg, if it is one of perf_fixed_opts.
 * Returns -1 when it is not, 0 when @arg is the value that applies, or 2
 * after saying why it is refused.
 */
static inline int perf_fixed_opt(const char *prog, int opt, const char *arg)
{
	for (size_t i = 0; i < PERF_NFIXED; i++) {
		const struct perf_fixed_opt *f = &perf_fixed_opts[i];

		if (f->opt != opt)
			continue;
		if (!f->value)
			return perf_refuse_opt(prog, opt, f->name, f->why);
		return perf_value_opt(prog, opt, f->name, arg, f->value, f->why);
	}
	return -1;
}

/*
 * perf_fixed_usage() - the --help lines of the table; they end with the
 * refused options, so a tool can add its own refused ones after them.
 */
static inline void perf_fixed_usage(FILE *f)
{
	char opt[40];

	fprintf(f, "nccl-tests' other options take the one value that applies here:\n");
	for (size_t i = 0; i < PERF_NFIXED; i++) {
		if (!perf_fixed_opts[i].value)
			continue;
		snprintf(opt, sizeof(opt), "-%c, --%s %s", perf_fixed_opts[i].opt,
			 perf_fixed_opts[i].name, perf_fixed_opts[i].value);
		fprintf(f, "  %-23s  %s\n", opt, perf_fixed_opts[i].why);
	}
	fprintf(f, "and these are refused (a usage error):\n");
	for (size_t i = 0; i < PERF_NFIXED; i++) {
		if (perf_fixed_opts[i].value)
			continue;
		snprintf(opt, sizeof(opt), "-%c, --%s", perf_fixed_opts[i].opt,
			 perf_fixed_opts[i].name);
		fprintf(f, "  %-23s  %s\n", opt, perf_fixed_opts[i].why);
	}
}

/*
 * perf_print_version() - "PROG VERSION (libm890 X.Y.Z)": the stack's
 * version the program was built with and the library's it runs with.
 */
static inline void perf_print_version(const char *prog)
{
	int v = 0;

	printf("%s %d.%d.%d", prog, M890_VERSION_MAJOR, M890_VERSION_MINOR,
	       M890_VERSION_PATCH);
	if (m890_get_version(&v) == M890_SUCCESS)
		printf(" (libm890 %d.%d.%d)", v / 10000, v / 100 % 100, v % 100);
	printf("\n");
}

#endif
