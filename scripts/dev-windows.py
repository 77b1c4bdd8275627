#!/usr/bin/env python3
"""Scores policies on seven Philly windows that are NOT the reproduction's held-out slice.

Design choices for DAS's untrained start (placement terms, consolidate-or-wait) were judged here, never on the
held-out jobs of `reproduce` (hours 1135.8-1140 of the Philly trace). Each window is 4.2 hours of jobs of 1-8 GPUs
(as long as the held-out slice), arrival rate scaled as in the reproduction (x0.25 on das-small, x1 on
das-medium, x2 on das-large), perf model machine_bias_sd=0.15,fluctuation_sd=0.05 (training's), seeds 1,2,3.
Learned policies run their untrained start (das.untrained=1). Figures per cluster are geometric means over the
windows of each policy's mean JCT and mean fee relative to FIFO-FirstFit in the same window; "lowest in" counts
the windows where the policy is below every baseline.

usage: scripts/dev-windows.py [--cli build/app/schedstudio-cli] [--trace ../shared/traces/philly/philly.csv]
                              [--learned da,da+mc,da+rwgp,das] [--jobs 2] [-- extra compare args...]
Example: scripts/dev-windows.py -- --param das.compact=0   (the start without consolidate-or-wait)
"""
import argparse
import math
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WINDOWS = [500, 700, 900, 1300, 1500, 1700, 1900]  # start hour; the held-out slice is 1135.8-1140
CLUSTERS = [("das-small", 0.25), ("das-medium", 1.0), ("das-large", 2.0)]
BASELINES = ["fifo+firstfit", "fifo+loadbalance", "drf+firstfit", "drf+loadbalance", "tetris", "malo", "mosa",
             "dl2", "rifling"]
ROW = re.compile(r"^(\S+)\s+([\d.]+) ±[\d.]+\s+[\d.]+\s+([\d.]+) ±")


def run(cli, trace, cluster, scale, start, policies, extra):
    cmd = [cli, "compare", "--trace", trace, "--filter-gpus", "1:8", "--window", f"{start}h:{start + 4.2}h",
           "--load-scale", str(scale), "--cluster", cluster, "--policies", ",".join(policies), "--seeds", "1,2,3",
           "--perf", "machine_bias_sd=0.15,fluctuation_sd=0.05", "--param", "das.untrained=1", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    rows = {}
    for line in p.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    missing = [q for q in policies if q not in rows]
    if missing:
        sys.exit(f"no result for {missing} in: {' '.join(cmd)}\n{p.stdout}")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/app/schedstudio-cli")
    ap.add_argument("--trace", default="../shared/traces/philly/philly.csv")
    ap.add_argument("--learned", default="da,da+mc,da+rwgp,das")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    learned = [x for x in a.learned.split(",") if x]
    policies = BASELINES + learned
    tasks = [(c, s, w) for c, s in CLUSTERS for w in WINDOWS]
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda t: run(a.cli, a.trace, t[0], t[1], t[2], policies, a.extra), tasks))
    print(f"{'policy':18s}" + "".join(f"{c + ' JCT':>18s}{'fee':>8s}{'lowest in':>11s}" for c, _ in CLUSTERS))
    for q in policies:
        line = f"{q:18s}"
        for c, _ in CLUSTERS:
            per = [r for (cc, _, _), r in zip(tasks, results) if cc == c]
            lj = [math.log(r[q][0] / r["fifo+firstfit"][0]) for r in per]
            lf = [math.log(r[q][1] / r["fifo+firstfit"][1]) for r in per]
            gj = 100 * (math.exp(sum(lj) / len(lj)) - 1)
            gf = 100 * (math.exp(sum(lf) / len(lf)) - 1)
            wins = ""
            if q in learned:
                wj = sum(r[q][0] < min(r[b][0] for b in BASELINES) for r in per)
                wf = sum(r[q][1] < min(r[b][1] for b in BASELINES) for r in per)
                wins = f"{wj}/{len(per)},{wf}/{len(per)}"
            line += f"{gj:+17.1f}%{gf:+7.1f}%{wins:>11s}"
        print(line)


if __name__ == "__main__":
    main()
