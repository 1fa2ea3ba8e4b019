// echo-client: omniORB's client of `Echo` (echo.idl of Debian's omniorb-idl), for
// tests/echo_omniorb.rs, which compiles it against the stubs `omniidl -bcxx` generates from
// the same file.
//
//   echo-client <IOR-or-corbaloc> <message>... [-ORB<option> <value>]...
//
// Narrows the reference to `Echo` (which asks the object `_is_a` when the reference does not
// name its type, as a corbaloc URL does not), then calls `echoString` once per message and
// prints `echo: <reply>` for each. Exits 0 after all calls, 3 if the object is not an Echo,
// 1 on a CORBA exception, 2 on usage errors.

#include "echo.hh"

#include <iostream>

int main(int argc, char** argv) {
  // ORB_init removes the -ORB options from argv.
  CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
  if (argc < 2) {
    std::cerr << "usage: echo-client <IOR-or-corbaloc> <message>..." << std::endl;
    return 2;
  }
  int status = 0;
  try {
    CORBA::Object_var obj = orb->string_to_object(argv[1]);
    Echo_var echo = Echo::_narrow(obj);
    if (CORBA::is_nil(echo)) {
      std::cout << "not an Echo" << std::endl;
      status = 3;
    } else {
      for (int i = 2; i < argc; i++) {
        CORBA::String_var reply = echo->echoString(argv[i]);
        std::cout << "echo: " << reply.in() << std::endl;
      }
    }
  } catch (const CORBA::SystemException& e) {
    std::cout << "CORBA::" << e._name() << " minor " << e.minor() << std::endl;
    status = 1;
  } catch (const CORBA::Exception& e) {
    std::cout << "CORBA exception " << e._name() << std::endl;
    status = 1;
  }
  orb->destroy();
  return status;
}
