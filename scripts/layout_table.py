#!/usr/bin/env python3
"""Prints the criterion results of the layout bench as a markdown table: the median time per
record (of batches of 1024) of each function, then ratios of medians: marshal/hand (both by
value), marshal_into/hand_into (both into the output's slots), best/best (the fastest marshal
form over the fastest hand-written one), best/c_ntoh, and xdr/best (below 1 means marshal is
faster than hand or C; above 1 in the last column that it is faster than XDR).

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
FUNCS = [
    "struct_copy",
    "marshal",
    "marshal_into",
    "marshal_in_place",
    "hand",
    "hand_into",
    "c_ntoh",
    "xdr",
]
MARSHAL = ["marshal", "marshal_into", "marshal_in_place"]
HAND = ["hand", "hand_into"]


def median(op, case, func):
    path = os.path.join(root, f"layout_{op}_{case}", func, "new", "estimates.json")
    try:
        return json.load(open(path))["median"]["point_estimate"] / BATCH
    except FileNotFoundError:
        return None


def ratio(a, b):
    return "–" if a is None or b is None else f"{a / b:.2f}"


def best(t, funcs):
    return min(t[f] for f in funcs if t[f] is not None)


RATIOS = ["marshal/hand", "into/hand_into", "best/best hand", "best/C", "XDR/best"]
print("median ns per record (batches of 1024)\n")
print("| op/case | " + " | ".join(FUNCS + RATIOS) + " |")
print("|---|" + "---|" * (len(FUNCS) + len(RATIOS)))
for op in ["decode", "encode"]:
    for case in ["long", "udp", "big"]:
        t = {f: median(op, case, f) for f in FUNCS}
        if t["marshal"] is None:
            continue
        cells = [f"{t[f]:.2f}" if t[f] is not None else "–" for f in FUNCS]
        m, h = best(t, MARSHAL), best(t, HAND)
        ratios = [
            ratio(t["marshal"], t["hand"]),
            ratio(t["marshal_into"], t["hand_into"]),
            ratio(m, h),
            ratio(m, t["c_ntoh"]),
            f"{t['xdr'] / m:.1f}×",
        ]
        print(f"| {op}/{case} | " + " | ".join(cells + ratios) + " |")
