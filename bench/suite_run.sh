# shellcheck shell=bash
# Sourced by the bench scripts that run a suite over kernels they wrote into WORK/tasks/*/kernels:
# run_or_resume_suite WORK [kforge suite options...] starts the suite (its number kept in
# WORK/experiment), or resumes it when WORK has one, or writes its tables again from the archive
# when it has ended. Returns kforge suite's exit status. KFORGE and BACKEND as the callers set them.
run_or_resume_suite() {
  local work=$1 id status
  shift
  if [ -s "$work/experiment" ]; then
    id=$(cat "$work/experiment")
    # Only the archive and cache options apply to a suite that exists already.
    local keep=()
    while [ $# -gt 0 ]; do
      case $1 in --archive|--cache|--jobs) keep+=("$1" "${2-}"); shift 2 ;; *) shift ;; esac
    done
    "$KFORGE" suite --resume "$id" --out "$work/suite" "${keep[@]}"
    status=$?
    # A suite that has ended is not resumed: its tables again, from the archive.
    if [ $status -eq 2 ]; then
      "$KFORGE" suite --table "$id" --out "$work/suite" "${keep[@]}"
      status=$?
    fi
    return $status
  fi
  "$KFORGE" suite --tasks "$work/tasks" --kernels '{task}/kernels/*' --backend "$BACKEND" \
    --library-calls flag --out "$work/suite" "$@" |
    while IFS= read -r line; do
      echo "$line"
      if [[ "$line" =~ ^suite\ ([0-9]+):\  ]]; then echo "${BASH_REMATCH[1]}" > "$work/experiment"; fi
    done
}
