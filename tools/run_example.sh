#!/usr/bin/env bash
# The main job for now: evaluate the bundled softmax kernel on its task. CUDA when this build has
# it and a GPU is present, else the CPU backend with the CPU kernel.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kernel=$root/tasks/softmax/kernels/forward_cpu.cpp
backend=cpu
if [ -e /dev/nvidiactl ] && grep -q "with_cuda = true" "$root/build/generated/gpu/build_config.hpp" 2>/dev/null; then
  kernel=$root/tasks/softmax/kernels/forward_cuda.cu
  backend=cuda
fi
exec "$root/build/tools/kforge" eval --task "$root/tasks/softmax" --kernel "$kernel" --backend "$backend" "$@"
