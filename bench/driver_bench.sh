#!/usr/bin/env bash
# The merge driver where teams feel it (#19), every figure measured side by side in one run:
#
# Both registrations of the driver are measured: `assetvc merge-driver` and the lean
# `assetvc-merge-driver` binary beside it (the one `assetvc install` registers).
#
# 1. one driver call on a small file: `assetvc merge-driver` vs `git merge-file -p` vs
#    starting /bin/true, each in a loop of CALLS calls (a copy of %A restored each time,
#    the copy's own cost measured and subtracted), in CPU time (user + system, from bash's
#    `times`): on a shared machine wall time per call is mostly waiting for a core;
# 2. a repository of FILES one-entity files (The Witness's layout): each side edits 10% of
#    the files, 1,010 edited by both (1,000 on separate lines, 10 on adjacent lines): plain
#    `git merge` vs `git merge` with the driver vs `assetvc merge`; every both-edited file
#    is compared with the expected merge (the count of wrong files is printed); beside
#    them two floors: a driver that does nothing (the shell's builtin `true`) and one that
#    only starts a program (`/bin/true`);
# 3. `git rebase` of 20 commits each touching 50 level files (all also changed upstream,
#    so every replayed file goes through the driver) with the driver vs plain git.
#
# Rerun with: bench/driver_bench.sh        (FILES=2000 RUNS=1 CALLS=50 for a quick run;
#             ASSETVC=path/to/assetvc to skip the release build)
# Wall and CPU time are both printed for the big merges. No timed assertions: this prints
# a markdown table for BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-20000}
RUNS=${RUNS:-3}
CALLS=${CALLS:-200}
. bench/lib.sh  # assetvc_binary, isolated_workdir, median, measure
assetvc_binary
isolated_workdir
LEAN=$(dirname "$ASSETVC")/assetvc-merge-driver
[ -x "$LEAN" ] || { echo "no $LEAN: build it (cargo build --release)" >&2; exit 2; }
FULL_DRIVER="'$ASSETVC' merge-driver -- %O %A %B %P"
LEAN_DRIVER="'$LEAN' -- %O %A %B %P"

