/*
 * Thin C glue between Rust and the rpcgen-generated routines in flick_xdr.c.
 *
 * Every codec entry point runs exactly one generated xdr_* routine over an
 * xdrmem stream; nothing else happens inside them, so benchmarks that time
 * these functions measure rpcgen's stubs plus libtirpc's xdrmem stream.
 *
 * Contracts (relied upon by src/lib.rs):
 *   glue_encode_T(obj, out, len, pos)
 *       obj points to a valid, fully initialised T whose pointers are valid
 *       for reading (strings NUL-terminated); the encoder never writes
 *       through obj. out is writable for len bytes. Returns nonzero on
 *       success; *pos is the number of bytes written (xdr_getpos).
 *   glue_decode_T(obj, buf, len, pos)
 *       obj points to a T whose pointer members are all NULL (all-zero T),
 *       so the generated decoder mallocs everything it needs. buf is
 *       readable for len bytes and is never written. Returns nonzero on
 *       success; *pos is the number of bytes consumed. Whether or not it
 *       succeeded, obj must afterwards be released with glue_free_T.
 *   glue_free_T(obj)
 *       xdr_free on a T filled by glue_decode_T; leaves its pointers NULL.
 *   glue_bench_decode_T(buf, len)
 *       decode into a zeroed local T, xdr_free it, return the decoder's
 *       verdict.
 */

#include <stddef.h>
#include <string.h>

#include <rpc/rpc.h>

#include "flick.h"

#define GLUE_CODEC(T)                                                         \
    int glue_encode_##T(const T *obj, char *out, u_int len, u_int *pos)       \
    {                                                                         \
        XDR xdrs;                                                             \
        bool_t ok;                                                            \
        xdrmem_create(&xdrs, out, len, XDR_ENCODE);                           \
        /* XDR_ENCODE only reads *obj; the prototype is just not const. */    \
        ok = xdr_##T(&xdrs, (T *)obj);                                        \
        *pos = xdr_getpos(&xdrs);                                             \
        xdr_destroy(&xdrs);                                                   \
        return ok ? 1 : 0;                                                    \
    }                                                                         \
                                                                              \
    int glue_decode_##T(T *obj, const char *buf, u_int len, u_int *pos)       \
    {                                                                         \
        XDR xdrs;                                                             \
        bool_t ok;                                                            \
        /* XDR_DECODE only reads the buffer; xdrmem_create is not const. */   \
        xdrmem_create(&xdrs, (char *)buf, len, XDR_DECODE);                   \
        ok = xdr_##T(&xdrs, obj);                                             \
        *pos = xdr_getpos(&xdrs);                                             \
        xdr_destroy(&xdrs);                                                   \
        return ok ? 1 : 0;                                                    \
    }                                                                         \
                                                                              \
    void glue_free_##T(T *obj)                                                \
    {                                                                         \
        xdr_free((xdrproc_t)xdr_##T, (char *)obj);                            \
    }                                                                         \
                                                                              \
    int glue_bench_decode_##T(const char *buf, u_int len)                     \
    {                                                                         \
        XDR xdrs;                                                             \
        T obj;                                                                \
        bool_t ok;                                                            \
        memset(&obj, 0, sizeof obj);                                          \
        xdrmem_create(&xdrs, (char *)buf, len, XDR_DECODE);                   \
        ok = xdr_##T(&xdrs, &obj);                                            \
        xdr_destroy(&xdrs);                                                   \
        xdr_free((xdrproc_t)xdr_##T, (char *)&obj);                           \
        return ok ? 1 : 0;                                                    \
    }

GLUE_CODEC(int_array)
GLUE_CODEC(rect_array)
GLUE_CODEC(dirent_array)
GLUE_CODEC(result)
GLUE_CODEC(entry_list)

/*
 * Layout facts of the generated types, so the Rust mirrors (#[repr(C)]
 * structs in lib.rs) can be checked against what the C compiler actually
 * produced. Writes at most cap values into out and returns how many there
 * are in total. The order is mirrored by `rust_layout()` in lib.rs.
 */
size_t glue_layout(size_t *out, size_t cap)
{
    const size_t v[] = {
        sizeof(int_array),
        _Alignof(int_array),
        offsetof(int_array, int_array_len),
        offsetof(int_array, int_array_val),
        sizeof(rect),
        _Alignof(rect),
        offsetof(rect, a.x),
        offsetof(rect, a.y),
        offsetof(rect, b.x),
        offsetof(rect, b.y),
        sizeof(rect_array),
        _Alignof(rect_array),
        offsetof(rect_array, rect_array_len),
        offsetof(rect_array, rect_array_val),
        sizeof(dirent),
        _Alignof(dirent),
        offsetof(dirent, name),
        offsetof(dirent, st.ints),
        offsetof(dirent, st.chars),
        sizeof(dirent_array),
        _Alignof(dirent_array),
        offsetof(dirent_array, dirent_array_len),
        offsetof(dirent_array, dirent_array_val),
        sizeof(result),
        _Alignof(result),
        offsetof(result, tag),
        offsetof(result, result_u.ival),
        offsetof(result, result_u.sval),
        offsetof(result, result_u.other),
        sizeof(entry),
        _Alignof(entry),
        offsetof(entry, id),
        offsetof(entry, name),
        offsetof(entry, next),
        sizeof(entry_list),
        _Alignof(entry_list),
        offsetof(entry_list, head),
    };
    size_t n = sizeof v / sizeof v[0];
    size_t i;
    for (i = 0; i < n && i < cap; i++)
        out[i] = v[i];
    return n;
}
