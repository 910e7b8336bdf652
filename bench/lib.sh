# Helpers shared by the benchmark scripts (sourced, not run): `median` and `measure`.
# Scripts set OUT (a folder for outputs) and RUNS before calling `measure`.

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# measure NAME CMD...: runs CMD RUNS times (stdout to $OUT/NAME.out, stderr to
# $OUT/NAME.err), sets WALL (s, median) and RSS (peak MB, median)
measure() {
  local name=$1; shift
  : > "$OUT/$name.times"
  for _ in $(seq "$RUNS"); do
    local start=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$OUT/time.txt" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err" || true
    local end=$EPOCHREALTIME
    # Wall time to the microsecond (time's %e has 10 ms steps); peak RSS from GNU time,
    # which also writes "Command exited with non-zero status N" for git merge-file's
    # conflict count: keep the number only.
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}') $(grep -E '^[0-9]+$' "$OUT/time.txt")" >> "$OUT/$name.times"
  done
  WALL=$(cut -d' ' -f1 "$OUT/$name.times" | median)
  RSS=$(cut -d' ' -f2 "$OUT/$name.times" | median | awk '{printf "%.0f", $1/1024}')
}
