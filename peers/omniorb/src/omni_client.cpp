// omni-client: calls every operation of Flick::Bench (idl/flick.idl) on a
// target object and checks the results against the documented semantics:
//
//   echo_*          return their argument (bit for bit, floats included)
//   sum_ints        returns the sum of the ints as a long long
//   fail(code)      returns normally for 0, else raises Oops{code, "failed <code>"}
//   mix(a, b, s)    returns a + 1, sets b = 2 * a, appends "!" to s
//
//   omni-client <IOR-or-corbaloc> [--giop 1.0|1.1|1.2] [-ORB<option> <value>]...
//
// Prints one line per check, `ok <op> <case>` or `FAIL <op> <case>: <detail>`,
// and exits 0 only if every check passed (1 otherwise, 2 on usage errors).
// A CORBA exception during a check fails that check and the run continues.

#include "flick.hh"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failures = 0;
int passes = 0;

struct Failure {
  std::string detail;
};

void require(bool cond, const std::string& detail) {
  if (!cond) throw Failure{detail};
}

template <class T>
std::string str(const T& v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// Runs one check, printing its outcome. `body` throws Failure or a CORBA
// exception on failure.
template <class F>
void check(const char* op, const std::string& name, F body) {
  try {
    body();
    std::printf("ok %s %s\n", op, name.c_str());
    passes++;
  } catch (const Failure& f) {
    std::printf("FAIL %s %s: %s\n", op, name.c_str(), f.detail.c_str());
    failures++;
  } catch (const Flick::Oops& e) {
    std::printf("FAIL %s %s: unexpected Flick::Oops{%ld, \"%s\"}\n", op, name.c_str(),
                (long)e.code, (const char*)e.why);
    failures++;
  } catch (const CORBA::SystemException& e) {
    const char* minor = e.NP_minorString();
    std::printf("FAIL %s %s: CORBA::%s minor=0x%lx (%s) completed=%d\n", op, name.c_str(),
                e._name(), (unsigned long)e.minor(), minor ? minor : "?",
                (int)e.completed());
    failures++;
  } catch (const CORBA::Exception& e) {
    std::printf("FAIL %s %s: CORBA exception %s\n", op, name.c_str(), e._name());
    failures++;
  }
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------
// Test data
// ---------------------------------------------------------------------------

// A deterministic xorshift generator, so runs are reproducible.
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (uint32_t)(s >> 16);
  }
  int32_t next_i32() { return (int32_t)next(); }
};

Flick::IntSeq make_ints(const std::vector<CORBA::Long>& v) {
  Flick::IntSeq s;
  s.length((CORBA::ULong)v.size());
  for (size_t i = 0; i < v.size(); i++) s[(CORBA::ULong)i] = v[i];
  return s;
}

Flick::IntSeq ints_pattern(CORBA::ULong n, Rng& rng) {
  Flick::IntSeq s;
  s.length(n);
  for (CORBA::ULong i = 0; i < n; i++) {
    switch (i % 5) {
      case 0: s[i] = INT_MIN + (CORBA::Long)i; break;
      case 1: s[i] = INT_MAX - (CORBA::Long)i; break;
      case 2: s[i] = -(CORBA::Long)i; break;
      default: s[i] = rng.next_i32(); break;
    }
  }
  return s;
}

Flick::Rect rect(CORBA::Long ax, CORBA::Long ay, CORBA::Long bx, CORBA::Long by) {
  Flick::Rect r;
  r.a.x = ax;
  r.a.y = ay;
  r.b.x = bx;
  r.b.y = by;
  return r;
}

Flick::RectSeq rects_pattern(CORBA::ULong n, Rng& rng) {
  Flick::RectSeq s;
  s.length(n);
  for (CORBA::ULong i = 0; i < n; i++) {
    if (i == 0)
      s[i] = rect(INT_MIN, INT_MAX, -1, 0);
    else
      s[i] = rect(rng.next_i32(), -(CORBA::Long)i, (CORBA::Long)i, rng.next_i32());
  }
  return s;
}

