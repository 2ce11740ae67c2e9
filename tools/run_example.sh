#!/usr/bin/env bash
# The main job: an experiment with the built-in proposer on two bundled tasks (softmax and
# layernorm, forward). It runs on the GPU when this build has CUDA and a GPU is present (every
# config of the tasks), else on the CPU backend (the tasks' single configs). Prints a line per
# event and ends with a table of the best kernel per task, all verified correct.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/build/tools/kforge" run "$root/configs/example.json" "$@"
