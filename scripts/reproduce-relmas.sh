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
for load in light heavy; do
  for mix in homogeneous mixed; do
    for arrivals in poisson bursty; do
      name=$load-$mix-$arrivals
      nets=$NETS/resnet50.json,$NETS/mobilenetv2.json,$NETS/vgg16.json,$NETS/bert-base.json,$NETS/dlrm-mlp.json
      [ "$mix" = homogeneous ] && nets=$NETS/resnet50.json,$NETS/mobilenetv2.json
      burst=""; [ "$arrivals" = bursty ] && burst="--bursty"
      "$CLI" accel-gen --name "$name" --chip magma-s5 --networks "$nets" --requests "$REQUESTS" --tenants 5 \
        --mix "$mix" --load "$load" $burst --seed 1 --out "$OUT/$name.scenario.json" 2>/dev/null
      "$CLI" compare --scenario "$OUT/$name.scenario.json" --policies fcfs,edf,llf,rr,hetero,search,relmas \
        --json > "$OUT/$name.json"
      python3 - "$OUT/$name.json" "$name" >> "$OUT/table.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    print(f"| {sys.argv[2]} | {r['policy']} | {100 * r['sla_satisfaction']:.1f} % | {r['fairness_jain']:.3f} | "
          f"{r['latency_p99_us']:.0f} | {r['energy_uj']:.0f} | {100 * r.get('energy_overhead', 0):.2f} % |")
PY
    done
  done
done
cat "$OUT/table.md"