Flick::DirEntry dirent(CORBA::ULong i, size_t name_len, Rng& rng) {
  Flick::DirEntry d;
  std::string name;
  for (size_t k = 0; k < name_len; k++) name.push_back((char)(' ' + (i * 7 + k) % 95));
  d.name = name.c_str();
  for (int k = 0; k < 30; k++) {
    d.st.ints[k] = (k == 0) ? INT_MIN : (k == 29) ? INT_MAX : rng.next_i32();
  }
  for (int k = 0; k < 16; k++) d.st.chars[k] = (CORBA::Octet)(i * 16 + k * 17);
  return d;
}

Flick::DirEntrySeq dirents_pattern(CORBA::ULong n, Rng& rng) {
  static const size_t lens[] = {0, 1, 3, 4, 5, 7, 8, 255, 2, 6, 9, 15, 16, 17, 31, 32, 33, 254};
  Flick::DirEntrySeq s;
  s.length(n);
  for (CORBA::ULong i = 0; i < n; i++)
    s[i] = dirent(i, lens[i % (sizeof lens / sizeof lens[0])], rng);
  return s;
}

Flick::OctetSeq octets_pattern(CORBA::ULong n, Rng& rng) {
  Flick::OctetSeq s;
  s.length(n);
  for (CORBA::ULong i = 0; i < n; i++)
    s[i] = (n == 256) ? (CORBA::Octet)i : (CORBA::Octet)rng.next();
  return s;
}

// ---------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------

std::string rect_str(const Flick::Rect& r) {
  return "{" + str(r.a.x) + "," + str(r.a.y) + "," + str(r.b.x) + "," + str(r.b.y) + "}";
}

bool rect_eq(const Flick::Rect& a, const Flick::Rect& b) {
  return a.a.x == b.a.x && a.a.y == b.a.y && a.b.x == b.b.x && a.b.y == b.b.y;
}

template <class Seq, class Eq, class Show>
void seq_eq(const Seq& got, const Seq& want, Eq eq, Show show) {
  require(got.length() == want.length(),
          "length " + str(got.length()) + ", want " + str(want.length()));
  for (CORBA::ULong i = 0; i < want.length(); i++) {
    require(eq(got[i], want[i]),
            "element " + str(i) + ": got " + show(got[i]) + ", want " + show(want[i]));
  }
}

std::string cstr(const char* s) { return s ? "\"" + std::string(s) + "\"" : "(null)"; }

bool dirent_eq(const Flick::DirEntry& a, const Flick::DirEntry& b) {
  return std::strcmp(a.name, b.name) == 0 &&
         std::memcmp(a.st.ints, b.st.ints, sizeof a.st.ints) == 0 &&
         std::memcmp(a.st.chars, b.st.chars, sizeof a.st.chars) == 0;
}

std::string dirent_str(const Flick::DirEntry& d) {
  std::string s = "{name " + cstr(d.name) + " (" + str(std::strlen(d.name)) + " bytes), ints [";
  for (int k = 0; k < 30; k++) s += (k ? "," : "") + str(d.st.ints[k]);
  s += "], chars [";
  for (int k = 0; k < 16; k++) s += (k ? "," : "") + str((unsigned)d.st.chars[k]);
  return s + "]}";
}

template <class T>
uint64_t bits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

std::string prims_str(const Flick::Prims& p) {
  std::ostringstream o;
  o.precision(17);
  o << "{o " << (unsigned)p.o << ", b " << (int)p.b << ", c " << (int)(signed char)p.c
    << ", s " << p.s << ", us " << p.us << ", l " << p.l << ", ul " << p.ul << ", ll " << p.ll
    << ", ull " << p.ull << ", f " << p.f << " (0x" << std::hex << bits(p.f) << "), d "
    << std::dec << p.d << " (0x" << std::hex << bits(p.d) << std::dec << "), str "
    << cstr(p.str) << ", color " << (int)p.col << "}";
  return o.str();
}

bool prims_eq(const Flick::Prims& a, const Flick::Prims& b) {
  return a.o == b.o && a.b == b.b && a.c == b.c && a.s == b.s && a.us == b.us && a.l == b.l &&
         a.ul == b.ul && a.ll == b.ll && a.ull == b.ull && bits(a.f) == bits(b.f) &&
         bits(a.d) == bits(b.d) && std::strcmp(a.str, b.str) == 0 && a.col == b.col;
}

