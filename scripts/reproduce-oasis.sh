#!/usr/bin/env bash
# OASiS reproduction (docs/REPRODUCTION-OASIS.md): total utility of OASiS and the baselines (FIFO and DRF with a
# fixed worker count, Dorm-like fair share, greedy admit-if-fits, risk-reward) in the slotted OASiS model as the load
# grows, and OASiS under the price bounds' alternatives.
# Scenarios from generate-oasis (EC2-like servers, Dorm-like demands, Google-trace-shaped arrivals); the mean over
# the seeds. Deterministic: the same command prints the same table.
#   LOADS=0.5,1 SEEDS=1 scripts/reproduce-oasis.sh      # a quick subset
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/app/schedstudio-cli}
LOADS=${LOADS:-0.25,0.5,1,2,4}
SEEDS=${SEEDS:-1-3}
CSV=${CSV:-/tmp/oasis-sweep.csv}
echo "== total utility vs load: 20 worker + 10 PS servers, 500 slots of 10 min, arrivals in the first 300, seeds $SEEDS"
"$CLI" sweep-oasis --loads "$LOADS" --seeds "$SEEDS" --jobs 1000000 --workers 20 --ps 10 --horizon 500 \
    --fixed-workers 4 --csv "$CSV"
echo
echo "(per seed: $CSV)"
echo
echo "== the price bounds' alternatives (ALGORITHMS.md §3.3; the paper's U/L/eta were not recovered): OASiS with U per unit-slot,"
echo "   with per-resource densities (U^r, L^r / 4n), and with those and L x 10, x 100; DRF and risk-reward for reference"
for b in "--bounds unit-slot" "--bounds density" "--bounds density --l-scale 10" "--bounds density --l-scale 100"; do
    echo "$b"
    # shellcheck disable=SC2086
    "$CLI" sweep-oasis --loads "$LOADS" --seeds "$SEEDS" --jobs 1000000 --workers 20 --ps 10 --horizon 500 \
        --policy oasis,drf,riskreward $b
done
echo
echo "== only time-critical (sigmoid) utilities"
"$CLI" sweep-oasis --loads "$LOADS" --seeds "$SEEDS" --jobs 1000000 --workers 20 --ps 10 --horizon 500 \
    --fixed-workers 4 --sigmoid 1 --linear 0
echo
echo "== sensitivity to the price bounds: OASiS with L x 0.01 and U x 10"
"$CLI" sweep-oasis --loads 1,2 --seeds "$SEEDS" --jobs 1000000 --workers 20 --ps 10 --horizon 500 \
    --policy oasis,drf --l-scale 0.01
"$CLI" sweep-oasis --loads 1,2 --seeds "$SEEDS" --jobs 1000000 --workers 20 --ps 10 --horizon 500 \
    --policy oasis,drf --u-scale 10
echo
echo "== the bundled scenario (sample-traces/oasis-ps.json)"
"$CLI" simulate-oasis --scenario sample-traces/oasis-ps.json
echo
echo "== the engine policy on the studio scenario (sample-traces/oasis.scenario.json: rigid gangs, --perf ideal)"
"$CLI" run --scenario sample-traces/oasis.scenario.json --policy oasis | grep -E "^(policy|jobs|JCT|policy stats)" | sed "s/ subroutine_mean_ms.*//"
