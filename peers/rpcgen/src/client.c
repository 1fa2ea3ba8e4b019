/*
 * flick_client <host> <port> <tcp|udp>: the C ONC RPC client of FLICK_PROG
 * version 1, built from rpcgen's client stubs (flick_clnt.c, generated with
 * -l). It connects to the given address directly (no rpcbind lookup), calls
 * every procedure with deterministic data, compares each reply field by
 * field with what it sent, and prints one line "ok <procname> <detail>" per
 * call and "all <N> calls ok" last. On an RPC error or a mismatch it prints
 * the problem to stderr and exits with status 1.
 *
 * libtirpc's UDP transport (clntudp_create) uses buffers of UDPMSGSIZE =
 * 8800 bytes for a whole message, so over UDP every argument is kept below
 * UDP_MAX_ARGS bytes (checked before each call). Over TCP one extra
 * ECHO_INTS call with LARGE_INTS ints (400,004 bytes) makes both sides send
 * records of several fragments.
 */

#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <rpc/rpc.h>

#include "flick.h"

/* Argument bytes allowed over UDP: 8800 minus generous room for the call
 * header (40 bytes with AUTH_NONE) and the reply header (24). */
#define UDP_MAX_ARGS 8000
#define LARGE_INTS 100000

static CLIENT *clnt;
static int over_udp;
static int calls;

static void fail(const char *proc, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "flick_client: %s: ", proc);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void fail_rpc(const char *proc)
{
    fprintf(stderr, "flick_client: %s\n", clnt_sperror(clnt, proc));
    exit(1);
}

static void ok(const char *proc, const char *fmt, ...)
{
    va_list ap;
    printf("ok %s ", proc);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    calls++;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        fail("malloc", "out of memory");
    return p;
}

static size_t xdr_string_size(size_t len)
{
    return 4 + (len + 3) / 4 * 4;
}

static void check_udp_fit(const char *proc, size_t arg_bytes)
{
    if (over_udp && arg_bytes > UDP_MAX_ARGS)
        fail(proc, "argument of %zu bytes is too large for UDP (max %d)", arg_bytes,
             UDP_MAX_ARGS);
}

/* Deterministic data; unsigned arithmetic wraps, the conversion to int is
 * two's complement with gcc and clang. */
static int int_at(u_int i)
{
    return (int)((i * 2654435761u) ^ 0x5bd1e995u);
}

/* ---- FLICK_NULL ---------------------------------------------------------- */

static void call_null(void)
{
    if (flick_null_1(NULL, clnt) == NULL)
        fail_rpc("FLICK_NULL");
    ok("null", "-");
}

/* ---- ECHO_INTS ----------------------------------------------------------- */

static void call_ints(u_int n)
{
    int_array arg, *res;
    u_int i;

    check_udp_fit("ECHO_INTS", 4 + 4 * (size_t)n);
    arg.int_array_len = n;
    arg.int_array_val = xmalloc(n * sizeof(int));
    for (i = 0; i < n; i++)
        arg.int_array_val[i] = int_at(i);

    res = echo_ints_1(&arg, clnt);
    if (res == NULL)
        fail_rpc("ECHO_INTS");
    if (res->int_array_len != n)
        fail("ECHO_INTS", "sent %u ints, got %u", n, res->int_array_len);
    for (i = 0; i < n; i++)
        if (res->int_array_val[i] != arg.int_array_val[i])
            fail("ECHO_INTS", "int %u: sent %d, got %d", i, arg.int_array_val[i],
                 res->int_array_val[i]);
    clnt_freeres(clnt, (xdrproc_t)xdr_int_array, (caddr_t)res);
    free(arg.int_array_val);
    ok("echo_ints", "n=%u", n);
}

/* ---- ECHO_RECTS ---------------------------------------------------------- */

static void call_rects(u_int n)
{
    rect_array arg, *res;
    u_int i;

    check_udp_fit("ECHO_RECTS", 4 + 16 * (size_t)n);
    arg.rect_array_len = n;
    arg.rect_array_val = xmalloc(n * sizeof(rect));
    for (i = 0; i < n; i++) {
        arg.rect_array_val[i].a.x = (int)i;
        arg.rect_array_val[i].a.y = -(int)i;
        arg.rect_array_val[i].b.x = int_at(2 * i);
        arg.rect_array_val[i].b.y = int_at(2 * i + 1);
    }

    res = echo_rects_1(&arg, clnt);
    if (res == NULL)
        fail_rpc("ECHO_RECTS");
    if (res->rect_array_len != n)
        fail("ECHO_RECTS", "sent %u rects, got %u", n, res->rect_array_len);
    for (i = 0; i < n; i++) {
        const rect *s = &arg.rect_array_val[i], *g = &res->rect_array_val[i];
        if (s->a.x != g->a.x || s->a.y != g->a.y || s->b.x != g->b.x || s->b.y != g->b.y)
            fail("ECHO_RECTS", "rect %u: sent {%d,%d,%d,%d}, got {%d,%d,%d,%d}", i, s->a.x,
                 s->a.y, s->b.x, s->b.y, g->a.x, g->a.y, g->b.x, g->b.y);
    }
    clnt_freeres(clnt, (xdrproc_t)xdr_rect_array, (caddr_t)res);
    free(arg.rect_array_val);
    ok("echo_rects", "n=%u", n);
}

