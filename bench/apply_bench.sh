#!/usr/bin/env bash
# `assetvc apply` of a change set of OPS operations to the N-entity level, against
# `assetvc merge-file` of the same change on the same level, in one run; prints a markdown
# table with the ratio. Rerun with: bench/apply_bench.sh   (N=100000 OPS=10000 RUNS=5)
#
# The level: `levelgen merge-inputs N` (base, and ours = base with ~1% of the entities
# moved, added, deleted). theirs = base with the position of every (N/OPS)-th entity
# changed; the change set is `assetvc diff --format changes base theirs` (OPS `set` lines).
# Both commands then bring that change into ours: `apply -p CHANGES ours` against
# `merge-file -p ours base theirs`; their outputs must hold the same data, except for the
# entities ours deleted and theirs moved: merge-file brings them back whole (theirs' side),
# while apply, whose change set holds only the positions, keeps them deleted and reports
# each as a delete-modify conflict.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
OPS=${OPS:-10000}
RUNS=${RUNS:-5}
OUT=bench/out/apply
mkdir -p "$OUT"
cargo build --release --locked -q -p assetvc -p levelgen
BIN=${CARGO_TARGET_DIR:-target}/release

# median and measure
. bench/lib.sh

"$BIN/levelgen" merge-inputs "$N" "$OUT"
every=$((N / OPS))
awk -v every="$every" '
  /^\t\tpos = / { if (k++ % every == 0) { print "\t\tpos = [" k " 0.5 -" k "]"; next } }
  { print }' "$OUT/base.sjson" > "$OUT/theirs.sjson"
"$BIN/assetvc" diff --format changes "$OUT/base.sjson" "$OUT/theirs.sjson" > "$OUT/changes.jsonl"
ops=$(wc -l < "$OUT/changes.jsonl")

measure merge_file "$BIN/assetvc" merge-file -p "$OUT/ours.sjson" "$OUT/base.sjson" "$OUT/theirs.sjson"
merge_wall=$WALL; merge_rss=$RSS
measure apply "$BIN/assetvc" apply -p --json "$OUT/changes.jsonl" "$OUT/ours.sjson"
"$BIN/assetvc" fmt --to json < "$OUT/apply.out" > "$OUT/apply.json"
"$BIN/assetvc" fmt --to json < "$OUT/merge_file.out" > "$OUT/merge.json"
same=$(python3 - "$OUT/apply.json" "$OUT/merge.json" "$OUT/apply.err" <<'PY'
import json, re, sys
applied, merged = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
report = json.load(open(sys.argv[3]))
kept = {re.match(r"/entities/\[id=([^\]]+)\]", c["path"]).group(1)
        for c in report["conflicts"] if c["kind"] == "delete-modify" and c["taken"] == "ours"}
merged["entities"] = [e for e in merged["entities"] if e["id"] not in kept]
other = len(report["conflicts"]) - len(kept)
print(f"{'yes' if applied == merged else 'NO'} ({other} both-modified by policy, {len(kept)} deleted by ours kept deleted)")
PY
)
ratio=$(awk -v a="$WALL" -v b="$merge_wall" 'BEGIN {printf "%.2f", a / b}')
size=$(ls -l "$OUT/ours.sjson" | awk '{printf "%.1f MB", $5/1048576}')

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo "command: bench/apply_bench.sh (N=$N OPS=$OPS RUNS=$RUNS)"
echo
echo "| entities | file | operations | apply | merge-file | ratio (apply / merge-file) | apply peak MB | merge-file peak MB | same result |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---|"
echo "| $N | $size | $ops | ${WALL} s | ${merge_wall} s | $ratio | $RSS | $merge_rss | $same |"
