/*
 * flick_server: the C ONC RPC server of FLICK_PROG version 1, built from
 * rpcgen's dispatch routine flick_prog_1 (flick_svc.c, generated with -m)
 * and the procedures below, written in rpcgen's default (non-MT) style:
 * each procedure returns a pointer to a static result, which the dispatch
 * routine sends with svc_sendreply.
 *
 * Semantics (shared with the Rust server): FLICK_NULL does nothing;
 * ECHO_* return their argument unchanged; PFS_WRITE returns
 * { ret = data.data_len, pos = pos + len }.
 *
 * The echo procedures *move* the decoded argument into their static result
 * (and zero the argument, so the svc_freeargs that follows frees nothing)
 * instead of deep-copying it: the server's work per call is one generated
 * decode, one generated encode and one xdr_free, as in a Rust server that
 * decodes a value and encodes it back. As in rpcgen-style code, the previous
 * result is released with xdr_free at the start of the next call.
 *
 * main() serves TCP and UDP on ephemeral ports without registering with
 * rpcbind (protocol 0 in svc_register), prints "tcp <port>\nudp <port>\n" on
 * stdout, and runs svc_run() until its stdin reaches EOF: a watcher thread
 * then calls _exit(0), so a dead parent never leaves a server behind.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "flick.h"

/* Defined in flick_svc.c; rpcgen -h does not declare it. */
extern void flick_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

void *flick_null_1_svc(void *argp, struct svc_req *rqstp)
{
    static char res;
    (void)argp;
    (void)rqstp;
    return (void *)&res;
}

/* Frees the previous result, moves *argp into the static result and leaves
 * *argp all-zero (no pointers), which svc_freeargs accepts as nothing to
 * free. */
#define ECHO_SVC(T, NAME)                                                    \
    T *NAME(T *argp, struct svc_req *rqstp)                                  \
    {                                                                        \
        static T res;                                                        \
        (void)rqstp;                                                         \
        xdr_free((xdrproc_t)xdr_##T, (char *)&res);                          \
        res = *argp;                                                         \
        memset(argp, 0, sizeof *argp);                                       \
        return &res;                                                         \
    }

ECHO_SVC(int_array, echo_ints_1_svc)
ECHO_SVC(rect_array, echo_rects_1_svc)
ECHO_SVC(dirent_array, echo_dirents_1_svc)
ECHO_SVC(result, echo_result_1_svc)
ECHO_SVC(entry_list, echo_list_1_svc)

pfs_write_res *pfs_write_1_svc(pfs_write_args *argp, struct svc_req *rqstp)
{
    static pfs_write_res res;
    (void)rqstp;
    /* pfs_write_res holds no pointers: nothing of the previous one to free. */
    res.ret = (int)argp->data.data_len;
    /* Wrapping addition (two's complement), without signed overflow. */
    res.pos = (int)((u_int)argp->pos + (u_int)argp->len);
    return &res;
}

/* Reads stdin until EOF (or an error) and ends the process. */
static void *stdin_watcher(void *unused)
{
    char buf[256];
    (void)unused;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR))
            _exit(0);
    }
    return NULL;
}

int main(void)
{
    SVCXPRT *tcp, *udp;
    pthread_t watcher;

    tcp = svctcp_create(RPC_ANYSOCK, 0, 0);
    if (tcp == NULL) {
        fprintf(stderr, "flick_server: svctcp_create failed\n");
        return 1;
    }
    /* Protocol 0: register the dispatch routine locally, not with rpcbind. */
    if (!svc_register(tcp, FLICK_PROG, FLICK_VERS, flick_prog_1, 0)) {
        fprintf(stderr, "flick_server: svc_register (tcp) failed\n");
        return 1;
    }
    udp = svcudp_create(RPC_ANYSOCK);
    if (udp == NULL) {
        fprintf(stderr, "flick_server: svcudp_create failed\n");
        return 1;
    }
    if (!svc_register(udp, FLICK_PROG, FLICK_VERS, flick_prog_1, 0)) {
        fprintf(stderr, "flick_server: svc_register (udp) failed\n");
        return 1;
    }

    if (pthread_create(&watcher, NULL, stdin_watcher, NULL) != 0) {
        fprintf(stderr, "flick_server: pthread_create failed\n");
        return 1;
    }

    printf("tcp %u\nudp %u\n", (unsigned)tcp->xp_port, (unsigned)udp->xp_port);
    if (fflush(stdout) != 0)
        return 1;

    svc_run();
    fprintf(stderr, "flick_server: svc_run returned\n");
    return 1;
}
