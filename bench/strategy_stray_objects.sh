#!/usr/bin/env bash
# What one strategy merge (`git merge -s assetvc`) leaves in the repository that nothing
# reaches (#32): FILES one-entity files in one directory, each side edits 400 of them, 200
# by both (different keys), and a text file both edit (merged by git). Prints the count and
# the bytes of the unreachable objects (`git fsck --unreachable --no-reflogs`): before the
# scratch object directory, git's merged trees and the attribute tree and blob stayed.
# Rerun with: ASSETVC=target/debug/assetvc FILES=20000 bench/strategy_stray_objects.sh
# (git-merge-assetvc must be beside assetvc; no timing, so a debug build serves).
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-20000}
. bench/lib.sh  # assetvc_binary, isolated_workdir
assetvc_binary
isolated_workdir
export PATH="$(dirname "$ASSETVC"):$PATH"
git init -q -b main "$WORK/r"
cd "$WORK/r"
assetvc install >/dev/null 2>&1
mkdir entities
gen() { # WHICH: the tree WHICH (base, ours, theirs) into entities/
  awk -v which="$1" -v files="$FILES" 'BEGIN {
    for (i = 0; i < files; i++) {
      ours = which == "ours" && i < 400
      theirs = which == "theirs" && i >= 200 && i < 600
      f = sprintf("entities/e%05d.entity", i)
      printf "id = \"e%05d\"\nposition = [%d 0 0]\ntint = \"%s\"\n", i, ours ? i : 0, theirs ? "red" : "white" > f
      close(f)
    }
  }'
}
gen base; printf 'a\nb\nc\nd\n' > notes.txt; git add -A; git commit -qm base
git checkout -qb side; gen theirs; printf 'a (side)\nb\nc\nd\n' > notes.txt; git commit -qam side
git checkout -q main; gen ours; printf 'a\nb\nc\nd (main)\n' > notes.txt; git commit -qam main
git merge --no-edit -s assetvc side >/dev/null 2>&1
stray=$(git fsck --unreachable --no-reflogs --no-progress | awk '{print $3}')
count=$(printf '%s' "$stray" | grep -c . || true)
bytes=$(printf '%s' "$stray" | git cat-file --batch-check='%(objectsize)' | awk '{s += $1} END {print s + 0}')
echo "files=$FILES unreachable objects=$count bytes=$bytes"
