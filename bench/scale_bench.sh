#!/usr/bin/env bash
# The one-file merge from 100k to 1M entities (issue 32): `assetvc merge-file -p` and
# `git merge-file -p` on the same three files, alternating, ROUNDS rounds per size, each
# writing the merged file to disk (assetvc's to merged.N, git's to git.out); per
# run user and system CPU (s), peak RSS (MB = 10^6 bytes) and wall (s) from
# `/usr/bin/time -f '%U %S %M %e'`; then per size the means, the ratio of CPU to git's in
# the same rounds, peak / file, and the growth of CPU from the first size to the last.
# CPU beside wall: on a shared machine the second core is not the merge's to use.
# With CALLGRIND=1, each size is also run once under `valgrind --tool=callgrind`
# (instructions executed: repeatable under any load; slow, ~10 min at 1M).
# Each merged output is checked with `levelgen verify` (every one-sided edit present)
# and compared byte for byte between rounds.
#
# Rerun with: bench/scale_bench.sh   (SIZES="100000 1000000" ROUNDS=3 CALLGRIND=1;
# ASSETVC=path/to/assetvc to time a given binary; ENV="VAR=value" is set for assetvc only)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"100000 1000000"}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-bench/out/scale}
mkdir -p "$OUT"
. bench/lib.sh
assetvc_binary
T=${CARGO_TARGET_DIR:-target}
if [ -z "${LEVELGEN:-}" ]; then
  cargo build --release --locked -q -p levelgen
  LEVELGEN=$T/release/levelgen
fi

mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k * 1024 / 1e6}'; }
mean() { awk '{s += $1} END {printf "%.3f", s / NR}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else printf "n/a"}'; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "binary: $ASSETVC; ENV=${ENV:-}"
first_cpu=""; first_ir=""
for n in $SIZES; do
  dir="$OUT/$n"; mkdir -p "$dir"
  [ -f "$dir/theirs.sjson" ] || "$LEVELGEN" merge-inputs "$n" "$dir"
  args=(-p "$dir/ours.sjson" "$dir/base.sjson" "$dir/theirs.sjson")
  size=$(stat -c %s "$dir/base.sjson")
  : > "$dir/assetvc.times"; : > "$dir/git.times"
  for r in $(seq "$ROUNDS"); do
    env ${ENV:-} /usr/bin/time -f '%U %S %M %e' -o "$dir/t" "$ASSETVC" merge-file "${args[@]}" \
      > "$dir/merged.$r" 2> "$dir/assetvc.err"
    tail -1 "$dir/t" >> "$dir/assetvc.times"
    /usr/bin/time -f '%U %S %M %e' -o "$dir/t" git merge-file "${args[@]}" > "$dir/git.out" 2> /dev/null || true
    tail -1 "$dir/t" >> "$dir/git.times"
    if [ "$r" -gt 1 ]; then cmp -s "$dir/merged.1" "$dir/merged.$r" || echo "round $r: output differs"; fi
  done
  "$LEVELGEN" verify "$n" "$dir" "$dir/merged.1" > /dev/null || echo "n=$n: verify failed"
  echo
  echo "n=$n, file $(mb $((size / 1024))) MB, md5 $(md5sum < "$dir/merged.1" | cut -c1-12)"
  for who in assetvc git; do
    while read -r u s m e; do
      echo "  $who: user $u s, sys $s s, CPU $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') s, peak $(mb "$m") MB, wall $e s"
    done < "$dir/$who.times"
  done
  cpu() { awk '{print $1 + $2}' "$dir/$1.times" | mean; }
  a=$(cpu assetvc); g=$(cpu git)
  peak=$(awk '{print $3}' "$dir/assetvc.times" | sort -n | tail -1)
  echo "  mean CPU: assetvc $a s, git $g s, ratio $(ratio "$a" "$g");" \
    "user: assetvc $(awk '{print $1}' "$dir/assetvc.times" | mean) s;" \
    "peak $(mb "$peak") MB = $(awk -v p="$peak" -v s="$size" 'BEGIN {printf "%.2f", p * 1024 / s}')x the file"
  wall() { awk '{print $4}' "$dir/$1.times" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
  aw=$(wall assetvc); gw=$(wall git)
  echo "  median wall: assetvc $aw s, git $gw s, ratio $(ratio "$aw" "$gw") (the issue's measure; two threads)"
  if [ -z "$first_cpu" ]; then
    first_cpu=$a
  else
    echo "  CPU growth from the first size: $(ratio "$a" "$first_cpu")x"
  fi
  if [ "${CALLGRIND:-0}" = 1 ]; then
    # Instructions of a command (its exit status ignored: git's counts the conflicts).
    ir() {
      { env ${ENV:-} valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" > /dev/null 2> "$dir/cg.err" || true; }
      sed -n 's/.*refs: *//p' "$dir/cg.err" | tr -d ,
    }
    ai=$(ir "$ASSETVC" merge-file "${args[@]}")
    gi=$(ENV="" ir git merge-file "${args[@]}")
    echo "  instructions: assetvc $ai, git $gi, ratio $(ratio "$ai" "$gi")"
    if [ -z "$first_ir" ]; then
      first_ir=$ai
    else
      echo "  assetvc instruction growth from the first size: $(ratio "$ai" "$first_ir")x"
    fi
  fi
done
