#!/usr/bin/env bash
# Installs the missing Debian packages and builds kforge into build/: the one configure and build
# that tools/setup.sh and tools/test.sh share, so running one after the other rebuilds nothing.
# Warnings are errors: the scripts target Debian 12's compilers, which CI uses too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_packages.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFORGE_WERROR=ON
cmake --build "$root/build" -j "$(nproc)"
