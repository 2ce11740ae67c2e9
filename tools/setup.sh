#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for kforge: installs the Debian packages it builds against
# (tools/packages.txt) and builds it into build/. Run as root or with sudo available.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
echo "kforge is built: $root/build/tools/kforge"
