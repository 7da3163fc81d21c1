#!/usr/bin/env bash
# The real Slurm test of sharded sweeps: brings up a private single-node Slurm (munged, slurmctld,
# slurmd on localhost), submits a small sweep as a 3-task job array with scripts/slurm/submit_sweep.sh
# (which uses scripts/slurm/sweep.sbatch and queues a dependent merge job), waits, and checks that the
# merged index equals the index of the same sweep run locally.
#
#   bash tests/scripts/test_slurm_sweep.sh DLSIM_BINARY WORK_DIR
#
# Needs Debian's slurm-wlm and munge (scripts/setup.sh installs them) and root (it runs the daemons as
# root); without either it prints "test_slurm_sweep: skipped: ..." naming what is missing and exits 0,
# which CTest reports as skipped. Everything it makes lives in WORK_DIR (slurm/, munge/, sweep/; munge/
# moves to /tmp when the munge user cannot enter WORK_DIR), cleared at the start of each run; the daemons
# listen on free ports of their own and munged on its own socket, so an already-running Slurm or munge
# is left alone. Every daemon it starts is stopped on exit, success or
# not, and a run also stops what an earlier, killed run left. Exit status: 0 passed (or skipped), 1 failed.
set -euo pipefail

name=test_slurm_sweep
say() { echo "$name: $*"; }
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "skipped: ${missing[*]} not installed (bash scripts/setup.sh installs them)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  say "skipped: not root (it starts Slurm daemons as root)"
  exit 0
