#!/usr/bin/python3
"""Side-by-side speed of SchedStudio and the Tiresias simulator on the same traces, with a job-for-job check.

    scripts/compare-tiresias.py --tiresias /path/to/Tiresias [--sizes 1000,5000,20000] [--schemes fifo,las,gittins]

--tiresias is a checkout of SymbioticLab/Tiresias (its simulator/ directory is used). It is copied to a temp
dir and converted with Debian python3's lib2to3 (its code is Python 2), then run with /usr/bin/python3 and
python3-numpy. Nothing of it enters this repository; this script only starts it and reads its job log.

For each size a trace is generated here in Tiresias's CSV format (seeded, whole seconds) for a 1-switch cluster
of --nodes x 4 GPUs, and both simulators run it with Tiresias's count placement semantics:
  fifo     run_sim.py --schedule=fifo              vs  fifo+firstfit --no-backfill --perf ideal
  las      run_sim.py --schedule=dlas-gpu          vs  las+firstfit --perf ideal
  gittins  run_sim.py --schedule=dlas-gpu-gittins  vs  gittins+firstfit --perf ideal
                                                       --param gittins.dist=<simulator>/yarn-gput1000.csv
Times are whole-process wall times (start-up included). Agreement = jobs whose end time is within 1 s of
Tiresias's (it keeps whole seconds). Known differences, by design (see tests/golden/tst_tiresias_ref.cpp and
core/policy/tiresias.cpp): Tiresias wakes up for a demotion at ceil((limit - executed wall time) / GPUs),
which mixes GPU-seconds and seconds, so once jobs reach a queue limit its LAS demotes later than the exact
crossing; its Gittins index is evaluated once per sample bin where ours is exact.
"""
import argparse
import csv
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

SCHEMES = {
    "fifo": ("fifo", ["--policy", "fifo+firstfit", "--no-backfill"]),
    "las": ("dlas-gpu", ["--policy", "las+firstfit"]),
    "gittins": ("dlas-gpu-gittins", ["--policy", "gittins+firstfit"]),
}
MODELS = ["alexnet", "googlenet", "inception3", "inception4", "resnet101", "resnet152", "resnet50", "vgg11",
          "vgg16", "vgg19"]


def make_trace(path, jobs, seed, gpus_total, load):
    """Tiresias CSV: job_id,num_gpu,submit_time,iterations,model_name,duration,interval (whole seconds)."""
    rng = random.Random(seed)
    sizes = [1] * 50 + [2] * 15 + [4] * 20 + [8] * 15
    durs = [max(10, min(200000, int(rng.lognormvariate(math.log(900), 1.4)))) for _ in range(jobs)]
    gpus = [rng.choice(sizes) for _ in range(jobs)]
    mean_work = sum(g * d for g, d in zip(gpus, durs)) / jobs
    rate = load * gpus_total / mean_work  # jobs per second
    t = 0.0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration", "interval"])
        for i in range(jobs):
            w.writerow([i, gpus[i], int(t), durs[i], rng.choice(MODELS), durs[i], 0])
            t += rng.expovariate(rate)


def read_tiresias_ends(path):
    ends = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            ends[int(row["job_id"])] = float(row["end_time"])
    return ends


def read_ss_ends(path):
    ends = {}
    with open(path) as f:
        rows = [l for l in f if not l.startswith("#")]
    for row in csv.DictReader(rows):
        ends[int(row["id"])] = float(row["end"])
    return ends


def timed(cmd, cwd, timeout):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, "failed: " + p.stdout.decode(errors="replace")[-400:]
    return dt, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiresias", required=True, help="a checkout of SymbioticLab/Tiresias (with simulator/)")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "app",
                                                  "schedstudio-cli"))
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--schemes", default="fifo,las,gittins")
    ap.add_argument("--nodes", type=int, default=64, help="nodes of 4 GPUs (default 64 = 256 GPUs)")
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per Tiresias run")
    ap.add_argument("--keep", help="keep traces and logs in this directory")
    a = ap.parse_args()

    sim_src = os.path.join(a.tiresias, "simulator")
    if not os.path.isfile(os.path.join(sim_src, "run_sim.py")):
        sys.exit("compare-tiresias: %s: no simulator/run_sim.py (expected a SymbioticLab/Tiresias checkout)" % a.tiresias)
    cli = os.path.abspath(a.cli)
    if not os.access(cli, os.X_OK):
        sys.exit("compare-tiresias: %s: not built (ninja -C build schedstudio-cli)" % cli)
    for s in a.schemes.split(","):
        if s not in SCHEMES:
            sys.exit("compare-tiresias: unknown scheme '%s' (fifo, las, gittins)" % s)
    work = a.keep or tempfile.mkdtemp(prefix="ss-tiresias-")
    os.makedirs(work, exist_ok=True)
    sim = os.path.join(work, "simulator")
    if not os.path.isdir(sim):
        shutil.copytree(sim_src, sim)
        p = subprocess.run(["/usr/bin/python3", "-W", "ignore", "-m", "lib2to3", "-w", "-n", "."], cwd=sim,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            sys.exit("compare-tiresias: 2to3 failed: " + p.stderr.decode(errors="replace")[-400:])
    cluster = os.path.join(work, "cluster.csv")
    with open(cluster, "w") as f:
        f.write("num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,%d,4,40,256\n" % a.nodes)
    dist = os.path.join(sim, "yarn-gput1000.csv")

    print("compare-tiresias: cluster 1 switch x %d nodes x 4 GPUs, load %.2f, seed %d; wall seconds per process"
          % (a.nodes, a.load, a.seed))
    print("%-8s %7s %12s %12s %9s %16s" % ("scheme", "jobs", "tiresias s", "ours s", "ratio", "ends within 1 s"))
    ok = True
    for n in [int(x) for x in a.sizes.split(",")]:
        trace = os.path.join(work, "trace-%d.csv" % n)
        make_trace(trace, n, a.seed, 4 * a.nodes, a.load)
        for s in a.schemes.split(","):
            tsched, ours = SCHEMES[s]
            logdir = os.path.join(work, "log-%s-%d" % (s, n))
            os.makedirs(logdir, exist_ok=True)
            t_tir, err = timed(["/usr/bin/python3", "-W", "ignore", "run_sim.py", "--cluster_spec=" + cluster,
                                "--scheme=count", "--trace_file=" + trace, "--schedule=" + tsched,
                                "--log_path=" + logdir], sim, a.timeout)
            jobs_out = os.path.join(work, "ours-%s-%d.csv" % (s, n))
            cmd = [cli, "run", "--trace", trace, "--cluster", cluster, "--perf", "ideal", "--seed", "1",
                   "--jobs-out", jobs_out] + ours
            if s == "gittins":
                cmd += ["--param", "gittins.dist=" + dist]
            t_ss, err2 = timed(cmd, work, 3600)
            if t_ss is None:
                print("%-8s %7d   schedstudio %s" % (s, n, err2))
                ok = False
                continue
            if t_tir is None:
                print("%-8s %7d %12s %12.3f %9s %16s" % (s, n, "(" + err + ")", t_ss, "-", "-"))
                continue
            te = read_tiresias_ends(os.path.join(logdir, "job.csv"))
            oe = read_ss_ends(jobs_out)
            same = sum(1 for j, e in te.items() if j in oe and abs(oe[j] - e) <= 1.0)
            print("%-8s %7d %12.2f %12.3f %8.0fx %9d / %-5d" % (s, n, t_tir, t_ss, t_tir / t_ss, same, len(te)))
            sys.stdout.flush()
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
