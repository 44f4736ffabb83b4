/* SPDX-License-Identifier: MIT */
/*
 * The driver's module parameters the guest tests change around a check
 * (they run as root): job_timeout_ms, the time a queue's oldest job may
 * run before the driver resets the queue.
 */
#ifndef M890_DRV_PARAM_H
#define M890_DRV_PARAM_H

#include <stdio.h>
#include <string.h>

#define JOB_TIMEOUT "/sys/module/m890/parameters/job_timeout_ms"

/*
 * Read the driver's job timeout (ms, as text) into @old (if given; "5000",
 * the default, when it cannot be read), then write @val.  Returns 1 when
 * @val was written.
 */
static inline int job_timeout(char *old, size_t len, const char *val)
{
	FILE *f;
	int good;

	if (old) {
		f = fopen(JOB_TIMEOUT, "r");
		if (!f || !fgets(old, (int)len, f)) {
			if (f)
				fclose(f);
			snprintf(old, len, "5000");
			return 0;
		}
		fclose(f);
		old[strcspn(old, "\n")] = 0;
	}
	f = fopen(JOB_TIMEOUT, "w");
	if (!f)
		return 0;
	good = fprintf(f, "%s\n", val) > 0;
	return fclose(f) == 0 && good;
}

#endif
