#!/usr/bin/env bash
# Runs every test of the workspace on a fresh Debian machine: installs the Debian packages the
# interop peers need when they are missing, then checks formatting and lints, and runs the unit,
# doc, integration, interop, property and UI tests, and each benchmark once (as a smoke test).
set -euo pipefail
cd "$(dirname "$0")/.."

# rpcgen (rpcsvc-proto) and libtirpc-dev build the C peer the XDR interop tests talk to.
need=()
command -v rpcgen >/dev/null 2>&1 || need+=(rpcsvc-proto)
[ -f /usr/include/tirpc/rpc/rpc.h ] || need+=(libtirpc-dev)
# marshal-build-tests compiles every .x file of /usr/include/rpcsvc: rpcsvc-proto installs most,
# libnsl-dev the NIS ones (nis.x, nis_object.x, nis_callback.x).
[ -f /usr/include/rpcsvc/nis.x ] || need+=(libnsl-dev)
# rpcbind (with rpcinfo) for the registration tests of the ONC RPC server; valgrind counts
# the instructions of the RPC stubs (benches/benches/rpc_stub_cost.rs).
[ -x /usr/sbin/rpcbind ] || need+=(rpcbind)
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
# omniORB 4.2 (omniidl, headers and libraries) builds the C++ peer of the CDR/GIOP tests.
command -v omniidl >/dev/null 2>&1 || need+=(omniidl)
[ -f /usr/include/omniORB4/CORBA.h ] || need+=(libomniorb4-dev)
dpkg -s omniorb >/dev/null 2>&1 || need+=(omniorb)
# marshal-build-tests compiles the IDL files of omniorb-idl (/usr/share/idl/omniORB), calls a
# CosNaming naming service (omniNames, from omniorb-nameserver) and checks what it bound with
# omniORB's nameclt (from omniorb).
[ -f /usr/share/idl/omniORB/COS/CosNaming.idl ] || need+=(omniorb-idl)
command -v omniNames >/dev/null 2>&1 || need+=(omniorb-nameserver)
# A C++ compiler for the omniORB programs (peers/omniorb, and marshal-build-tests' echo client
# of omniorb-idl's echo.idl).
command -v c++ >/dev/null 2>&1 || need+=(g++)
# python3 packs the reference bytes of the layout-header tests and writes the sample capture
# (workloads/tests/headers_bytes.rs); gcc compiles their Linux-struct peer.
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
# The NDR foreign-architecture senders: i386 (`gcc -m32`; gcc-multilib would conflict with the
# cross compiler) and s390x (a cross gcc, run under qemu's user-mode emulator).
[ -f /usr/include/x86_64-linux-gnu/gnu/stubs-32.h ] || need+=(libc6-dev-i386)
[ -f /usr/lib/gcc/x86_64-linux-gnu/12/32/crtbegin.o ] || need+=(lib32gcc-12-dev)
command -v s390x-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-s390x-linux-gnu)
[ -f /usr/s390x-linux-gnu/lib/libc.a ] || need+=(libc6-dev-s390x-cross)
command -v qemu-s390x >/dev/null 2>&1 || need+=(qemu-user)
if [ ${#need[@]} -gt 0 ]; then
  echo "scripts/test.sh: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# Start rpcbind on this host if none answers (a fresh machine's package install does not
# start it without systemd). `-w`: warm start, keeping registrations across restarts.
if ! rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
  echo "scripts/test.sh: starting rpcbind"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo /usr/sbin/rpcbind -w
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break
    sleep 0.5
  done
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --all-features -- -D warnings
# The API docs: broken links and other rustdoc warnings fail the run.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --all-features --no-deps
# Among them, marshal-fuzz-targets' replay and memory_bounds tests run every committed fuzz seed
# and regression input (fuzz/seeds, fuzz/regressions) through its target without a fuzzer, and
# check each decoder's allocation bound with a counting allocator.
cargo test --workspace --all-features
# Every benchmark runs once in test mode, so the suite (and its C peer) cannot rot.
cargo test -p marshal-benches --benches
# The stub cost of ONC RPC in instructions (callgrind), optimised as it ships: fails unless
# marshal's client marshal + server unmarshal of PFS_WRITE (4 KiB) takes fewer than rpcgen's
# and its fixed part (PFS_WRITE of 0 ints) stays within the bench's FIXED_MAX.
cargo bench -p marshal-benches --bench rpc_stub_cost
