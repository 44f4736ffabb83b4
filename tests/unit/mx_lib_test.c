// SPDX-License-Identifier: MIT
/*
 * DOC: host unit test of libm890's pure parts
 *
 * Status strings, errno mapping and error messages (status.c), the handle
 * registry (handle.c) including stale and wrong-type handles and
 * concurrent use, and the all-to-all data pattern.  Prints TAP.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_pattern.h"
#include "internal.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, name);
	if (!cond)
		failed++;
}

static void test_status(void)
{
	int all = 1, distinct = 1;

	for (int i = 0; i < M890_STATUS_COUNT; i++) {
		const char *s = m890_status_string((m890_status_t)i);

		all &= s && *s && strcmp(s, "unknown status") != 0;
		for (int j = 0; j < i; j++)
			distinct &= strcmp(s, m890_status_string((m890_status_t)j)) != 0;
	}
	ok(all, "every status has a name");
	ok(distinct, "status names are distinct");
	ok(strcmp(m890_status_string(M890_STATUS_COUNT), "unknown status") == 0,
	   "status past the end is unknown");
	ok(strcmp(m890_status_string((m890_status_t)-1), "unknown status") == 0,
	   "negative status is unknown");

	ok(m890_errno_status(EINVAL) == M890_ERROR_INVALID_ARGUMENT, "EINVAL");
	ok(m890_errno_status(ENOSPC) == M890_ERROR_OUT_OF_DEVICE_MEMORY, "ENOSPC");
	ok(m890_errno_status(EFAULT) == M890_ERROR_DEVICE_FAULT, "EFAULT");
	ok(m890_errno_status(EIO) == M890_ERROR_DEVICE_ERROR, "EIO");
	ok(m890_errno_status(EACCES) == M890_ERROR_PERMISSION, "EACCES");
	ok(m890_errno_status(EBUSY) == M890_ERROR_BUSY, "EBUSY");
	ok(m890_errno_status(ECANCELED) == M890_ERROR_CANCELED, "ECANCELED");
	ok(m890_errno_status(ETIME) == M890_ERROR_TIMEOUT, "ETIME");
	ok(m890_errno_status(12345) == M890_ERROR_SYSTEM, "unknown errno");

	ok(m890_fail(M890_ERROR_BUSY, "queue %d", 3) == M890_ERROR_BUSY &&
	   strstr(m890_get_last_error(), "queue 3") &&
	   strstr(m890_get_last_error(), "busy"),
	   "m890_fail message has detail and status");
	ok(m890_fail_errno(ENOENT, "thing") == M890_ERROR_INVALID_HANDLE &&
	   strstr(m890_get_last_error(), strerror(ENOENT)),
	   "m890_fail_errno message names the errno");
	ok(m890_fail_errno(0, "x") == M890_ERROR_SYSTEM, "errno 0 is not success");
	{
		char big[2000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		m890_fail(M890_ERROR_SYSTEM, "%s", big);
		ok(strlen(m890_get_last_error()) < 600, "long message truncated");
	}
}

struct fake {
	struct m890_obj obj;
	int payload;
};

static void *thread_fn(void *arg)
{
	struct fake objs[200];
	int *good = arg;

	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 200; i++) {
			objs[i].obj.type = M890_OBJ_BUFFER;
			if (m890_obj_register(&objs[i]))
				*good = 0;
		}
		for (int i = 0; i < 200; i++)
			if (!m890_obj_valid(&objs[i], M890_OBJ_BUFFER))
				*good = 0;
		for (int i = 0; i < 200; i++)
			m890_obj_unregister(&objs[i]);
		for (int i = 0; i < 200; i++)
			if (m890_obj_valid(&objs[i], M890_OBJ_BUFFER))
				*good = 0;
	}
	return NULL;
}

static void test_handles(void)
{
	struct fake *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct fake local = { { M890_OBJ_STREAM }, 0 };
	pthread_t t[4];
	int good[4] = { 1, 1, 1, 1 }, all = 1;

	a->obj.type = M890_OBJ_BUFFER;
	b->obj.type = M890_OBJ_STREAM;
	ok(m890_obj_register(a) == M890_SUCCESS, "register");
	ok(m890_obj_register(b) == M890_SUCCESS, "register second");
	ok(m890_obj_valid(a, M890_OBJ_BUFFER), "live handle is valid");
	ok(!m890_obj_valid(a, M890_OBJ_STREAM), "wrong type refused");
	ok(!m890_obj_valid(&local, M890_OBJ_STREAM),
	   "unregistered object with the right magic refused");
	ok(!m890_obj_valid(NULL, M890_OBJ_BUFFER), "NULL refused");
	ok(m890_check(NULL, M890_OBJ_BUFFER, "buffer") == M890_ERROR_INVALID_HANDLE &&
	   strstr(m890_get_last_error(), "NULL"), "check NULL names it");
	ok(m890_check(b, M890_OBJ_BUFFER, "buffer") == M890_ERROR_INVALID_HANDLE,
	   "check wrong type");
	m890_obj_unregister(a);
	ok(a->obj.type == 0, "unregister poisons the type");
	ok(!m890_obj_valid(a, M890_OBJ_BUFFER), "stale handle refused");
	ok(m890_obj_valid(b, M890_OBJ_STREAM), "other handle still valid");
	m890_obj_unregister(b);
	free(a);
	free(b);

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_fn, &good[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		all &= good[i];
	}
	ok(all, "registry under 4 threads x 20 rounds x 200 objects");
}

static void test_pattern(void)
{
	enum { CARDS = 64, WORDS = 4 };
	static uint64_t seen[CARDS * CARDS * WORDS];
	size_t k = 0;
	int unique = 1, good = 1;
	uint8_t buf[1027];

	for (uint32_t i = 0; i < CARDS; i++)
		for (uint32_t j = 0; j < CARDS; j++)
			for (uint64_t w = 0; w < WORDS; w++)
				seen[k++] = a2a_pattern_word(i, j, w);
	for (size_t x = 0; x < k && unique; x++)
		for (size_t y = x + 1; y < k; y++)
			if (seen[x] == seen[y]) {
				unique = 0;
				break;
			}
	ok(unique, "pattern words unique over 64x64 pairs x 4 words");

	a2a_pattern_fill(buf, 3, 5, sizeof(buf));
	ok(a2a_pattern_check(buf, 3, 5, sizeof(buf)) == sizeof(buf),
	   "fill then check (odd size)");
	for (size_t off = 0; off < sizeof(buf); off++)
		good &= buf[off] == a2a_pattern_byte(3, 5, off);
	ok(good, "fill matches the byte function");
	ok(a2a_pattern_check(buf, 5, 3, sizeof(buf)) < 8,
	   "swapped pair detected in the first word");
	buf[1000] ^= 1;
	ok(a2a_pattern_check(buf, 3, 5, sizeof(buf)) == 1000,
	   "first bad offset reported");
	buf[1000] ^= 1;
	buf[1026] ^= 0x80;
	ok(a2a_pattern_check(buf, 3, 5, sizeof(buf)) == 1026,
	   "bad byte in the tail reported");
	ok(a2a_pattern_check(buf, 3, 5, 0) == 0, "empty block");
}

int main(void)
{
	test_status();
	test_handles();
	test_pattern();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
