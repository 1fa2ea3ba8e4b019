/*
 * Protocol headers through Linux/glibc's own structs, for workloads/tests/headers_bytes.rs:
 * struct ether_header (<net/ethernet.h>), struct iphdr (<netinet/ip.h>), struct udphdr
 * (<netinet/udp.h>), struct tcphdr (<netinet/tcp.h>) and struct ether_arp
 * (<netinet/if_ether.h>), with their Linux field names and bit-fields, filled with htons/htonl
 * and read with ntohs/ntohl. USC's 82-byte big header is the four structs (Ethernet, IP, TCP,
 * ARP) laid end to end.
 *
 * One command per line on stdin, one answer per line on stdout:
 *   sizeof                       -> sizeof <struct>=<bytes> ...
 *   pack <kind> <f>=<v> ...      -> pack <kind> <hex of the struct's bytes>
 *   unpack <kind> <hex>          -> unpack <kind> <f>=<v> ...
 *   cksum <hex>                  -> cksum <hex of the 2 checksum bytes>
 * Kinds: eth, ipv4, udp, tcp, arp, big. Field names are the Rust struct's (in its order);
 * integers in decimal, byte arrays (MAC and IPv4 addresses) in hex. A malformed line, a value
 * out of its field's range or a disagreement between glibc's two views of tcphdr stops the
 * program with a message on stderr and exit status 1.
 *
 * TCP's flags: glibc's tcphdr has bit-fields fin, syn, rst, psh, ack and urg, and calls the
 * byte's top two bits `res2` (they were reserved before RFC 3168 named them ECE and CWR); its
 * BSD-style view `th_flags` has TH_FIN..TH_URG but no TH_ECE/TH_CWR either. So ECE and CWR go
 * through res2: ECE is its low bit (bit 6 of byte 13), CWR its high bit (bit 7), on either
 * byte order; RFC 3168's masks 0x40 and 0x80 (defined below) check that through th_flags.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/if_ether.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RFC 3168's flag bits, which glibc does not define. */
#define TCP_ECE_MASK 0x40
#define TCP_CWR_MASK 0x80

#define BIG_SIZE \
  (sizeof(struct ether_header) + sizeof(struct iphdr) + sizeof(struct tcphdr) + \
   sizeof(struct ether_arp))

static long line_no;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "linux_headers: line %ld: ", line_no);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* The words of a command line, consumed in order. */
struct words {
  char *w[128];
  int n, next;
};

static void split(char *line, struct words *ws) {
  ws->n = ws->next = 0;
  for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
    if (ws->n == 128) die("too many words");
    ws->w[ws->n++] = tok;
  }
}

static char *word(struct words *ws) {
  if (ws->next == ws->n) die("missing word");
  return ws->w[ws->next++];
}

/* The value of the next word, which must be `<prefix><name>=...`. */
static char *value(struct words *ws, const char *prefix, const char *name) {
  char *w = word(ws);
  size_t p = strlen(prefix), n = strlen(name);
  if (strncmp(w, prefix, p) != 0 || strncmp(w + p, name, n) != 0 || w[p + n] != '=')
    die("expected field %s%s, got `%s`", prefix, name, w);
  return w + p + n + 1;
}

static unsigned long num(struct words *ws, const char *prefix, const char *name,
                         unsigned long max) {
  char *v = value(ws, prefix, name), *end;
  unsigned long x = strtoul(v, &end, 10);
  if (*v == '\0' || *end != '\0' || x > max)
    die("%s%s=%s is not a number up to %lu", prefix, name, v, max);
  return x;
}

static int hexdigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes exactly `n` bytes of hex from `s`. */
static void unhex(const char *s, uint8_t *out, size_t n) {
  if (strlen(s) != 2 * n) die("expected %zu hex bytes, got `%s`", n, s);
  for (size_t i = 0; i < n; i++) {
    int hi = hexdigit(s[2 * i]), lo = hexdigit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) die("bad hex `%s`", s);
    out[i] = (uint8_t)(hi << 4 | lo);
  }
}

static void bytes(struct words *ws, const char *prefix, const char *name, uint8_t *out, size_t n) {
  unhex(value(ws, prefix, name), out, n);
}

