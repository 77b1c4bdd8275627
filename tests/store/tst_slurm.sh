#!/usr/bin/env bash
# sweep --slurm end to end on a one-node Slurm brought up in a temp dir (scripts/slurm-local.sh): a 4-task
# array of shards and the dependent merge; the merged database must hold every run of the sweep exactly once,
# with the same results as the same sweep run here in one process. Then reproduce --slurm (where the CLI has it,
# i.e. built with LibTorch): a 4-task array of (cluster, row, seed) cells whose merge task prints the table; it
# must equal the table of the same reproduce in one process. Exit 77 (skipped) when Slurm cannot start.
# usage: tst_slurm.sh CLI SOURCE_DIR
set -uo pipefail
cli=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d /tmp/ss-slurm-test-XXXXXX)
cleanup() {
  "$src/scripts/slurm-local.sh" stop "$tmp/slurm" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/out.db.slurm/logs/*; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done; exit 1; }

if ! out=$("$src/scripts/slurm-local.sh" start "$tmp/slurm" 2>&1); then
  echo "SKIP: a one-node Slurm could not start here: $out" >&2
  exit 77
fi
export SLURM_CONF="$tmp/slurm/slurm.conf"
cd "$tmp" || fail "cd $tmp"

"$cli" generate --jobs 40 --seed 3 --out t.trace >/dev/null || fail "generate"
args=(sweep --traces t.trace --clusters das-small --policies fifo+firstfit,sjf+bestfit,las+firstfit --seeds 1-3 --jobs 1 --quiet)
sub=$("$cli" "${args[@]}" --db out.db --slurm --slurm-tasks 4) || fail "sweep --slurm: $sub"
[ -f out.db.slurm/array.sbatch ] && [ -f out.db.slurm/merge.sbatch ] || fail "batch scripts not written"
grep -q -- '--array=0-3' out.db.slurm/array.sbatch || fail "array.sbatch is not a 4-task array"
array=$(printf '%s\n' "$sub" | awk '$1 == "array" {print $2}')
merge=$(printf '%s\n' "$sub" | awk '$1 == "merge" {print $2}')
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $sub"

# wait for the array and the merge to leave the queue (60 s at most)
t0=$(date +%s.%N)
for _ in $(seq 300); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.2
done
echo "slurm: array and merge done in $(echo "$(date +%s.%N) - $t0" | bc) s" >&2
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && [ -f out.db ] || fail "the array or the merge did not finish in 60 s"
for i in 0 1 2 3; do [ -f "out.db.slurm/shard-$i.db" ] || fail "task $i wrote no shard database"; done

# the same sweep in one process, for reference
"$cli" "${args[@]}" --db ref.db 2>/dev/null || fail "reference sweep"
"$cli" runs --db out.db --json > out.json || fail "runs out.db"
"$cli" runs --db ref.db --json > ref.json || fail "runs ref.db"
python3 - out.json ref.json <<'EOF' || fail "the merged database does not hold every run exactly once"
import json, sys
out = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
keys = [r["key"] for r in out]
assert len(out) == 9, f"expected 9 runs, found {len(out)}"
assert len(set(keys)) == len(keys), "a run is stored twice"
want = {r["key"]: r["mean_jct_min"] for r in ref}
assert set(keys) == set(want), "the merged runs are not the sweep's runs"
for r in out:
    assert r["mean_jct_min"] == want[r["key"]], f"run {r['policy']} seed {r['seed']}: result differs"
print("merged database: 9 runs, each once, results as in one process")
EOF

# reproduce --slurm: 3 rows x 2 seeds = 6 cells over 4 tasks (two tasks run two cells, two run one), one row trained
if { "$cli" 2>&1 || true; } | grep -q '^ *reproduce '; then
  rargs=(reproduce --trace "$src/sample-traces/das-small-200.csv" --clusters das-small --seeds 1,2 --iterations 1
         --episode-jobs 50 --rows fifo+firstfit,tetris,da)
  sub=$("$cli" "${rargs[@]}" --db rep.db --out rep.md --slurm --slurm-tasks 4) || fail "reproduce --slurm: $sub"
  array=$(printf '%s\n' "$sub" | awk '$1 == "array" {print $2}')
  merge=$(printf '%s\n' "$sub" | awk '$1 == "merge" {print $2}')
  [ -n "$array" ] && [ -n "$merge" ] || fail "reproduce: no job ids in: $sub"
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
    sleep 0.2
  done
  [ -f rep.md ] || { cat rep.db.slurm/logs/* >&2; fail "reproduce: the merge task wrote no table in 120 s"; }
  "$cli" "${rargs[@]}" --out ref.md 2>/dev/null >/dev/null || fail "reproduce in one process"
  diff rep.md ref.md >&2 || fail "reproduce --slurm: the merged table differs from one process's"
  n=$("$cli" runs --db rep.db --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  [ "$n" = 6 ] || fail "reproduce: the merged database holds $n runs, expected 6 (3 rows x 2 seeds)"
  echo "reproduce --slurm: 6 cells on 4 tasks, merged table equals one process's"
else
  echo "reproduce: not in this build (no LibTorch); its Slurm part is not run"
fi
echo "PASS"
