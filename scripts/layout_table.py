#!/usr/bin/env python3
"""Prints the criterion results of the layout bench as a markdown table: the median time per
batch of 1024 records (ns per record beside it) and the ratios marshal/hand, marshal/c_ntoh
and xdr/marshal (of median times: below 1 means marshal is faster than hand or C).

Reads <criterion-dir>/layout_<op>_<case>/<function>/new/estimates.json. Usage:
    cargo bench -p marshal-benches --bench layout
    python3 scripts/layout_table.py [criterion-dir]   # default: $CARGO_TARGET_DIR/criterion
"""
import json
import os
import sys

default = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")
root = sys.argv[1] if len(sys.argv) > 1 else default
BATCH = 1024
FUNCS = ["struct_copy", "marshal", "marshal_in_place", "hand", "c_ntoh", "xdr"]


def median(op, case, func):
    path = os.path.join(root, f"layout_{op}_{case}", func, "new", "estimates.json")
    try:
        return json.load(open(path))["median"]["point_estimate"]
    except FileNotFoundError:
        return None


print("median ns per batch of 1024 records (ns per record)\n")
print("| op/case | " + " | ".join(FUNCS) + " | marshal/hand | marshal/c_ntoh | xdr/marshal |")
print("|---|" + "---|" * (len(FUNCS) + 3))
for op in ["decode", "encode"]:
    for case in ["long", "udp", "big"]:
        t = {f: median(op, case, f) for f in FUNCS}
        if t["marshal"] is None:
            continue
        cells = [
            f"{t[f]:,.0f} ({t[f] / BATCH:.2f})" if t[f] is not None else "–" for f in FUNCS
        ]
        m = t["marshal"]
        ratios = [
            f"{m / t['hand']:.2f}",
            f"{m / t['c_ntoh']:.2f}",
            f"{t['xdr'] / m:.1f}",
        ]
        print(f"| {op}/{case} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
