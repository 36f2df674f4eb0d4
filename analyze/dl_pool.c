/* dl_pool.c - interned strings for the deadlock analysis: 100,000 dumps name
 * the same few functions, files and communicators again and again. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_int.h"

#define POOL_CHUNK (1u << 20)

struct dl_pool {
	char **slots; /* open addressing, power of two */
	size_t cap, n;
	char *arena; /* current chunk */
	size_t used, avail;
	char **chunks;
	size_t nchunks;
};

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

struct dl_pool *dl_pool_create(void)
{
	struct dl_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->cap = 1024;
	p->slots = calloc(p->cap, sizeof *p->slots);
	if (!p->slots) {
		free(p);
		return NULL;
	}
	return p;
}

void dl_pool_destroy(struct dl_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->slots);
	free(p);
}

static char *pool_alloc(struct dl_pool *p, size_t n)
{
	if (n > p->avail) {
		size_t sz = n > POOL_CHUNK ? n : POOL_CHUNK;
		char **nc = realloc(p->chunks, (p->nchunks + 1) * sizeof *nc);
		if (!nc)
			return NULL;
		p->chunks = nc;
		char *a = malloc(sz);
		if (!a)
			return NULL;
		p->chunks[p->nchunks++] = a;
		p->arena = a;
		p->used = 0;
		p->avail = sz;
	}
	char *r = p->arena + p->used;
	p->used += n;
	p->avail -= n;
	return r;
}

static int pool_grow(struct dl_pool *p)
{
	size_t ncap = p->cap * 2;
	char **ns = calloc(ncap, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->slots[i])
			continue;
		size_t j = hash_str(p->slots[i], strlen(p->slots[i])) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = ns;
	p->cap = ncap;
	return 0;
}

const char *dl_intern(struct dl_pool *p, const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	if ((p->n + 1) * 2 > p->cap && pool_grow(p) < 0)
		return NULL;
	size_t j = hash_str(s, len) & (p->cap - 1);
	while (p->slots[j]) {
		if (!strcmp(p->slots[j], s))
			return p->slots[j];
		j = (j + 1) & (p->cap - 1);
	}
	char *c = pool_alloc(p, len + 1);
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(c, s, len + 1);
	p->slots[j] = c;
	p->n++;
	return c;
}
