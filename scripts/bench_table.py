#!/usr/bin/env python3
"""Prints the criterion results of the XDR and CDR suites as markdown tables of throughput and ratios.

Reads target/criterion/xdr_<op>_<workload>/<impl>/<size>/new/estimates.json (the median point
estimate of the time per iteration) and the throughput bytes from benchmark.json. Usage:
    cargo bench -p marshal-benches --bench xdr
    python3 scripts/bench_table.py [criterion-dir]
"""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
SIZES = ["64B", "1KiB", "64KiB", "1MiB", "4MiB"]


def load(group, impl, size):
    base = os.path.join(root, group, impl, size, "new")
    try:
        est = json.load(open(os.path.join(base, "estimates.json")))
        bench = json.load(open(os.path.join(base, "benchmark.json")))
    except FileNotFoundError:
        return None
    ns = est["median"]["point_estimate"]
    nbytes = bench["throughput"]["Bytes"]
    return nbytes / ns  # GB/s (bytes per ns)


for op in ["encode", "decode"]:
    for wl in ["int", "rect", "dirent"]:
        group = f"xdr_{op}_{wl}"
        if not os.path.isdir(os.path.join(root, group)):
            continue
        impls = sorted(os.listdir(os.path.join(root, group)))
        impls = [i for i in impls if i != "report"]
        order = ["memcpy", "marshal", "marshal-borrowed-str", "marshal-borrowed-bytes", "rpcgen", "serde-xdr"]
        impls = [i for i in order if i in impls]
        print(f"\n**xdr/{op}/{wl}** — median GB/s; in brackets marshal's speed-up over each")
        print("| size | " + " | ".join(impls) + " |")
        print("|---|" + "---|" * len(impls))
        for size in SIZES:
            vals = {i: load(group, i, size) for i in impls}
            if vals.get("marshal") is None:
                continue
            m = vals["marshal"]
            cells = []
            for i in impls:
                v = vals[i]
                if v is None:
                    cells.append("–")
                elif i == "memcpy":
                    cells.append(f"{v:.1f} (marshal {m / v:.2f}×)")
                elif i.startswith("marshal-borrowed"):
                    o = vals.get("omniorb-" + i.split("-")[2])
                    cells.append(f"{v:.2f} ({v / o:.1f}× omniORB)" if o else f"{v:.2f}")
                elif i.startswith("marshal"):
                    cells.append(f"{v:.2f}")
                else:
                    best = max(vals[k] for k in impls if k.startswith("marshal") and vals[k])
                    cells.append(f"{v:.2f} ({m / v:.1f}×" + (f", best {best / v:.1f}×)" if best != m else ")"))
            print(f"| {size} | " + " | ".join(cells) + " |")


# CDR: marshal and omniORB in each byte order; `-le` is this machine's order (copies), `-be`
# swaps. Ratios compare marshal with omniORB in the same byte order.
for op in ["encode", "decode"]:
    for wl in ["int", "rect", "dirent"]:
        group = f"cdr_{op}_{wl}"
        if not os.path.isdir(os.path.join(root, group)):
            continue
        cols = ["memcpy", "marshal-le", "omniorb-le", "marshal-be", "omniorb-be"]
        if os.path.isdir(os.path.join(root, group, "marshal-borrowed-le")):
            cols += ["marshal-borrowed-le", "marshal-borrowed-be"]
        print(f"\n**cdr/{op}/{wl}** — median GB/s; in brackets marshal's speed-up over omniORB "
              "in the same byte order (memcpy: marshal-le's fraction of it)")
        print("| size | " + " | ".join(cols) + " |")
        print("|---|" + "---|" * len(cols))
        for size in SIZES:
            vals = {i: load(group, i, size) for i in cols}
            if vals.get("marshal-le") is None:
                continue
            cells = []
            for i in cols:
                v = vals[i]
                if v is None:
                    cells.append("–")
                elif i == "memcpy":
                    cells.append(f"{v:.1f} (marshal {vals['marshal-le'] / v:.2f}×)")
                elif i.startswith("marshal-borrowed"):
                    o = vals.get("omniorb-" + i.split("-")[2])
                    cells.append(f"{v:.2f} ({v / o:.1f}× omniORB)" if o else f"{v:.2f}")
                elif i.startswith("marshal"):
                    cells.append(f"{v:.2f}")
                else:
                    m = vals["marshal-" + i.split("-")[1]]
                    cells.append(f"{v:.2f} ({m / v:.1f}×)")
            print(f"| {size} | " + " | ".join(cells) + " |")

for payload in [p + "/" + q for p in ["roundtrip", "roundtrip_one_cpu"] for q in ["octets", "ints"]]:
    group = "giop_" + payload.replace("/", "_")
    if not os.path.isdir(os.path.join(root, group)):
        continue
    impls = ["rust-rust", "omniorb-omniorb", "rust-omniorb"]
    print(f"\n**giop/{payload}** — median µs per call (payload MB/s); in brackets rust-rust's speed-up over each")
    print("| size | " + " | ".join(impls) + " |")
    print("|---|" + "---|" * len(impls))
    for size in ["64B", "64KiB", "1MiB"]:
        cells = []
        base = load(group, "rust-rust", size)
        for impl in impls:
            r = load(group, impl, size)
            if r is None:
                cells.append("–")
                continue
            us = json.load(open(os.path.join(root, group, impl, size, "new", "estimates.json")))["median"]["point_estimate"] / 1000
            cell = f"{us:.1f} ({r * 1000:.0f} MB/s)"
            if impl != "rust-rust" and base:
                cell += f" ({base / r:.2f}×)"
            cells.append(cell)
        print(f"| {size} | " + " | ".join(cells) + " |")


# NDR: KSdata1 and its prefixes; cells are median ns per record and, in brackets, the ratio to
# memcpy of the record in the same group.
NDR_SIZES = ["100B", "1KB", "10KB", "100KB"]
NDR_OPS = [
    ("send", ["memcpy", "marshal-zero-copy", "marshal-copy", "xdr", "cdr", "rkyv"]),
    ("recv", ["memcpy", "marshal-decode-into", "marshal-view", "xdr", "cdr", "rkyv-access"]),
    ("recv-big-endian", ["memcpy", "marshal-interp", "xdr", "cdr-be"]),
    ("recv-extra-first", ["memcpy", "marshal-interp"]),
]


def ns(group, impl):
    try:
        est = json.load(open(os.path.join(root, group, impl, "new", "estimates.json")))
    except FileNotFoundError:
        return None
    return est["median"]["point_estimate"]


for op, cols in NDR_OPS:
    if not os.path.isdir(os.path.join(root, f"ndr_{op}_100B")):
        continue
    print(f"\n**ndr/{op}** — median ns per record (× memcpy of the record)")
    print("| size | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for size in NDR_SIZES:
        group = f"ndr_{op}_{size}"
        vals = {c: ns(group, c) for c in cols}
        base = vals.get("memcpy")
        cells = []
        for c in cols:
            v = vals[c]
            if v is None:
                cells.append("–")
            elif c == "memcpy" or not base:
                cells.append(f"{v:.1f}")
            else:
                cells.append(f"{v:.1f} ({v / base:.2f}×)")
        print(f"| {size} | " + " | ".join(cells) + " |")