/* ---- ECHO_DIRENTS -------------------------------------------------------- */

static void call_dirents(u_int n)
{
    dirent_array arg, *res;
    size_t bytes = 4, max_len = 0;
    u_int i, k;

    arg.dirent_array_len = n;
    arg.dirent_array_val = xmalloc(n * sizeof(dirent));
    for (i = 0; i < n; i++) {
        dirent *d = &arg.dirent_array_val[i];
        /* Lengths spread evenly over 0..255, both ends included. */
        size_t len = n > 1 ? (size_t)i * 255 / (n - 1) : 255;
        d->name = xmalloc(len + 1);
        for (k = 0; k < len; k++)
            d->name[k] = (char)('a' + (i + k) % 26);
        d->name[len] = '\0';
        for (k = 0; k < 30; k++)
            d->st.ints[k] = (int)(i * 31u - k * 1000003u);
        for (k = 0; k < 16; k++)
            d->st.chars[k] = (char)(i * 7 + k * 13);
        bytes += xdr_string_size(len) + 30 * 4 + 16;
        if (len > max_len)
            max_len = len;
    }
    check_udp_fit("ECHO_DIRENTS", bytes);

    res = echo_dirents_1(&arg, clnt);
    if (res == NULL)
        fail_rpc("ECHO_DIRENTS");
    if (res->dirent_array_len != n)
        fail("ECHO_DIRENTS", "sent %u dirents, got %u", n, res->dirent_array_len);
    for (i = 0; i < n; i++) {
        const dirent *s = &arg.dirent_array_val[i], *g = &res->dirent_array_val[i];
        if (g->name == NULL || strcmp(s->name, g->name) != 0)
            fail("ECHO_DIRENTS", "dirent %u: name differs", i);
        for (k = 0; k < 30; k++)
            if (s->st.ints[k] != g->st.ints[k])
                fail("ECHO_DIRENTS", "dirent %u: st.ints[%u]: sent %d, got %d", i, k,
                     s->st.ints[k], g->st.ints[k]);
        if (memcmp(s->st.chars, g->st.chars, sizeof s->st.chars) != 0)
            fail("ECHO_DIRENTS", "dirent %u: st.chars differ", i);
    }
    clnt_freeres(clnt, (xdrproc_t)xdr_dirent_array, (caddr_t)res);
    for (i = 0; i < n; i++)
        free(arg.dirent_array_val[i].name);
    free(arg.dirent_array_val);
    ok("echo_dirents", "n=%u max_name=%zu bytes=%zu", n, max_len, bytes);
}

/* ---- ECHO_RESULT --------------------------------------------------------- */

static void call_result(const result *arg)
{
    result *res;

    res = echo_result_1((result *)arg, clnt);
    if (res == NULL)
        fail_rpc("ECHO_RESULT");
    if (res->tag != arg->tag)
        fail("ECHO_RESULT", "sent tag %d, got %d", arg->tag, res->tag);
    switch (arg->tag) {
    case 0:
        if (res->result_u.ival != arg->result_u.ival)
            fail("ECHO_RESULT", "ival: sent %d, got %d", arg->result_u.ival,
                 res->result_u.ival);
        break;
    case 1:
        if (res->result_u.sval == NULL || strcmp(res->result_u.sval, arg->result_u.sval) != 0)
            fail("ECHO_RESULT", "sval differs");
        break;
    case 2:
        break;
    default: {
        const rect *s = &arg->result_u.other, *g = &res->result_u.other;
        if (s->a.x != g->a.x || s->a.y != g->a.y || s->b.x != g->b.x || s->b.y != g->b.y)
            fail("ECHO_RESULT", "other differs");
        break;
    }
    }
    clnt_freeres(clnt, (xdrproc_t)xdr_result, (caddr_t)res);
    ok("echo_result", "tag=%d", arg->tag);
}

static void call_results(void)
{
    static char greeting[] = "hello, flick: \xc3\xa9t\xc3\xa9";
    result r;

    r.tag = 0;
    r.result_u.ival = -123456789;
    call_result(&r);

    r.tag = 1;
    r.result_u.sval = greeting;
    call_result(&r);

    r.tag = 2;
    call_result(&r);

    r.tag = 7; /* the default arm */
    r.result_u.other.a.x = 1;
    r.result_u.other.a.y = -2;
    r.result_u.other.b.x = 2147483647;
    r.result_u.other.b.y = -2147483647 - 1;
    call_result(&r);
}

/* ---- ECHO_LIST ----------------------------------------------------------- */

