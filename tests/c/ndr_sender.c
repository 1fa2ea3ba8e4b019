/* An NDR sender as a C program: writes records of two structs in its own memory layout and
 * prints the layout facts (sizeof, offsetof, PBIO type strings) a receiver builds the format
 * from. Compiled by tests/tests/ndr_foreign.rs with `gcc -m32` (i386: 4-byte long, doubles
 * 4-byte aligned in structs) and `s390x-linux-gnu-gcc` (big-endian), and run there.
 *
 * usage: ndr_sender RECORDS_FILE COUNT
 * stdout: one line per fact:
 *   order big|little
 *   record NAME SIZE            (then its fields)
 *   field NAME TYPE SIZE OFFSET
 * RECORDS_FILE: COUNT `struct sample`, then COUNT `struct shuffled`, raw. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct inner {
    short s;
    double d;
};

struct sample {
    int i;
    long l;
    long long ll;
    short s;
    double d;
    char name[8];
    double m[3][4];
    struct inner nest;
};

/* An unexpected extra field first, the others in another order, and no `ll`. */
struct shuffled {
    int extra;
    struct inner nest;
    double m[3][4];
    char name[8];
    double d;
    short s;
    long l;
    int i;
};

#define FIELD(T, f, type, size) \
    printf("field %s %s %zu %zu\n", #f, type, (size_t)(size), offsetof(struct T, f))

static void fill_inner(struct inner *in, int k) {
    in->s = (short)(k + 1);
    in->d = -1.5 * k;
}

static void fill_common(int k, int *i, long *l, short *s, double *d, char *name, double m[3][4]) {
    *i = 1000 * k - 7;
    *l = -100000L * k + 3;
    *s = (short)(-3 * k);
    *d = 0.5 * k + 0.25;
    snprintf(name, 8, "rec%d", k % 1000);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            m[r][c] = k * 100 + r * 10 + c + 0.5;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s RECORDS_FILE COUNT\n", argv[0]);
        return 2;
    }
    int count = 0;
    sscanf(argv[2], "%d", &count);
    unsigned one = 1;
    printf("order %s\n", *(unsigned char *)&one ? "little" : "big");

    printf("record inner %zu\n", sizeof(struct inner));
    FIELD(inner, s, "integer", sizeof(short));
    FIELD(inner, d, "float", sizeof(double));

    printf("record sample %zu\n", sizeof(struct sample));
    FIELD(sample, i, "integer", sizeof(int));
    FIELD(sample, l, "integer", sizeof(long));
    FIELD(sample, ll, "integer", sizeof(long long));
    FIELD(sample, s, "integer", sizeof(short));
    FIELD(sample, d, "float", sizeof(double));
    FIELD(sample, name, "char[8]", 1);
    FIELD(sample, m, "float[3][4]", sizeof(double));
    FIELD(sample, nest, "inner", sizeof(struct inner));

    printf("record shuffled %zu\n", sizeof(struct shuffled));
    FIELD(shuffled, extra, "integer", sizeof(int));
    FIELD(shuffled, nest, "inner", sizeof(struct inner));
    FIELD(shuffled, m, "float[3][4]", sizeof(double));
    FIELD(shuffled, name, "char[8]", 1);
    FIELD(shuffled, d, "float", sizeof(double));
    FIELD(shuffled, s, "integer", sizeof(short));
    FIELD(shuffled, l, "integer", sizeof(long));
    FIELD(shuffled, i, "integer", sizeof(int));

    FILE *out = fopen(argv[1], "wb");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    for (int k = 0; k < count; k++) {
        struct sample r;
        memset(&r, 0, sizeof r);
        fill_common(k, &r.i, &r.l, &r.s, &r.d, r.name, r.m);
        r.ll = 1000000000000LL * k + 5;
        fill_inner(&r.nest, k);
        fwrite(&r, sizeof r, 1, out);
    }
    for (int k = 0; k < count; k++) {
        struct shuffled r;
        memset(&r, 0, sizeof r);
        fill_common(k, &r.i, &r.l, &r.s, &r.d, r.name, r.m);
        r.extra = 0x7eadbeef;
        fill_inner(&r.nest, k);
        fwrite(&r, sizeof r, 1, out);
    }
    return fclose(out) == 0 ? 0 : 1;
}
