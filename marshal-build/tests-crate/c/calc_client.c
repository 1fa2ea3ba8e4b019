/*
 * A C client of CALC_PROG (xdr/calc.x), in the shape of the sample client `rpcgen -a`
 * writes (calc_client.c), with real arguments: it finds the server through rpcbind
 * (`clnt_create`), calls every procedure of CALC_VERS over the transport given, and prints
 * one line per reply for tests/live_rpc.rs and tests/async_rpc.rs to check.
 *
 * usage: calc_client HOST tcp|udp [PROGRAM]
 *
 * PROGRAM (decimal, or hex with 0x) calls that program number instead of CALC_PROG: a test
 * may serve CALC_VERS under a number of its own, so that it cannot meet another test's
 * registration with rpcbind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"

static void fail(CLIENT *clnt, const char *what) {
	clnt_perror(clnt, what);
	exit(2);
}

int main(int argc, char **argv) {
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s HOST tcp|udp [PROGRAM]\n", argv[0]);
		return 1;
	}
	rpcprog_t prog = CALC_PROG;
	if (argc == 4) {
		char *end;
		prog = (rpcprog_t)strtoul(argv[3], &end, 0);
		if (*argv[3] == '\0' || *end != '\0') {
			fprintf(stderr, "not a program number: %s\n", argv[3]);
			return 1;
		}
	}
	CLIENT *clnt = clnt_create(argv[1], prog, CALC_VERS, argv[2]);
	if (clnt == NULL) {
		clnt_pcreateerror(argv[1]);
		return 2;
	}

	char null_arg;
	if (calcproc_null_1(&null_arg, clnt) == NULL)
		fail(clnt, "CALCPROC_NULL");
	printf("null ok\n");

	pair p = { 40, 2 };
	int *sum = calcproc_add_1(&p, clnt);
	if (sum == NULL)
		fail(clnt, "CALCPROC_ADD");
	printf("add %d\n", *sum);

	greeting g = { "world", 3 };
	name *hello = calcproc_greet_1(&g, clnt);
	if (hello == NULL)
		fail(clnt, "CALCPROC_GREET");
	printf("greet %s\n", *hello);
	xdr_free((xdrproc_t)xdr_name, (char *)hello);

	int values[] = { 7, -3, 12, 5 };
	static const op ops[] = { OP_SUM, OP_MAX, OP_MIN };
	for (int i = 0; i < 3; i++) {
		reduce_args r = { ops[i], { 4, values } };
		reduce_res *res = calcproc_reduce_1(&r, clnt);
		if (res == NULL)
			fail(clnt, "CALCPROC_REDUCE");
		if (res->ok)
			printf("reduce %d %d\n", (int)ops[i], res->reduce_res_u.value);
		else
			printf("reduce %d none\n", (int)ops[i]);
	}
	reduce_args empty = { OP_MAX, { 0, NULL } };
	reduce_res *none = calcproc_reduce_1(&empty, clnt);
	if (none == NULL)
		fail(clnt, "CALCPROC_REDUCE");
	printf("reduce empty %s\n", none->ok ? "value" : "none");

	clnt_destroy(clnt);
	return 0;
}
