#!/usr/bin/env bash
# Every real merge of a case folder (cases/NAME/{base,ours,theirs}.EXT + meta.json, as in
# ../shared/real-merges/cases) merged twice in a scratch repository: `git merge` with the
# lean driver and `git merge` with the strategy (pull.twohead = assetvc); prints each case
# whose result or exit status differs, then `same=N differ=M`. The strategy should give
# the driver's bytes and status on every case (#32: results identical to the driver's).
# Usage: bench/strategy_vs_driver.sh CASES_DIR   (ASSETVC=path/to/assetvc to skip the build)
set -uo pipefail
cd "$(dirname "$0")/.."
CASES=${1:?usage: bench/strategy_vs_driver.sh CASES_DIR}
CASES=$(realpath "$CASES")
. bench/lib.sh  # assetvc_binary, isolated_workdir
assetvc_binary
isolated_workdir
BIN=$(dirname "$ASSETVC")
export PATH="$BIN:$PATH"
same=0; differ=0
for c in "$CASES"/*/; do
  name=$(basename "$c")
  read -r ext fmt < <(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['ext'], m['format'])" "$c/meta.json")
  case $fmt in json*) fmt=json ;; *) fmt=sjson ;; esac
  r=$WORK/r; rm -rf "$r"; mkdir -p "$r"; cd "$r"
  git init -q -b main
  echo "*$ext merge=assetvc" > .gitattributes
  printf '[assets]\n%s = ["*%s"]\n' "$fmt" "$ext" > assetvc.toml
  git config merge.assetvc.driver "'$BIN/assetvc-merge-driver' -- %O %A %B %P"
  cp "$c/base$ext" "f$ext"; git add -A; git commit -qm base
  git checkout -qb theirs; cp "$c/theirs$ext" "f$ext"; git commit -qam theirs
  git checkout -q main; cp "$c/ours$ext" "f$ext"; git commit -qam ours
  ours=$(git rev-parse HEAD)
  git -c pull.twohead=ort merge -q --no-edit theirs > /dev/null 2>&1; s1=$?
  cp "f$ext" "$WORK/driver.out"
  git merge --abort > /dev/null 2>&1; git reset -q --hard "$ours"
  git -c pull.twohead=assetvc merge -q --no-edit theirs > /dev/null 2>&1; s2=$?
  cp "f$ext" "$WORK/strategy.out"
  if [ "$s1" = "$s2" ] && cmp -s "$WORK/driver.out" "$WORK/strategy.out"; then
    same=$((same + 1))
  else
    differ=$((differ + 1)); echo "differs: $name (driver exit $s1, strategy exit $s2)"
  fi
  cd - > /dev/null
done
echo "same=$same differ=$differ"
