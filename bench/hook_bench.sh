#!/usr/bin/env bash
# The pre-receive hook on big pushes: a bare repository with `assetvc install --server`,
# then (1) one commit that changes FILES generated assets (default 10,000) and (2) COMMITS
# commits (default 1,000) that each change one of 100 assets, pushed at once, checked by
# tip difference (the default) and with assetvc.hook.everyCommit. Prints the hook's own
# wall time and the number of distinct blobs it parsed (its last line on the remote side:
# `assetvc: checked N blobs in T s`), and the whole `git push` wall time.
#
# Rerun with: bench/hook_bench.sh            (FILES=1000 COMMITS=200 for a quick run;
#             ASSETVC=path/to/assetvc to skip the release build)
# No timed assertions: this prints figures for BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-10000}
COMMITS=${COMMITS:-1000}
. bench/lib.sh  # assetvc_binary, isolated_workdir, median, measure
assetvc_binary
isolated_workdir

# fast-import stream: one commit on refs/heads/main changing levels/l<i>.level for i in
# FIRST..LAST (a 20-entity SJSON level of about 2 KB, varying with GEN), after PARENT.
level_commit() { # GEN FIRST LAST PARENT MESSAGE
  awk -v gen="$1" -v first="$2" -v last="$3" -v parent="$4" -v msg="$5" -v t="$(date +%s)" '
    BEGIN {
      printf "commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\n", t
      printf "data %d\n%s\n", length(msg), msg
      if (parent != "") printf "from %s\n", parent
      for (i = first; i <= last; i++) {
        body = sprintf("// generated level %d\nentities = [\n", i)
        for (k = 0; k < 20; k++)
          body = body sprintf("\t{\n\t\tid = \"e%d_%d\"\n\t\tname = \"unit_%d\"\n\t\tposition = [%d %d 0]\n\t\trotation = [0 0 0 1]\n\t\tspeed_expr = \"sin(t) * %d + %d\"\n\t}\n", i, k, k, k, gen, k, gen)
        body = body sprintf("]\nsettings = {\n\tfog = 0.%d\n}\n", gen)
        printf "M 100644 inline levels/l%d.level\ndata %d\n%s\n", i, length(body), body
      }
    }'
}

# setup NAME: a bare repo NAME.git with the hook and an expression policy, and a clone
# NAME with one base commit holding assets 0..FILES-1, pushed.
setup() {
  local name=$1
  git init -q --bare -b main "$WORK/$name.git"
  printf '[[expressions]]\nkeys = ["*_expr"]\nvariables = ["t"]\n' > "$WORK/$name.git/assetvc.toml"
  "$ASSETVC" install --server "$WORK/$name.git" 2> /dev/null
  git init -q -b main "$WORK/$name"
  git -C "$WORK/$name" remote add origin "file://$WORK/$name.git"
  level_commit 1 0 $((FILES - 1)) "" base | git -C "$WORK/$name" fast-import --quiet
  git -C "$WORK/$name" push -q origin main 2> /dev/null
}

# timed_push NAME LABEL: pushes main and prints the hook's summary and the push's time.
timed_push() {
  local name=$1 label=$2 start end
  start=$(date +%s.%N)
  git -C "$WORK/$name" push origin main 2> "$WORK/push.err" || { cat "$WORK/push.err"; exit 1; }
  end=$(date +%s.%N)
  local summary
  summary=$(grep -o 'assetvc: checked .*' "$WORK/push.err" | tail -1 | sed 's/ *$//')
  printf '| %s | %s | %.2f s |\n' "$label" "${summary#assetvc: }" "$(echo "$end - $start" | bc)"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo "command: bench/hook_bench.sh (FILES=$FILES COMMITS=$COMMITS), binary $ASSETVC"
echo
echo "| push | hook (distinct blobs parsed, hook wall time) | git push wall time |"
echo "|---|---|---:|"

# (1) One commit changing FILES assets.
setup files
parent=$(git -C "$WORK/files" rev-parse main)
level_commit 2 0 $((FILES - 1)) "$parent" "change every level" | git -C "$WORK/files" fast-import --quiet
timed_push files "1 commit changing $FILES assets"

# (2) COMMITS commits, each changing one of 100 assets, by tip and by every commit.
FILES=100
for mode in tip every; do
  setup "commits-$mode"
  if [ "$mode" = every ]; then
    git -C "$WORK/commits-$mode.git" config assetvc.hook.everyCommit true
  fi
  parent=$(git -C "$WORK/commits-$mode" rev-parse main)
  {
    for c in $(seq 1 "$COMMITS"); do
      i=$((c % 100))
      if [ "$c" = 1 ]; then p=$parent; else p=""; fi
      level_commit $((c + 10)) "$i" "$i" "$p" "commit $c"
    done
  } | git -C "$WORK/commits-$mode" fast-import --quiet
  timed_push "commits-$mode" "$COMMITS commits, 100 assets ($mode)"
done
