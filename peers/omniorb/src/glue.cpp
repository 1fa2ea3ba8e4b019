// extern "C" glue between the omniORB-generated C++ stubs for idl/flick.idl
// and the Rust crate (src/lib.rs). Every entry point catches all C++
// exceptions; failures are reported through return values, with a message
// retrievable by omni_last_error() on the same thread.
//
// Byte order: a cdrMemoryStream starts in the host's byte order;
// cdrMemoryStream::setByteSwapFlag(little) selects the order of the data in
// the buffer (it sets both the marshal and the unmarshal swap flags).
//
// Alignment: omniORB aligns by the absolute address of the stream's marker.
// Writable cdrMemoryStreams start at an 8-aligned address inside their own
// buffer, so offset 0 of the returned bytes is the CDR origin. For input,
// a caller's buffer is used in place (read-only stream) when it is 8-aligned
// and copied into a writable stream otherwise.

#include "flick.hh"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace {

thread_local std::string last_error;

void set_error(const char* what) { last_error = what; }

// Converts the in-flight exception into last_error. Call only in a catch.
void record_exception() {
  try {
    throw;
  } catch (const CORBA::SystemException& e) {
    const char* minor = e.NP_minorString();
    last_error = std::string("CORBA::") + e._name() + " (minor " +
                 (minor ? minor : std::to_string((unsigned long)e.minor())) + ")";
  } catch (const CORBA::Exception& e) {
    last_error = std::string("CORBA exception ") + e._name();
  } catch (const std::exception& e) {
    last_error = std::string("C++ exception: ") + e.what();
  } catch (...) {
    last_error = "unknown C++ exception";
  }
}

// The process-wide ORB. cdrStreams take their code set converters from
// parameters that ORB_init sets up, so every entry point initialises it.
CORBA::ORB_ptr orb() {
  static CORBA::ORB_ptr the_orb = [] {
    char arg0[] = "omniorb-peer";
    char opt[] = "-ORBgiopMaxMsgSize";
    char val[] = "268435456";  // 256 MiB, for benchmarks with large sequences
    char* argv[] = {arg0, opt, val, nullptr};
    int argc = 3;
    return CORBA::ORB_init(argc, argv, "omniORB4");
  }();
  return the_orb;
}

