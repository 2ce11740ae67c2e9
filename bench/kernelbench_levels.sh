#!/bin/bash
# Several KernelBench levels at once, each through bench/kernelbench_suite.sh on its own share of
# the GPUs, so that a machine of several GPUs makes the per-level tables in one sitting.
#
# usage: bench/kernelbench_levels.sh WORK LEVEL_DIR... [-- kforge suite options...]
#   WORK       WORK/<level>/ is each level's kernelbench_suite.sh folder (tasks, kernels, suite
#              tables, archive.db), WORK/<level>.log its output
#   LEVEL_DIR  KernelBench's level folders (e.g. KernelBench/level1 KernelBench/level2)
#   options    passed to every suite (e.g. --compiled default --seeds 2 --jobs 24)
# GPUS (default: CUDA_VISIBLE_DEVICES, else every GPU nvidia-smi lists) are dealt out in turn:
# with four GPUs and two levels, the first level gets GPUs 0 and 2, the second 1 and 3. Each level
# keeps its own archive (WORK/<level>/archive.db) and cache (WORK/<level>/cache), so that running
# the script again with the same WORK resumes each level where it stopped (the archive and the
# caches are what a copy of WORK must keep). LANES and TF32 as kernelbench_suite.sh takes them.
# Exit status: 0 when every level's suite did, else 1.
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: $0 WORK LEVEL_DIR... [-- kforge suite options...]" >&2; exit 2; }
work=$1
shift
levels=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do levels+=("$1"); shift; done
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${GPUS:-}" ]; then
  IFS=, read -r -a gpus <<< "$GPUS"
elif [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -r -a gpus <<< "$CUDA_VISIBLE_DEVICES"
else
  mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null)
fi
[ ${#gpus[@]} -gt 0 ] || { echo "$0: no GPU found (set GPUS)" >&2; exit 2; }
mkdir -p "$work"
pids=()
for i in "${!levels[@]}"; do
  share=()
  for j in "${!gpus[@]}"; do
    [ $((j % ${#levels[@]})) -eq $((i % ${#gpus[@]})) ] && share+=("${gpus[$j]}")
  done
  [ ${#share[@]} -gt 0 ] || share=("${gpus[$((i % ${#gpus[@]}))]}")  # more levels than GPUs
  name=$(basename "${levels[$i]}")
  mkdir -p "$work/$name"
  (IFS=,; echo "$name on GPUs ${share[*]}")
  (IFS=,; CUDA_VISIBLE_DEVICES="${share[*]}" KFORGE_CACHE="$work/$name/cache" \
     "$here/kernelbench_suite.sh" "$work/$name" "${levels[$i]}" \
     --archive "$work/$name/archive.db" "$@" > "$work/$name.log" 2>&1) &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
