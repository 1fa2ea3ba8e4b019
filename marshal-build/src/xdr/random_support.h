/* marshal_random.h: what marshal-build's C fillers share (test support). */
#ifndef MARSHAL_RANDOM_H
#define MARSHAL_RANDOM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <rpc/rpc.h>

/* Optional data this many pointers deep is absent, so lists stay finite. */
#define MARSHAL_RANDOM_MAX_DEPTH 3

/* splitmix64: the same draws as the Rust fillers' Rng::draw. */
struct marshal_rng {
	uint64_t state;
};

static inline uint64_t marshal_rng_next(struct marshal_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A type of a file: its name, rpcgen's routine, what makes the value of a seed (everything
 * it points to from malloc, for xdr_free) and its size. A file's table ends with a NULL name. */
struct marshal_random_type {
	const char *name;
	xdrproc_t xdr;
	void (*fill)(uint64_t seed, void *value);
	size_t size;
};

#endif
