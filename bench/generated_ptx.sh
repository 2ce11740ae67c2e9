#!/bin/bash
# What nvcc makes of the generator's CUDA kernels, without a GPU: each KernelBench problem (the
# public files, unchanged) is imported (at sizes divided by SHRINK), its CUDA kernel generated with
# each of several choices (by default of tiling: default, tiles of 32, 64 and 128, TF32 at 64 and
# 128), and each kernel compiled as the evaluator does (light headers, -O3, sm_ARCH) to PTX and to
# a cubin.
# OUT/<problem>_<choice>.ptx.norm is the PTX with virtual register numbers, branch labels and the
# mangled names of shared arrays taken out; OUT/<problem>_<choice>.ptxas the registers, shared
# memory and spills ptxas reports. Two runs of kforge builds whose emitters should make the same
# code compare with `diff -r -x '*.cu' OUT1 OUT2` (no output: the same instructions and
# resources).
#
# usage: bench/generated_ptx.sh OUT PROBLEM.py...
# KFORGE (default build/tools/kforge), SHRINK (default 4), ARCH (default 90), JOBS (default
# nproc), NVCC (default /usr/local/cuda/bin/nvcc), CHOICES (the choices as TAG:OPTIONS;... of
# `kforge generate`, default the tilings above; e.g. "g1:--group 1;g32:--group 32;g0:--group 0"
# for reductions).
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT PROBLEM.py..." >&2; exit 2; }
out=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
KFORGE=${KFORGE:-$root/build/tools/kforge} SHRINK=${SHRINK:-4} ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc)} NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$out"
rm -f "$out"/*.cu "$out"/*.ptx.norm "$out"/*.ptxas  # an earlier run's kernels
tasks=$(mktemp -d)
trap 'rm -rf "$tasks"' EXIT
"$KFORGE" import --from kernelbench --shrink "$SHRINK" --out "$tasks" "$@" > /dev/null ||
  echo "some problems did not import" >&2
CHOICES=${CHOICES:-"default:;t32:--tile 32 --micro 2;t64:--tile 64 --micro 4;t128:--tile 128 --micro 8;tf32:--tf32;tf32_128:--tf32 --tile 128"}
IFS=';' read -r -a choices <<< "$CHOICES"
for task in "$tasks"/*/; do
  name=$(basename "$task")
  for choice in "${choices[@]}"; do
    tag=${choice%%:*}
    # shellcheck disable=SC2086  # the options are words
    "$KFORGE" generate --task "$task" --backend cuda ${choice#*:} \
      --out "$out/${name}_$tag.cu" > /dev/null 2>&1 || echo "$name $tag: not generated" >&2
  done
done
flags=(-std=c++17 -x cu -O3 --expt-relaxed-constexpr -D__CUDA_NO_HALF_OPERATORS__
       -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__
       -D__CUDA_NO_HALF2_OPERATORS__ -DKFORGE_CUDA
       -DTORCH_EXTENSION_NAME=kforge_candidate -I "$root/evaluation/shim_light"
       -I "$root/evaluation/shim")
compile() {
  local cu=$1 base=${1%.cu}
  "$NVCC" "${flags[@]}" -ptx -arch="compute_$ARCH" "$cu" -o "$base.ptx" 2> "$base.log" &&
    "$NVCC" "${flags[@]}" -cubin -gencode="arch=compute_$ARCH,code=sm_$ARCH" -Xptxas -v "$cu" \
      -o "$base.cubin" 2>> "$base.log" || { echo "$cu: nvcc failed ($base.log)" >&2; return; }
  grep -v '^//' "$base.ptx" | grep -v '^\s*\.reg' |
    sed -E 's/_ZZ[A-Za-z0-9_]*E2(As|Bs|Cs)/\1/g; s/%(rd|r|f|fd|p|rs)[0-9]+/%\1/g; s/\$L__BB[0-9_]+/L/g' \
      > "$base.ptx.norm"
  grep -E 'registers|spill' "$base.log" > "$base.ptxas"
  rm -f "$base.ptx" "$base.cubin" "$base.log"
}
export NVCC ARCH
for cu in "$out"/*.cu; do echo "$cu"; done |
  xargs -P "$JOBS" -I{} bash -c "$(declare -p flags); $(declare -f compile); compile {}"
echo "$(ls "$out"/*.ptx.norm 2> /dev/null | wc -l) kernels compiled into $out"
