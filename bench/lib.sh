# Helpers shared by the benchmark scripts (sourced, not run): `assetvc_binary`,
# `isolated_workdir`, `median` and `measure`. Scripts set OUT (a folder for outputs) and
# RUNS before calling `measure`.

# assetvc_binary: sets ASSETVC to an absolute path; builds the release binary first
# unless ASSETVC names one already.
assetvc_binary() {
  if [ -z "${ASSETVC:-}" ]; then
    cargo build --release --locked -q -p assetvc --bins
    ASSETVC=${CARGO_TARGET_DIR:-target}/release/assetvc
  fi
  ASSETVC=$(realpath "$ASSETVC")
}

# isolated_workdir: WORK, a temporary folder removed on exit, becomes HOME; git reads no
# system configuration and commits as "bench"; no colours.
isolated_workdir() {
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  export HOME=$WORK GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
  export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
  export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
}

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
