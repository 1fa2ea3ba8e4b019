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
# omniORB 4.2 (omniidl, headers and libraries) builds the C++ peer of the CDR/GIOP tests.
command -v omniidl >/dev/null 2>&1 || need+=(omniidl)
[ -f /usr/include/omniORB4/CORBA.h ] || need+=(libomniorb4-dev)
dpkg -s omniorb >/dev/null 2>&1 || need+=(omniorb)
if [ ${#need[@]} -gt 0 ]; then
  echo "scripts/test.sh: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --all-features -- -D warnings
cargo test --workspace --all-features
# Every benchmark runs once in test mode, so the suite (and its C peer) cannot rot.
cargo test -p marshal-benches --benches
