#!/usr/bin/env python3
"""Packs and unpacks protocol headers with Python's `struct` module (network byte order, '!').

The reference for workloads/tests/headers_bytes.rs: an implementation of the header layouts
that shares nothing with the Rust derive. Bit-fields are put together and taken apart here
with shifts, from the RFCs' pictures (bit 0 of a unit is its least significant bit).

Input (stdin), one JSON object:
    {"pack":   {"<kind>": [{"<field>": value, ...}, ...], ...},
     "unpack": {"<kind>": ["<hex bytes>", ...], ...}}
where a value is an integer, true/false, or a list of byte values.

Output (stdout), in input order, "pack" first:
    pack <kind> <hex bytes>
    unpack <kind> <field>=<value> ...      (integers in decimal, byte arrays in hex)
Kinds: eth, ipv4, udp, tcp, arp, big. Any value out of its field's range is an error (exit 1).
"""

import json
import struct
import sys

TCP_FLAGS = ["cwr", "ece", "urg", "ack", "psh", "rst", "syn", "fin"]  # bit 7 .. bit 0


def bits(v, width, name):
    v = int(v)  # bool -> int
    if not 0 <= v < (1 << width):
        raise ValueError(f"{name}={v} does not fit {width} bits")
    return v


def mac(v):
    b = bytes(v)
    if len(b) != 6:
        raise ValueError("a MAC address is 6 bytes")
    return b


def ip4(v):
    b = bytes(v)
    if len(b) != 4:
        raise ValueError("an IPv4 address is 4 bytes")
    return b


# Each kind: (format, fields in output order, pack: dict -> tuple, unpack: tuple -> dict).

ETH = (
    "!6s6sH",
    ["dst", "src", "ethertype"],
    lambda h: (mac(h["dst"]), mac(h["src"]), h["ethertype"]),
    lambda t: {"dst": t[0], "src": t[1], "ethertype": t[2]},
)


def ipv4_pack(h):
    return (
        bits(h["version"], 4, "version") << 4 | bits(h["ihl"], 4, "ihl"),
        h["tos"],
        h["total_len"],
        h["id"],
        bits(h["flags"], 3, "flags") << 13 | bits(h["frag_offset"], 13, "frag_offset"),
        h["ttl"],
        h["protocol"],
        h["checksum"],
        ip4(h["src"]),
        ip4(h["dst"]),
    )


def ipv4_unpack(t):
    return {
        "version": t[0] >> 4,
        "ihl": t[0] & 0xF,
        "tos": t[1],
        "total_len": t[2],
        "id": t[3],
        "flags": t[4] >> 13,
        "frag_offset": t[4] & 0x1FFF,
        "ttl": t[5],
        "protocol": t[6],
        "checksum": t[7],
        "src": t[8],
        "dst": t[9],
    }


IPV4 = (
    "!BBHHHBBH4s4s",
    ["version", "ihl", "tos", "total_len", "id", "flags", "frag_offset", "ttl", "protocol",
     "checksum", "src", "dst"],
    ipv4_pack,
    ipv4_unpack,
)

UDP = (
    "!HHHH",
    ["src_port", "dst_port", "len", "checksum"],
    lambda h: (h["src_port"], h["dst_port"], h["len"], h["checksum"]),
    lambda t: dict(zip(["src_port", "dst_port", "len", "checksum"], t)),
)


def tcp_flags_byte(h):
    b = 0
    for i, name in enumerate(TCP_FLAGS):
        b |= bits(h[name], 1, name) << (7 - i)
    return b


def tcp_pack(h):
    return (
        h["src_port"],
        h["dst_port"],
        h["seq"],
        h["ack_seq"],
        bits(h["data_offset"], 4, "data_offset") << 4 | bits(h["reserved"], 4, "reserved"),
        tcp_flags_byte(h),
        h["window"],
        h["checksum"],
        h["urgent_ptr"],
    )


def tcp_unpack(t):
    d = {
        "src_port": t[0],
        "dst_port": t[1],
        "seq": t[2],
        "ack_seq": t[3],
        "data_offset": t[4] >> 4,
        "reserved": t[4] & 0xF,
    }
    for i, name in enumerate(TCP_FLAGS):
        d[name] = bool(t[5] >> (7 - i) & 1)
    d.update(window=t[6], checksum=t[7], urgent_ptr=t[8])
    return d


