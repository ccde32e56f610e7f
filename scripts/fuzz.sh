#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang and runs every one of them at once
# for SECONDS (default 600) under `nice -n 15`, then merges what each found that adds
# coverage into a minimised corpus beside the repository's one.
#   bash scripts/fuzz.sh [SECONDS]
# Needs clang and libclang-rt-14-dev (scripts/setup.sh installs them). Not part of the test
# suite: the unit tests replay tests/fuzz/corpus/ instead (docs/fuzzing.md).
# Each fuzzer runs in fork mode and goes on after a crash, so one run reports every crash it
# meets; crashing inputs are kept in $build/crashes/<target>/, logs in $build/fuzz_<target>.log
# (the last "#N ... crash: C" line: executions and crashes), the minimised corpus in
# $build/min/<target>/ (copy it over tests/fuzz/corpus/<target>/ when it is worth keeping).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
build="${RAGMETER_FUZZ_BUILD:-build-fuzz}"
targets=(jsonl json_array csv list_literal trec judge_reply toml_config)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DRAGMETER_FUZZ=ON -DRAGMETER_BUILD_TESTS=OFF -DRAGMETER_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j2 --target "${targets[@]/#/fuzz_}"

for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/crashes/$t"
  nice -n 15 "$build/fuzz/fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=16384 \
    -artifact_prefix="$build/crashes/$t/" "$build/corpus/$t" "tests/fuzz/corpus/$t" \
    >"$build/fuzz_$t.log" 2>&1 &
done
wait

for t in "${targets[@]}"; do
  rm -rf "$build/min/$t" && mkdir -p "$build/min/$t"
  "$build/fuzz/fuzz_$t" -merge=1 -rss_limit_mb=2048 -timeout=10 \
    "$build/min/$t" "tests/fuzz/corpus/$t" "$build/corpus/$t" >/dev/null 2>&1 || true
  stats="$(grep -E '^#[0-9]+' "$build/fuzz_$t.log" | tail -1 || true)"
  echo "$t: ${stats:-no stats} | crashing inputs: $(ls "$build/crashes/$t" | wc -l)" \
       "| minimised corpus: $(ls "$build/min/$t" | wc -l) files, $(du -sk "$build/min/$t" | cut -f1) KB"
done
