/*
 * USC's "ntoh" baseline (Table 3 of the paper): the three header workloads converted the
 * way BSD network code does it, field by field with ntohs/ntohl and htons/htonl.
 *
 * Each wire header is memcpy'd into (or out of) a struct with the wire layout -- packed where
 * the fields are not naturally aligned, as in the big header -- and each field is then
 * swapped on its own into (or from) a native struct. memcpy instead of casting the byte
 * pointer keeps this free of strict-aliasing trouble; gcc -O2 turns it into plain loads and
 * stores of the fields, which is what a cast would give.
 *
 * Each loop converts n records. Wire records are WIRE_STRIDE bytes apart in one buffer
 * (the record's size, rounded up to its 4-byte alignment so every record starts 4-aligned);
 * native records are an ordinary C array. The Rust side declares the same native structs
 * (#[repr(C)]) and checks sizeof and the strides through the c_*_size constants below.
 */

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- natives: what the program works with -------------------------------------------- */

struct udp_native {
    uint16_t sport, dport, len, sum;
};

/* BigHeader's fields, in its declaration order. */
struct big_native {
    uint8_t eth_dst[6];
    uint8_t eth_src[6];
    uint16_t eth_type;

    uint8_t ip_version;
    uint8_t ip_ihl;
    uint8_t ip_tos;
    uint16_t ip_total_len;
    uint16_t ip_id;
    uint8_t ip_flags;
    uint16_t ip_frag_offset;
    uint8_t ip_ttl;
    uint8_t ip_protocol;
    uint16_t ip_checksum;
    uint8_t ip_src[4];
    uint8_t ip_dst[4];

    uint16_t tcp_src_port;
    uint16_t tcp_dst_port;
    uint32_t tcp_seq;
    uint32_t tcp_ack_seq;
    uint8_t tcp_data_offset;
    uint8_t tcp_reserved;
    uint8_t tcp_flags;
    uint16_t tcp_window;
    uint16_t tcp_checksum;
    uint16_t tcp_urgent_ptr;

    uint16_t arp_htype;
    uint16_t arp_ptype;
    uint8_t arp_hlen;
    uint8_t arp_plen;
    uint16_t arp_oper;
    uint8_t arp_sha[6];
    uint8_t arp_spa[4];
    uint8_t arp_tha[6];
    uint8_t arp_tpa[4];
};

/* ---- wire layouts (network order) --------------------------------------------------- */

/* struct udphdr */
struct udp_wire {
    uint16_t uh_sport, uh_dport, uh_ulen, uh_sum;
};

/* struct ether_header + struct ip + struct tcphdr + struct ether_arp, back to back: the IP
 * header starts at byte 14, so its and the TCP header's 32-bit fields are only 2-aligned. */
struct __attribute__((packed)) big_wire {
    uint8_t ether_dhost[6];
    uint8_t ether_shost[6];
    uint16_t ether_type;

    uint8_t ip_vhl; /* version << 4 | header length */
    uint8_t ip_tos;
    uint16_t ip_len;
    uint16_t ip_id;
    uint16_t ip_off; /* flags << 13 | fragment offset */
    uint8_t ip_ttl;
    uint8_t ip_p;
    uint16_t ip_sum;
    uint8_t ip_src[4];
    uint8_t ip_dst[4];

    uint16_t th_sport;
    uint16_t th_dport;
    uint32_t th_seq;
    uint32_t th_ack;
    uint8_t th_offx2; /* data offset << 4 | reserved */
    uint8_t th_flags;
    uint16_t th_win;
    uint16_t th_sum;
    uint16_t th_urp;

    uint16_t ar_hrd;
    uint16_t ar_pro;
    uint8_t ar_hln;
    uint8_t ar_pln;
    uint16_t ar_op;
    uint8_t arp_sha[6];
    uint8_t arp_spa[4];
    uint8_t arp_tha[6];
    uint8_t arp_tpa[4];
};

_Static_assert(sizeof(struct udp_wire) == 8, "UDP header is 8 bytes");
_Static_assert(sizeof(struct big_wire) == 82, "big header is 82 bytes");
_Static_assert(offsetof(struct big_wire, ip_vhl) == 14, "IP at 14");
_Static_assert(offsetof(struct big_wire, th_sport) == 34, "TCP at 34");
_Static_assert(offsetof(struct big_wire, ar_hrd) == 54, "ARP at 54");

#define LONG_STRIDE 4
#define UDP_STRIDE 8
#define BIG_STRIDE 84 /* 82 rounded up to 4 */

/* For the Rust side's checks of its #[repr(C)] mirrors and strides. */
const size_t c_udp_native_size = sizeof(struct udp_native);
const size_t c_big_native_size = sizeof(struct big_native);
const size_t c_long_stride = LONG_STRIDE;
const size_t c_udp_stride = UDP_STRIDE;
const size_t c_big_stride = BIG_STRIDE;

/* ---- the long ------------------------------------------------------------------------ */

void c_long_ntoh(const uint8_t *wire, int32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, wire + i * LONG_STRIDE, sizeof v);
        out[i] = (int32_t)ntohl(v);
    }
}

void c_long_hton(const int32_t *in, uint8_t *wire, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t v = htonl((uint32_t)in[i]);
        memcpy(wire + i * LONG_STRIDE, &v, sizeof v);
    }
}

