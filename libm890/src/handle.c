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
 *
 * A lookup also takes a hold on the object for the rest of the public call
 * that made it: every exported function opens a scope (M890_API_SCOPE),
 * m890_check() records its holds in a per-thread list, and the scope's end
 * drops them.  Freeing an object (m890_obj_unregister()) takes it out of
 * the set first, so no new call finds it, then waits until the calls of
 * other threads holding it have returned; only then does the caller free
 * its memory.  Two threads freeing one object: one frees it, the other
 * gets M890_ERROR_INVALID_HANDLE.  A free therefore waits for a blocking
 * call on the same object in another thread (a stream synchronize, a
 * collective: abort it first); a thread never waits for its own holds.
 */
#include <stdlib.h>

#include "internal.h"

#define NBUCKETS	1024
#define INLINE_HOLDS	32

struct entry {
	struct entry *next;
	const void *obj;
	unsigned int users;	/* holds of public calls in progress */
	bool gone;		/* out of the set, its free waits for @users */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reg_cond = PTHREAD_COND_INITIALIZER;	/* users drop */
static struct entry *buckets[NBUCKETS];

/* This thread's holds, innermost scope last; NULL slots were given up. */
static _Thread_local struct {
	struct entry *inl[INLINE_HOLDS];
	struct entry **v;	/* inl, or a larger heap copy */
	unsigned int n, cap, depth;
} holds;

static unsigned int bucket_of(const void *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;

	v ^= v >> 29;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 32;
	return (unsigned int)(v % NBUCKETS);
}

static struct entry *find_locked(const void *obj)
{
	struct entry *e;

	for (e = buckets[bucket_of(obj)]; e; e = e->next)
		if (e->obj == obj)
			return e;
	return NULL;
}

m890_status_t m890_obj_register(void *obj)
{
	struct entry *e = calloc(1, sizeof(*e));
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

m890_status_t m890_obj_unregister(void *obj)
{
	unsigned int b = bucket_of(obj), i;
	struct entry **pp, *e = NULL;

	pthread_mutex_lock(&reg_lock);
	for (pp = &buckets[b]; *pp; pp = &(*pp)->next) {
		if ((*pp)->obj == obj) {
			e = *pp;
			*pp = e->next;
			break;
		}
	}
	if (!e) {
		pthread_mutex_unlock(&reg_lock);
		return m890_fail(M890_ERROR_INVALID_HANDLE,
				 "handle %p is being freed by another thread", obj);
	}
	/* Poison the type so a racing lookup of a freed object fails. */
	((struct m890_obj *)obj)->type = 0;
	e->gone = true;
	/* This thread's own holds end here; the others' end with their calls. */
	for (i = 0; holds.v && i < holds.n; i++) {
		if (holds.v[i] == e) {
			holds.v[i] = NULL;
			e->users--;
		}
	}
	while (e->users)
		pthread_cond_wait(&reg_cond, &reg_lock);
	pthread_mutex_unlock(&reg_lock);
	free(e);
	return M890_SUCCESS;
}

bool m890_obj_valid(const void *obj, enum m890_obj_type type)
{
	const struct entry *e;
	bool found = false;

	if (!obj)
		return false;
	pthread_mutex_lock(&reg_lock);
	e = find_locked(obj);
	if (e)
		found = ((const struct m890_obj *)obj)->type == type;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/* Record a hold on @e for the current scope; the caller holds reg_lock. */
static bool hold_locked(struct entry *e)
{
	struct entry **v;
	unsigned int cap;

	if (!holds.v) {
		holds.v = holds.inl;
		holds.cap = INLINE_HOLDS;
	}
	if (holds.n == holds.cap) {
		cap = holds.cap * 2;
		v = malloc(cap * sizeof(*v));
		if (!v)
			return false;
		for (unsigned int i = 0; i < holds.n; i++)
			v[i] = holds.v[i];
		if (holds.v != holds.inl)
			free(holds.v);
		holds.v = v;
		holds.cap = cap;
	}
	holds.v[holds.n++] = e;
	e->users++;
	return true;
}

unsigned int m890_scope_enter(void)
{
	holds.depth++;
	return holds.n;
}

void m890_scope_exit(unsigned int *base)
{
	bool wake = false;
	unsigned int i;

	if (holds.n > *base) {
		pthread_mutex_lock(&reg_lock);
		for (i = *base; i < holds.n; i++) {
			if (holds.v[i] && !--holds.v[i]->users && holds.v[i]->gone)
				wake = true;
		}
		if (wake)
			pthread_cond_broadcast(&reg_cond);
		pthread_mutex_unlock(&reg_lock);
		holds.n = *base;
	}
	if (!--holds.depth && holds.v != holds.inl && holds.v) {
		free(holds.v);
		holds.v = NULL;
		holds.cap = 0;
	}
}

m890_status_t m890_check(const void *obj, enum m890_obj_type type,
			 const char *what)
{
	struct entry *e;
	bool found, held = true;

	if (!obj)
		return m890_fail(M890_ERROR_INVALID_HANDLE, "%s handle is NULL",
				 what);
	pthread_mutex_lock(&reg_lock);
	e = find_locked(obj);
	found = e && ((const struct m890_obj *)obj)->type == type;
	/* Outside a public call (no scope) there is nothing to hold for. */
	if (found && holds.depth)
		held = hold_locked(e);
	pthread_mutex_unlock(&reg_lock);
	if (!found)
		return m890_fail(M890_ERROR_INVALID_HANDLE,
				 "%s handle %p is not a live %s (freed, or another kind of object)",
				 what, obj, what);
	if (!held)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "cannot hold %s handle %p", what, obj);
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
