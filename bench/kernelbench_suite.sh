#!/bin/bash
# A KernelBench level through `kforge suite`, with the kernels the generator writes: the public
# problem files, unchanged, imported at full size; for each task the generator's own kernel
# (own.cu: its contraction kernels too, in float32), where it has tiled contractions the same on
# the tensor cores in TF32 (tf32.cu), and, where the task has a matrix product or a convolution,
# the kernel with library calls (library.cu: cuBLAS/cuDNN through ATen, the rest fused); then one
# suite over them, under the policy `flag`, so that its summary says both what
# every kernel achieves and what the kernels without library calls achieve (correct, fast_1 over
# eager and over torch.compile, geometric means).
#
# usage: bench/kernelbench_suite.sh WORK PROBLEM_DIR [kforge suite options...]
#   WORK         a folder of its own: WORK/tasks (the imported tasks with their kernels),
#                WORK/generate.txt (a line per task the generator did not write, and why),
#                WORK/suite.{csv,json} (the table), WORK/experiment (the suite's number)
#   PROBLEM_DIR  KernelBench's level folder (e.g. KernelBench/level1)
#   options      passed to kforge suite, e.g. --compiled default --archive FILE --jobs 16
# Run again with the same WORK to carry on: the import and the kernels are kept, the suite is
# resumed (kforge suite --resume) when it did not finish, and its tables written again from the
# archive (kforge suite --table) when it did. Exit status: kforge suite's.
# KFORGE (default build/tools/kforge) is the kforge to run; KFORGE_CACHE its cache; BACKEND cuda
# (default) or cpu; SHRINK divides the problems' sizes (kforge import --shrink; default: full
# size); LANES tasks a GPU are exported and generated at once (default 2: a full-size export
# holds its tensors in host and GPU memory; those whose export ran out of GPU memory are tried
# again one at a time); TF32=0 writes no tf32.cu (the generator's tensor-core kernels, which did not
# pay on level 2: at best 0.91x of eager); VARIANTS="TAG:OPTIONS;..." also writes own_TAG.cu with
# those `kforge generate` options where it differs from own.cu (e.g. "i32:--index32"), so that a
# choice is timed beside the default in one suite.
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: $0 WORK PROBLEM_DIR [kforge suite options...]" >&2; exit 2; }
work=$1 problems=$2
shift 2
KFORGE=${KFORGE:-build/tools/kforge} BACKEND=${BACKEND:-cuda} SHRINK=${SHRINK:-}
ext=cu; [ "$BACKEND" = cpu ] && ext=cpp
export KFORGE BACKEND ext
mkdir -p "$work"

if [ ! -d "$work/tasks" ]; then
  # Problems that cannot be imported say why; the others are written (exit 1 is not fatal).
  "$KFORGE" import --from kernelbench --out "$work/tasks" ${SHRINK:+--shrink "$SHRINK"} \
    "$problems"/*.py > "$work/import.txt" 2>&1
  [ -d "$work/tasks" ] || { cat "$work/import.txt" >&2; exit 2; }
fi

# One task's kernels, unless written already; a line in generate.txt when there is none.
generate() {
  local t=$1 g
  [ -d "$t/kernels" ] && return
  mkdir -p "$t/kernels.new"
  if ! g=$("$KFORGE" generate --task "$t" --backend "$BACKEND" \
             --out "$t/kernels.new/own.$ext" 2>&1); then
    # The export ran out of GPU memory beside the other lanes' (KernelBench level 1 at full
    # size): the second pass, one task at a time, tries again.
    if [ "${FIRST_PASS:-}" = 1 ] && [[ "$g" == *"out of memory"* ]]; then
      rm -rf "$t/kernels.new"
      return
    fi
    echo "$(basename "$t")|own|$(echo "$g" | tail -1)"
  fi
  if g=$("$KFORGE" generate --task "$t" --backend "$BACKEND" --library \
           --out "$t/kernels.new/library.$ext" 2>&1); then
    # Without a matrix product or convolution the library kernel is the own one.
    [[ "$g" == *"library call"* ]] || rm -f "$t/kernels.new/library.$ext"
  else
    echo "$(basename "$t")|library|$(echo "$g" | tail -1)"
  fi
  # The contractions on the tensor cores in TF32 (KernelBench's tolerance, 1e-2, admits it; the
  # verdict decides), where the own kernel has tiled contractions.
  if [ "$BACKEND" = cuda ] && [ "${TF32:-1}" != 0 ] &&
     g=$("$KFORGE" generate --task "$t" --backend cuda --tf32 --out "$t/kernels.new/tf32.cu" 2>&1); then
    [[ "$g" == *"tensor cores"* ]] || rm -f "$t/kernels.new/tf32.cu"
  fi
  # Variants timed beside the default kernels (VARIANTS): own kernels with other choices, kept
  # where they differ from own.$ext.
  local v tag variants=()
  IFS=';' read -r -a variants <<< "${VARIANTS:-}"
  for v in "${variants[@]}"; do
    tag=${v%%:*}
    # shellcheck disable=SC2086  # the options are words
    if "$KFORGE" generate --task "$t" --backend "$BACKEND" ${v#*:} \
         --out "$t/kernels.new/own_$tag.$ext" > /dev/null 2>&1 &&
       ! cmp -s "$t/kernels.new/own_$tag.$ext" "$t/kernels.new/own.$ext"; then
      continue
    fi
    rm -f "$t/kernels.new/own_$tag.$ext"
  done
  mv "$t/kernels.new" "$t/kernels"
}
export -f generate
# The first pass deals the tasks out to the GPUs in turn (an export runs its reference on the
# first GPU it sees), LANES a GPU; the second, one task at a time, retries those that ran out of
# GPU memory. On the CPU backend the GPU column is empty.
gpus=${CUDA_VISIBLE_DEVICES-}
if [ "$BACKEND" = cuda ] && [ -z "$gpus" ]; then
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | paste -sd, -)
fi
ngpus=$(awk -F, '{print NF}' <<< "$gpus"); [ "${ngpus:-0}" -gt 0 ] || ngpus=1
find "$work/tasks" -mindepth 1 -maxdepth 1 -type d | sort |
  awk -v gpus="$gpus" 'BEGIN { n = split(gpus, g, ",") } { print (n ? g[(NR - 1) % n + 1] : "-") " " $0 }' |
  FIRST_PASS=1 xargs -d '\n' -n 1 -P $((${LANES:-2} * ngpus)) \
    bash -c 'gpu=${0%% *}; [ "$gpu" = - ] || export CUDA_VISIBLE_DEVICES=$gpu; generate "${0#* }"' \
    >> "$work/generate.txt"
find "$work/tasks" -mindepth 1 -maxdepth 1 -type d | sort |
  xargs -P 1 -I{} bash -c 'generate "{}"' >> "$work/generate.txt"

# shellcheck source=bench/suite_run.sh
source "$(dirname "$0")/suite_run.sh"
run_or_resume_suite "$work" "$@"
