#!/usr/bin/env bash
# Chronus reproduction (docs/REPRODUCTION-CHRONUS.md): the Philly MIX2 trace of the Chronus artifact on
# chronus-120x8, Chronus against FIFO, SRTF, EDF and Tiresias 2D-LAS (each with consolidating placement),
# first under the systems' own assumptions (--perf ideal: trace durations, Chronus's own resume overhead),
# then under the studio's default performance model (a separate, labelled table).
#   FIRST=10000 scripts/reproduce-chronus.sh     # only the first N jobs (by submit time)
#   PERFS=ideal scripts/reproduce-chronus.sh     # only the paper's assumptions
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/app/schedstudio-cli}
TRACE=${TRACE:-../shared/traces/chronus/trace_job_Philly_MIX2.csv}
POLICIES=${POLICIES:-chronus,fifo+consolidate,srtf+consolidate,edf+consolidate,las+consolidate}
PERFS=${PERFS:-ideal default}
extra=()
if [ -n "${FIRST:-}" ]; then extra+=(--first "$FIRST"); fi
for perf in $PERFS; do
    echo "== MIX2 on chronus-120x8, --perf $perf ${FIRST:+(first $FIRST jobs)}"
    "$CLI" compare --trace "$TRACE" --format chronus --cluster chronus-120x8 --policies "$POLICIES" \
        --perf "$perf" --jobs "${JOBS:-2}" "${extra[@]}"
    echo
done