fi
[ $# -eq 2 ] || { echo "usage: bash $0 DLSIM_BINARY WORK_DIR" >&2; exit 1; }
[ -x "$1" ] || fail "dlsim binary $1: not an executable file"
dlsim=$(realpath "$1")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$2"
work=$(realpath "$2")
started=$SECONDS
"$dlsim" sweep --help >/dev/null 2>&1 || fail "$dlsim has no working 'sweep' command ('$dlsim sweep --help' failed)"

sdir=$work/slurm    # slurm.conf, controller state, slurmd spool, daemon logs and pid files
mdir=$work/munge    # munge key, socket, pid file, log
sweep=$work/sweep   # the spec and the two results folders
conf=$sdir/slurm.conf
socket=$mdir/munge.socket
export SLURM_CONF=$conf   # every Slurm command, and the jobs' own sbatch, use this cluster

# munged runs as the munge user: where it cannot enter WORK_DIR (say under /root), its folder goes to
# /tmp, under a name fixed per work dir so that a later run finds what an earlier one left.
if ! runuser -u munge -- test -x "$work" 2>/dev/null; then
  mdir=/tmp/dlsim-slurm-test-munge-$(printf %s "$work" | cksum | cut -d' ' -f1)
  socket=$mdir/munge.socket
fi

# --- stopping daemons (by pid file, and only if the pid is still the daemon we started) -------------
alive() {  # PIDFILE COMM: the pid in PIDFILE is a running COMM
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}
stop_pidfile() {  # PIDFILE COMM
  local pid i
  alive "$1" "$2" || return 0
  pid=$(cat "$1")
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do [ -d "/proc/$pid" ] || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
# Job steps outlive slurmd; ours are the slurmstepd processes holding files of this work dir open.
stop_stepds() {
  local d fd
  for d in /proc/[0-9]*; do
    [ "$(cat "$d/comm" 2>/dev/null)" = slurmstepd ] || continue
    for fd in "$d"/fd/*; do
      if [[ $(readlink "$fd" 2>/dev/null) == "$work"/* ]]; then
        kill -KILL "${d#/proc/}" 2>/dev/null || true
        break
      fi
    done
  done
}
stop_all() {
  # Cancel what is left in the queue first, so that no job step outlives the daemons.
  if alive "$sdir/slurmctld.pid" slurmctld && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    scancel --quiet --user=root 2>/dev/null || true
    local i
    for ((i = 0; i < 30; i++)); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
  fi
  stop_pidfile "$sdir/slurmd.pid" slurmd
  stop_pidfile "$sdir/slurmctld.pid" slurmctld
  stop_stepds
  stop_pidfile "$mdir/munged.pid" munged
}
show_logs() {
  local f
  for f in "$sweep"/slurm-results/logs/*.out "$mdir/munged.log" "$sdir/slurmctld.log" "$sdir/slurmd.log"; do
    [ -f "$f" ] || continue
    echo "----- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}
on_exit() {
  local rc=$?
  trap - EXIT
  [ $rc = 0 ] || show_logs
  stop_all
  exit "$rc"
}

# A previous run killed before its trap ran may have left its daemons: stop them, then start afresh.
stop_all
rm -rf "$sdir" "$mdir" "$sweep"
trap on_exit EXIT
trap 'fail "interrupted by a signal"' INT TERM HUP

# --- munge: a private munged on its own socket and key --------------------------------------------
# munged wants the socket's folder open to all (clients connect there) and the key's folder closed.
mkdir "$mdir" "$mdir/key"
head -c 1024 /dev/urandom > "$mdir/key/munge.key"
chown -R munge:munge "$mdir"
chmod 755 "$mdir"
chmod 700 "$mdir/key"
chmod 400 "$mdir/key/munge.key"
runuser -u munge -- /usr/sbin/munged --socket="$socket" --key-file="$mdir/key/munge.key" \
  --pid-file="$mdir/munged.pid" --log-file="$mdir/munged.log" --seed-file="$mdir/munged.seed" ||
  fail "munged did not start"
munge -S "$socket" -n | unmunge -S "$socket" | grep -q 'STATUS: *Success' ||
  fail "munge -n | unmunge does not say Success on $socket"

# --- Slurm: one node, no cgroups, ports nobody listens on -------------------------------------------
# Two free ports below the ephemeral range (an existing Slurm uses 6817/6818 or its own choice).
read -r ctld_port slurmd_port < <(/usr/bin/env python3 - <<'EOF'
import socket
free = []
for port in range(16817, 17817):
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            continue
    free.append(port)
    if len(free) == 2:
        break
print(*free)
EOF
)
[ -n "${slurmd_port:-}" ] || fail "found no two free TCP ports in 16817-17816"
host=$(hostname -s)
# slurmd -C prints this machine's NodeName line (CPUs, sockets, cores, memory) exactly as slurmd will
# register it, so the node cannot be drained for a mismatch.
node=$(slurmd -C 2>/dev/null | grep '^NodeName=') || fail "slurmd -C printed no NodeName line"
mkdir -p "$sdir/state" "$sdir/spool"
cat > "$conf" <<EOF
# Written by tests/scripts/test_slurm_sweep.sh: a private single-node cluster.
ClusterName=dlsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$sdir/state
SlurmdSpoolDir=$sdir/spool
SlurmctldLogFile=$sdir/slurmctld.log
SlurmdLogFile=$sdir/slurmd.log
SlurmctldPidFile=$sdir/slurmctld.pid
SlurmdPidFile=$sdir/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# Finished jobs stay visible to scontrol for 10 minutes: the test reads their exit codes there.
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$conf" || fail "slurmctld did not start"
slurmd -f "$conf" || fail "slurmd did not start"
say "slurmctld on port $ctld_port, slurmd on port $slurmd_port; waiting for node $host"
deadline=$((SECONDS + 60))
while :; do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  [ $SECONDS -lt $deadline ] || fail "node $host not idle after 60 s (sinfo says '${state:-nothing}')"
  sleep 0.5
done

# --- the sweep: 2 policies x 2 loads x 2 seeds = 8 small runs --------------------------------------
mkdir -p "$sweep"
case $repo in *[\"\\]*) fail "the repository path $repo has a quote or backslash: cannot write it into JSON" ;; esac
spec=$sweep/spec.json
cat > "$spec" <<EOF
{"name": "slurm-test",
 "base": {"trace": "$repo/traces/samples/gavel_mix_default.csv",
          "cluster": "$repo/models/clusters/gavel_simulated.json",
          "profiles": "$repo/models/profiles/gavel.json",
          "resample_rate": 3, "resample_jobs": 200, "job_records": false},
 "grid": {"policy": ["fifo", "srtf"], "load_scale": [0.5, 1], "seed": [1, 2]}}
EOF
shards=3
slurm_out=$sweep/slurm-results
ids=$(DLSIM=$dlsim bash "$repo/scripts/slurm/submit_sweep.sh" "$spec" "$slurm_out" "$shards") ||
  fail "submit_sweep.sh failed"
array=$(awk '$1 == "array" {print $2}' <<<"$ids")
merge=$(awk '$1 == "merge" {print $2}' <<<"$ids")
[[ $array =~ ^[0-9]+$ && $merge =~ ^[0-9]+$ ]] || fail "submit_sweep.sh printed no job ids: $ids"
say "submitted array job $array ($shards tasks) and merge job $merge"
deadline=$((SECONDS + 300))
while :; do
  queued=$(squeue -h -o %i) || fail "squeue failed"
  [ -z "$queued" ] && break
  [ $SECONDS -lt $deadline ] || { squeue >&2; fail "jobs still queued or running after 300 s"; }
  sleep 0.5
done

# Every task and the merge job completed with exit 0 (no sacct here: scontrol keeps them MinJobAge).
check_job() {  # JOBID EXPECTED_RECORDS
  local records
  records=$(scontrol -o show job "$1") || fail "scontrol show job $1 failed"
  [ "$(grep -c . <<<"$records")" -eq "$2" ] || fail "job $1: expected $2 records, scontrol shows: $records"
  if grep -v -q 'JobState=COMPLETED .*ExitCode=0:0' <<<"$records"; then
    fail "job $1 did not all complete with exit 0: $(awk '{
      delete f; for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
      id = (f["ArrayTaskId"] != "") ? f["ArrayJobId"] "_" f["ArrayTaskId"] : f["JobId"]
      printf "%s %s exit %s; ", id, f["JobState"], f["ExitCode"] }' <<<"$records")"
  fi
}
check_job "$array" "$shards"
check_job "$merge" 1
for ((t = 0; t < shards; t++)); do
  log=$slurm_out/logs/sweep-${array}_$t.out
  grep -q "^sweep.sbatch: shard $t/$shards exit 0$" "$log" 2>/dev/null || fail "task $t: $log does not report exit 0"
done
for f in index.csv index.json; do [ -f "$slurm_out/$f" ] || fail "the merge job wrote no $f in $slurm_out"; done

# Merging again by hand succeeds and changes nothing.
cp "$slurm_out/index.csv" "$sweep/merge-job-index.csv"
cp "$slurm_out/index.json" "$sweep/merge-job-index.json"
"$dlsim" sweep merge "$spec" --out "$slurm_out" > "$sweep/merge.log" 2>&1 ||
  { cat "$sweep/merge.log" >&2; fail "dlsim sweep merge exited nonzero"; }
cmp -s "$slurm_out/index.csv" "$sweep/merge-job-index.csv" || fail "a second merge changed index.csv"
cmp -s "$slurm_out/index.json" "$sweep/merge-job-index.json" || fail "a second merge changed index.json"

# The same sweep run locally gives the same index, byte for byte.
local_out=$sweep/local-results
"$dlsim" sweep "$spec" --out "$local_out" --jobs 1 > "$sweep/local.log" 2>&1 ||
  { cat "$sweep/local.log" >&2; fail "the local dlsim sweep exited nonzero"; }
for f in index.csv index.json; do
  diff -u "$local_out/$f" "$slurm_out/$f" >&2 || fail "$f differs between the Slurm sweep ($slurm_out) and the local one ($local_out)"
done
diff <(ls "$local_out/runs") <(ls "$slurm_out/runs") >&2 || fail "the two sweeps wrote different run files"
rows=$(($(wc -l < "$slurm_out/index.csv") - 1))
[ "$rows" -eq 8 ] || fail "index.csv has $rows rows, expected 8"
grep -q -v -E -e '^run_id,' -e '^[^,]*,done(,|$)' "$slurm_out/index.csv" && fail "index.csv has runs that are not done"

say "passed: $shards-task array + merge equals the local sweep (8 runs) in $((SECONDS - started)) s"
