// SPDX-License-Identifier: MIT
/*
 * DOC: status codes and error messages
 *
 * Every library call returns an enum m890_status.  The short name of a
 * status comes from m890_status_string(); the detailed cause of the last
 * failure (which object, which errno, what the kernel said) is kept per
 * thread so that concurrent callers do not overwrite each other's
 * messages.  Kernel errno values are mapped to statuses in one place here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static _Thread_local char last_error[M890_DETAIL_BYTES];
static _Thread_local char last_detail[M890_DETAIL_BYTES];	/* without the status suffix */

static const char *const status_names[M890_STATUS_COUNT] = {
	[M890_SUCCESS] = "success",
	[M890_NOT_READY] = "not ready: work still pending",
	[M890_ERROR_INVALID_ARGUMENT] = "invalid argument",
	[M890_ERROR_INVALID_HANDLE] = "invalid handle",
	[M890_ERROR_NO_DEVICE] = "no M890 device",
	[M890_ERROR_DRIVER_NOT_LOADED] = "m890 driver not loaded",
	[M890_ERROR_PERMISSION] = "permission denied",
	[M890_ERROR_OUT_OF_HOST_MEMORY] = "out of host memory",
	[M890_ERROR_OUT_OF_DEVICE_MEMORY] = "out of device memory",
	[M890_ERROR_BUSY] = "device busy: no free hardware queue",
	[M890_ERROR_NOT_SUPPORTED] = "not supported",
	[M890_ERROR_DEVICE_FAULT] = "device fault: invalid device address",
	[M890_ERROR_DEVICE_ERROR] = "device error: execution failed",
	[M890_ERROR_CANCELED] = "work canceled",
	[M890_ERROR_TIMEOUT] = "timeout",
	[M890_ERROR_SYSTEM] = "system error",
	[M890_ERROR_DEVICE_MISMATCH] = "objects belong to different devices",
	[M890_ERROR_CAPACITY] = "expert capacity exceeded",
};

M890_EXPORT const char *m890_status_string(m890_status_t status)
{
	if ((unsigned int)status >= M890_STATUS_COUNT || !status_names[status])
		return "unknown status";
	return status_names[status];
}

M890_EXPORT const char *m890_get_last_error(void)
{
	return last_error;
}

/* The last error's message without the trailing status name. */
const char *m890_last_detail(void)
{
	return last_detail;
}

/* The build passes VERSION's numbers: the public header must agree. */
_Static_assert(M890_VERSION_MAJOR == M890_BUILD_VERSION_MAJOR &&
	       M890_VERSION_MINOR == M890_BUILD_VERSION_MINOR &&
	       M890_VERSION_PATCH == M890_BUILD_VERSION_PATCH,
	       "libm890/include/m890_runtime.h and the file VERSION disagree");

M890_EXPORT m890_status_t m890_get_version(int *version)
{
	if (!version)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_get_version: NULL output");
	*version = M890_VERSION_CODE;
	return M890_SUCCESS;
}

static void set_message(m890_status_t st, const char *fmt, va_list ap,
			int err)
{
	int n;

	char detail[sizeof(last_detail)];

	/* Format first: an argument may be m890_last_detail() itself. */
	n = vsnprintf(detail, sizeof(detail), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(detail))
		n = sizeof(detail) - 1;
	if (err)
		snprintf(detail + n, sizeof(detail) - n, ": %s", strerror(err));
	memcpy(last_detail, detail, sizeof(detail));
	snprintf(last_error, sizeof(last_error), "%.400s (%s)", detail,
		 m890_status_string(st));
}

m890_status_t m890_fail(m890_status_t st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_message(st, fmt, ap, 0);
	va_end(ap);
	return st;
}

m890_status_t m890_fail_wrap(m890_status_t st, const struct m890_saved_error *e,
			     const char *fmt, ...)
{
	char prefix[M890_DETAIL_BYTES];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	/* m890_fail() formats before it writes: last_detail may be an argument. */
	return m890_fail(st, "%s: %s", prefix, e ? e->detail : last_detail);
}

void m890_error_save(struct m890_saved_error *e)
{
	memcpy(e->detail, last_detail, sizeof(e->detail));
}

m890_status_t m890_error_restore(m890_status_t st,
				 const struct m890_saved_error *e)
{
	return m890_fail(st, "%s", e->detail);
}

/* Map a kernel or libc errno (positive) to a status. */
m890_status_t m890_errno_status(int err)
{
	switch (err) {
	case 0:
		return M890_SUCCESS;
	case EINVAL:
	case E2BIG:
	case ERANGE:
	case EOVERFLOW:
		return M890_ERROR_INVALID_ARGUMENT;
	case ENOENT:
	case EBADF:
		return M890_ERROR_INVALID_HANDLE;
	case ENODEV:
	case ENXIO:
		return M890_ERROR_NO_DEVICE;
	case EACCES:
	case EPERM:
		return M890_ERROR_PERMISSION;
	case ENOMEM:
		return M890_ERROR_OUT_OF_HOST_MEMORY;
	case ENOSPC:
		return M890_ERROR_OUT_OF_DEVICE_MEMORY;
	case EBUSY:
	case EAGAIN:
	case EDQUOT:	/* a per-client limit of the driver */
		return M890_ERROR_BUSY;
	case EOPNOTSUPP:
	case ENOTTY:
	case ENOSYS:
		return M890_ERROR_NOT_SUPPORTED;
	case EFAULT:
		return M890_ERROR_DEVICE_FAULT;
	case EIO:
	case EHOSTUNREACH:
	case ENOLINK:
		return M890_ERROR_DEVICE_ERROR;
	case ECANCELED:
		return M890_ERROR_CANCELED;
	case ETIME:
	case ETIMEDOUT:
		return M890_ERROR_TIMEOUT;
	default:
		return M890_ERROR_SYSTEM;
	}
}

m890_status_t m890_fail_errno(int err, const char *fmt, ...)
{
	m890_status_t st = m890_errno_status(err);
	va_list ap;

	if (st == M890_SUCCESS)
		st = M890_ERROR_SYSTEM;
	va_start(ap, fmt);
	set_message(st, fmt, ap, err);
	va_end(ap);
	return st;
}

/* CLOCK_MONOTONIC in ns, the time base of every deadline and timestamp. */
int64_t m890_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}