// A CORBA string copy of (p, n), which must not contain NUL.
char* dup_string(const char* p, size_t n) {
  char* s = CORBA::string_alloc((CORBA::ULong)n);
  if (n) std::memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

// An output stream whose padding bytes are zero (clearMemory), so that
// captures are deterministic.
struct OutStream : cdrMemoryStream {
  explicit OutStream(bool little) : cdrMemoryStream(CORBA::ULong(0), CORBA::Boolean(1)) { setByteSwapFlag(little); }
};

template <class F>
void with_input(int little, const uint8_t* buf, size_t len, F f) {
  if (len > 0 && reinterpret_cast<uintptr_t>(buf) % 8 == 0) {
    cdrMemoryStream s(const_cast<uint8_t*>(buf), len);
    s.setByteSwapFlag(little != 0);
    f(s, len);
  } else {
    cdrMemoryStream s(CORBA::ULong(0), CORBA::Boolean(0));
    if (len > 0) s.put_octet_array(buf, (int)len);
    s.setByteSwapFlag(little != 0);
    f(s, len);
  }
}

// Unmarshals a T from the whole of (buf, len). Throws if omniORB throws or
// if bytes are left over.
template <class T>
void unmarshal_all(int little, const uint8_t* buf, size_t len, T& value) {
  with_input(little, buf, len, [&](cdrMemoryStream& s, size_t n) {
    value <<= s;
    if (s.currentInputPtr() != n) throw std::runtime_error("trailing bytes after the value");
  });
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------------------
// Plain-data mirrors (see the ffi module of src/lib.rs)
// ---------------------------------------------------------------------------

struct omni_bytes {
  uint8_t* ptr;  // new[]-allocated; release with omni_bytes_free
  size_t len;
};

struct omni_str {
  const char* ptr;  // not NUL-terminated on input; NUL-terminated on output
  size_t len;
};

struct omni_dirent {
  omni_str name;
  int32_t ints[30];
  uint8_t chars[16];
};

struct omni_shape {
  int32_t d;  // 0: ival, 1: sval, anything else: the default arm (other)
  int32_t ival;
  omni_str sval;
  int32_t other[4];
};

struct omni_prims {
  uint8_t o;
  uint8_t b;
  int8_t c;
  int16_t s;
  uint16_t us;
  int32_t l;
  uint32_t ul;
  int64_t ll;
  uint64_t ull;
  float f;
  double d;
  omni_str str;
  uint32_t color;
};

const char* omni_last_error(void) { return last_error.c_str(); }

void omni_bytes_free(uint8_t* ptr) { delete[] ptr; }

}  // extern "C"

static_assert(sizeof(Flick::Rect) == 16, "Rect must be four packed longs");
static_assert(offsetof(Flick::Rect, b) == 8, "Rect must be four packed longs");
static_assert(sizeof(CORBA::Long) == 4 && sizeof(CORBA::LongLong) == 8, "CORBA sizes");

namespace {

// Copies the stream's contents into `out`.
void take_bytes(cdrMemoryStream& s, omni_bytes* out) {
  size_t n = s.bufSize();
  out->ptr = new uint8_t[n ? n : 1];
  if (n) std::memcpy(out->ptr, s.bufPtr(), n);
  out->len = n;
}

Flick::IntSeq to_ints(const int32_t* v, size_t n) {
  Flick::IntSeq seq((CORBA::ULong)n);
  seq.length((CORBA::ULong)n);
  if (n) std::memcpy(seq.get_buffer(), v, n * 4);
  return seq;
}

Flick::RectSeq to_rects(const int32_t* v, size_t n) {
  Flick::RectSeq seq((CORBA::ULong)n);
  seq.length((CORBA::ULong)n);
  for (size_t i = 0; i < n; i++) {
    Flick::Rect& r = seq[(CORBA::ULong)i];
    r.a.x = v[4 * i];
    r.a.y = v[4 * i + 1];
    r.b.x = v[4 * i + 2];
    r.b.y = v[4 * i + 3];
  }
  return seq;
}

Flick::DirEntrySeq to_dirents(const omni_dirent* v, size_t n) {
  Flick::DirEntrySeq seq((CORBA::ULong)n);
  seq.length((CORBA::ULong)n);
  for (size_t i = 0; i < n; i++) {
    Flick::DirEntry& d = seq[(CORBA::ULong)i];
    d.name = dup_string(v[i].name.ptr, v[i].name.len);
    std::memcpy(d.st.ints, v[i].ints, sizeof d.st.ints);
    std::memcpy(d.st.chars, v[i].chars, sizeof d.st.chars);
  }
  return seq;
}

void to_shape(const omni_shape* v, Flick::Shape& s) {
  switch (v->d) {
    case 0: s.ival(v->ival); break;
    case 1: s.sval(dup_string(v->sval.ptr, v->sval.len)); break;
    default: {
      Flick::Rect r;
      r.a.x = v->other[0];
      r.a.y = v->other[1];
      r.b.x = v->other[2];
      r.b.y = v->other[3];
      s.other(r);
      s._d(v->d);
    }
  }
}

void to_prims(const omni_prims* v, Flick::Prims& p) {
  p.o = v->o;
  p.b = v->b != 0;
  p.c = (CORBA::Char)v->c;
  p.s = v->s;
  p.us = v->us;
  p.l = v->l;
  p.ul = v->ul;
  p.ll = v->ll;
  p.ull = v->ull;
  p.f = v->f;
  p.d = v->d;
  p.str = dup_string(v->str.ptr, v->str.len);
  p.col = (Flick::Color)v->color;  // checked to be <= 2 by the caller
}

omni_str view(const char* s) { return omni_str{s, std::strlen(s)}; }

void from_prims(const Flick::Prims& p, omni_prims* v) {
  v->o = p.o;
  v->b = p.b ? 1 : 0;
  v->c = (int8_t)p.c;
  v->s = p.s;
  v->us = p.us;
  v->l = p.l;
  v->ul = p.ul;
  v->ll = p.ll;
  v->ull = p.ull;
  v->f = p.f;
  v->d = p.d;
  v->str = view(p.str);
  v->color = (uint32_t)p.col;
}

// Runs `body`, which marshals into an OutStream, and stores the bytes.
template <class F>
int encode(int little, omni_bytes* out, F body) {
  try {
    orb();
    OutStream s(little != 0);
    body(s);
    take_bytes(s, out);
    return 0;
  } catch (...) {
    record_exception();
    return 1;
  }
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------------------
// Encoding: 0 on success (bytes in *out), non-zero on failure.
// ---------------------------------------------------------------------------

int omni_encode_ints(int little, const int32_t* v, size_t n, omni_bytes* out) {
  return encode(little, out, [&](cdrStream& s) { to_ints(v, n) >>= s; });
}

int omni_encode_rects(int little, const int32_t* v, size_t n, omni_bytes* out) {
  return encode(little, out, [&](cdrStream& s) { to_rects(v, n) >>= s; });
}

int omni_encode_dirents(int little, const omni_dirent* v, size_t n, omni_bytes* out) {
  return encode(little, out, [&](cdrStream& s) { to_dirents(v, n) >>= s; });
}

int omni_encode_shape(int little, const omni_shape* v, omni_bytes* out) {
  return encode(little, out, [&](cdrStream& s) {
    Flick::Shape shape;
    to_shape(v, shape);
    shape >>= s;
  });
}

int omni_encode_prims(int little, const omni_prims* v, omni_bytes* out) {
  return encode(little, out, [&](cdrStream& s) {
    Flick::Prims p;
    to_prims(v, p);
    p >>= s;
  });
}

int omni_encode_oops(int little, int32_t code, omni_str why, omni_bytes* out) {
  return encode(little, out, [&](cdrStream& s) {
    CORBA::String_var w = dup_string(why.ptr, why.len);
    Flick::Oops e(code, w.in());
    e >>= s;  // the members only, as after the repository id in a reply body
  });
}

// A CDR encapsulation of a Prims: the byte-order octet, then the body with
// alignment relative to the octet.
int omni_encode_encapsulated_prims(int little, const omni_prims* v, omni_bytes* out) {
  try {
    orb();
    Flick::Prims p;
    to_prims(v, p);
    // The constructor writes the host's byte-order octet; to choose the
    // order, rewind and write it again after setting the swap flag.
    cdrEncapsulationStream s(CORBA::ULong(0), CORBA::Boolean(1));
    s.rewindPtrs();
    s.setByteSwapFlag(little != 0);
    s.marshalBoolean(little != 0);
    p >>= s;
    take_bytes(s, out);
    return 0;
  } catch (...) {
    record_exception();
    return 1;
  }
}

// ---------------------------------------------------------------------------
// Decoding: returns an owned handle (release with the matching omni_free_*)
// or NULL on failure; the out-parameters borrow from the handle.
// ---------------------------------------------------------------------------

void* omni_decode_ints(int little, const uint8_t* buf, size_t len, const int32_t** data,
                       size_t* n) {
  try {
    orb();
    Flick::IntSeq* seq = new Flick::IntSeq;
    try {
      unmarshal_all(little, buf, len, *seq);
    } catch (...) {
      delete seq;
      throw;
    }
    *data = seq->get_buffer();
    *n = seq->length();
    return seq;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

void omni_free_ints(void* h) { delete static_cast<Flick::IntSeq*>(h); }

void* omni_decode_rects(int little, const uint8_t* buf, size_t len, const int32_t** data,
                        size_t* n) {
  try {
    orb();
    Flick::RectSeq* seq = new Flick::RectSeq;
    try {
      unmarshal_all(little, buf, len, *seq);
    } catch (...) {
      delete seq;
      throw;
    }
    *data = reinterpret_cast<const int32_t*>(seq->get_buffer());
    *n = seq->length();
    return seq;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

void omni_free_rects(void* h) { delete static_cast<Flick::RectSeq*>(h); }

void* omni_decode_dirents(int little, const uint8_t* buf, size_t len, size_t* n) {
  try {
    orb();
    Flick::DirEntrySeq* seq = new Flick::DirEntrySeq;
    try {
      unmarshal_all(little, buf, len, *seq);
    } catch (...) {
      delete seq;
      throw;
    }
    *n = seq->length();
    return seq;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

// Element `i` (< the length reported by omni_decode_dirents) of a handle.
void omni_dirents_get(const void* h, size_t i, omni_dirent* out) {
  const Flick::DirEntry& d = (*static_cast<const Flick::DirEntrySeq*>(h))[(CORBA::ULong)i];
  out->name = view(d.name);
  std::memcpy(out->ints, d.st.ints, sizeof out->ints);
  std::memcpy(out->chars, d.st.chars, sizeof out->chars);
}

void omni_free_dirents(void* h) { delete static_cast<Flick::DirEntrySeq*>(h); }

void* omni_decode_shape(int little, const uint8_t* buf, size_t len, omni_shape* out) {
  try {
    orb();
    Flick::Shape* s = new Flick::Shape;
    try {
      unmarshal_all(little, buf, len, *s);
    } catch (...) {
      delete s;
      throw;
    }
    std::memset(out, 0, sizeof *out);
    out->d = s->_d();
    switch (s->_d()) {
      case 0: out->ival = s->ival(); break;
      case 1: out->sval = view(s->sval()); break;
      default: {
        const Flick::Rect& r = s->other();
        out->other[0] = r.a.x;
        out->other[1] = r.a.y;
        out->other[2] = r.b.x;
        out->other[3] = r.b.y;
      }
    }
    return s;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

void omni_free_shape(void* h) { delete static_cast<Flick::Shape*>(h); }

void* omni_decode_prims(int little, const uint8_t* buf, size_t len, omni_prims* out) {
  try {
    orb();
    Flick::Prims* p = new Flick::Prims;
    try {
      unmarshal_all(little, buf, len, *p);
    } catch (...) {
      delete p;
      throw;
    }
    from_prims(*p, out);
    return p;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

// Decodes a CDR encapsulation of a Prims (the byte order comes from its
// first octet).
void* omni_decode_encapsulated_prims(const uint8_t* buf, size_t len, omni_prims* out) {
  try {
    orb();
    Flick::Prims* p = new Flick::Prims;
    try {
      // The constructor copies the buffer if it is not 8-aligned.
      cdrEncapsulationStream s(buf, (CORBA::ULong)len);
      *p <<= s;
      if (s.currentInputPtr() != len) throw std::runtime_error("trailing bytes after the value");
    } catch (...) {
      delete p;
      throw;
    }
    from_prims(*p, out);
    return p;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

void omni_free_prims(void* h) { delete static_cast<Flick::Prims*>(h); }

}  // extern "C"

// ---------------------------------------------------------------------------
// Benchmark handles: a workload held in generated types plus a reusable
// output stream.
// ---------------------------------------------------------------------------

namespace {

// The stream clears memory when it allocates (during warm-up only), so the
// padding bytes, which marshaling skips, stay zero: the layout is the same
// for every encoding of the held sequence, and re-encoding never writes
// data where padding was.
struct EncHandle {
  cdrMemoryStream out;
  EncHandle() : out(CORBA::ULong(0), CORBA::Boolean(1)) {}
  virtual ~EncHandle() {}
  virtual void marshal(cdrStream& s) const = 0;
};

template <class Seq>
struct SeqHandle final : EncHandle {
  Seq seq;
  explicit SeqHandle(Seq&& s) : seq(s) {}
  void marshal(cdrStream& s) const override { seq >>= s; }
};

template <class Seq>
void* new_handle(Seq&& seq) {
  try {
    orb();
    return static_cast<EncHandle*>(new SeqHandle<Seq>(std::move(seq)));
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

template <class Seq>
size_t bench_decode(int little, const uint8_t* buf, size_t len) {
  try {
    size_t n = 0;
    with_input(little, buf, len, [&](cdrMemoryStream& s, size_t) {
      Seq seq;
      seq <<= s;
      n = seq.length();
    });
    return n;
  } catch (...) {
    record_exception();
    return SIZE_MAX;
  }
}

}  // namespace

extern "C" {

void* omni_enc_new_ints(const int32_t* v, size_t n) { return new_handle(to_ints(v, n)); }

void* omni_enc_new_rects(const int32_t* v, size_t n) { return new_handle(to_rects(v, n)); }

void* omni_enc_new_dirents(const omni_dirent* v, size_t n) {
  return new_handle(to_dirents(v, n));
}

// Marshals the handle's sequence into its stream from the start; returns the
// encoded length, or SIZE_MAX on failure.
size_t omni_enc_encode(void* h, int little) {
  try {
    EncHandle* e = static_cast<EncHandle*>(h);
    e->out.rewindPtrs();
    e->out.setByteSwapFlag(little != 0);
    e->marshal(e->out);
    return e->out.bufSize();
  } catch (...) {
    record_exception();
    return SIZE_MAX;
  }
}

// The bytes of the last encoding.
void omni_enc_bytes(const void* h, const uint8_t** p, size_t* n) {
  const EncHandle* e = static_cast<const EncHandle*>(h);
  *p = static_cast<const uint8_t*>(e->out.bufPtr());
  *n = e->out.bufSize();
}

void omni_enc_free(void* h) { delete static_cast<EncHandle*>(h); }

// Unmarshal into a fresh generated sequence, free it; the element count or
// SIZE_MAX on failure.
size_t omni_bench_decode_ints(int little, const uint8_t* buf, size_t len) {
  return bench_decode<Flick::IntSeq>(little, buf, len);
}

size_t omni_bench_decode_rects(int little, const uint8_t* buf, size_t len) {
  return bench_decode<Flick::RectSeq>(little, buf, len);
}

size_t omni_bench_decode_dirents(int little, const uint8_t* buf, size_t len) {
  return bench_decode<Flick::DirEntrySeq>(little, buf, len);
}

// ---------------------------------------------------------------------------
// Round-trip client
// ---------------------------------------------------------------------------

void* omni_client_connect(const char* ior) {
  try {
    CORBA::Object_var obj = orb()->string_to_object(ior);
    Flick::Bench_ptr b = Flick::Bench::_narrow(obj);
    if (CORBA::is_nil(b)) {
      set_error("the object reference is nil or not a Flick::Bench");
      return nullptr;
    }
    return b;
  } catch (...) {
    record_exception();
    return nullptr;
  }
}

void omni_client_free(void* h) { CORBA::release(static_cast<Flick::Bench_ptr>(h)); }

}  // extern "C"

namespace {

template <class Seq, class Call>
int timed_echo(Seq& seq, uint64_t iters, uint64_t* nanos, Call call) {
  try {
    typename Seq::_var_type last;
    auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < iters; i++) {
      last = call(seq);
      if (last->length() != seq.length()) throw std::runtime_error("echo changed the length");
    }
    auto end = std::chrono::steady_clock::now();
    *nanos = (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    // Check the contents once, outside the timed loop.
    if (iters > 0 && seq.length() > 0 &&
        std::memcmp(last->get_buffer(), seq.get_buffer(),
                    seq.length() * sizeof(*seq.get_buffer())) != 0)
      throw std::runtime_error("echo changed the contents");
    return 0;
  } catch (...) {
    record_exception();
    return 1;
  }
}

}  // namespace

extern "C" {

int omni_client_echo_ints(void* h, size_t n, uint64_t iters, uint64_t* nanos) {
  Flick::Bench_ptr b = static_cast<Flick::Bench_ptr>(h);
  try {
    Flick::IntSeq seq((CORBA::ULong)n);
    seq.length((CORBA::ULong)n);
    for (size_t i = 0; i < n; i++) seq[(CORBA::ULong)i] = (CORBA::Long)(i * 2654435761u);
    return timed_echo(seq, iters, nanos,
                      [&](const Flick::IntSeq& s) { return b->echo_ints(s); });
  } catch (...) {
    record_exception();
    return 1;
  }
}

int omni_client_echo_octets(void* h, size_t n, uint64_t iters, uint64_t* nanos) {
  Flick::Bench_ptr b = static_cast<Flick::Bench_ptr>(h);
  try {
    Flick::OctetSeq seq((CORBA::ULong)n);
    seq.length((CORBA::ULong)n);
    for (size_t i = 0; i < n; i++) seq[(CORBA::ULong)i] = (CORBA::Octet)(i * 131);
    return timed_echo(seq, iters, nanos,
                      [&](const Flick::OctetSeq& s) { return b->echo_octets(s); });
  } catch (...) {
    record_exception();
    return 1;
  }
}

// Layout of the mirrors, for the Rust layout test.
size_t omni_layout(size_t* out, size_t cap) {
  const size_t v[] = {
      sizeof(omni_bytes),         alignof(omni_bytes),         offsetof(omni_bytes, ptr),
      offsetof(omni_bytes, len),  sizeof(omni_str),            alignof(omni_str),
      offsetof(omni_str, ptr),    offsetof(omni_str, len),     sizeof(omni_dirent),
      alignof(omni_dirent),       offsetof(omni_dirent, name), offsetof(omni_dirent, ints),
      offsetof(omni_dirent, chars), sizeof(omni_shape),        alignof(omni_shape),
      offsetof(omni_shape, d),    offsetof(omni_shape, ival),  offsetof(omni_shape, sval),
      offsetof(omni_shape, other), sizeof(omni_prims),         alignof(omni_prims),
      offsetof(omni_prims, o),    offsetof(omni_prims, b),     offsetof(omni_prims, c),
      offsetof(omni_prims, s),    offsetof(omni_prims, us),    offsetof(omni_prims, l),
      offsetof(omni_prims, ul),   offsetof(omni_prims, ll),    offsetof(omni_prims, ull),
      offsetof(omni_prims, f),    offsetof(omni_prims, d),     offsetof(omni_prims, str),
      offsetof(omni_prims, color),
  };
  size_t n = sizeof v / sizeof v[0];
  for (size_t i = 0; i < n && i < cap; i++) out[i] = v[i];
  return n;
}

}  // extern "C"
