#!/usr/bin/env bash
# Runs fuzz targets one after another for SECONDS each (default 300), with the dictionaries, a
# 10 s timeout and a 4 GiB memory limit per input, and prints libFuzzer's final statistics.
# Findings land in fuzz/artifacts/<target>/; minimize one with
#   cargo +nightly fuzz tmin -O -a -s none <target> <file>
# and copy it to fuzz/regressions/<target>/ so that stable `cargo test` replays it.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     (default: every target)
#
# Each fuzzer runs the library on one rayon thread (RAYON_NUM_THREADS=1 unless set): the readers'
# rayon::join and parallel finish otherwise spend a third of the time waking and yielding threads
# (android_data runs about 1.4 times as many executions a second on one thread), and two fuzzers
# can share the 2 cores. To run
# two at once, give each a RUN_TAG so their logs don't collide; they share the corpus directory
# (libFuzzer reloads it every second).
set -euo pipefail
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
cd "$(dirname "$0")"
secs=${1:-300}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(ls fuzz_targets | sed 's/\.rs$//'))
python3 seed.py >/dev/null
mkdir -p logs
# Build once (NO_BUILD=1 skips it), then run the binaries: sources edited meanwhile don't
# trigger rebuilds in the middle of a run. NO_GUI=1 builds without the viewer's code (egui),
# for the readers and reports alone: much faster to build; `session` and `viewer` then skip
# the window's parts.
[ "${NO_BUILD:-}" = 1 ] || cargo +nightly fuzz build -O -a -s none ${NO_GUI:+--no-default-features}
bin=target/x86_64-unknown-linux-gnu/release
for t in "${targets[@]}"; do
  case $t in
    android_*|detect|profile|dump|restrict|transforms|regress|insights) dict=dict/android.dict ;;
    session) dict=dict/session.dict ;;
    mapping) dict=dict/mapping.dict ;;
    *) dict=dict/legacy.dict ;;
  esac
  case $t in
    profile|dump|summary|graph|diff|convert|restrict|viewer|insights) len=4000000 ;;  # whole real traces
    transforms|regress) len=65536 ;;  # rewrites and statistics: many small traces
    android_*|detect|rtl|perflog|cprofiler|logger|mapping|session) len=16384 ;;  # readers: fast small inputs
    perf_data) len=131072 ;;  # the test recording (60 KB) whole
    *) len=262144 ;;
  esac
  mkdir -p "artifacts/$t"
  log="logs/$t${RUN_TAG:+-$RUN_TAG}.log"
  "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" -dict="$dict" -max_total_time="$secs" \
    -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=4096 -max_len="$len" -print_final_stats=1 -close_fd_mask=3 \
    > "$log" 2>&1 || echo "$t: FINDING (see $log and artifacts/$t/)"
  execs=$(grep -a 'stat::number_of_executed_units' "$log" | awk "{print \$2}" || true)
  cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "$t: ${execs:-?} executions, $cov, ${secs} s"
done
