#!/usr/bin/env bash
# The cost of building the object index per commit (issue #34: at most a tenth of 47 ms a
# commit; the whole 10,000-commit history within 60 s).
# Rerun with: bench/history_bench.sh   (ENTITIES=10000 COMMITS=1000 CHANGES=3 to change)
#
# A level of ENTITIES entities (levelgen's SJSON) and COMMITS commits by four authors each
# moving CHANGES entities (`historygen`, written with `git fast-import`). Then `assetvc
# index` on a cold cache: wall time, per-commit milliseconds, and, with `perf` installed,
# user-space instructions (`perf stat -e instructions:u`) where the machine counts them,
# and CPU time (user + system), which a loaded machine changes less than wall time.
# Prints the machine's load average beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
ENTITIES=${ENTITIES:-10000}
COMMITS=${COMMITS:-1000}
CHANGES=${CHANGES:-3}
OUT=$PWD/bench/out/history
cargo build --release --locked -q -p assetvc -p levelgen
BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)

rm -rf "$OUT"; mkdir -p "$OUT"
REPO=$OUT/repo
git init -q -b main "$REPO"
"$BIN/historygen" "$ENTITIES" "$COMMITS" "$CHANGES" | git -C "$REPO" fast-import --quiet
git -C "$REPO" checkout -q main
size=$(wc -c < "$REPO/levels/big.level")
commits=$((COMMITS + 1))

rm -rf "$REPO/.git/assetvc/object-index"
start=$EPOCHREALTIME
instr=""
if command -v perf > /dev/null && perf stat -x, -e instructions:u true 2>&1 | grep -qv 'not supported'; then
  (cd "$REPO" && perf stat -x, -o "$OUT/perf.csv" -e instructions:u \
    /usr/bin/time -f "%U %S" -o "$OUT/time.txt" "$BIN/assetvc" index > /dev/null 2>&1)
  instr=$(awk -F, '/instructions/ {print $1}' "$OUT/perf.csv")
else
  (cd "$REPO" && /usr/bin/time -f "%U %S" -o "$OUT/time.txt" "$BIN/assetvc" index > /dev/null 2>&1)
fi
cpu=$(awk '{printf "%.2f", $1 + $2}' "$OUT/time.txt")
cpu_per_commit=$(awk -v t="$cpu" -v n="$commits" 'BEGIN {printf "%.2f", t * 1000 / n}')
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}')
per_commit=$(awk -v t="$wall" -v n="$commits" 'BEGIN {printf "%.2f", t * 1000 / n}')
cache=$(du -sk "$REPO/.git/assetvc/object-index" | cut -f1)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo "history: $ENTITIES entities ($((size / 1024)) KiB level), $commits commits of $CHANGES changed entities"
if [ -n "$instr" ]; then
  instr=$(awk -v i="$instr" -v n="$commits" 'BEGIN {printf "%.1f M a commit", i / n / 1e6}')
else
  instr="(not counted here)"
fi
echo "| step | wall | CPU (user + sys) | instructions (user) | cache |"
echo "|---|---|---|---|---|"
echo "| \`index\`, cold | ${wall} s (${per_commit} ms a commit) | ${cpu} s (${cpu_per_commit} ms a commit) | ${instr} | ${cache} KiB |"
