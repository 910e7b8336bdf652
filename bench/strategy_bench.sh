#!/usr/bin/env bash
# The merge strategy `git-merge-assetvc` (#32) against plain git, side by side in one run,
# on the repository of FILES one-entity files (The Witness's layout) where each side edits
# 2,000 files and 1,010 are edited by both (10 on adjacent lines, which a line merge cannot
# merge):
#
#   git merge, git pull, git pull --rebase, git cherry-pick: plain git (merge-ort, no
#   driver) vs the strategy (`pull.twohead = assetvc`), and vs the lean driver for merge;
#   every result is compared with the expected merge (count of wrong files printed);
#   git rebase of 20 commits x 50 level files, every replayed file also changed upstream.
#
# Target (#32): the strategy within 2x plain git on each, every file right. Beside wall
# time, the CPU time and (where the machine has counters) user-space instructions of the
# command and its children, from perf stat: on a busy machine compare those.
# Rerun with: bench/strategy_bench.sh   (FILES=2000 RUNS=1 for a quick run;
#             ASSETVC=path/to/assetvc to skip the release build; git-merge-assetvc and
#             assetvc-merge-driver must be beside it). Prints a markdown table; no timed
#             assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-20000}
RUNS=${RUNS:-3}
. bench/lib.sh  # assetvc_binary, isolated_workdir, median
assetvc_binary
isolated_workdir
BIN_DIR=$(dirname "$ASSETVC")
for b in git-merge-assetvc assetvc-merge-driver; do
  [ -x "$BIN_DIR/$b" ] || { echo "no $BIN_DIR/$b: build it (cargo build --release)" >&2; exit 2; }
done
export PATH="$BIN_DIR:$PATH"  # git finds strategies as git-merge-NAME on PATH
LEAN_DRIVER="'$BIN_DIR/assetvc-merge-driver' -- %O %A %B %P"

now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.4f", b - a}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
med() { tr ' ' '\n' | grep . | median; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg), git $(git --version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
echo "command: bench/strategy_bench.sh (FILES=$FILES RUNS=$RUNS)"
echo

# ------------------------------------------------------------------ the many-files repo
gen() { # WHICH DIR: the tree WHICH (base, ours, theirs, expect) into DIR/entities
  awk -v which="$1" -v dir="$2" -v files="$FILES" '
    BEGIN {
      for (i = 0; i < files; i++) {
        ours = (which == "ours" || which == "expect") && i < 2000
        theirs = (which == "theirs" || which == "expect") && i >= 990 && i < 2990
        adjacent = i >= 990 && i < 1000
        pos = (ours && !adjacent) ? sprintf("%d 1 0", i) : sprintf("%d 0 0", i)
        rot = (ours && adjacent) ? "0 0 1 0" : "0 0 0 1"
        tint = theirs ? "red" : "white"
        f = sprintf("%s/entities/e%05d.entity", dir, i)
        printf "id = \"e%05d\"\nname = \"unit_%d\"\nposition = [%s]\nrotation = [%s]\ntint = \"%s\"\n", i, i, pos, rot, tint > f
        close(f)
      }
    }'
}
UP=$WORK/up.git; M=$WORK/many
git init -q --bare -b main "$UP"
git clone -q "$UP" "$M" 2> /dev/null; mkdir -p "$M/entities" "$WORK/expect/entities"
gen base "$M"; git -C "$M" add -A; git -C "$M" commit -q -m base
git -C "$M" checkout -q -b theirs; gen theirs "$M"; git -C "$M" commit -q -am theirs
git -C "$M" push -q origin theirs:main
git -C "$M" checkout -q -B main origin/main~1 2> /dev/null || git -C "$M" checkout -q -B main theirs~1
gen ours "$M"; git -C "$M" commit -q -am ours
gen expect "$WORK/expect"
git -C "$M" config merge.assetvc.name assetvc
git -C "$M" config merge.assetvc.driver "$LEAN_DRIVER"
ours_tip=$(git -C "$M" rev-parse main)
wrong() { { diff -rq "$WORK/expect/entities" "$M/entities" 2>/dev/null || true; } | wc -l; }
reset_many() {
  for op in merge rebase cherry-pick; do git -C "$M" "$op" --abort > /dev/null 2>&1 || true; done
  git -C "$M" checkout -q -f main; git -C "$M" reset -q --hard "$ours_tip"
  rm -rf "$M/.git/assetvc"
}
# how: plain (merge-ort, no driver), driver (lean driver), strategy (pull.twohead)
setup_how() {
  case $1 in
    plain) : > "$M/.git/info/attributes"; git -C "$M" config pull.twohead ort ;;
    driver) echo '*.entity merge=assetvc' > "$M/.git/info/attributes"; git -C "$M" config pull.twohead ort ;;
    strategy) : > "$M/.git/info/attributes"; git -C "$M" config pull.twohead assetvc ;;
  esac
}
# CPU time and user-space instructions of a command and its children (perf stat), which
# a busy machine changes far less than wall time; "-" without perf.
PERF=$(command -v perf > /dev/null && perf stat -e instructions:u true > /dev/null 2>&1 && echo yes || true)
counted() { # CMD...: runs CMD, sets CPU (s) and INSTR (10^9) when perf works
  CPU=-; INSTR=-
  if [ -n "$PERF" ]; then
    perf stat -x, -e instructions:u,task-clock -o "$WORK/perf.txt" -- "$@" || true
    INSTR=$(awk -F, '$3 ~ /^instructions/ {printf "%.2f", $1 / 1e9}' "$WORK/perf.txt")
    case $INSTR in ""|0.00) INSTR=- ;; esac
    CPU=$(awk -F, '$3 ~ /^task-clock/ {printf "%.3f", $1 / 1000}' "$WORK/perf.txt")
  else
    "$@" || true
  fi
}
time_op() { # HOW CMD...: medians of RUNS runs: WALL, CPU, INSTR; WRONG of the last
  setup_how "$1"; shift
  local times="" cpus="" instrs=""
  for _ in $(seq "$RUNS"); do
    reset_many
    local start; start=$(now)
    counted sh -c 'cd "$1" && shift && exec "$@" > "$0" 2>&1' "$WORK/op.out" "$M" "$@"
    times+="$(since "$start") "; cpus+="$CPU "; instrs+="$INSTR "
    WRONG=$(wrong)
  done
  WALL=$(echo "$times" | med)
  if [ -n "$PERF" ]; then CPU=$(echo "$cpus" | med); INSTR=$(echo "$instrs" | med); fi
}
cratio() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else ratio "$1" "$2"; fi; }
echo "| task ($FILES files, 1,010 edited by both) | plain git | with the strategy | ratio | CPU s (plain / strategy) | CPU ratio | instructions 10^9 (plain / strategy) | instructions ratio | wrong files (plain / strategy) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
row() { # NAME CMD...
  local name=$1; shift
  time_op plain "$@"; local p=$WALL pc=$CPU pi=$INSTR pw=$WRONG
  time_op strategy "$@"; local s=$WALL sc=$CPU si=$INSTR sw=$WRONG
  echo "| $name | ${p} s | ${s} s | $(ratio "$s" "$p") | $pc / $sc | $(cratio "$sc" "$pc") | $pi / $si | $(cratio "$si" "$pi") | $pw / $sw |"
}
row "git merge" git merge -q --no-edit theirs
time_op driver git merge -q --no-edit theirs
echo "| (git merge with the lean driver) | | ${WALL} s | | $CPU | | $INSTR | | $WRONG wrong |"
row "git pull" git pull -q --no-rebase --no-edit origin main
row "git pull --rebase" git pull -q --rebase origin main
row "git cherry-pick" git cherry-pick theirs
reset_many

