// SPDX-License-Identifier: MIT
/*
 * DOC: handle registry
 *
 * Handles given to callers are pointers to library objects.  So that a
 * stale, foreign or garbage handle is reported as M890_ERROR_INVALID_HANDLE
 * instead of being dereferenced, every live object is entered in a
 * process-wide set (a hash of pointer values under one mutex) and every
 * call looks its handles up before touching them.  The object's first word
 * holds its type, checked after the lookup, so a stream passed where a
 * buffer is expected is refused as well.
 */
#include <stdlib.h>

#include "internal.h"

#define NBUCKETS 1024

struct entry {
	struct entry *next;
	const void *obj;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *buckets[NBUCKETS];

static unsigned int bucket_of(const void *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;

	v ^= v >> 29;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 32;
	return (unsigned int)(v % NBUCKETS);
}

m890_status_t m890_obj_register(void *obj)
{
	struct entry *e = malloc(sizeof(*e));
	unsigned int b = bucket_of(obj);

	if (!e)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "cannot register handle");
	e->obj = obj;
	pthread_mutex_lock(&reg_lock);
	e->next = buckets[b];
	buckets[b] = e;
	pthread_mutex_unlock(&reg_lock);
	return M890_SUCCESS;
}

void m890_obj_unregister(void *obj)
{
	unsigned int b = bucket_of(obj);
	struct entry **pp, *e = NULL;

	pthread_mutex_lock(&reg_lock);
	for (pp = &buckets[b]; *pp; pp = &(*pp)->next) {
		if ((*pp)->obj == obj) {
			e = *pp;
			*pp = e->next;
			break;
		}
	}
	/* Poison the type so a racing lookup of a freed object fails. */
	((struct m890_obj *)obj)->type = 0;
	pthread_mutex_unlock(&reg_lock);
	free(e);
}

bool m890_obj_valid(const void *obj, enum m890_obj_type type)
{
	const struct entry *e;
	bool found = false;

	if (!obj)
		return false;
	pthread_mutex_lock(&reg_lock);
	for (e = buckets[bucket_of(obj)]; e; e = e->next) {
		if (e->obj == obj) {
			found = ((const struct m890_obj *)obj)->type == type;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

m890_status_t m890_check(const void *obj, enum m890_obj_type type,
			 const char *what)
{
	if (!obj)
		return m890_fail(M890_ERROR_INVALID_HANDLE, "%s handle is NULL",
				 what);
	if (!m890_obj_valid(obj, type))
		return m890_fail(M890_ERROR_INVALID_HANDLE,
				 "%s handle %p is not a live %s (freed, or another kind of object)",
				 what, obj, what);
	return M890_SUCCESS;
}

m890_status_t m890_check_out(const void *obj, enum m890_obj_type type,
			     const char *what, const void *out,
			     const char *fn)
{
	m890_status_t st = m890_check(obj, type, what);

	if (!st && !out)
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s: NULL output",
			       fn);
	return st;
}

void m890_device_get_child(struct m890_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	dev->children++;
	pthread_mutex_unlock(&dev->lock);
}

void m890_device_put_child(struct m890_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	dev->children--;
	pthread_mutex_unlock(&dev->lock);
}
