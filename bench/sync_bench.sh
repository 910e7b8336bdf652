#!/usr/bin/env bash
# One `assetvc sync` cycle of three users (alice, bob, carol) on a generated level of N
# entities (default 10000, ~1.9 MB) with a local file:// remote (bare repository with the
# pre-receive hook installed). Two cases, RUNS (default 5) rounds each, every user syncing
# once a round:
#   - no change: nothing was edited or pushed since the last cycle;
#   - a change on each side: before the round, alice commits and pushes an edit to one
#     entity, and every user has an uncommitted edit of another entity (so each cycle
#     records and pushes a new WIP, fetches, and merges the upstream into the edits; for
#     alice the upstream is her own commit).
# It prints the median wall time of one cycle and of each step (record WIP, push, fetch,
# merge), from `sync --json`. Target: a cycle under 1 s. Each round checks that every
# user's level holds every edit.
#
# Rerun with: bench/sync_bench.sh        (N=1000 RUNS=3 for a quick run;
#             ASSETVC=path/to/assetvc LEVELGEN=path/to/levelgen to skip the release build)
# No timed assertions: this prints figures for BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
RUNS=${RUNS:-5}
if [ -z "${ASSETVC:-}" ] || [ -z "${LEVELGEN:-}" ]; then
  cargo build --release --locked -q -p assetvc -p levelgen
  ASSETVC=${CARGO_TARGET_DIR:-target}/release/assetvc
  LEVELGEN=${CARGO_TARGET_DIR:-target}/release/levelgen
fi
ASSETVC=$(realpath "$ASSETVC")
LEVELGEN=$(realpath "$LEVELGEN")
. bench/lib.sh  # isolated_workdir, median
isolated_workdir

git init -q --bare -b main "$WORK/srv.git"
"$ASSETVC" install --server "$WORK/srv.git" > /dev/null 2>&1
git init -q -b main "$WORK/seed"
"$LEVELGEN" level "$N" > "$WORK/seed/level.sjson"
git -C "$WORK/seed" add . && git -C "$WORK/seed" commit -q -m level
git -C "$WORK/seed" push -q "file://$WORK/srv.git" main 2> /dev/null
USERS="alice bob carol"
for u in $USERS; do
  git clone -q "file://$WORK/srv.git" "$WORK/$u"
  git -C "$WORK/$u" config assetvc.user "$u"
  (cd "$WORK/$u" && "$ASSETVC" sync > /dev/null 2>&1)
done
MB=$(wc -c < "$WORK/seed/level.sjson" | awk '{printf "%.1f", $1/1048576}')

# edit USER K VALUE: sets the K-th `pos = [...]` line of USER's level to VALUE.
edit() {
  python3 - "$WORK/$1/level.sjson" "$2" "$3" << 'PY'
import re, sys
path, k, value = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(path).read().split("\n")
hits = [i for i, l in enumerate(lines) if re.match(r"\s*pos = \[", l)]
i = hits[k]
lines[i] = re.sub(r"\[.*\]", "[" + value + "]", lines[i])
open(path, "w").write("\n".join(lines))
PY
}

# cycle USER: one sync; appends "wall record push fetch merge" (ms) to $WORK/times-CASE.
cycle() {
  local start end
  start=$(date +%s%N)
  (cd "$WORK/$1" && "$ASSETVC" sync --json > "$WORK/cycle.json" 2> "$WORK/cycle.err") || {
    echo "sync of $1 failed:" >&2; cat "$WORK/cycle.err" >&2; exit 1; }
  end=$(date +%s%N)
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); m=c["ms"]; print((int(sys.argv[2])-int(sys.argv[3]))/1e6, *(m.get(k, 0) for k in ("record","push","fetch","merge")), c["status"])' \
    "$WORK/cycle.json" "$end" "$start" >> "$WORK/times-$CASE"
}

median_step() { # COLUMN: the median of that column of $WORK/times-CASE
  awk -v c="$1" '{print $c}' "$WORK/times-$CASE" | median | awk '{printf "%.1f", $1}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo "command: bench/sync_bench.sh (N=$N RUNS=$RUNS), binary $ASSETVC"
echo
echo "| entities | level | case | cycles | cycle (median) | record WIP | push | fetch | merge | statuses |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
CASE=none
for r in $(seq 1 "$RUNS"); do for u in $USERS; do cycle "$u"; done; done
echo "| $N | $MB MB | no change | $(wc -l < "$WORK/times-$CASE") | $(median_step 1) ms | $(median_step 2) ms | $(median_step 3) ms | $(median_step 4) ms | $(median_step 5) ms | $(awk '{print $6}' "$WORK/times-$CASE" | sort | uniq -c | awk '{printf "%s×%s ", $1, $2}') |"
CASE=change
for r in $(seq 1 "$RUNS"); do
  edit alice $((r * 7)) "$r 0 $r"
  git -C "$WORK/alice" commit -q -am "round $r" && git -C "$WORK/alice" push -q origin main 2> /dev/null
  edit alice $((r * 7 + 1)) "$r 1 1"
  edit bob $((r * 7 + 2)) "$r 2 2"
  edit carol $((r * 7 + 3)) "$r 3 3"
  for u in $USERS; do cycle "$u"; done
  for u in $USERS; do
    grep -q "\[$r 0 $r\]" "$WORK/$u/level.sjson" || { echo "$u lacks alice's commit of round $r" >&2; exit 1; }
  done
  grep -q "\[$r 2 2\]" "$WORK/bob/level.sjson" || { echo "bob lost his edit" >&2; exit 1; }
  grep -q "\[$r 3 3\]" "$WORK/carol/level.sjson" || { echo "carol lost her edit" >&2; exit 1; }
  grep -q "\[$r 1 1\]" "$WORK/alice/level.sjson" || { echo "alice lost her edit" >&2; exit 1; }
done
echo "| $N | $MB MB | a change on each side | $(wc -l < "$WORK/times-$CASE") | $(median_step 1) ms | $(median_step 2) ms | $(median_step 3) ms | $(median_step 4) ms | $(median_step 5) ms | $(awk '{print $6}' "$WORK/times-$CASE" | sort | uniq -c | awk '{printf "%s×%s ", $1, $2}') |"
# The peer, in the same run: `git pull --autostash` (fetch, stash, fast-forward, stash pop)
# of bob and carol, each with an uncommitted edit, after alice pushed a commit — the merge
# half of a cycle without sharing anything (no WIP recorded or pushed, no WIP fetched).
CASE=peer
for r in $(seq 1 "$RUNS"); do
  k=$((200 + r * 7))
  edit alice $k "$r 9 9"
  git -C "$WORK/alice" commit -q -am "peer round $r" && git -C "$WORK/alice" push -q origin main 2> /dev/null
  edit bob $((k + 2)) "$r 8 8"
  edit carol $((k + 3)) "$r 7 7"
  for u in bob carol; do
    start=$(date +%s%N)
    git -C "$WORK/$u" pull -q --autostash --no-rebase origin main > /dev/null 2>&1 || { echo "git pull of $u failed" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000 ))" | awk '{printf "%.1f\n", $1 / 1000}' >> "$WORK/times-$CASE"
  done
  grep -q "\[$r 9 9\]" "$WORK/bob/level.sjson" && grep -q "\[$r 8 8\]" "$WORK/bob/level.sjson" || { echo "git pull lost an edit" >&2; exit 1; }
done
echo
echo "Peer in the same run: \`git pull --autostash\` with an uncommitted edit after an upstream commit (fetch + fast-forward + stash pop, nothing shared): median $(median_step 1) ms over $(wc -l < "$WORK/times-$CASE") pulls."
