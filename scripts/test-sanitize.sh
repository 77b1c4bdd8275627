#!/usr/bin/env bash
# Builds the core, the CLI and their tests with AddressSanitizer + UndefinedBehaviorSanitizer (GUI and
# LibTorch off) and runs them: the engine invariants, the malformed-input corpus (tests/corpus), the kill-and-
# resume test and every reader's error cases. Any sanitizer report fails (ASan aborts; UBSan is built with
# -fno-sanitize-recover, so the first report ends the test with a failure).
# Usage: scripts/test-sanitize.sh [extra cmake -D options]      (build dir: $SCHEDSTUDIO_ASAN_DIR or build-asan)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${SCHEDSTUDIO_ASAN_DIR:-build-asan}
start=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSCHEDSTUDIO_SANITIZE=ON -DSCHEDSTUDIO_WITH_TORCH=OFF \
  -DSCHEDSTUDIO_BUILD_GUI=OFF "$@"
cmake --build "$BUILD" -j"$(nproc)"
built=$(date +%s)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$BUILD"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$(nproc)"
echo "sanitizer build: $((built - start)) s to build, $(( $(date +%s) - built )) s to test"
