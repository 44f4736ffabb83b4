/* SPDX-License-Identifier: MIT */
/*
 * Minimal TAP output for the libm890 guest tests: one "ok N - name" or
 * "not ok N - name" line per check, "1..N" at the end, and an exit status
 * that is non-zero when anything failed.
 */
#ifndef M890_TAP_H
#define M890_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <m890.h>

static int tap_n, tap_failed;

static inline void tap_vresult(int ok, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%sok %d - ", ok ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!ok) {
		tap_failed++;
		printf("#   last error: %s\n", m890_get_last_error());
	}
	fflush(stdout);
}

static inline int tap_ok(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, fmt, ap);
	va_end(ap);
	return ok;
}

static inline void tap_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %d - ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
}

/* Check that @call returns @want; the name is the call's text. */
#define TAP_STATUS(call, want) ({ \
	m890_status_t got_ = (call); \
	tap_ok(got_ == (want), "%s == %s%s%s", #call, #want, \
	       got_ == (want) ? "" : ", got ", \
	       got_ == (want) ? "" : m890_status_string(got_)); \
})

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Abort the program when a precondition fails (counts as a failure). */
#define TAP_REQUIRE(call) do { \
	m890_status_t st_ = (call); \
	if (st_ != M890_SUCCESS) { \
		tap_ok(0, "required: %s (%s)", #call, m890_status_string(st_)); \
		printf("Bail out! %s\n", m890_get_last_error()); \
		exit(tap_done() | 1); \
	} \
} while (0)

#endif /* M890_TAP_H */
