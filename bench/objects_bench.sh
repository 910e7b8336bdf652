#!/usr/bin/env bash
# The object index and the history commands on a long history, against git in the same run.
# Rerun with: bench/objects_bench.sh   (ENTITIES=10000 COMMITS=10000 CHANGES=3 RUNS=5 to change)
#
# A level of ENTITIES entities (levelgen's SJSON, ~200 bytes each) and COMMITS commits by
# four authors each moving CHANGES entities, written with `git fast-import`. Then:
# - first answers on a cold cache (issue #34: they must not wait for the history):
#   `assetvc show OBJECT` (HEAD's tree only) and `assetvc log OBJECT -n 1` (a walk back
#   from the tip that stops at its answer);
# - index build: `assetvc index` (cold cache: every commit's changed blob parsed once),
#   its time and the cost per changed blob; target for 10,000 commits: 60 s;
# - `assetvc log OBJECT` (warm) of an entity changed every 100th commit, vs `git log` of
#   the file (the peer that cannot see objects);
# - `assetvc blame FILE` (warm) vs `git blame FILE`, both over the whole history.
# Times are medians of RUNS runs (git blame: of BLAME_RUNS).
set -euo pipefail
cd "$(dirname "$0")/.."
ENTITIES=${ENTITIES:-10000}
COMMITS=${COMMITS:-10000}
CHANGES=${CHANGES:-3}
RUNS=${RUNS:-5}
BLAME_RUNS=${BLAME_RUNS:-3}
OUT=bench/out/objects
cargo build --release --locked -q -p assetvc -p levelgen
BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)  # absolute: commands run in $REPO

. bench/lib.sh  # median, measure
# seconds CMD...: wall time of one run of CMD in $REPO (stdout to $OUT/last.out)
seconds() {
  local start=$EPOCHREALTIME
  (cd "$REPO" && "$@") > "$OUT/last.out" 2> "$OUT/last.err"
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}'
}
# med N CMD...: median wall time of N runs
med() {
  local n=$1; shift
  for _ in $(seq "$n"); do seconds "$@"; echo; done | median
}

rm -rf "$OUT"; mkdir -p "$OUT"
REPO=$OUT/repo
git init -q -b main "$REPO"
start=$EPOCHREALTIME
"$BIN/historygen" "$ENTITIES" "$COMMITS" "$CHANGES" | git -C "$REPO" fast-import --quiet
git -C "$REPO" checkout -q main
gen=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')
size=$(wc -c < "$REPO/levels/big.level")
ID=$(grep -m1 -o 'id = "[^"]*"' "$REPO/levels/big.level" | cut -d'"' -f2)

show=$(seconds "$BIN/assetvc" show "$ID")
rm -rf "$REPO/.git/assetvc/object-index"
first=$(seconds "$BIN/assetvc" log "$ID" -n 1)
rm -rf "$REPO/.git/assetvc/object-index"
build=$(seconds "$BIN/assetvc" index)
blobs=$((COMMITS + 1))
per_blob=$(awk -v t="$build" -v n="$blobs" 'BEGIN {printf "%.2f", t * 1000 / n}')
cache=$(du -sk "$REPO/.git/assetvc/object-index" | cut -f1)
log=$(med "$RUNS" "$BIN/assetvc" log "$ID")
listed=$(($(wc -l < "$OUT/last.out") - 1))
gitlog=$(med "$RUNS" git log --format=%H -- levels/big.level)
blame=$(med "$RUNS" "$BIN/assetvc" blame levels/big.level)
gitblame=$(med "$BLAME_RUNS" git blame levels/big.level)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo "history: $ENTITIES entities ($((size / 1024)) KiB level), $COMMITS commits of $CHANGES changed entities, generated and fast-imported in ${gen} s"
echo
echo "| step | assetvc | peer | ratio |"
echo "|---|---|---|---|"
echo "| \`show OBJECT\`, cold (HEAD's tree only) | ${show} s | | |"
echo "| \`log OBJECT -n 1\`, cold (walk back from the tip) | ${first} s | | |"
echo "| \`index\`, cold ($blobs changed blobs) | ${build} s (${per_blob} ms per changed blob; cache ${cache} KiB) | | |"
echo "| \`log OBJECT\` ($listed commits listed) | ${log} s | \`git log -- FILE\` ${gitlog} s | $(awk -v a="$log" -v b="$gitlog" 'BEGIN {printf "%.2f", a / b}') |"
echo "| \`blame FILE\` | ${blame} s | \`git blame FILE\` ${gitblame} s | $(awk -v a="$blame" -v b="$gitblame" 'BEGIN {printf "%.2f", a / b}') |"
