// omni-server: an omniORB implementation of Flick::Bench (idl/flick.idl).
//
//   omni-server [--giop 1.0|1.1|1.2] [omniORB -ORB... options]
//
// Listens on 127.0.0.1 (an ephemeral port unless an -ORBendPoint option is
// given), activates one Bench object in omniORB's INS POA under the object
// key "Bench", and prints two lines on stdout:
//
//   IOR:...                              the stringified object reference
//   corbaloc::127.0.0.1:<port>/Bench     the same object by corbaloc URL
//
// It then serves requests (omniORB's thread-per-connection model does not
// need ORB::run) until stdin reaches EOF, shuts the ORB down and exits 0.

#include "flick.hh"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

class BenchImpl : public POA_Flick::Bench {
public:
  Flick::IntSeq* echo_ints(const Flick::IntSeq& v) override {
    return new Flick::IntSeq(v);
  }
  Flick::RectSeq* echo_rects(const Flick::RectSeq& v) override {
    return new Flick::RectSeq(v);
  }
  Flick::DirEntrySeq* echo_dirents(const Flick::DirEntrySeq& v) override {
    return new Flick::DirEntrySeq(v);
  }
  Flick::OctetSeq* echo_octets(const Flick::OctetSeq& v) override {
    return new Flick::OctetSeq(v);
  }
  Flick::Shape* echo_shape(const Flick::Shape& s) override {
    return new Flick::Shape(s);
  }
  Flick::Prims* echo_prims(const Flick::Prims& p) override {
    return new Flick::Prims(p);
  }
  CORBA::LongLong sum_ints(const Flick::IntSeq& v) override {
    CORBA::LongLong sum = 0;
    for (CORBA::ULong i = 0; i < v.length(); i++) sum += v[i];
    return sum;
  }
  void fail(CORBA::Long code) override {
    if (code != 0) {
      std::string why = "failed " + std::to_string(code);
      throw Flick::Oops(code, why.c_str());
    }
  }
  CORBA::Long mix(CORBA::Long a, CORBA::Long& b, char*& s) override {
    // Wrapping arithmetic, like the Rust implementation (no signed overflow).
    b = (CORBA::Long)((CORBA::ULong)a * 2u);
    std::string appended = std::string(s ? s : "") + "!";
    CORBA::string_free(s);
    s = CORBA::string_dup(appended.c_str());
    return (CORBA::Long)((CORBA::ULong)a + 1u);
  }
};

// The TCP port of the first IIOP profile of `obj`, or 0 if there is none.
CORBA::UShort iiop_port(CORBA::Object_ptr obj) {
  omniIOR* ior = obj->_PR_getobj()->_getIOR();
  CORBA::UShort port = 0;
  const IOP::TaggedProfileList& profiles = ior->iopProfiles();
  for (CORBA::ULong i = 0; i < profiles.length(); i++) {
    if (profiles[i].tag == IOP::TAG_INTERNET_IOP) {
      IIOP::ProfileBody body;
      IIOP::unmarshalProfile(profiles[i], body);
      port = body.address.port;
      break;
    }
  }
  ior->release();
  return port;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--giop 1.0|1.1|1.2] [-ORB<option> <value>]...\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // ORB arguments: our defaults first, so that options given on the command
  // line (which omniORB applies later) override them.
  std::vector<std::string> args = {
      argv[0], "-ORBgiopMaxMsgSize", "268435456",  // 256 MiB, for benchmarks
  };
  bool have_endpoint = false;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--giop") == 0) {
      if (i + 1 >= argc) return usage(argv[0]);
      args.push_back("-ORBmaxGIOPVersion");
      args.push_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      return usage(argv[0]);
    } else {
      if (std::strncmp(argv[i], "-ORBendPoint", 12) == 0) have_endpoint = true;
      args.push_back(argv[i]);
    }
  }
  if (!have_endpoint) {
    args.push_back("-ORBendPoint");
    args.push_back("giop:tcp:127.0.0.1:");
  }
  std::vector<char*> orb_argv;
  for (std::string& a : args) orb_argv.push_back(&a[0]);
  orb_argv.push_back(nullptr);
  int orb_argc = (int)args.size();

  try {
    CORBA::ORB_var orb = CORBA::ORB_init(orb_argc, orb_argv.data(), "omniORB4");
    if (orb_argc > 1) {
      std::fprintf(stderr, "omni-server: unknown argument %s\n", orb_argv[1]);
      return usage(argv[0]);
    }

    // omniINSPOA is a persistent, USER_ID POA whose object keys are exactly
    // the object ids, which makes the object reachable as .../Bench.
    CORBA::Object_var poa_obj = orb->resolve_initial_references("omniINSPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(poa_obj);
    PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("Bench");
    BenchImpl* servant = new BenchImpl;
    poa->activate_object_with_id(oid, servant);
    servant->_remove_ref();  // the POA holds the only reference now
    PortableServer::POAManager_var mgr = poa->the_POAManager();
    mgr->activate();

    CORBA::Object_var obj = poa->id_to_reference(oid);
    CORBA::String_var ior = orb->object_to_string(obj);
    std::printf("%s\n", (const char*)ior);
    CORBA::UShort port = iiop_port(obj);
    if (port != 0) std::printf("corbaloc::127.0.0.1:%u/Bench\n", (unsigned)port);
    std::fflush(stdout);

    // Serve until stdin reaches EOF (or fails).
    char buf[256];
    for (;;) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n == 0) break;
      if (n < 0 && errno != EINTR) break;
    }
    orb->shutdown(1);
    orb->destroy();
  } catch (const CORBA::SystemException& e) {
    const char* minor = e.NP_minorString();
    std::fprintf(stderr, "omni-server: CORBA::%s (minor %s)\n", e._name(), minor ? minor : "?");
    return 1;
  } catch (const CORBA::Exception& e) {
    std::fprintf(stderr, "omni-server: CORBA exception %s\n", e._name());
    return 1;
  }
  return 0;
}
