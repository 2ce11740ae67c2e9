#!/usr/bin/env bash
# The main job for now: evaluate the bundled softmax kernel on its task. CUDA when this build has
# it and a GPU is present (every config of the task), else the CPU backend with the CPU kernel on
# the task's single config (its 8192 x 8192 multi config takes about two minutes on two cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kernel=$root/tasks/softmax/kernels/forward_cpu.cpp
backend=cpu
configs=single
if [ -e /dev/nvidiactl ] && grep -q "with_cuda = true" "$root/build/generated/gpu/build_config.hpp" 2>/dev/null; then
  kernel=$root/tasks/softmax/kernels/forward_cuda.cu
  backend=cuda
  configs=multi
fi
exec "$root/build/tools/kforge" eval --task "$root/tasks/softmax" --kernel "$kernel" --backend "$backend" --configs "$configs" "$@"
