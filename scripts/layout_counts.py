#!/usr/bin/env python3
"""Counts the instructions per record of every function of the layout bench with callgrind.

Builds the bench (`cargo bench --no-run`, optimised as criterion runs it), then for each
function runs the bench executable under `valgrind --tool=callgrind` twice in counting mode
(`LAYOUT_COUNT=<group>/<function>:<batches>`, see benches/benches/layout.rs), with N and 2N
batches of 1024 records, and reports (I(2N) - I(N)) / (N * 1024): the setup, the checks and
criterion's start-up are the same in both runs and cancel. Prints a markdown table with the
ratios marshal/hand, marshal/c_ntoh and xdr/marshal. Usage:
    python3 scripts/layout_counts.py [filter]    # e.g. `udp` or `decode/big`
"""
import json
import re
import subprocess
import sys

N = 20
BATCH = 1024
FUNCS = ["struct_copy", "marshal", "marshal_in_place", "hand", "c_ntoh", "xdr"]
filt = sys.argv[1] if len(sys.argv) > 1 else ""

out = subprocess.run(
    ["cargo", "bench", "-p", "marshal-benches", "--bench", "layout", "--no-run",
     "--message-format=json"],
    check=True, capture_output=True, text=True).stdout
exe = None
for line in out.splitlines():
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "layout" \
            and msg.get("executable"):
        exe = msg["executable"]
assert exe, "no layout bench executable in cargo's output"


def collected(fid, batches):
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", exe, "--bench"],
        env={"LAYOUT_COUNT": f"{fid}:{batches}", "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True)
    if f"ran {fid} {batches} times" not in r.stderr:
        return None  # no such function (marshal_in_place only exists for udp)
    # The last summary is the bench process's own (criterion forks a child to look for gnuplot).
    return int(re.findall(r"Collected : (\d+)", r.stderr)[-1])


print(f"instructions per record (callgrind, {exe.rsplit('/', 1)[-1]})\n")
print("| op/case | " + " | ".join(FUNCS) + " | marshal/hand | marshal/c_ntoh | xdr/marshal |")
print("|---|" + "---|" * (len(FUNCS) + 3))
for op in ["decode", "encode"]:
    for case in ["long", "udp", "big"]:
        if filt not in f"{op}/{case}":
            continue
        per = {}
        for f in FUNCS:
            fid = f"layout/{op}/{case}/{f}"
            a, b = collected(fid, N), collected(fid, 2 * N)
            per[f] = None if a is None else (b - a) / (N * BATCH)
        cells = [f"{per[f]:.1f}" if per[f] is not None else "–" for f in FUNCS]
        m = per["marshal"]
        ratios = [f"{m / per['hand']:.2f}", f"{m / per['c_ntoh']:.2f}", f"{per['xdr'] / m:.1f}"]
        print(f"| {op}/{case} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |",
              flush=True)
