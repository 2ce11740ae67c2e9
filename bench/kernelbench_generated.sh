#!/bin/bash
# Generated kernels on KernelBench problems (the public files, unchanged), own kernels and library
# calls side by side: each problem is imported at full size, its kernel generated twice (the
# generator's own contraction kernels, then `--library`: cuBLAS/cuDNN calls with the rest fused),
# and each kernel checked and timed against eager PyTorch by `kforge eval`. One line per problem:
#   level/name|own verdict speedup (compile)|library verdict speedup (compile)
# "library same" where the problem has no matrix product or convolution. With -c, the evaluation
# reads hardware counters too (cuda) and each kernel's verdict ends with its longest launch's share
# of DRAM peak and eager's ("DRAM 87% (eager 88%)").
#
# usage: bench/kernelbench_generated.sh [-j LANES] [-t SECONDS] [-o FILE] [-b BACKEND] [-s SHRINK]
#                                       [-m BYTES] [-c] PROBLEM.py...
#   LANES    problems evaluated at once (default 1; more shares the GPU between timings and its
#            memory between problems: compare only within one lane's run)
#   SECONDS  stop starting problems after this long (default: no limit)
#   FILE     where the lines go (default: standard output)
#   BACKEND  cuda (default) or cpu
#   SHRINK   import at sizes divided by this (kforge import --shrink; default: full size)
#   BYTES    the largest kernel source eval judges (kforge eval --max-source-bytes; default its
#            262144, which the generator's kernels for KernelBench's GRUs and LSTMs fit since
#            their tables are packed: 18-118 KB at --shrink 16, 36_LSTMHn's 99 KB at full size)
# KFORGE (default build/tools/kforge) is the kforge to run; KFORGE_CACHE its cache.
set -u
usage="usage: $0 [-j LANES] [-t SECONDS] [-o FILE] [-b BACKEND] [-s SHRINK] [-m BYTES] [-c] PROBLEM.py..."
lanes=1 budget=0 out="" backend=cuda shrink="" counters=0 max_bytes=262144
while getopts "j:t:o:b:s:m:c" flag; do
  case $flag in
    j) lanes=$OPTARG ;;
    t) budget=$OPTARG ;;
    o) out=$OPTARG ;;
    b) backend=$OPTARG ;;
    s) shrink=$OPTARG ;;
    m) max_bytes=$OPTARG ;;
    c) counters=1 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
KFORGE=${KFORGE:-build/tools/kforge}
START=$(date +%s)
WORK=$(mktemp -d)
export KFORGE START WORK BUDGET=$budget OUT_FILE=$out BACKEND=$backend SHRINK=$shrink
export COUNTERS=$counters MAX_BYTES=$max_bytes

# A line of the result: to FILE, else to standard output (one write, whole, from any lane).
say() {
  if [ -n "$OUT_FILE" ]; then echo "$1" >> "$OUT_FILE"; else echo "$1"; fi
}

one() {
  local p=$1 level name t line mode flag f ext g v s c budget d
  level=$(basename "$(dirname "$p")"); name=$(basename "$p" .py)
  if [ "$BUDGET" -gt 0 ] && [ $(( $(date +%s) - START )) -gt "$BUDGET" ]; then
    say "$level/$name|skipped (time)"; return
  fi
  "$KFORGE" import --from kernelbench --out "$WORK/$level" ${SHRINK:+--shrink "$SHRINK"} "$p" \
    > /dev/null 2>&1
  t=$WORK/$level/$name
  line="$level/$name"
  for mode in own library; do
    flag=""; [ $mode = library ] && flag="--library"
    f=$WORK/$level-$name-$mode
    ext=cu; [ "$BACKEND" = cpu ] && ext=cpp
    g=$(timeout 120 "$KFORGE" generate --task "$t" --backend "$BACKEND" $flag --out "$f.$ext" 2>&1 | tail -1)
    if [[ "$g" != *"config(s)"* ]]; then line="$line|$mode not written: $g"; continue; fi
    if [ $mode = library ] && [[ "$g" != *"library call"* ]]; then line="$line|$mode same"; continue; fi
    budget=0; [ "$COUNTERS" = 1 ] && budget=10
    timeout 300 "$KFORGE" eval --task "$t" --kernel "$f.$ext" --backend "$BACKEND" --seeds 2 \
      --library-calls allow --counters-budget "$budget" --max-source-bytes "$MAX_BYTES" > "$f.log" 2>&1
    v=$(grep -E "^verdict" "$f.log" | head -1 | cut -c1-60)
    s=$(grep -E "^ +[0-9]+ " "$f.log" | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[0-9.]+x$/) {print $i; break}}' | tr '\n' ' ')
    c=$(grep -E "^compiling" "$f.log" | sed 's/.*\.\.\. //' | cut -c1-30)
    line="$line|$mode $v $s($c)"
    if [ "$COUNTERS" = 1 ]; then
      # the first DRAM share after "the kernel:" and after "eager PyTorch:" (their longest launch)
      d=$(awk '/^  the kernel:/ {side="k"} /^  eager PyTorch:/ {side="e"}
               side != "" && match($0, /DRAM [0-9]+%/) && !(side in seen) {
                 seen[side] = substr($0, RSTART + 5, RLENGTH - 5) }
               END { if ("k" in seen) printf "DRAM %s (eager %s)", seen["k"], seen["e"] }' "$f.log")
      line="$line $d"
    fi
  done
  say "$line"
}
export -f say one
printf '%s\n' "$@" | xargs -P "$lanes" -I{} bash -c 'one "{}"'
rm -rf "$WORK"