/* ---- UDP ----------------------------------------------------------------------------- */

void c_udp_ntoh(const uint8_t *wire, struct udp_native *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct udp_wire uh;
        memcpy(&uh, wire + i * UDP_STRIDE, sizeof uh);
        out[i].sport = ntohs(uh.uh_sport);
        out[i].dport = ntohs(uh.uh_dport);
        out[i].len = ntohs(uh.uh_ulen);
        out[i].sum = ntohs(uh.uh_sum);
    }
}

void c_udp_hton(const struct udp_native *in, uint8_t *wire, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct udp_wire uh;
        uh.uh_sport = htons(in[i].sport);
        uh.uh_dport = htons(in[i].dport);
        uh.uh_ulen = htons(in[i].len);
        uh.uh_sum = htons(in[i].sum);
        memcpy(wire + i * UDP_STRIDE, &uh, sizeof uh);
    }
}

/* ---- the big header ------------------------------------------------------------------ */

void c_big_ntoh(const uint8_t *wire, struct big_native *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct big_wire w;
        struct big_native *h = &out[i];
        uint16_t off;

        memcpy(&w, wire + i * BIG_STRIDE, sizeof w);

        memcpy(h->eth_dst, w.ether_dhost, 6);
        memcpy(h->eth_src, w.ether_shost, 6);
        h->eth_type = ntohs(w.ether_type);

        h->ip_version = w.ip_vhl >> 4;
        h->ip_ihl = w.ip_vhl & 0x0f;
        h->ip_tos = w.ip_tos;
        h->ip_total_len = ntohs(w.ip_len);
        h->ip_id = ntohs(w.ip_id);
        off = ntohs(w.ip_off);
        h->ip_flags = off >> 13;
        h->ip_frag_offset = off & 0x1fff;
        h->ip_ttl = w.ip_ttl;
        h->ip_protocol = w.ip_p;
        h->ip_checksum = ntohs(w.ip_sum);
        memcpy(h->ip_src, w.ip_src, 4);
        memcpy(h->ip_dst, w.ip_dst, 4);

        h->tcp_src_port = ntohs(w.th_sport);
        h->tcp_dst_port = ntohs(w.th_dport);
        h->tcp_seq = ntohl(w.th_seq);
        h->tcp_ack_seq = ntohl(w.th_ack);
        h->tcp_data_offset = w.th_offx2 >> 4;
        h->tcp_reserved = w.th_offx2 & 0x0f;
        h->tcp_flags = w.th_flags;
        h->tcp_window = ntohs(w.th_win);
        h->tcp_checksum = ntohs(w.th_sum);
        h->tcp_urgent_ptr = ntohs(w.th_urp);

        h->arp_htype = ntohs(w.ar_hrd);
        h->arp_ptype = ntohs(w.ar_pro);
        h->arp_hlen = w.ar_hln;
        h->arp_plen = w.ar_pln;
        h->arp_oper = ntohs(w.ar_op);
        memcpy(h->arp_sha, w.arp_sha, 6);
        memcpy(h->arp_spa, w.arp_spa, 4);
        memcpy(h->arp_tha, w.arp_tha, 6);
        memcpy(h->arp_tpa, w.arp_tpa, 4);
    }
}

void c_big_hton(const struct big_native *in, uint8_t *wire, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct big_wire w;
        const struct big_native *h = &in[i];

        memcpy(w.ether_dhost, h->eth_dst, 6);
        memcpy(w.ether_shost, h->eth_src, 6);
        w.ether_type = htons(h->eth_type);

        w.ip_vhl = (uint8_t)(h->ip_version << 4 | (h->ip_ihl & 0x0f));
        w.ip_tos = h->ip_tos;
        w.ip_len = htons(h->ip_total_len);
        w.ip_id = htons(h->ip_id);
        w.ip_off = htons((uint16_t)(h->ip_flags << 13 | (h->ip_frag_offset & 0x1fff)));
        w.ip_ttl = h->ip_ttl;
        w.ip_p = h->ip_protocol;
        w.ip_sum = htons(h->ip_checksum);
        memcpy(w.ip_src, h->ip_src, 4);
        memcpy(w.ip_dst, h->ip_dst, 4);

        w.th_sport = htons(h->tcp_src_port);
        w.th_dport = htons(h->tcp_dst_port);
        w.th_seq = htonl(h->tcp_seq);
        w.th_ack = htonl(h->tcp_ack_seq);
        w.th_offx2 = (uint8_t)(h->tcp_data_offset << 4 | (h->tcp_reserved & 0x0f));
        w.th_flags = h->tcp_flags;
        w.th_win = htons(h->tcp_window);
        w.th_sum = htons(h->tcp_checksum);
        w.th_urp = htons(h->tcp_urgent_ptr);

        w.ar_hrd = htons(h->arp_htype);
        w.ar_pro = htons(h->arp_ptype);
        w.ar_hln = h->arp_hlen;
        w.ar_pln = h->arp_plen;
        w.ar_op = htons(h->arp_oper);
        memcpy(w.arp_sha, h->arp_sha, 6);
        memcpy(w.arp_spa, h->arp_spa, 4);
        memcpy(w.arp_tha, h->arp_tha, 6);
        memcpy(w.arp_tpa, h->arp_tpa, 4);

        memcpy(wire + i * BIG_STRIDE, &w, sizeof w);
    }
}
