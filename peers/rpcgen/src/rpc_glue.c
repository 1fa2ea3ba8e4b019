/*
 * C glue for src/rpc.rs: a libtirpc TCP client of FLICK_PROG for benchmarks,
 * and c_stub_pfs_write, one PFS_WRITE call marshalled and unmarshalled by
 * libtirpc and the generated routines over an xdrmem buffer.
 *
 * Contracts (relied upon by src/rpc.rs):
 *   rpc_glue_connect(port, bufsz, err, cap)
 *       port != 0 (0 would make clnttcp_create ask the portmapper). err is
 *       writable for cap >= 1 bytes. Returns a CLIENT connected to
 *       127.0.0.1:port with a 60 s call timeout, or NULL with a
 *       NUL-terminated message in err. The CLIENT is released with
 *       rpc_glue_destroy, exactly once.
 *   rpc_glue_null(clnt, err, cap)
 *   rpc_glue_echo_T(clnt, arg, count, err, cap)
 *       clnt from rpc_glue_connect, not destroyed, not used by another
 *       thread during the call. arg points to a valid T (as for
 *       glue_encode_T in glue.c), only read. Returns 1 on success with the
 *       reply's element count in *count (the reply itself is decoded into
 *       a local and xdr_free'd before returning); 0 on an RPC failure with
 *       the clnt_sperror text in err (NUL-terminated).
 *   c_stub_pfs_write(data, n, buf, cap)
 *       data readable for n ints (any pointer if n == 0), n <= INT_MAX / 4;
 *       buf writable for cap bytes. See the comment on the function.
 *   rpc_glue_consts(out, cap)
 *       writes at most cap values (order mirrored by rpc.rs) and returns how
 *       many there are.
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <rpc/rpc.h>

#include "flick.h"

/* clnt_sperror and clnt_spcreateerror format into a buffer that libtirpc
 * shares between calls; serialise our uses of them. */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

/* The timeout passed to clnt_call is ignored once CLSET_TIMEOUT is set. */
static const struct timeval call_timeout = { 60, 0 };

static void copy_message(char *err, size_t cap, const char *msg)
{
    snprintf(err, cap, "%s", msg ? msg : "(no message)");
}

static void rpc_error(CLIENT *clnt, const char *what, char *err, size_t cap)
{
    pthread_mutex_lock(&err_lock);
    copy_message(err, cap, clnt_sperror(clnt, what));
    pthread_mutex_unlock(&err_lock);
}

CLIENT *rpc_glue_connect(u_short port, u_int bufsz, char *err, size_t cap)
{
    struct sockaddr_in addr;
    struct timeval timeout = call_timeout;
    int sock = RPC_ANYSOCK;
    CLIENT *clnt;

    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    clnt = clnttcp_create(&addr, FLICK_PROG, FLICK_VERS, &sock, bufsz, bufsz);
    if (clnt == NULL) {
        pthread_mutex_lock(&err_lock);
        copy_message(err, cap, clnt_spcreateerror("clnttcp_create"));
        pthread_mutex_unlock(&err_lock);
        return NULL;
    }
    if (!clnt_control(clnt, CLSET_TIMEOUT, (char *)&timeout)) {
        copy_message(err, cap, "clnt_control(CLSET_TIMEOUT) refused");
        clnt_destroy(clnt);
        return NULL;
    }
    return clnt;
}

void rpc_glue_destroy(CLIENT *clnt)
{
    clnt_destroy(clnt);
}

int rpc_glue_null(CLIENT *clnt, char *err, size_t cap)
{
    enum clnt_stat st = clnt_call(clnt, FLICK_NULL, (xdrproc_t)xdr_void, NULL,
                                  (xdrproc_t)xdr_void, NULL, call_timeout);
    if (st != RPC_SUCCESS) {
        rpc_error(clnt, "FLICK_NULL", err, cap);
        return 0;
    }
    return 1;
}

/* One ECHO_* call through clnt_call with the generated routines, as the
 * rpcgen stub echo_*_1 does, but into a local result rather than the stub's
 * static one (so separate clients may be used from separate threads). */
