#!/usr/bin/env bash
# Long reordered arrays (issue 12 item 8): a one-line array of N numbers, reversed by ours
# and shuffled (i * 7919 mod N) by theirs — the case that took 18 s at 40,000 elements and
# did not finish at 200,000 before alignment was bounded by work. For each N in SIZES
# (default "10000 40000 200000") it times `assetvc merge-file -p` (the result column
# counts the elements out and the conflicts reported) and `assetvc diff` of base → reversed, against `git merge-file -p` on the
# same three files as the line-based peer (one line: it only compares whole files), median
# of RUNS (default 3) runs each.
#
# Rerun with: bench/reorder_bench.sh     (ASSETVC=path/to/assetvc to skip the release build)
# No timed assertions: this prints figures for BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"10000 40000 200000"}
RUNS=${RUNS:-3}
. bench/lib.sh  # assetvc_binary, isolated_workdir, median, measure
assetvc_binary
isolated_workdir

# Median wall time in seconds of RUNS runs of "$@" (stdout discarded; exit 0 or 1 is fine).
median_time() {
  local times=() t0 t1 rc
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N)
    set +e
    "$@" > /dev/null 2>&1
    rc=$?
    set -e
    t1=$(date +%s.%N)
    if [ "$rc" -gt 1 ]; then echo "failed ($rc): $*" >&2; exit 1; fi
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.4f", a[int((NR+1)/2)]}'
}

array() { printf 'l = ['; tr '\n' ' '; printf ']\n'; }

printf '| elements | file | task | assetvc | peer | peer time | ratio (assetvc / peer) | result |\n'
printf '|---:|---:|---|---:|---|---:|---:|---|\n'
for n in $SIZES; do
  d=$WORK/$n
  mkdir -p "$d"
  seq 0 $((n - 1)) | array > "$d/base.level"
  seq $((n - 1)) -1 0 | array > "$d/ours.level"
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print (i * 7919) % n }' | array > "$d/theirs.level"
  size="$(( $(wc -c < "$d/base.level") / 1024 )) KB"
  # What the merge made (checked once): elements out, conflicts reported.
  "$ASSETVC" merge-file -p "$d/ours.level" "$d/base.level" "$d/theirs.level" > "$d/out.level" 2> "$d/err"
  result="$(tr -cs '0-9' '\n' < "$d/out.level" | grep -c .) elements, $(grep -c ': both modified\|: order' "$d/err") conflict(s)"
  peer=$(median_time git merge-file -p "$d/ours.level" "$d/base.level" "$d/theirs.level")
  merge=$(median_time "$ASSETVC" merge-file -p "$d/ours.level" "$d/base.level" "$d/theirs.level")
  diff=$(median_time "$ASSETVC" diff "$d/base.level" "$d/ours.level")
  ratio() { echo "$1 / $2" | bc -l | awk '{printf "%.2f", $1}'; }
  printf '| %s | %s | merge-file (reversed vs shuffled) | %s s | git merge-file | %s s | %s | %s |\n' \
    "$n" "$size" "$merge" "$peer" "$(ratio "$merge" "$peer")" "$result"
  printf '| %s | %s | diff (base → reversed) | %s s | git merge-file | %s s | %s | |\n' \
    "$n" "$size" "$diff" "$peer" "$(ratio "$diff" "$peer")"
done
