#!/usr/bin/env bash
# Benchmarks assetvc against its peers on generated levels, in one run, and prints a
# markdown table with ratios. Rerun with: bench/run.sh   (SIZES="1000 10000" RUNS=5 to change)
#
# Rows: `assetvc merge-file -p` vs `git merge-file -p` on the same three files
# (~1% of entities moved/added/deleted per side, 10 true conflicts), each merged output
# checked for correctness (every one-sided edit present, theirs wins conflicts);
# `assetvc fmt --to json` (parse + print) vs a serde_json round trip of the same JSON;
# mergiraf's merge of the JSON inputs when `mergiraf` is on PATH.
# Wall time and peak memory are medians of RUNS runs, from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"1000 10000 100000"}
RUNS=${RUNS:-5}
OUT=bench/out
mkdir -p "$OUT"
cargo build --release --locked -q -p assetvc -p levelgen
BIN=target/release

# median and measure
. bench/lib.sh

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo "command: bench/run.sh (SIZES=\"$SIZES\" RUNS=$RUNS)"
echo
echo "| entities | file | task | assetvc | peer | peer time | ratio (assetvc / peer) | assetvc peak MB | peer peak MB | assetvc peak / file | correct |"
echo "|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---|"
for n in $SIZES; do
  dir="$OUT/merge-$n"; mkdir -p "$dir"
  "$BIN/levelgen" merge-inputs "$n" "$dir"
  size=$(du -m "$dir/base.sjson" | cut -f1)
  size_h=$(ls -l "$dir/base.sjson" | awk '{printf "%.1f MB", $5/1048576}')

  measure git_merge git merge-file -p "$dir/ours.sjson" "$dir/base.sjson" "$dir/theirs.sjson"
  git_wall=$WALL; git_rss=$RSS
  markers=$(grep -c '^<<<<<<<' "$OUT/git_merge.out" || true)
  measure assetvc_merge "$BIN/assetvc" merge-file -p "$dir/ours.sjson" "$dir/base.sjson" "$dir/theirs.sjson"
  if "$BIN/levelgen" verify "$n" "$dir" "$OUT/assetvc_merge.out" 2> "$OUT/verify.err"; then ok=yes; else ok="NO: $(tail -1 "$OUT/verify.err")"; fi
  ratio=$(awk -v a="$WALL" -v b="$git_wall" 'BEGIN {printf "%.2f", a / b}')
  per_file=$(awk -v r="$RSS" -v f="$(stat -c %s "$dir/base.sjson")" 'BEGIN {printf "%.1fx", r * 1048576 / f}')
  echo "| $n | $size_h | merge (SJSON) | ${WALL} s | git merge-file | ${git_wall} s | $ratio | $RSS | $git_rss | $per_file | $ok (git: $markers conflict hunks) |"

  "$BIN/levelgen" level "$n" --json > "$dir/level.json"
  measure serde "$BIN/levelgen" serde-roundtrip "$dir/level.json"
  serde_wall=$WALL; serde_rss=$RSS
  measure fmt_json sh -c "\"$BIN/assetvc\" fmt --to json < \"$dir/level.json\""
  if python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)" "$OUT/fmt_json.out" "$dir/level.json"; then ok=yes; else ok=NO; fi
  ratio=$(awk -v a="$WALL" -v b="$serde_wall" 'BEGIN {printf "%.2f", a / b}')
  echo "| $n | $(ls -l "$dir/level.json" | awk '{printf "%.1f MB", $5/1048576}') | fmt --to json (parse + print) | ${WALL} s | serde_json round trip | ${serde_wall} s | $ratio | $RSS | $serde_rss | | $ok |"

  if command -v mergiraf > /dev/null; then
    "$BIN/levelgen" merge-inputs "$n" "$dir" --json
    measure mergiraf mergiraf merge "$dir/base.json" "$dir/ours.json" "$dir/theirs.json"
    m_wall=$WALL; m_rss=$RSS
    measure assetvc_json "$BIN/assetvc" merge-file -p "$dir/ours.json" "$dir/base.json" "$dir/theirs.json"
    ratio=$(awk -v a="$WALL" -v b="$m_wall" 'BEGIN {printf "%.2f", a / b}')
    echo "| $n | | merge (JSON) | ${WALL} s | mergiraf | ${m_wall} s | $ratio | $RSS | $m_rss | | |"
  fi
  : "$size"
done