#define RPC_GLUE_ECHO(T, PROC)                                                 \
    int rpc_glue_echo_##T(CLIENT *clnt, const T *arg, u_int *count, char *err, \
                          size_t cap)                                          \
    {                                                                          \
        T res;                                                                 \
        enum clnt_stat st;                                                     \
        memset(&res, 0, sizeof res);                                           \
        /* XDR_ENCODE only reads *arg; clnt_call's prototype is not const. */  \
        st = clnt_call(clnt, PROC, (xdrproc_t)xdr_##T, (caddr_t)arg,           \
                       (xdrproc_t)xdr_##T, (caddr_t)&res, call_timeout);       \
        if (st != RPC_SUCCESS)                                                 \
            rpc_error(clnt, #PROC, err, cap);                                  \
        else                                                                   \
            *count = res.T##_len;                                              \
        /* Also after a failed decode: frees what it allocated. */             \
        xdr_free((xdrproc_t)xdr_##T, (char *)&res);                            \
        return st == RPC_SUCCESS;                                              \
    }

RPC_GLUE_ECHO(int_array, ECHO_INTS)
RPC_GLUE_ECHO(rect_array, ECHO_RECTS)
RPC_GLUE_ECHO(dirent_array, ECHO_DIRENTS)

/*
 * One PFS_WRITE call as libtirpc's client and server stubs process it, over
 * an xdrmem buffer instead of a socket:
 *
 *   client: xdr_callmsg (xid 1, FLICK_PROG, FLICK_VERS, PFS_WRITE, AUTH_NONE
 *           credential and verifier) then xdr_pfs_write_args { handle 3,
 *           pos 100, len 4n, data (n, data) } into buf (XDR_ENCODE);
 *   server: xdr_callmsg from those bytes into a zeroed rpc_msg whose
 *           credential and verifier bodies point at local MAX_AUTH_BYTES
 *           areas (as svc_getreq_common sets them up), a check of
 *           prog/vers/proc, xdr_pfs_write_args into a zeroed argument (which
 *           mallocs data, as svc_getargs does), and xdr_free of it.
 *
 * Returns pos + len + data[n-1] of the decoded arguments (pos + len when
 * n == 0), i.e. 100 + 4n + data[n-1], wrapping; -1 on any failure (buf too
 * small, header mismatch). noinline and external so that it stays one
 * function named c_stub_pfs_write for valgrind's --toggle-collect.
 */
__attribute__((noinline)) int c_stub_pfs_write(const int *data, u_int n, char *buf, u_int cap)
{
    XDR enc, dec;
    struct rpc_msg call, msg;
    pfs_write_args args, in;
    char cred_area[2 * MAX_AUTH_BYTES];
    u_int used, last;
    int ok, ret = -1;

    /* Client side. */
    memset(&call, 0, sizeof call);
    call.rm_xid = 1;
    call.rm_direction = CALL;
    call.rm_call.cb_rpcvers = RPC_MSG_VERSION;
    call.rm_call.cb_prog = FLICK_PROG;
    call.rm_call.cb_vers = FLICK_VERS;
    call.rm_call.cb_proc = PFS_WRITE;
    call.rm_call.cb_cred = _null_auth;
    call.rm_call.cb_verf = _null_auth;
    args.handle = 3;
    args.pos = 100;
    args.len = (int)(n * 4);
    args.data.data_len = n;
    /* XDR_ENCODE only reads the data. */
    args.data.data_val = (int *)data;

    xdrmem_create(&enc, buf, cap, XDR_ENCODE);
    ok = xdr_callmsg(&enc, &call) && xdr_pfs_write_args(&enc, &args);
    used = xdr_getpos(&enc);
    xdr_destroy(&enc);
    if (!ok)
        return -1;

    /* Server side. */
    memset(&msg, 0, sizeof msg);
    msg.rm_call.cb_cred.oa_base = cred_area;
    msg.rm_call.cb_verf.oa_base = &cred_area[MAX_AUTH_BYTES];
    memset(&in, 0, sizeof in);
    xdrmem_create(&dec, buf, used, XDR_DECODE);
    if (xdr_callmsg(&dec, &msg) && msg.rm_direction == CALL &&
        msg.rm_call.cb_prog == FLICK_PROG && msg.rm_call.cb_vers == FLICK_VERS &&
        msg.rm_call.cb_proc == PFS_WRITE && xdr_pfs_write_args(&dec, &in)) {
        last = in.data.data_len > 0 ? (u_int)in.data.data_val[in.data.data_len - 1] : 0;
        ret = (int)((u_int)in.pos + (u_int)in.len + last);
    }
    xdr_free((xdrproc_t)xdr_pfs_write_args, (char *)&in);
    xdr_destroy(&dec);
    return ret;
}

/* Program, version and procedure numbers from flick.h, for the Rust
 * constants' test. The order is mirrored by `c_consts()` in rpc.rs. */
size_t rpc_glue_consts(unsigned long *out, size_t cap)
{
    const unsigned long v[] = {
        FLICK_PROG, FLICK_VERS, FLICK_NULL, ECHO_INTS, ECHO_RECTS,
        ECHO_DIRENTS, ECHO_RESULT, ECHO_LIST, PFS_WRITE,
    };
    size_t n = sizeof v / sizeof v[0];
    size_t i;
    for (i = 0; i < n && i < cap; i++)
        out[i] = v[i];
    return n;
}
