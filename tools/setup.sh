#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for kforge: installs the Debian packages it builds against
# (tools/packages.txt) and builds it into build/. Run as root or with sudo available.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_packages.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$root/build" -j "$(nproc)"
echo "kforge is built: $root/build/tools/kforge"
