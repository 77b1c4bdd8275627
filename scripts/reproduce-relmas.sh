#!/usr/bin/env bash
# Accelerator mode (RELMAS, docs/REPRODUCTION-RELMAS.md): SLA satisfaction and energy of every scheduler over
# the workload scenarios (light/heavy load x homogeneous/mixed tenants x Poisson/bursty arrivals) on the
# magma-s5 chip. One command: scripts/reproduce-relmas.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/build/relmas-repro}
CLI=$BUILD/app/schedstudio-cli
NETS=$ROOT/sample-traces/accel/networks
REQUESTS=${RELMAS_REQUESTS:-600}
mkdir -p "$OUT"
printf '| scenario | policy | SLA satisfaction | fairness (Jain) | p99 latency (us) | energy (uJ) | energy over lowest |\n' > "$OUT/table.md"
printf '|---|---|---|---|---|---|---|\n' >> "$OUT/table.md"
echo "scenario_no,scenario,policy,sla_pct,energy_over_pct" > "$OUT/results.csv"
no=0
for load in light heavy; do
  for mix in homogeneous mixed; do
    for arrivals in poisson bursty; do
      name=$load-$mix-$arrivals
      no=$((no + 1))
      nets=$NETS/resnet50.json,$NETS/mobilenetv2.json,$NETS/vgg16.json,$NETS/bert-base.json,$NETS/dlrm-mlp.json
      [ "$mix" = homogeneous ] && nets=$NETS/resnet50.json,$NETS/mobilenetv2.json
      burst=""; [ "$arrivals" = bursty ] && burst="--bursty"
      "$CLI" accel-gen --name "$name" --chip magma-s5 --networks "$nets" --requests "$REQUESTS" --tenants 5 \
        --mix "$mix" --load "$load" $burst --seed 1 --out "$OUT/$name.scenario.json" 2>/dev/null
      "$CLI" compare --scenario "$OUT/$name.scenario.json" --policies fcfs,edf,llf,rr,hetero,search,relmas \
        --json > "$OUT/$name.json"
      python3 - "$OUT/$name.json" "$name" "$no" "$OUT/results.csv" >> "$OUT/table.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[4], "a") as csv:
    for r in d["runs"]:
        print(f"| {sys.argv[2]} | {r['policy']} | {100 * r['sla_satisfaction']:.1f} % | {r['fairness_jain']:.3f} | "
              f"{r['latency_p99_us']:.0f} | {r['energy_uj']:.0f} | {100 * r.get('energy_overhead', 0):.2f} % |")
        csv.write(f"{sys.argv[3]},{sys.argv[2]},{r['policy']},{100 * r['sla_satisfaction']:.3f},"
                  f"{100 * r.get('energy_overhead', 0):.3f}\n")
PY
    done
  done
done
# the plots: one line per scheduler over the 8 scenarios (numbered in the order of the table)
PLOT=$BUILD/app/gui/schedstudio-plot
if [ -x "$PLOT" ]; then
  QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} "$PLOT" --csv "$OUT/results.csv" --x scenario_no --y sla_pct \
    --group policy --out "$OUT/sla.png" --title "SLA satisfaction per scheduler (scenarios 1-8 as in the table)" \
    --xlabel "scenario" --ylabel "SLA met (%)" 2>/dev/null
  QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} "$PLOT" --csv "$OUT/results.csv" --x scenario_no --y energy_over_pct \
    --group policy --out "$OUT/energy.png" --title "Energy over the lowest-energy scheduler" \
    --xlabel "scenario" --ylabel "energy over lowest (%)" 2>/dev/null
  echo "plots: $OUT/sla.png $OUT/energy.png"
fi
cat "$OUT/table.md"
