#!/bin/bash
# robust-kbench's tasks through `kforge suite`, forward and backward, the generator's kernels
# beside the published ones: each task folder of the public repository copied unchanged into
# WORK/tasks; per task and direction the generator's own kernel (own_DIRECTION.cu), where it has
# a matrix product or a convolution the kernel with library calls (library_DIRECTION.cu), and
# robust-kbench's published kernel where there is one (highlighted/NAME/DIRECTION/kernel.cu, as
# published_DIRECTION.cu); then one suite over them under the policy `flag`, whose table puts each
# target's kernels side by side (a file belongs to the direction it registers).
#
# usage: bench/robust_kbench_suite.sh WORK ROBUST_KBENCH [kforge suite options...]
#   WORK           a folder of its own: WORK/tasks, WORK/generate.txt (a line per kernel the
#                  generator did not write, and why), WORK/suite.{csv,json}, WORK/experiment
#   ROBUST_KBENCH  a checkout of SakanaAI/robust-kbench (its tasks/ and highlighted/)
#   options        passed to kforge suite, e.g. --compiled default --configs multi --jobs 16
# Run again with the same WORK to carry on, as bench/kernelbench_suite.sh does. KFORGE (default
# build/tools/kforge), KFORGE_CACHE, BACKEND cuda (default; the published kernels are CUDA) or
# cpu, TASKS (default: every task folder) as for that script.
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: $0 WORK ROBUST_KBENCH [kforge suite options...]" >&2; exit 2; }
work=$1 rkb=$2
shift 2
KFORGE=${KFORGE:-build/tools/kforge} BACKEND=${BACKEND:-cuda}
ext=cu; [ "$BACKEND" = cpu ] && ext=cpp
[ -d "$rkb/tasks" ] || { echo "$rkb has no tasks/ folder" >&2; exit 2; }
mkdir -p "$work/tasks"

for src in "$rkb"/tasks/*/; do
  name=$(basename "$src")
  [ -n "${TASKS:-}" ] && [[ " $TASKS " != *" $name "* ]] && continue
  ls "$src"/func_*.py > /dev/null 2>&1 || continue
  t="$work/tasks/$name"
  [ -d "$t/kernels" ] && continue
  mkdir -p "$t/kernels.new"
  cp "$src"/func_*.py "$src"/config_*.json "$t/"
  for direction in forward backward; do
    [ -f "$t/func_$direction.py" ] || continue
    if ! g=$("$KFORGE" generate --task "$t" --direction "$direction" --backend "$BACKEND" \
               --out "$t/kernels.new/own_$direction.$ext" 2>&1); then
      echo "$name|$direction|own|$(echo "$g" | tail -1)" >> "$work/generate.txt"
      rm -f "$t/kernels.new/own_$direction.$ext"
    elif g=$("$KFORGE" generate --task "$t" --direction "$direction" --backend "$BACKEND" \
               --library --out "$t/kernels.new/library_$direction.$ext" 2>&1); then
      [[ "$g" == *"library call"* ]] || rm -f "$t/kernels.new/library_$direction.$ext"
    fi
    published="$rkb/highlighted/$name/$direction/kernel.cu"
    if [ "$BACKEND" = cuda ] && [ -f "$published" ]; then
      cp "$published" "$t/kernels.new/published_$direction.cu"
    fi
  done
  mv "$t/kernels.new" "$t/kernels"
done

# shellcheck source=bench/suite_run.sh
source "$(dirname "$0")/suite_run.sh"
run_or_resume_suite "$work" --directions forward,backward "$@"