# ----------------------------------------------------------- git rebase of 20 commits
B=$WORK/rebase; mkdir -p "$B/levels"; git -C "$B" init -q -b main
level() { # DIR GEN_UP GEN_LOCAL_UPTO (as bench/driver_bench.sh)
  awk -v dir="$1" -v up="$2" -v upto="$3" '
    BEGIN {
      for (i = 0; i < 1000; i++) {
        f = sprintf("%s/levels/l%04d.level", dir, i)
        printf "entities = [\n" > f
        for (k = 0; k < 5; k++) {
          pos = (k == 0 && up) ? "9 9 9" : sprintf("%d 0 0", k)
          tint = (k == 3 && i < upto) ? "red" : "white"
          printf "\t{\n\t\tid = \"l%d_%d\"\n\t\tposition = [%s]\n\t\ttint = \"%s\"\n\t}\n", i, k, pos, tint > f
        }
        printf "]\n" > f
        close(f)
      }
    }'
}
level "$B" 0 0; git -C "$B" add -A; git -C "$B" commit -q -m base
git -C "$B" checkout -q -b feature
for c in $(seq 1 20); do level "$B" 0 $((c * 50)); git -C "$B" commit -q -am "local $c"; done
feature_tip=$(git -C "$B" rev-parse feature)
git -C "$B" checkout -q main; level "$B" 1 0; git -C "$B" commit -q -am upstream
mkdir -p "$WORK/rebase_expect/levels"; level "$WORK/rebase_expect" 1 1000
time_rebase() { # TWOHEAD
  git -C "$B" config pull.twohead "$1"
  local times="" cpus="" instrs=""
  for _ in $(seq "$RUNS"); do
    git -C "$B" rebase --abort > /dev/null 2>&1 || true
    git -C "$B" checkout -q -f feature; git -C "$B" reset -q --hard "$feature_tip"
    rm -rf "$B/.git/assetvc"
    local start; start=$(now)
    counted sh -c 'exec git -C "$1" rebase -q main > "$0" 2>&1' "$WORK/rebase.out" "$B"
    times+="$(since "$start") "; cpus+="$CPU "; instrs+="$INSTR "
  done
  WALL=$(echo "$times" | med)
  if [ -n "$PERF" ]; then CPU=$(echo "$cpus" | med); INSTR=$(echo "$instrs" | med); fi
  WRONG=$({ diff -rq "$WORK/rebase_expect/levels" "$B/levels" 2>/dev/null || true; } | wc -l)
}
time_rebase ort; plain=$WALL; pc=$CPU; pi=$INSTR; plain_wrong=$WRONG
time_rebase assetvc; strat=$WALL; sc=$CPU; si=$INSTR; strat_wrong=$WRONG
echo "| git rebase, 20 commits x 50 level files | ${plain} s | ${strat} s | $(ratio "$strat" "$plain") | $pc / $sc | $(cratio "$sc" "$pc") | $pi / $si | $(cratio "$si" "$pi") | $plain_wrong / $strat_wrong |"
