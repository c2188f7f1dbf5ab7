#!/usr/bin/env bash
# A real Slurm run of deploy/slurm/sweep.sbatch on this machine (make test-slurm, and .ci/run when it can):
# installs Debian's slurm-wlm and munge if they are missing, writes a single-node slurm.conf in a temporary
# folder, starts munged, slurmctld and slurmd itself (no systemd), submits the array job with sbatch --array
# as a user would, requeues one task mid-run with scontrol requeue, waits for every task, runs pipelab merge,
# and checks that the merged tables equal those of the same sweep run unsharded (every column but the
# wall-clock one, wall_seconds). The daemons are stopped by pid at exit. Exit status 0: passed; 1: failed;
# 3: Slurm could not be installed here (the message says why).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

say() { printf 'test-slurm: %s\n' "$*"; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		say "cannot install slurm-wlm and munge: not root with apt-get; skipping the Slurm run"
		exit 3
	fi
	say "installing slurm-wlm and munge"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } >/tmp/test-slurm-apt.log 2>&1; then
		say "cannot install slurm-wlm and munge (apt-get failed: $(tail -1 /tmp/test-slurm-apt.log)); skipping the Slurm run"
		exit 3
	fi
fi

tmp=$(mktemp -d /tmp/pipelab-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
stop() {
	status=$?
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	if [ "$status" != 0 ]; then
		say "FAILED; the daemons' logs:"
		tail -n 20 "$tmp"/*.log 2>/dev/null || true
	fi
	rm -rf "$tmp"
	exit "$status"
}
trap stop EXIT

say "building pipelab"
go build -o "$tmp/bin/pipelab" ./cmd/pipelab
export PATH="$tmp/bin:$PATH"

# munge: a fresh key and socket in the temporary folder.
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
	--pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munged.seed"
pids+=("$(cat "$tmp/munge/munged.pid")")

# A single node with this machine's CPUs and memory.
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 3 / 4))
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=pipelab-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
# No systemd and no cgroups here: track processes by their parent pid, bind no tasks.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# A request the node cannot hold fails at submission instead of pending forever.
EnforcePartLimits=ALL
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"

slurmctld -i
for _ in $(seq 50); do [ -s "$tmp/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/slurmctld.pid")")
slurmd -N "$host"
for _ in $(seq 50); do [ -s "$tmp/slurmd.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/slurmd.pid")")
for _ in $(seq 100); do
	sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
	sleep 0.2
done
sinfo
say "slurmctld and slurmd up on $host ($cpus CPUs, ${mem_mb} MB)"

# A sweep of 12 runs, 3 shards of 4, each run a few seconds on one core.
mkdir -p "$tmp/work"
cat >"$tmp/work/spec.yaml" <<'SPEC'
experiment: slurm-ci
seed: 7
seeds: 3
objectives: [quadratic]
n: 2000
d: 512
batch_size: 10
stages: [4, 8]
total_microbatches: [40000]
methods:
  - name: pipedream
    step_sizes: {values: [0.005, 0.01]}
SPEC
cd "$tmp/work"
out="$tmp/work/out"

# The job file's old request, 8 CPUs, cannot fit this node: refused at once.
if sbatch --array=0-2 --cpus-per-task=8 "$repo/deploy/slurm/sweep.sbatch" spec.yaml "$out" >/dev/null 2>"$tmp/refused"; then
	say "an 8-CPU task was accepted on a $cpus-CPU node"
	exit 1
fi
say "an 8-CPU request is refused at submission: $(head -1 "$tmp/refused")"

job=$(sbatch --parsable --array=0-2 "$repo/deploy/slurm/sweep.sbatch" spec.yaml "$out")
job=${job%%;*}
say "submitted array job $job: sbatch --array=0-2 deploy/slurm/sweep.sbatch spec.yaml $out"

# Requeue task 0 once it runs and has recorded a run, and start it again now
# (a requeued task otherwise waits 120 s).
deadline=$((SECONDS + 60))
until [ "$(squeue -h -j "${job}_0" -o %T 2>/dev/null)" = RUNNING ] && [ -n "$(ls "$out/shard-0/runs" 2>/dev/null | grep '\.gob$')" ]; do
	[ $SECONDS -lt $deadline ] || { say "task 0 did not start and record a run in 60 s"; squeue; exit 1; }
	sleep 0.2
done
scontrol requeue "${job}_0"
say "requeued task ${job}_0 mid-run ($(ls "$out/shard-0/runs" | grep -c '\.gob$') of its runs recorded)"
# The requeue completes once the task has stopped; only then is it pending,
# held until its begin time.
for _ in $(seq 100); do
	[ "$(squeue -h -j "${job}_0" -o %T 2>/dev/null)" = PENDING ] && break
	sleep 0.2
done
scontrol update JobId="${job}_0" StartTime=now
say "task ${job}_0 pending again: $(squeue -h -j "${job}_0" -o '%T %r'); StartTime set to now"

deadline=$((SECONDS + 150))
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
	[ $SECONDS -lt $deadline ] || { say "the array job did not finish in 150 s"; squeue; exit 1; }
	sleep 1
done
for i in 0 1 2; do
	log="pipelab-sweep-${job}_$i.log"
	say "log of task $i:"
	sed 's/^/    /' "$log"
	grep -q "^sweep slurm-ci: shard $i/3: 4 of 12 runs" "$log" || { say "task $i did not finish its shard"; exit 1; }
done
grep -q "stopped by SIGTERM" "pipelab-sweep-${job}_0.log" || { say "task 0's log does not show the requeue's SIGTERM"; exit 1; }
grep -q "^resuming: [1-9]" "pipelab-sweep-${job}_0.log" || { say "task 0 did not resume after its requeue"; exit 1; }

pipelab merge "$out"/shard-* --out "$out/all"
pipelab sweep spec.yaml --out "$tmp/work/unsharded" --jobs "$cpus" 2>/dev/null
(cd "$repo" && go run ./deploy/slurm/tablesequal "$out/all" "$tmp/work/unsharded")
say "passed: 3 array tasks, one requeued mid-run and resumed, merged tables equal to the unsharded sweep's"
say "1 passed, 0 failed"