# CPU_NOW: CPU seconds (user + system) of every child process finished so far, from the
# shell's own `times` (so it must not run in a subshell).
child_cpu() {
  times > "$WORK/times"
  CPU_NOW=$(tail -1 "$WORK/times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] } printf "%.4f", t }')
}
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.4f", b - a}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo "command: bench/driver_bench.sh (FILES=$FILES RUNS=$RUNS CALLS=$CALLS)"
echo

# ---------------------------------------------------------------- 1. one call, small file
R=$WORK/small; mkdir -p "$R"; git -C "$R" init -q
printf 'entities = [\n\t{\n\t\tid = "e1"\n\t\tposition = [0 0 0]\n\t\ttint = "white"\n\t}\n]\n' > "$R/o"
sed 's/\[0 0 0\]/[1 0 0]/' "$R/o" > "$R/a0"
sed 's/white/red/' "$R/o" > "$R/b"
loop() { # CMD...: CALLS runs of "cp a0 a; CMD", prints CPU ms per call (user + system)
  child_cpu; local cpu=$CPU_NOW
  for _ in $(seq "$CALLS"); do cp a0 a; "$@" > /dev/null 2>&1 || true; done
  child_cpu
  LOOP_MS=$(awk -v a="$cpu" -v b="$CPU_NOW" -v n="$CALLS" 'BEGIN {printf "%.3f", (b - a) * 1000 / n}')
}
cd "$R"
declare -A per
for round in $(seq "$RUNS"); do
  loop true; per[cp]+="$LOOP_MS "
  loop /bin/true; per[true]+="$LOOP_MS "
  loop git merge-file -p a o b; per[git]+="$LOOP_MS "
  loop "$ASSETVC" merge-driver -- o a b level.entity; per[driver]+="$LOOP_MS "
  loop "$LEAN" -- o a b level.entity; per[lean]+="$LOOP_MS "
done
cd - > /dev/null
med() { tr ' ' '\n' | grep . | median; }
cp_ms=$(echo "${per[cp]}" | med)
net() { awk -v a="$1" -v b="$cp_ms" 'BEGIN {printf "%.3f", a - b}'; }
true_ms=$(net "$(echo "${per[true]}" | med)")
git_ms=$(net "$(echo "${per[git]}" | med)")
driver_ms=$(net "$(echo "${per[driver]}" | med)")
lean_ms=$(net "$(echo "${per[lean]}" | med)")
grep -q 'position = \[1 0 0\]' "$R/a" && grep -q red "$R/a" && small_ok=yes || small_ok=NO
echo "| task | assetvc | peer | peer time | ratio (assetvc / peer) | correct |"
echo "|---|---:|---|---:|---:|---|"
echo "| one driver call, 5-line file (CPU ms per call, $CALLS calls) | ${driver_ms} ms | git merge-file -p | ${git_ms} ms | $(ratio "$driver_ms" "$git_ms") | $small_ok |"
echo "| same, lean \`assetvc-merge-driver\` | ${lean_ms} ms | git merge-file -p | ${git_ms} ms | $(ratio "$lean_ms" "$git_ms") | $small_ok |"
echo "| (process start floor) | | /bin/true | ${true_ms} ms | $(ratio "$driver_ms" "$true_ms") | |"

# ------------------------------------------------------ 2. FILES one-entity files, git merge
# entity I at generation: ours moves it (position) for I < 2000, theirs tints it for
# 990 <= I < 2990; 10 of the both-edited (990..999) get ours' rotation instead: the line
# next to theirs' tint, which a line merge cannot merge.
gen() { # WHICH DIR: writes the tree WHICH (base, ours, theirs, expect) into DIR/entities
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
M=$WORK/many; mkdir -p "$M/entities" "$WORK/expect/entities"
git -C "$M" init -q -b main
gen base "$M"; git -C "$M" add -A; git -C "$M" commit -q -m base
git -C "$M" checkout -q -b theirs; gen theirs "$M"; git -C "$M" commit -q -am theirs
git -C "$M" checkout -q main; gen ours "$M"; git -C "$M" commit -q -am ours
gen expect "$WORK/expect"
git -C "$M" config merge.assetvc.driver "$FULL_DRIVER"
git -C "$M" config merge.assetvc.name assetvc
ours_tip=$(git -C "$M" rev-parse main)
wrong() { # files of the merge result that differ from the expected merge
  { diff -rq "$WORK/expect/entities" "$M/entities" 2>/dev/null || true; } | wc -l
}
reset_many() {
  git -C "$M" merge --abort > /dev/null 2>&1 || true
  git -C "$M" reset -q --hard "$ours_tip"
  rm -rf "$M/.git/assetvc"
}
time_merge() { # CMD...: medians of RUNS merges: WALL, CPU (all processes); WRONG
  local times="" cpus=""
  for _ in $(seq "$RUNS"); do
    reset_many
    local start cpu; start=$(now); child_cpu; cpu=$CPU_NOW
    (cd "$M" && "$@" > "$WORK/merge.out" 2>&1) || true
    times+="$(since "$start") "
    child_cpu; cpus+="$(awk -v a="$cpu" -v b="$CPU_NOW" 'BEGIN {printf "%.3f", b - a}') "
    WRONG=$(wrong)
  done
  WALL=$(echo "$times" | tr ' ' '\n' | grep . | median)
  CPU=$(echo "$cpus" | tr ' ' '\n' | grep . | median)
}
: > "$M/.git/info/attributes"
time_merge git merge -q --no-edit theirs; plain=$WALL; plain_cpu=$CPU; plain_wrong=$WRONG
echo '*.entity merge=assetvc' > "$M/.git/info/attributes"
time_merge git merge -q --no-edit theirs; driven=$WALL; driven_cpu=$CPU; driven_wrong=$WRONG
git -C "$M" config merge.assetvc.driver "$LEAN_DRIVER"
time_merge git merge -q --no-edit theirs; lean=$WALL; lean_cpu=$CPU; lean_wrong=$WRONG
# The floor of any external driver: one that does nothing (`true`, leaving %A as ours), so
# what remains is git starting `sh -c` and the driver, and writing the three versions.
git -C "$M" config merge.assetvc.driver true
time_merge git merge -q --no-edit theirs; floor=$WALL; floor_cpu=$CPU
# The floor of a driver that is a program: one that only starts (`/bin/true %A`, which the
# shell must run as a program, not as its builtin).
git -C "$M" config merge.assetvc.driver "/bin/true %A"
time_merge git merge -q --no-edit theirs; started=$WALL; started_cpu=$CPU
: > "$M/.git/info/attributes"
time_merge "$ASSETVC" merge theirs; porcelain=$WALL; porcelain_cpu=$CPU; porcelain_wrong=$WRONG
reset_many
echo "| git merge, $FILES one-entity files, 2,000 + 2,000 edited, 1,010 by both: wall | ${driven} s (with the driver) | plain git merge | ${plain} s | $(ratio "$driven" "$plain") | driver: $driven_wrong wrong files; plain git: $plain_wrong wrong |"
echo "| same, CPU (user + system, all processes) | ${driven_cpu} s | plain git merge | ${plain_cpu} s | $(ratio "$driven_cpu" "$plain_cpu") | |"
echo "| same, lean driver: wall | ${lean} s | plain git merge | ${plain} s | $(ratio "$lean" "$plain") | $lean_wrong wrong files |"
echo "| same, CPU | ${lean_cpu} s | plain git merge | ${plain_cpu} s | $(ratio "$lean_cpu" "$plain_cpu") | |"
echo "| same, with a driver that does nothing (\`true\`: the floor of any driver): wall | ${floor} s | plain git merge | ${plain} s | $(ratio "$floor" "$plain") | (not a merge) |"
echo "| same, CPU | ${floor_cpu} s | plain git merge | ${plain_cpu} s | $(ratio "$floor_cpu" "$plain_cpu") | |"
echo "| same, with a driver that only starts a program (\`/bin/true %A\`: the floor of any driver program): wall | ${started} s | plain git merge | ${plain} s | $(ratio "$started" "$plain") | (not a merge) |"
echo "| same, CPU | ${started_cpu} s | plain git merge | ${plain_cpu} s | $(ratio "$started_cpu" "$plain_cpu") | |"
echo "| same repository, \`assetvc merge\`: wall | ${porcelain} s | plain git merge | ${plain} s | $(ratio "$porcelain" "$plain") | $porcelain_wrong wrong files |"
echo "| same, CPU | ${porcelain_cpu} s | plain git merge | ${plain_cpu} s | $(ratio "$porcelain_cpu" "$plain_cpu") | |"

# ----------------------------------------------------------- 3. git rebase of 20 commits
B=$WORK/rebase; mkdir -p "$B/levels"; git -C "$B" init -q -b main
level() { # DIR GEN_UP GEN_LOCAL_UPTO: 1,000 levels; upstream moves unit 0 when GEN_UP=1;
          # levels below GEN_LOCAL_UPTO have unit 3 tinted (the local commits' edit)
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
git -C "$B" config merge.assetvc.driver "$FULL_DRIVER"
time_rebase() {
  local times="" cpus=""
  for _ in $(seq "$RUNS"); do
    git -C "$B" rebase --abort > /dev/null 2>&1 || true
    git -C "$B" checkout -q -f feature; git -C "$B" reset -q --hard "$feature_tip"
    rm -rf "$B/.git/assetvc"
    local start cpu; start=$(now); child_cpu; cpu=$CPU_NOW
    git -C "$B" rebase -q main > "$WORK/rebase.out" 2>&1 || true
    times+="$(since "$start") "
    child_cpu; cpus+="$(awk -v a="$cpu" -v b="$CPU_NOW" 'BEGIN {printf "%.3f", b - a}') "
  done
  WALL=$(echo "$times" | tr ' ' '\n' | grep . | median)
  CPU=$(echo "$cpus" | tr ' ' '\n' | grep . | median)
  mkdir -p "$WORK/rebase-expect/levels"; level "$WORK/rebase-expect" 1 1000
  REBASE_WRONG=$({ diff -rq "$WORK/rebase-expect/levels" "$B/levels" || true; } | wc -l)
}
: > "$B/.git/info/attributes"
time_rebase; rplain=$WALL; rplain_cpu=$CPU; rplain_wrong=$REBASE_WRONG
echo '*.level merge=assetvc' > "$B/.git/info/attributes"
time_rebase; rdriven=$WALL; rdriven_cpu=$CPU; rdriven_wrong=$REBASE_WRONG
steps=$(cat "$B/.git/assetvc/journal/"*/steps.jsonl 2>/dev/null | grep -c . || true)
git -C "$B" config merge.assetvc.driver "$LEAN_DRIVER"
time_rebase; rlean=$WALL; rlean_cpu=$CPU; rlean_wrong=$REBASE_WRONG
echo "| git rebase of 20 commits x 50 level files ($steps driver calls): wall | ${rdriven} s (with the driver) | plain git rebase | ${rplain} s | $(ratio "$rdriven" "$rplain") | driver: $rdriven_wrong wrong files; plain git: $rplain_wrong wrong |"
echo "| same, CPU | ${rdriven_cpu} s | plain git rebase | ${rplain_cpu} s | $(ratio "$rdriven_cpu" "$rplain_cpu") | |"
echo "| same, lean driver: wall | ${rlean} s | plain git rebase | ${rplain} s | $(ratio "$rlean" "$rplain") | $rlean_wrong wrong files |"
echo "| same, CPU | ${rlean_cpu} s | plain git rebase | ${rplain_cpu} s | $(ratio "$rlean_cpu" "$rplain_cpu") | |"