/* An IPv4 address given as 4 bytes, as the host-order number htonl expects. */
static uint32_t addr(struct words *ws, const char *prefix, const char *name) {
  uint8_t b[4];
  bytes(ws, prefix, name, b, 4);
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_hex(const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}

static void put_num(const char *prefix, const char *name, unsigned long v) {
  printf(" %s%s=%lu", prefix, name, v);
}

static void put_bytes(const char *prefix, const char *name, const uint8_t *b, size_t n) {
  printf(" %s%s=", prefix, name);
  put_hex(b, n);
}

static void put_addr(const char *prefix, const char *name, uint32_t host) {
  printf(" %s%s=%08lx", prefix, name, (unsigned long)host);
}

/* ---- Ethernet ---- */

static void fill_eth(struct words *ws, const char *p, const char *type_name,
                     struct ether_header *e) {
  memset(e, 0, sizeof *e);
  bytes(ws, p, "dst", e->ether_dhost, ETH_ALEN);
  bytes(ws, p, "src", e->ether_shost, ETH_ALEN);
  e->ether_type = htons((uint16_t)num(ws, p, type_name, 0xffff));
}

static void show_eth(const char *p, const char *type_name, const struct ether_header *e) {
  put_bytes(p, "dst", e->ether_dhost, ETH_ALEN);
  put_bytes(p, "src", e->ether_shost, ETH_ALEN);
  put_num(p, type_name, ntohs(e->ether_type));
}

/* ---- IPv4: ihl and version are bit-fields; flags and offset share frag_off ---- */

static void fill_ip(struct words *ws, const char *p, struct iphdr *ip) {
  memset(ip, 0, sizeof *ip);
  ip->version = num(ws, p, "version", 15) & 0xf;
  ip->ihl = num(ws, p, "ihl", 15) & 0xf;
  ip->tos = (uint8_t)num(ws, p, "tos", 0xff);
  ip->tot_len = htons((uint16_t)num(ws, p, "total_len", 0xffff));
  ip->id = htons((uint16_t)num(ws, p, "id", 0xffff));
  unsigned long flags = num(ws, p, "flags", 7);
  unsigned long off = num(ws, p, "frag_offset", IP_OFFMASK);
  ip->frag_off = htons((uint16_t)((flags & 4 ? IP_RF : 0) | (flags & 2 ? IP_DF : 0) |
                                  (flags & 1 ? IP_MF : 0) | off));
  ip->ttl = (uint8_t)num(ws, p, "ttl", 0xff);
  ip->protocol = (uint8_t)num(ws, p, "protocol", 0xff);
  ip->check = htons((uint16_t)num(ws, p, "checksum", 0xffff));
  ip->saddr = htonl(addr(ws, p, "src"));
  ip->daddr = htonl(addr(ws, p, "dst"));
}

static void show_ip(const char *p, const struct iphdr *ip) {
  uint16_t frag = ntohs(ip->frag_off);
  put_num(p, "version", ip->version);
  put_num(p, "ihl", ip->ihl);
  put_num(p, "tos", ip->tos);
  put_num(p, "total_len", ntohs(ip->tot_len));
  put_num(p, "id", ntohs(ip->id));
  put_num(p, "flags", (frag & IP_RF ? 4u : 0u) | (frag & IP_DF ? 2u : 0u) | (frag & IP_MF ? 1u : 0u));
  put_num(p, "frag_offset", frag & IP_OFFMASK);
  put_num(p, "ttl", ip->ttl);
  put_num(p, "protocol", ip->protocol);
  put_num(p, "checksum", ntohs(ip->check));
  put_addr(p, "src", ntohl(ip->saddr));
  put_addr(p, "dst", ntohl(ip->daddr));
}

/* ---- UDP, Linux names ---- */

static void fill_udp(struct words *ws, struct udphdr *u) {
  memset(u, 0, sizeof *u);
  u->source = htons((uint16_t)num(ws, "", "src_port", 0xffff));
  u->dest = htons((uint16_t)num(ws, "", "dst_port", 0xffff));
  u->len = htons((uint16_t)num(ws, "", "len", 0xffff));
  u->check = htons((uint16_t)num(ws, "", "checksum", 0xffff));
}

static void show_udp(const struct udphdr *u) {
  put_num("", "src_port", ntohs(u->source));
  put_num("", "dst_port", ntohs(u->dest));
  put_num("", "len", ntohs(u->len));
  put_num("", "checksum", ntohs(u->check));
}

/* ---- TCP, Linux names and bit-fields ---- */

/* The flag byte from the Linux bit-fields. */
static unsigned tcp_flags_of(const struct tcphdr *t) {
  return (t->res2 & 2 ? TCP_CWR_MASK : 0u) | (t->res2 & 1 ? TCP_ECE_MASK : 0u) |
         (t->urg ? TH_URG : 0u) | (t->ack ? TH_ACK : 0u) | (t->psh ? TH_PUSH : 0u) |
         (t->rst ? TH_RST : 0u) | (t->syn ? TH_SYN : 0u) | (t->fin ? TH_FIN : 0u);
}

/* glibc's BSD view of the same struct must agree with the Linux bit-fields. */
static void check_bsd_view(const struct tcphdr *t) {
  if (t->th_flags != tcp_flags_of(t))
    die("tcphdr: th_flags %#x but the bit-fields say %#x", t->th_flags, tcp_flags_of(t));
  if (t->th_off != t->doff || t->th_x2 != t->res1)
    die("tcphdr: th_off/th_x2 %u/%u but doff/res1 %u/%u", t->th_off, t->th_x2, t->doff, t->res1);
  if (t->th_sport != t->source || t->th_seq != t->seq || t->th_urp != t->urg_ptr)
    die("tcphdr: the BSD names disagree with the Linux names");
}

/* With `flags_byte` (the big header) the eight flags are one field, `<p>flags`. */
static void fill_tcp(struct words *ws, const char *p, int flags_byte, struct tcphdr *t) {
  memset(t, 0, sizeof *t);
  t->source = htons((uint16_t)num(ws, p, "src_port", 0xffff));
  t->dest = htons((uint16_t)num(ws, p, "dst_port", 0xffff));
  t->seq = htonl((uint32_t)num(ws, p, "seq", 0xffffffff));
  t->ack_seq = htonl((uint32_t)num(ws, p, "ack_seq", 0xffffffff));
  t->doff = num(ws, p, "data_offset", 15) & 0xf;
  t->res1 = num(ws, p, "reserved", 15) & 0xf;
  unsigned long cwr, ece, urg, ack, psh, rst, syn, fin;
  if (flags_byte) {
    unsigned long f = num(ws, p, "flags", 0xff);
    cwr = !!(f & TCP_CWR_MASK), ece = !!(f & TCP_ECE_MASK), urg = !!(f & TH_URG);
    ack = !!(f & TH_ACK), psh = !!(f & TH_PUSH), rst = !!(f & TH_RST), syn = !!(f & TH_SYN);
    fin = !!(f & TH_FIN);
  } else {
    cwr = num(ws, p, "cwr", 1), ece = num(ws, p, "ece", 1), urg = num(ws, p, "urg", 1);
    ack = num(ws, p, "ack", 1), psh = num(ws, p, "psh", 1), rst = num(ws, p, "rst", 1);
    syn = num(ws, p, "syn", 1), fin = num(ws, p, "fin", 1);
  }
  t->res2 = (cwr << 1 | ece) & 3;
  t->urg = urg & 1;
  t->ack = ack & 1;
  t->psh = psh & 1;
  t->rst = rst & 1;
  t->syn = syn & 1;
  t->fin = fin & 1;
  t->window = htons((uint16_t)num(ws, p, "window", 0xffff));
  t->check = htons((uint16_t)num(ws, p, "checksum", 0xffff));
  t->urg_ptr = htons((uint16_t)num(ws, p, "urgent_ptr", 0xffff));
  check_bsd_view(t);
}

static void show_tcp(const char *p, int flags_byte, const struct tcphdr *t) {
  check_bsd_view(t);
  put_num(p, "src_port", ntohs(t->source));
  put_num(p, "dst_port", ntohs(t->dest));
  put_num(p, "seq", ntohl(t->seq));
  put_num(p, "ack_seq", ntohl(t->ack_seq));
  put_num(p, "data_offset", t->doff);
  put_num(p, "reserved", t->res1);
  if (flags_byte) {
    put_num(p, "flags", tcp_flags_of(t));
  } else {
    put_num(p, "cwr", t->res2 >> 1 & 1);
    put_num(p, "ece", t->res2 & 1);
    put_num(p, "urg", t->urg);
    put_num(p, "ack", t->ack);
    put_num(p, "psh", t->psh);
    put_num(p, "rst", t->rst);
    put_num(p, "syn", t->syn);
    put_num(p, "fin", t->fin);
  }
  put_num(p, "window", ntohs(t->window));
  put_num(p, "checksum", ntohs(t->check));
  put_num(p, "urgent_ptr", ntohs(t->urg_ptr));
}

/* ---- ARP for Ethernet and IPv4 ---- */

static void fill_arp(struct words *ws, const char *p, struct ether_arp *a) {
  memset(a, 0, sizeof *a);
  a->arp_hrd = htons((uint16_t)num(ws, p, "htype", 0xffff));
  a->arp_pro = htons((uint16_t)num(ws, p, "ptype", 0xffff));
  a->arp_hln = (uint8_t)num(ws, p, "hlen", 0xff);
  a->arp_pln = (uint8_t)num(ws, p, "plen", 0xff);
  a->arp_op = htons((uint16_t)num(ws, p, "oper", 0xffff));
  bytes(ws, p, "sha", a->arp_sha, sizeof a->arp_sha);
  bytes(ws, p, "spa", a->arp_spa, sizeof a->arp_spa);
  bytes(ws, p, "tha", a->arp_tha, sizeof a->arp_tha);
  bytes(ws, p, "tpa", a->arp_tpa, sizeof a->arp_tpa);
}

static void show_arp(const char *p, const struct ether_arp *a) {
  put_num(p, "htype", ntohs(a->arp_hrd));
  put_num(p, "ptype", ntohs(a->arp_pro));
  put_num(p, "hlen", a->arp_hln);
  put_num(p, "plen", a->arp_pln);
  put_num(p, "oper", ntohs(a->arp_op));
  put_bytes(p, "sha", a->arp_sha, sizeof a->arp_sha);
  put_bytes(p, "spa", a->arp_spa, sizeof a->arp_spa);
  put_bytes(p, "tha", a->arp_tha, sizeof a->arp_tha);
  put_bytes(p, "tpa", a->arp_tpa, sizeof a->arp_tpa);
}

/* ---- the big header: the four structs end to end ---- */

struct big {
  struct ether_header eth;
  struct iphdr ip;
  struct tcphdr tcp;
  struct ether_arp arp;
};

static void big_to_bytes(const struct big *b, uint8_t *out) {
  size_t at = 0;
  memcpy(out + at, &b->eth, sizeof b->eth), at += sizeof b->eth;
  memcpy(out + at, &b->ip, sizeof b->ip), at += sizeof b->ip;
  memcpy(out + at, &b->tcp, sizeof b->tcp), at += sizeof b->tcp;
  memcpy(out + at, &b->arp, sizeof b->arp);
}

static void big_from_bytes(const uint8_t *in, struct big *b) {
  size_t at = 0;
  memcpy(&b->eth, in + at, sizeof b->eth), at += sizeof b->eth;
  memcpy(&b->ip, in + at, sizeof b->ip), at += sizeof b->ip;
  memcpy(&b->tcp, in + at, sizeof b->tcp), at += sizeof b->tcp;
  memcpy(&b->arp, in + at, sizeof b->arp);
}

/* ---- the checksum, as RFC 1071 §4.1 codes it: 16-bit loads in host byte order ---- */

static uint16_t rfc1071_checksum(const uint8_t *addr, size_t count) {
  uint32_t sum = 0;
  while (count > 1) {
    uint16_t w;
    memcpy(&w, addr, 2);
    sum += w;
    addr += 2;
    count -= 2;
  }
  if (count > 0) {
    uint8_t last[2] = {*addr, 0};
    uint16_t w;
    memcpy(&w, last, 2);
    sum += w;
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

static void command(char *line) {
  struct words ws;
  split(line, &ws);
  if (ws.n == 0) die("empty line");
  const char *cmd = word(&ws);
  if (strcmp(cmd, "sizeof") == 0) {
    printf("sizeof ether_header=%zu iphdr=%zu udphdr=%zu tcphdr=%zu ether_arp=%zu big=%zu\n",
           sizeof(struct ether_header), sizeof(struct iphdr), sizeof(struct udphdr),
           sizeof(struct tcphdr), sizeof(struct ether_arp), BIG_SIZE);
    return;
  }
  if (strcmp(cmd, "cksum") == 0) {
    const char *hex = ws.next < ws.n ? word(&ws) : "";
    size_t n = strlen(hex) / 2;
    uint8_t *data = malloc(n + 1);
    if (!data) die("out of memory");
    unhex(hex, data, n);
    uint16_t c = rfc1071_checksum(data, n);
    free(data);
    printf("cksum ");
    put_hex(&c, 2); /* stored as loaded: in the data's (network) byte order */
    printf("\n");
    return;
  }
  int pack = strcmp(cmd, "pack") == 0;
  if (!pack && strcmp(cmd, "unpack") != 0) die("unknown command `%s`", cmd);
  const char *kind = word(&ws);
  printf("%s %s", cmd, kind);
  union {
    struct ether_header eth;
    struct iphdr ip;
    struct udphdr udp;
    struct tcphdr tcp;
    struct ether_arp arp;
  } h;
  struct big big;
  uint8_t raw[BIG_SIZE];
  size_t size;
  if (strcmp(kind, "eth") == 0) size = sizeof h.eth;
  else if (strcmp(kind, "ipv4") == 0) size = sizeof h.ip;
  else if (strcmp(kind, "udp") == 0) size = sizeof h.udp;
  else if (strcmp(kind, "tcp") == 0) size = sizeof h.tcp;
  else if (strcmp(kind, "arp") == 0) size = sizeof h.arp;
  else if (strcmp(kind, "big") == 0) size = BIG_SIZE;
  else die("unknown kind `%s`", kind);

  if (pack) {
    if (strcmp(kind, "eth") == 0) fill_eth(&ws, "", "ethertype", &h.eth);
    else if (strcmp(kind, "ipv4") == 0) fill_ip(&ws, "", &h.ip);
    else if (strcmp(kind, "udp") == 0) fill_udp(&ws, &h.udp);
    else if (strcmp(kind, "tcp") == 0) fill_tcp(&ws, "", 0, &h.tcp);
    else if (strcmp(kind, "arp") == 0) fill_arp(&ws, "", &h.arp);
    else {
      fill_eth(&ws, "eth_", "type", &big.eth);
      fill_ip(&ws, "ip_", &big.ip);
      fill_tcp(&ws, "tcp_", 1, &big.tcp);
      fill_arp(&ws, "arp_", &big.arp);
    }
    if (strcmp(kind, "big") == 0) big_to_bytes(&big, raw);
    else memcpy(raw, &h, size);
    printf(" ");
    put_hex(raw, size);
  } else {
    unhex(word(&ws), raw, size);
    if (strcmp(kind, "big") == 0) big_from_bytes(raw, &big);
    else memcpy(&h, raw, size);
    if (strcmp(kind, "eth") == 0) show_eth("", "ethertype", &h.eth);
    else if (strcmp(kind, "ipv4") == 0) show_ip("", &h.ip);
    else if (strcmp(kind, "udp") == 0) show_udp(&h.udp);
    else if (strcmp(kind, "tcp") == 0) show_tcp("", 0, &h.tcp);
    else if (strcmp(kind, "arp") == 0) show_arp("", &h.arp);
    else {
      show_eth("eth_", "type", &big.eth);
      show_ip("ip_", &big.ip);
      show_tcp("tcp_", 1, &big.tcp);
      show_arp("arp_", &big.arp);
    }
  }
  if (ws.next != ws.n) die("unexpected `%s`", ws.w[ws.next]);
  printf("\n");
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0) {
    line_no++;
    command(line);
  }
  free(line);
  return fflush(stdout) == 0 ? 0 : 1;
}
