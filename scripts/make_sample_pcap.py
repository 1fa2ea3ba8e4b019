#!/usr/bin/env python3
"""Writes workloads/examples/data/sample.pcap: a few real-looking Ethernet frames for the
`headers` example, built with Python's `struct` module only.

    python3 scripts/make_sample_pcap.py [OUTPUT]

The frames, from a host 192.168.1.10 (52:54:00:12:34:56) behind a router 192.168.1.1
(00:1a:2b:3c:4d:5e):
  1-2  a DNS query for example.com (UDP to port 53) and its answer;
  3-4  a TCP SYN to 93.184.215.14:80 and the SYN-ACK, both with DF set, no TCP options;
  5-7  one UDP datagram to port 9 (discard) in three fragments: offset 0 with MF, offset 3
       (24 bytes) with MF, and the last at offset 6;
  8-9  an ARP request (broadcast, 42 bytes as sent) and its reply (padded to the 60-byte
       Ethernet minimum, as received).
Every checksum is correct: IPv4 headers, and UDP and TCP over their pseudo-headers. The file
is little-endian with microsecond timestamps (magic 0xa1b2c3d4), version 2.4, snaplen 65535,
link type 1 (Ethernet). The output is deterministic; workloads/tests/headers_bytes.rs checks
that the committed file is what this script writes.
"""

import os
import struct
import sys

HOST_MAC = bytes.fromhex("525400123456")
ROUTER_MAC = bytes.fromhex("001a2b3c4d5e")
BROADCAST = b"\xff" * 6
HOST_IP = bytes([192, 168, 1, 10])
ROUTER_IP = bytes([192, 168, 1, 1])
WEB_IP = bytes([93, 184, 215, 14])

ETH_IPV4, ETH_ARP = 0x0800, 0x0806
UDP, TCP = 17, 6
DF, MF = 0b010, 0b001


def checksum(data):
    """RFC 1071: ones'-complement of the ones'-complement sum of big-endian 16-bit words."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ethernet(dst, src, ethertype, payload, pad=False):
    frame = struct.pack("!6s6sH", dst, src, ethertype) + payload
    if pad and len(frame) < 60:
        frame += b"\0" * (60 - len(frame))
    return frame


def ipv4(src, dst, proto, payload, ident, ttl=64, flags=0, frag_offset=0):
    """An IPv4 header without options (checksum filled in), then `payload`."""
    fields = [0x45, 0, 20 + len(payload), ident, flags << 13 | frag_offset, ttl, proto, 0, src, dst]
    fmt = "!BBHHHBBH4s4s"
    fields[7] = checksum(struct.pack(fmt, *fields))
    return struct.pack(fmt, *fields) + payload


def pseudo(src, dst, proto, length):
    return struct.pack("!4s4sBBH", src, dst, 0, proto, length)


def udp(src, dst, sport, dport, payload):
    length = 8 + len(payload)
    seg = struct.pack("!HHHH", sport, dport, length, 0) + payload
    c = checksum(pseudo(src, dst, UDP, length) + seg) or 0xFFFF  # 0 is sent as 0xffff
    return seg[:6] + struct.pack("!H", c) + seg[8:]


def tcp(src, dst, sport, dport, seq, ack, flags, window, payload=b""):
    """A TCP header with data offset 5 (no options). flags: 'S', 'SA', ..."""
    bits = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10, "U": 0x20}
    fbyte = sum(bits[f] for f in flags)
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, fbyte, window, 0, 0) + payload
    c = checksum(pseudo(src, dst, TCP, len(seg)) + seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def arp(oper, sha, spa, tha, tpa):
    return struct.pack("!HHBBH6s4s6s4s", 1, ETH_IPV4, 6, 4, oper, sha, spa, tha, tpa)


def dns_query(ident, name, qtype=1):
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
    return struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0) + q + struct.pack("!HH", qtype, 1)


def dns_answer(ident, name, addr):
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
    head = struct.pack("!HHHHHH", ident, 0x8180, 1, 1, 0, 0)
    question = q + struct.pack("!HH", 1, 1)
    answer = struct.pack("!HHHIH4s", 0xC00C, 1, 1, 3600, 4, addr)  # pointer to the name
    return head + question + answer


def frames():
    out = []
    # 1-2: DNS.
    query = udp(HOST_IP, ROUTER_IP, 53211, 53, dns_query(0x1A2B, "example.com"))
    out.append(ethernet(ROUTER_MAC, HOST_MAC, ETH_IPV4, ipv4(HOST_IP, ROUTER_IP, UDP, query, 0x3C1D)))
    reply = udp(ROUTER_IP, HOST_IP, 53, 53211, dns_answer(0x1A2B, "example.com", WEB_IP))
    out.append(ethernet(HOST_MAC, ROUTER_MAC, ETH_IPV4, ipv4(ROUTER_IP, HOST_IP, UDP, reply, 0x0000)))
    # 3-4: TCP handshake, DF set.
    syn = tcp(HOST_IP, WEB_IP, 51514, 80, 0x5EED1234, 0, "S", 64240)
    out.append(ethernet(ROUTER_MAC, HOST_MAC, ETH_IPV4,
                        ipv4(HOST_IP, WEB_IP, TCP, syn, 0x8F3A, flags=DF)))
    synack = tcp(WEB_IP, HOST_IP, 80, 51514, 0x0BADCAFE, 0x5EED1235, "SA", 65535)
    out.append(ethernet(HOST_MAC, ROUTER_MAC, ETH_IPV4,
                        ipv4(WEB_IP, HOST_IP, TCP, synack, 0x0000, ttl=56, flags=DF)))
    # 5-7: a 64-byte UDP datagram (8 header + 56 data) in fragments of 24, 24 and 16 bytes.
    data = b"fragmented datagram to the discard port, 56 bytes long.."
    assert len(data) == 56
    dgram = udp(HOST_IP, ROUTER_IP, 40000, 9, data)
    for start, end in [(0, 24), (24, 48), (48, 64)]:
        more = MF if end < len(dgram) else 0
        ip = ipv4(HOST_IP, ROUTER_IP, UDP, dgram[start:end], 0x4D2E, flags=more,
                  frag_offset=start // 8)
        out.append(ethernet(ROUTER_MAC, HOST_MAC, ETH_IPV4, ip, pad=True))
    # 8-9: ARP.
    out.append(ethernet(BROADCAST, HOST_MAC, ETH_ARP,
                        arp(1, HOST_MAC, HOST_IP, b"\0" * 6, ROUTER_IP)))
    out.append(ethernet(HOST_MAC, ROUTER_MAC, ETH_ARP,
                        arp(2, ROUTER_MAC, ROUTER_IP, HOST_MAC, HOST_IP), pad=True))
    return out


def pcap(packets):
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    t0 = 1_700_000_000
    for k, p in enumerate(packets):
        usec = 125_000 * k + 17 * k * k
        out += struct.pack("<IIII", t0 + usec // 1_000_000, usec % 1_000_000, len(p), len(p)) + p
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "workloads", "examples", "data", "sample.pcap")
    path = sys.argv[1] if len(sys.argv) > 1 else default
    with open(path, "wb") as f:
        f.write(pcap(frames()))


if __name__ == "__main__":
    main()
