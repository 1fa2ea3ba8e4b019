/*
 * The C side of tests/rpcgen_exact.rs: encodes and decodes values of the types of several
 * .x files with the routines `rpcgen -c` generated for them, the values made by
 * marshal-build's C fillers (<stem>.c, "marshal_random.h").
 *
 * Built with -DEXACT_FILES='X(mount) X(nfs_prot) ...', one X per filler linked in.
 *
 * Standard input: requests, one after the other until its end; integers big-endian.
 *   'E' u32 n, name[n], u64 seed
 *       encode the value of `seed` of type `name` ("<stem>/<type>");
 *   'D' u32 n, name[n], u64 seed, u32 m, bytes[m]
 *       decode `bytes` as `name`, then encode what was decoded.
 * Standard output: one reply per request, in order:
 *   u8 status, u32 consumed, u32 m, bytes[m]
 *   status 1: done (`consumed`: bytes the decoder read, `bytes`: the encoding);
 *   status 0: rpcgen's routine failed (decoding, or encoding for 'E'), nothing more;
 *   status 2 ('D' only): decoded, but encoding what was decoded failed.
 * A malformed request or an unknown type: a message on standard error, exit status 2.
 */

#include <stdio.h>
#include <string.h>

#include "marshal_random.h"

/* rpcb_prot.x's types from libtirpc's C headers (uint32_t), as the Rust side fills them. */
void marshal_rand_rpcprog_t(struct marshal_rng *r, rpcprog_t *p, int depth);
void marshal_rand_rpcvers_t(struct marshal_rng *r, rpcvers_t *p, int depth);
void marshal_rand_rpcproc_t(struct marshal_rng *r, rpcproc_t *p, int depth);

void marshal_rand_rpcprog_t(struct marshal_rng *r, rpcprog_t *p, int depth)
{
	(void)depth;
	*p = (uint32_t)marshal_rng_next(r);
}

void marshal_rand_rpcvers_t(struct marshal_rng *r, rpcvers_t *p, int depth)
{
	(void)depth;
	*p = (uint32_t)marshal_rng_next(r);
}

void marshal_rand_rpcproc_t(struct marshal_rng *r, rpcproc_t *p, int depth)
{
	(void)depth;
	*p = (uint32_t)marshal_rng_next(r);
}

#define X(stem) extern const struct marshal_random_type marshal_random_##stem[];
EXACT_FILES
#undef X

static const struct {
	const char *stem;
	const struct marshal_random_type *types;
} files[] = {
#define X(stem) { #stem, marshal_random_##stem },
	EXACT_FILES
#undef X
};

/* Big enough for any value the fillers make. */
static char out[1 << 20];

static void fail(const char *what)
{
	fprintf(stderr, "exact_driver: %s\n", what);
	exit(2);
}

static const struct marshal_random_type *find(const char *name)
{
	size_t i;
	const char *slash = strchr(name, '/');
	if (slash == NULL)
		return NULL;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		const struct marshal_random_type *t;
		if (strlen(files[i].stem) != (size_t)(slash - name) ||
		    strncmp(files[i].stem, name, slash - name) != 0)
			continue;
		for (t = files[i].types; t->name != NULL; t++)
			if (strcmp(t->name, slash + 1) == 0)
				return t;
	}
	return NULL;
}

static const unsigned char *in, *in_end;

static uint64_t take(size_t n)
{
	uint64_t v = 0;
	if ((size_t)(in_end - in) < n)
		fail("truncated request");
	while (n--)
		v = v << 8 | *in++;
	return v;
}

static void put(uint64_t v, size_t n)
{
	while (n--)
		putchar((int)(v >> (8 * n) & 0xff));
}

static void reply(int status, u_int consumed, const char *bytes, u_int len)
{
	put((uint64_t)status, 1);
	put(consumed, 4);
	put(len, 4);
	fwrite(bytes, 1, len, stdout);
}

/* Encodes `value` into `out`: its length, or -1. */
static long encode(const struct marshal_random_type *t, void *value)
{
	XDR x;
	long len = -1;
	xdrmem_create(&x, out, sizeof out, XDR_ENCODE);
	if (t->xdr(&x, value))
		len = (long)xdr_getpos(&x);
	xdr_destroy(&x);
	return len;
}

int main(void)
{
	static unsigned char buf[64 << 20];
	size_t n = fread(buf, 1, sizeof buf, stdin);
	if (!feof(stdin))
		fail("input too long");
	in = buf;
	in_end = buf + n;
	while (in < in_end) {
		int op = (int)take(1);
		size_t name_len = (size_t)take(4);
		char name[256];
		const struct marshal_random_type *t;
		uint64_t seed;
		void *value;
		long len;
		if (name_len >= sizeof name || (size_t)(in_end - in) < name_len)
			fail("bad type name");
		memcpy(name, in, name_len);
		name[name_len] = 0;
		in += name_len;
		t = find(name);
		if (t == NULL) {
			fprintf(stderr, "exact_driver: unknown type %s\n", name);
			exit(2);
		}
		seed = take(8);
		value = calloc(1, t->size);
		if (op == 'E') {
			t->fill(seed, value);
			len = encode(t, value);
			if (len < 0)
				reply(0, 0, NULL, 0);
			else
				reply(1, (u_int)len, out, (u_int)len);
		} else if (op == 'D') {
			u_int m = (u_int)take(4);
			char *data;
			XDR x;
			if ((size_t)(in_end - in) < m)
				fail("truncated request");
			/* A copy: xdrmem reads words where the bytes lie. */
			data = malloc(m + 1);
			memcpy(data, in, m);
			in += m;
			xdrmem_create(&x, data, m, XDR_DECODE);
			if (!t->xdr(&x, value)) {
				reply(0, 0, NULL, 0);
			} else {
				u_int consumed = xdr_getpos(&x);
				len = encode(t, value);
				if (len < 0)
					reply(2, consumed, NULL, 0);
				else
					reply(1, consumed, out, (u_int)len);
			}
			xdr_destroy(&x);
			free(data);
		} else {
			fail("unknown request");
		}
		/* What it points to came from malloc (the filler's, or the decoder's). */
		xdr_free(t->xdr, value);
		free(value);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