TCP = (
    "!HHIIBBHHH",
    ["src_port", "dst_port", "seq", "ack_seq", "data_offset", "reserved"] + TCP_FLAGS
    + ["window", "checksum", "urgent_ptr"],
    tcp_pack,
    tcp_unpack,
)

ARP_FIELDS = ["htype", "ptype", "hlen", "plen", "oper", "sha", "spa", "tha", "tpa"]
ARP = (
    "!HHBBH6s4s6s4s",
    ARP_FIELDS,
    lambda h: (h["htype"], h["ptype"], h["hlen"], h["plen"], h["oper"], mac(h["sha"]),
               ip4(h["spa"]), mac(h["tha"]), ip4(h["tpa"])),
    lambda t: dict(zip(ARP_FIELDS, t)),
)


def prefixed(kind, prefix, renames=None):
    """A part of the big header: `kind`'s fields named `prefix` + name (or renamed)."""
    fmt, fields, pack, unpack = kind
    renames = renames or {}
    name = lambda f: renames.get(f, prefix + f)
    return (
        fmt[1:],
        [name(f) for f in fields],
        lambda h: pack({f: h[name(f)] for f in fields}),
        lambda t: {name(f): v for f, v in unpack(t).items()},
    )


# USC's big header: Ethernet, IPv4, TCP and ARP back to back, 82 bytes. Its TCP flags are
# one byte (`tcp_flags`), so the TCP part is packed with the flag bits spread from it.
def big_tcp():
    fmt, fields, pack, unpack = TCP
    names = [f for f in fields if f not in TCP_FLAGS]

    def pk(h):
        d = {f: h["tcp_" + f] for f in names}
        flags = bits(h["tcp_flags"], 8, "tcp_flags")
        for i, f in enumerate(TCP_FLAGS):
            d[f] = flags >> (7 - i) & 1
        return pack(d)

    def up(t):
        d = unpack(t)
        out = {"tcp_" + f: d[f] for f in names}
        out["tcp_flags"] = sum(int(d[f]) << (7 - i) for i, f in enumerate(TCP_FLAGS))
        return out

    order = ["tcp_" + f for f in names[:6]] + ["tcp_flags"] + ["tcp_" + f for f in names[6:]]
    return (fmt[1:], order, pk, up)


BIG_PARTS = [
    prefixed(ETH, "eth_", {"ethertype": "eth_type"}),
    prefixed(IPV4, "ip_"),
    big_tcp(),
    prefixed(ARP, "arp_"),
]


def big_pack(h):
    out = ()
    for _, _, pack, _ in BIG_PARTS:
        out += pack(h)
    return out


def big_unpack(t):
    out, at = {}, 0
    for fmt, _, _, unpack in BIG_PARTS:
        n = len(struct.unpack("!" + fmt, bytes(struct.calcsize("!" + fmt))))
        out.update(unpack(t[at:at + n]))
        at += n
    return out


BIG = (
    "!" + "".join(p[0] for p in BIG_PARTS),
    sum((p[1] for p in BIG_PARTS), []),
    big_pack,
    big_unpack,
)

KINDS = {"eth": ETH, "ipv4": IPV4, "udp": UDP, "tcp": TCP, "arp": ARP, "big": BIG}
SIZES = {"eth": 14, "ipv4": 20, "udp": 8, "tcp": 20, "arp": 28, "big": 82}


def show(v):
    if isinstance(v, bytes):
        return v.hex()
    return str(int(v))


def main():
    for k, (fmt, *_rest) in KINDS.items():
        assert struct.calcsize(fmt) == SIZES[k], (k, struct.calcsize(fmt))
    req = json.load(sys.stdin)
    out = []
    for kind, headers in req.get("pack", {}).items():
        fmt, fields, pack, _ = KINDS[kind]
        for h in headers:
            if sorted(h) != sorted(fields):
                raise ValueError(f"{kind}: fields {sorted(h)}, expected {sorted(fields)}")
            out.append(f"pack {kind} {struct.pack(fmt, *pack(h)).hex()}")
    for kind, blobs in req.get("unpack", {}).items():
        fmt, fields, _, unpack = KINDS[kind]
        for hexbytes in blobs:
            d = unpack(struct.unpack(fmt, bytes.fromhex(hexbytes)))
            out.append(f"unpack {kind} " + " ".join(f"{f}={show(d[f])}" for f in fields))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
