#!/usr/bin/env bash
# The review page at scale: `assetvc diff A B --html` on a generated level against the
# text diff of the same files (its peer: the same parse and diff, no page) and
# `git diff --no-index`, in one run; prints a markdown table with ratios and the page's
# size. Rerun with: bench/review_bench.sh   (SIZES="10000 100000" RUNS=5 to change)
#
# A and B are ours and theirs of `levelgen merge-inputs N`: each side moved ~1% of the
# entities and added/deleted a few, so B differs from A in ~2% of the entities
# (thousands of changed objects at 100,000).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-5}
OUT=bench/out
mkdir -p "$OUT"
cargo build --release --locked -q -p assetvc -p levelgen
BIN=${CARGO_TARGET_DIR:-target}/release

# median and measure
. bench/lib.sh

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo "command: bench/review_bench.sh (SIZES=\"$SIZES\" RUNS=$RUNS)"
echo
echo "| entities | file | changed objects | \`diff --html\` | page | \`diff\` (text) | ratio | \`git diff --no-index\` | ratio | peak MB (html / text) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do
  dir="$OUT/review-$n"; mkdir -p "$dir"
  "$BIN/levelgen" merge-inputs "$n" "$dir"
  size_h=$(ls -l "$dir/ours.sjson" | awk '{printf "%.1f MB", $5/1048576}')
  measure review_html "$BIN/assetvc" diff "$dir/ours.sjson" "$dir/theirs.sjson" --html "$dir/review.html"
  html_wall=$WALL; html_rss=$RSS
  page=$(ls -l "$dir/review.html" | awk '{printf "%.1f MB", $5/1048576}')
  changed=$(grep -oE '\(([0-9]+) changed object' "$OUT/review_html.err" | grep -oE '[0-9]+' | head -1)
  measure review_text "$BIN/assetvc" diff "$dir/ours.sjson" "$dir/theirs.sjson"
  text_wall=$WALL; text_rss=$RSS
  measure review_git git diff --no-index --no-color "$dir/ours.sjson" "$dir/theirs.sjson"
  git_wall=$WALL
  r1=$(awk -v a="$html_wall" -v b="$text_wall" 'BEGIN {printf "%.2f", a / b}')
  r2=$(awk -v a="$html_wall" -v b="$git_wall" 'BEGIN {printf "%.2f", a / b}')
  echo "| $n | $size_h | $changed | ${html_wall} s | $page | ${text_wall} s | $r1 | ${git_wall} s | $r2 | $html_rss / $text_rss |"
done
