#!/usr/bin/env bash
# Builds and runs one fuzz target on a stable toolchain, with libFuzzer's coverage
# instrumentation (what cargo-fuzz does, minus the sanitizers that need nightly).
#   fuzz/run-stable.sh TARGET [SECONDS]      e.g. fuzz/run-stable.sh sjson_parse 600
# Crashing inputs are written to fuzz/artifacts/TARGET/; the corpus grows in fuzz/corpus/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: run-stable.sh TARGET [SECONDS]}
seconds=${2:-600}
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# An explicit --target keeps the instrumentation out of build scripts (as cargo-fuzz does).
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --locked --target "$host" --bin "$target"
mkdir -p "corpus/$target" "artifacts/$target"
"$CARGO_TARGET_DIR/$host/release/$target" -max_total_time="$seconds" \
  -artifact_prefix="artifacts/$target/" "corpus/$target"