std::string shape_str(const Flick::Shape& s) {
  switch (s._d()) {
    case 0: return "{d 0, ival " + str(s.ival()) + "}";
    case 1: return "{d 1, sval " + cstr(s.sval()) + "}";
    default: return "{d " + str(s._d()) + ", other " + rect_str(s.other()) + "}";
  }
}

bool shape_eq(const Flick::Shape& a, const Flick::Shape& b) {
  if (a._d() != b._d()) return false;
  switch (a._d()) {
    case 0: return a.ival() == b.ival();
    case 1: return std::strcmp(a.sval(), b.sval()) == 0;
    default: return rect_eq(a.other(), b.other());
  }
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

void check_ints(Flick::Bench_ptr obj, Rng& rng) {
  std::vector<std::pair<std::string, Flick::IntSeq>> cases;
  cases.emplace_back("empty", Flick::IntSeq());
  cases.emplace_back("[0]", make_ints({0}));
  cases.emplace_back("[INT_MIN,-1,0,1,INT_MAX]", make_ints({INT_MIN, -1, 0, 1, INT_MAX}));
  cases.emplace_back("[-2]", make_ints({-2}));
  cases.emplace_back("len=1000", ints_pattern(1000, rng));
  cases.emplace_back("len=100000", ints_pattern(100000, rng));
  for (auto& c : cases) {
    const Flick::IntSeq& v = c.second;
    check("echo_ints", c.first, [&] {
      Flick::IntSeq_var r = obj->echo_ints(v);
      seq_eq(r.in(), v, [](CORBA::Long a, CORBA::Long b) { return a == b; },
             [](CORBA::Long a) { return str(a); });
    });
    check("sum_ints", c.first, [&] {
      CORBA::LongLong want = 0;
      for (CORBA::ULong i = 0; i < v.length(); i++) want += v[i];
      CORBA::LongLong got = obj->sum_ints(v);
      require(got == want, "got " + str(got) + ", want " + str(want));
    });
  }
  // Sums that overflow 32 bits in both directions.
  for (auto& c : {std::make_pair(std::string("[INT_MAX x3]"),
                                 make_ints({INT_MAX, INT_MAX, INT_MAX})),
                  std::make_pair(std::string("[INT_MIN x3]"),
                                 make_ints({INT_MIN, INT_MIN, INT_MIN}))}) {
    check("sum_ints", c.first, [&] {
      CORBA::LongLong want = 3 * (CORBA::LongLong)c.second[0];
      CORBA::LongLong got = obj->sum_ints(c.second);
      require(got == want, "got " + str(got) + ", want " + str(want));
    });
  }
}

void check_rects(Flick::Bench_ptr obj, Rng& rng) {
  for (CORBA::ULong n : {0u, 1u, 1000u}) {
    Flick::RectSeq v = rects_pattern(n, rng);
    check("echo_rects", "len=" + str(n), [&] {
      Flick::RectSeq_var r = obj->echo_rects(v);
      seq_eq(r.in(), v, rect_eq, rect_str);
    });
  }
}

void check_dirents(Flick::Bench_ptr obj, Rng& rng) {
  for (CORBA::ULong n : {0u, 1u, 100u}) {
    Flick::DirEntrySeq v = dirents_pattern(n, rng);
    if (n == 1) v[0] = dirent(0, 255, rng);  // the longest name allowed
    check("echo_dirents", "len=" + str(n), [&] {
      Flick::DirEntrySeq_var r = obj->echo_dirents(v);
      seq_eq(r.in(), v, dirent_eq, dirent_str);
    });
  }
}

void check_octets(Flick::Bench_ptr obj, Rng& rng) {
  for (CORBA::ULong n : {0u, 1u, 3u, 256u, 100000u}) {
    Flick::OctetSeq v = octets_pattern(n, rng);
    check("echo_octets", "len=" + str(n) + (n == 256 ? " (0..=255)" : ""), [&] {
      Flick::OctetSeq_var r = obj->echo_octets(v);
      seq_eq(r.in(), v, [](CORBA::Octet a, CORBA::Octet b) { return a == b; },
             [](CORBA::Octet a) { return str((unsigned)a); });
    });
  }
}

void check_shape(Flick::Bench_ptr obj) {
  std::vector<std::pair<std::string, Flick::Shape>> cases;
  for (CORBA::Long i : {0, -1, INT_MIN, INT_MAX}) {
    Flick::Shape s;
    s.ival(i);
    cases.emplace_back("ival " + str(i), s);
  }
  for (const char* t : {"", "x", "hello, world", "0123456789abcdef0123456789abcdef0"}) {
    Flick::Shape s;
    s.sval(t);
    cases.emplace_back("sval \"" + std::string(t) + "\"", s);
  }
  {
    Flick::Shape s;
    s.sval(std::string(1000, 'q').c_str());
    cases.emplace_back("sval 1000 bytes", s);
  }
  for (CORBA::Long d : {7, -3, 2, INT_MAX, INT_MIN}) {
    Flick::Shape s;
    s.other(rect(d, -d, 1, -1));
    s._d(d);
    cases.emplace_back("default arm d=" + str(d), s);
  }
  for (auto& c : cases) {
    check("echo_shape", c.first, [&] {
      Flick::Shape_var r = obj->echo_shape(c.second);
      require(shape_eq(r.in(), c.second),
              "got " + shape_str(r.in()) + ", want " + shape_str(c.second));
    });
  }
}

Flick::Prims prims(CORBA::Octet o, bool b, char c, CORBA::Short s, CORBA::UShort us,
                   CORBA::Long l, CORBA::ULong ul, CORBA::LongLong ll, CORBA::ULongLong ull,
                   CORBA::Float f, CORBA::Double d, const char* str, Flick::Color color) {
  Flick::Prims p;
  p.o = o;
  p.b = b;
  p.c = c;
  p.s = s;
  p.us = us;
  p.l = l;
  p.ul = ul;
  p.ll = ll;
  p.ull = ull;
  p.f = f;
  p.d = d;
  p.str = str;
  p.col = color;
  return p;
}

void check_prims(Flick::Bench_ptr obj) {
  typedef std::numeric_limits<CORBA::Float> F;
  typedef std::numeric_limits<CORBA::Double> D;
  typedef std::numeric_limits<CORBA::LongLong> LL;
  std::vector<std::pair<std::string, Flick::Prims>> cases;
  cases.emplace_back("zeros", prims(0, false, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0.0, "", Flick::red));
  cases.emplace_back("maxima", prims(255, true, 0x7f, SHRT_MAX, USHRT_MAX, INT_MAX, UINT_MAX,
                                     LL::max(), ~(CORBA::ULongLong)0, F::max(), D::max(),
                                     "max", Flick::blue));
  cases.emplace_back("minima", prims(0, false, 1, SHRT_MIN, 0, INT_MIN, 0, LL::min(), 0,
                                     F::lowest(), D::lowest(), "min", Flick::green));
  cases.emplace_back("mixed", prims(0xa5, true, 'A', -2, 0xbeef, -123456789, 0xdeadbeefu,
                                    -1234567890123456789ll, 0xfedcba9876543210ull, 1.5f,
                                    -2.25, "hello, world", Flick::green));
  cases.emplace_back("specials", prims(1, true, 'z', -1, 1, -1, 1, -1, 1, -0.0f,
                                       D::denorm_min(), "0123456789abcdef", Flick::red));
  cases.emplace_back("infinities", prims(2, false, '~', 1, 2, 3, 4, 5, 6, F::infinity(),
                                         -D::infinity(), "inf", Flick::blue));
  cases.emplace_back("tiny", prims(3, true, ' ', 7, 8, 9, 10, 11, 12, F::denorm_min(),
                                   -0.0, std::string(300, 's').c_str(), Flick::green));
  for (auto& c : cases) {
    check("echo_prims", c.first, [&] {
      Flick::Prims_var r = obj->echo_prims(c.second);
      require(prims_eq(r.in(), c.second),
              "got " + prims_str(r.in()) + ", want " + prims_str(c.second));
    });
  }
}

void check_fail(Flick::Bench_ptr obj) {
  check("fail", "0 returns normally", [&] { obj->fail(0); });
  for (CORBA::Long code : {42, 1, -7, INT_MIN, INT_MAX}) {
    check("fail", str(code) + " raises Oops", [&] {
      std::string want_why = "failed " + str(code);
      try {
        obj->fail(code);
      } catch (const Flick::Oops& e) {
        require(e.code == code && std::strcmp(e.why, want_why.c_str()) == 0,
                "Oops{" + str(e.code) + ", " + cstr(e.why) + "}, want Oops{" + str(code) +
                    ", \"" + want_why + "\"}");
        return;
      }
      require(false, "returned normally, want Oops{" + str(code) + ", \"" + want_why + "\"}");
    });
  }
}

void check_mix(Flick::Bench_ptr obj) {
  struct Case {
    CORBA::Long a;
    const char* s;
  };
  const Case cases[] = {{5, "abc"}, {0, ""}, {-3, "x"}, {1 << 29, "!"}, {-(1 << 29), "0123"}};
  for (const Case& c : cases) {
    check("mix", "a=" + str(c.a) + " s=\"" + c.s + "\"", [&] {
      CORBA::Long b = 12345;
      CORBA::String_var s = CORBA::string_dup(c.s);
      CORBA::Long r = obj->mix(c.a, b, s.inout());
      std::string want_s = std::string(c.s) + "!";
      require(r == c.a + 1, "returned " + str(r) + ", want " + str(c.a + 1));
      require(b == 2 * c.a, "b = " + str(b) + ", want " + str(2 * c.a));
      require(std::strcmp(s.in(), want_s.c_str()) == 0,
              "s = " + cstr(s.in()) + ", want \"" + want_s + "\"");
    });
  }
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s <IOR-or-corbaloc> [--giop 1.0|1.1|1.2] [-ORB<option> <value>]...\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args = {argv[0]};
  const char* target = nullptr;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--giop") == 0) {
      if (i + 1 >= argc) return usage(argv[0]);
      args.push_back("-ORBmaxGIOPVersion");
      args.push_back(argv[++i]);
    } else if (std::strncmp(argv[i], "-ORB", 4) == 0) {
      if (i + 1 >= argc) return usage(argv[0]);
      args.push_back(argv[i]);
      args.push_back(argv[++i]);
    } else if (!target && argv[i][0] != '-') {
      target = argv[i];
    } else {
      return usage(argv[0]);
    }
  }
  if (!target) return usage(argv[0]);
  std::vector<char*> orb_argv;
  for (std::string& a : args) orb_argv.push_back(&a[0]);
  orb_argv.push_back(nullptr);
  int orb_argc = (int)args.size();

  CORBA::ORB_var orb;
  try {
    orb = CORBA::ORB_init(orb_argc, orb_argv.data(), "omniORB4");
    CORBA::Object_var o = orb->string_to_object(target);
    // Unchecked: no _is_a round trip, only the operations under test.
    Flick::Bench_var obj = Flick::Bench::_unchecked_narrow(o);
    if (CORBA::is_nil(obj)) {
      std::printf("FAIL connect: nil object reference\n");
      return 1;
    }
    Rng rng;
    check_ints(obj, rng);
    check_rects(obj, rng);
    check_dirents(obj, rng);
    check_octets(obj, rng);
    check_shape(obj);
    check_prims(obj);
    check_fail(obj);
    check_mix(obj);
  } catch (const CORBA::SystemException& e) {
    const char* minor = e.NP_minorString();
    std::printf("FAIL setup: CORBA::%s minor=0x%lx (%s)\n", e._name(),
                (unsigned long)e.minor(), minor ? minor : "?");
    return 1;
  } catch (const CORBA::Exception& e) {
    std::printf("FAIL setup: CORBA exception %s\n", e._name());
    return 1;
  }
  std::fprintf(stderr, "omni-client: %d passed, %d failed\n", passes, failures);
  std::fflush(stdout);
  try {
    orb->destroy();
  } catch (const CORBA::Exception&) {
  }
  return failures == 0 ? 0 : 1;
}
