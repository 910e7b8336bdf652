#!/usr/bin/env bash
# `assetvc migrate` on generated repositories: SIZES (default "1000 10000") small levels
# whose arrays of objects lack ids (20 entities, each with a nested array of 2 components:
# 21 arrays and 60 elements to migrate per level, about 2.5 KB), plus COPIES (default 10)
# copies of the largest SJSON files of the corpus (renderer.render_config, the shader
# libraries, performance_hud.config, sample.level…). For each size it times, once each:
# a dry run, the migration in a worktree (blobs, tree, commit, branch, index and files),
# the second run that finds nothing to do, and the migration of a bare clone. It prints
# wall time, peak memory and what was migrated; time per file staying flat from 1,000 to
# 10,000 files shows the work is linear. Each migrated repository is checked with
# `git fsck --strict` and `assetvc check`.
#
# Rerun with: bench/migrate_bench.sh        (SIZES="1000" COPIES=2 for a quick run;
#             ASSETVC=path/to/assetvc to skip the release build)
# No timed assertions: this prints figures for BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SIZES=${SIZES:-"1000 10000"}
COPIES=${COPIES:-10}
CORPUS=${CORPUS:-$ROOT/tests/data/corpus}
. bench/lib.sh  # assetvc_binary, isolated_workdir, median, measure
assetvc_binary
isolated_workdir

# The corpus files that are SJSON, by extension, and the configuration naming them.
CORPUS_EXT="level config material flow render_config shader_source shader_node script_flow_nodes flow_editor wwise_metadata"
config() {
  printf '[assets]\nsjson = ['
  local sep=""
  for e in $CORPUS_EXT; do printf '%s"*.%s"' "$sep" "$e"; sep=", "; done
  printf ']\n'
}

# fast-import stream: one commit on refs/heads/main adding levels/l<i>.level, i in 0..N-1.
levels() { # N
  awk -v n="$1" -v t="$(date +%s)" '
    BEGIN {
      printf "commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\n", t
      printf "data 4\nbase\n"
      for (i = 0; i < n; i++) {
        body = sprintf("// generated level %d\nentities = [\n", i)
        for (k = 0; k < 20; k++)
          body = body sprintf("\t{\n\t\tunit = \"units/u%d\"\n\t\tposition = [%d %d 0]\n\t\trotation = [0 0 0 1]\n\t\tcomponents = [\n\t\t\t{\n\t\t\t\ttype = \"mesh\"\n\t\t\t\tlod = %d\n\t\t\t}\n\t\t\t{\n\t\t\t\ttype = \"physics\"\n\t\t\t\tmass = %d\n\t\t\t}\n\t\t]\n\t}\n", k, i, k, k % 3, k * 10)
        body = body "]\nsettings = {\n\tfog = 0.5\n}\n"
        printf "M 100644 inline levels/l%d.level\ndata %d\n%s\n", i, length(body), body
      }
    }'
}

# setup DIR N: a repository with N generated levels and COPIES copies of the corpus files,
# in one commit on main, checked out.
setup() {
  local dir=$1 n=$2
  git init -q -b main "$dir"
  levels "$n" | git -C "$dir" fast-import --quiet
  git -C "$dir" reset -q --hard
  config > "$dir/assetvc.toml"
  if [ -n "$CORPUS" ] && [ -d "$CORPUS" ]; then
    for c in $(seq 1 "$COPIES"); do
      mkdir -p "$dir/corpus/$c"
      for e in $CORPUS_EXT; do
        find "$CORPUS" -type f -name "*.$e" -size +5k -exec cp {} "$dir/corpus/$c/" \;
      done
    done
  fi
  git -C "$dir" add -A
  git -C "$dir" commit -q -m corpus
}

# measure_once NAME CMD...: runs CMD once (stdout to $WORK/NAME.out); sets WALL (s) and RSS (MB).
measure_once() {
  local name=$1; shift
  local status=0
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" || status=$?
  if [ "$status" -gt 1 ]; then
    echo "$name failed ($status):" >&2; cat "$WORK/$name.err" >&2; exit 1
  fi
  WALL=$(cut -d' ' -f1 "$WORK/time.txt")
  RSS=$(cut -d' ' -f2 "$WORK/time.txt" | awk '{printf "%.0f", $1/1024}')
}

# summary FILE: "files arrays elements assets" from a --json report.
summary() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["files"]), r["arrays"], r["elements"], r["assets"], len(r["problems"]))' "$1"
}

# row NAME LABEL: a table row for the run measured as NAME (uses n, mb, WALL, RSS).
row() {
  local files arrays elements assets problems per per_mb
  read -r files arrays elements assets problems < <(summary "$WORK/$1.out")
  per=$(awk -v w="$WALL" -v a="$assets" 'BEGIN {printf "%.0f µs", (a > 0 ? w / a * 1e6 : 0)}')
  per_mb=$(awk -v w="$WALL" -v m="$mb" 'BEGIN {printf "%.3f s", (m > 0 ? w / m : 0)}')
  echo "| $n | $assets files, $mb MB | $2 | $files | $arrays | $elements | ${WALL} s | $per_mb | $per | $RSS |"
  if [ "$problems" != 0 ]; then echo "unexpected problems in $1" >&2; exit 1; fi
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo "command: bench/migrate_bench.sh (SIZES=\"$SIZES\" COPIES=$COPIES), binary $ASSETVC"
echo
echo "| generated levels | assets | run | files migrated | arrays | elements | wall time | per MB | per asset | peak RSS MB |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do
  dir="$WORK/repo-$n"
  setup "$dir" "$n"
  git clone -q --bare "$dir" "$WORK/bare-$n.git"
  mb=$(git -C "$dir" ls-files -z -- '*.level' 'corpus/*' | (cd "$dir" && xargs -0 cat) | wc -c | awk '{printf "%.1f", $1/1048576}')
  cd "$dir"
  measure_once dry "$ASSETVC" migrate --dry-run --json; row dry "dry run"
  measure_once migrate "$ASSETVC" migrate --json; row migrate "migrate (worktree)"
  measure_once again "$ASSETVC" migrate --json; row again "second run (nothing to do)"
  cd "$WORK/bare-$n.git"
  measure_once bare "$ASSETVC" migrate --json; row bare "migrate (bare clone)"
  cd "$dir"
  git fsck --strict --no-dangling > /dev/null
  "$ASSETVC" check > /dev/null 2>&1 || { echo "assetvc check failed after the migration" >&2; exit 1; }
  [ -z "$(git status --porcelain)" ] || { echo "worktree not clean after the migration" >&2; exit 1; }
  git -C "$WORK/bare-$n.git" fsck --strict --no-dangling > /dev/null
  cd "$ROOT"
done
