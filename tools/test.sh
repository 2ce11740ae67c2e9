#!/usr/bin/env bash
# Builds kforge from this checkout (installing missing Debian packages first) and runs every test.
# Tests labelled `gpu` skip themselves on machines without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cd "$root/build"
ctest -j "$(nproc)" --output-on-failure --timeout 1200