static void call_list(u_int n)
{
    entry_list arg, *res;
    entry *nodes, *g;
    size_t bytes = 4;
    u_int i, k;

    nodes = xmalloc(n * sizeof(entry));
    for (i = 0; i < n; i++) {
        size_t len = i % 13;
        nodes[i].id = (int)(i * 3u) - 7;
        nodes[i].name = xmalloc(len + 1);
        for (k = 0; k < len; k++)
            nodes[i].name[k] = (char)('A' + (i + k) % 26);
        nodes[i].name[len] = '\0';
        nodes[i].next = i + 1 < n ? &nodes[i + 1] : NULL;
        bytes += 4 + 4 + xdr_string_size(len);
    }
    arg.head = n > 0 ? &nodes[0] : NULL;
    check_udp_fit("ECHO_LIST", bytes);

    res = echo_list_1(&arg, clnt);
    if (res == NULL)
        fail_rpc("ECHO_LIST");
    g = res->head;
    for (i = 0; i < n; i++, g = g->next) {
        if (g == NULL)
            fail("ECHO_LIST", "sent %u entries, got %u", n, i);
        if (g->id != nodes[i].id)
            fail("ECHO_LIST", "entry %u: sent id %d, got %d", i, nodes[i].id, g->id);
        if (g->name == NULL || strcmp(g->name, nodes[i].name) != 0)
            fail("ECHO_LIST", "entry %u: name differs", i);
    }
    if (g != NULL)
        fail("ECHO_LIST", "sent %u entries, got more", n);
    clnt_freeres(clnt, (xdrproc_t)xdr_entry_list, (caddr_t)res);
    for (i = 0; i < n; i++)
        free(nodes[i].name);
    free(nodes);
    ok("echo_list", "n=%u", n);
}

/* ---- PFS_WRITE ----------------------------------------------------------- */

static void call_pfs_write(u_int n)
{
    pfs_write_args arg;
    pfs_write_res *res;
    u_int i;
    int want_pos;

    check_udp_fit("PFS_WRITE", 16 + 4 * (size_t)n);
    arg.handle = 3;
    arg.pos = 100;
    arg.len = (int)(n * 4);
    arg.data.data_len = n;
    arg.data.data_val = xmalloc(n * sizeof(int));
    for (i = 0; i < n; i++)
        arg.data.data_val[i] = int_at(i);
    want_pos = arg.pos + arg.len;

    res = pfs_write_1(&arg, clnt);
    if (res == NULL)
        fail_rpc("PFS_WRITE");
    if (res->ret != (int)n || res->pos != want_pos)
        fail("PFS_WRITE", "want ret=%u pos=%d, got ret=%d pos=%d", n, want_pos, res->ret,
             res->pos);
    ok("pfs_write", "n=%u ret=%d pos=%d", n, res->ret, res->pos);
    clnt_freeres(clnt, (xdrproc_t)xdr_pfs_write_res, (caddr_t)res);
    free(arg.data.data_val);
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: flick_client <host> <port> <tcp|udp>\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct sockaddr_in addr;
    struct addrinfo hints, *ai;
    struct timeval timeout = { 10, 0 };
    int sock = RPC_ANYSOCK;
    char *end;
    long port;
    int rc;

    if (argc != 4)
        usage();
    port = strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || port < 1 || port > 65535)
        usage();
    if (strcmp(argv[3], "tcp") == 0)
        over_udp = 0;
    else if (strcmp(argv[3], "udp") == 0)
        over_udp = 1;
    else
        usage();

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    rc = getaddrinfo(argv[1], NULL, &hints, &ai);
    if (rc != 0)
        fail("getaddrinfo", "%s: %s", argv[1], gai_strerror(rc));
    memcpy(&addr, ai->ai_addr, sizeof addr);
    freeaddrinfo(ai);
    /* A nonzero port: clnt{tcp,udp}_create skip the portmapper lookup. */
    addr.sin_port = htons((unsigned short)port);

    if (over_udp) {
        struct timeval retry = { 1, 0 };
        clnt = clntudp_create(&addr, FLICK_PROG, FLICK_VERS, retry, &sock);
    } else {
        /* 0, 0: libtirpc's default buffers (64 KiB, i.e. record fragments of
         * at most 64 KiB - 4 bytes). */
        clnt = clnttcp_create(&addr, FLICK_PROG, FLICK_VERS, &sock, 0, 0);
    }
    if (clnt == NULL) {
        fprintf(stderr, "flick_client: %s\n",
                clnt_spcreateerror(over_udp ? "clntudp_create" : "clnttcp_create"));
        return 1;
    }
    /* Overrides the 25 s that the generated stubs pass to clnt_call. */
    if (!clnt_control(clnt, CLSET_TIMEOUT, (char *)&timeout))
        fail("clnt_control", "CLSET_TIMEOUT refused");

    call_null();
    call_ints(0);
    call_ints(1);
    call_ints(1000);
    if (!over_udp)
        call_ints(LARGE_INTS);
    call_rects(0);
    call_rects(100);
    call_dirents(0);
    call_dirents(20);
    call_results();
    call_list(0);
    call_list(50);
    call_pfs_write(1024);

    clnt_destroy(clnt);
    printf("all %d calls ok\n", calls);
    return fflush(stdout) == 0 ? 0 : 1;
}
