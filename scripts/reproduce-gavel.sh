#!/usr/bin/env bash
# Gavel (OSDI'20) reproduction, docs/REPRODUCTION-GAVEL.md: average JCT against the input job rate for
# heterogeneity-aware vs agnostic LAS on gavel-108 with Gavel's workload generator, plus FTF and makespan
# rows; writes tables (Markdown, CSV) and a PNG plot into $OUT.
#   scripts/reproduce-gavel.sh                      # the small default sweep (a few minutes on 2 cores)
#   RATES=0.5,1,1.5,2,2.5,3,3.5,4,4.5,5 WINDOW=4000:5000 scripts/reproduce-gavel.sh   # Gavel's own window
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-gavel-repro}
TABLE=${TABLE:-../shared/traces/gavel/simulation_throughputs.json}
RATES=${RATES:-1.5,3,4.5}
SEEDS=${SEEDS:-0,1,2}
WINDOW=${WINDOW:-1000:1500}
OTHER_RATE=${OTHER_RATE:-3}
CLI="$BUILD/app/schedstudio-cli"
PLOT="$BUILD/app/gui/schedstudio-plot"
mkdir -p "$OUT"
"$CLI" reproduce-gavel --rates "$RATES" --seeds "$SEEDS" --window "$WINDOW" --throughputs "$TABLE" \
    --policies gavel-las,gavel-las-agnostic --csv "$OUT/las.csv" --out "$OUT/las.md"
"$CLI" reproduce-gavel --rates "$OTHER_RATE" --seeds "$SEEDS" --window "$WINDOW" --throughputs "$TABLE" \
    --policies gavel-ftf,gavel-makespan --csv "$OUT/others.csv" --out "$OUT/others.md"
QT_QPA_PLATFORM=offscreen "$PLOT" --csv "$OUT/las.csv" --x rate_jobs_per_hour --y avg_jct_hours --group policy \
    --title "Gavel LAS on 36 V100 + 36 P100 + 36 K80: jobs $WINDOW, seeds $SEEDS" \
    --xlabel "input job rate (jobs/h)" --ylabel "average JCT (h)" --out "$OUT/las-jct-vs-rate.png"
echo "wrote $OUT/las.md $OUT/others.md $OUT/las.csv $OUT/others.csv $OUT/las-jct-vs-rate.png"
