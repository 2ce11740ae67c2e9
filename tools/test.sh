#!/usr/bin/env bash
# Builds kforge from this checkout (installing missing Debian packages first) and runs every test.
# Tests labelled `gpu` skip themselves on machines without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_packages.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFORGE_WERROR=ON
cmake --build "$root/build" -j "$(nproc)"
cd "$root/build"
ctest -j "$(nproc)" --output-on-failure --timeout 1200
