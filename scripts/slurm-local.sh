#!/usr/bin/env bash
# A one-node Slurm on this machine, in a directory of its own, without systemd: munged with its own key and
# socket, slurmctld and slurmd with a slurm.conf written here (this host as the only node, its own ports,
# SlurmUser = the current user). For tests and for trying `sweep --slurm` without a cluster.
#
#   scripts/slurm-local.sh start DIR   # prints `export SLURM_CONF=DIR/slurm.conf`; exit 3 when it cannot start
#   scripts/slurm-local.sh stop DIR    # stops the daemons by their pid files
#
# Needs Debian's slurm-wlm and munge (scripts/bootstrap.sh installs them).
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

stop() {
  # TERM to all three at once, then wait for each (KILL after 5 s)
  local pids=()
  for p in slurmd slurmctld munged; do
    if [ -f "$dir/$p.pid" ]; then
      pid=$(cat "$dir/$p.pid" 2>/dev/null || true)
      if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        pids+=("$pid")
      fi
      rm -f "$dir/$p.pid"
    fi
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
if [ "$cmd" != start ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

fail() { echo "slurm-local: cannot start: $*" >&2; stop; exit 3; }

for b in munged mungekey slurmctld slurmd sbatch; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || fail "$b not installed (apt-get install slurm-wlm munge)"
done
export PATH="$PATH:/usr/sbin"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
user=$(id -un)
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
# ports of its own, from the directory's name, so two test runs on one machine do not collide
base=$(( 20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000 ))

# munge: a fresh key, socket and pid file in DIR
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
  || fail "munged did not start (see $dir/log/munged.log)"

cat > "$dir/slurm.conf" <<EOF
ClusterName=sslocal
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF

export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$dir/slurm.conf" || fail "slurmctld did not start (see $dir/log/slurmctld.log)"
slurmd -f "$dir/slurm.conf" || fail "slurmd did not start (see $dir/log/slurmd.log)"
# wait for the node to come up
for _ in $(seq 100); do
  if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
    echo "export SLURM_CONF=$dir/slurm.conf"
    exit 0
  fi
  sleep 0.2
done
fail "the node did not come up in 20 s (see $dir/log/slurmctld.log, $dir/log/slurmd.log)"
