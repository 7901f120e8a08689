#!/usr/bin/env bash
# A private single-node Slurm cluster, for testing the array script for real.
#
#   scripts/slurm/local-cluster.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm/local-cluster.sh stop DIR
#
# Everything lives under DIR: the configuration, the munge key and socket,
# state, spool, logs and pid files; nothing is written to /etc. The daemons
# (munged, slurmctld, slurmd) bind to 127.0.0.1, run as the current user,
# and are stopped by their pids. Debian's slurm-wlm and munge are installed
# with apt when missing (that needs root). Starting twice is a no-op, and
# so is stopping twice. MAX_ARRAY_SIZE sets the cluster's MaxArraySize
# (default 1001, Slurm's): the largest array task ID is one less.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
host=$(hostname -s)
user=$(id -un)

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

wait_for() { # seconds description command...
    local seconds=$1 what=$2; shift 2
    for _ in $(seq $((seconds * 10))); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    echo "local-cluster: $what did not happen within ${seconds}s; logs in $dir/log" >&2
    tail -n 20 "$dir"/log/*.log >&2 || true
    return 1
}

install_packages() {
    if command -v slurmctld >/dev/null && command -v munged >/dev/null; then
        return
    fi
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "local-cluster: needs Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
}

# Whether something listens on a local TCP port.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

node_idle() { [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; }

start() {
    if pid_alive "$dir/run/slurmctld.pid" && pid_alive "$dir/run/slurmd.pid"; then
        echo "local-cluster: already running" >&2
        echo "export SLURM_CONF=$conf"
        return
    fi
    install_packages
    mkdir -p "$dir"/{munge,run,log,state,spool}
    chmod 700 "$dir/munge"

    # munge: its own key, socket and pid file.
    if [ ! -f "$dir/munge/munge.key" ]; then
        mungekey --create --keyfile="$dir/munge/munge.key"
        chmod 600 "$dir/munge/munge.key"
    fi
    if ! pid_alive "$dir/run/munged.pid"; then
        munged --force --socket="$dir/run/munge.socket" --key-file="$dir/munge/munge.key" \
            --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
            --seed-file="$dir/munge/munge.seed"
    fi
    wait_for 10 "munged start" sh -c "munge -S '$dir/run/munge.socket' -n | unmunge -S '$dir/run/munge.socket'"

    # Two free ports, next to Slurm's usual 6817/6818 but not on them.
    local port=16817
    while listening "$port" || listening $((port + 1)); do
        port=$((port + 2))
    done
    local cpus mem
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
    : >"$dir/plugstack.conf"
    # MinJobAge: finished jobs stay known for 5 s. sbatch --wait polls every
    # 2 s while MinJobAge / 2 <= 2 (longer ages make it back off to 8 s and
    # more), and takes its exit status from the tasks it still finds.
    # batch_sched_delay=0: array tasks start without a 3 s pause per wave.
    cat >"$conf" <<EOF
ClusterName=robostats-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobContainerType=job_container/none
MpiDefault=none
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=5
MaxArraySize=${MAX_ARRAY_SIZE:-1001}
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$conf
    slurmctld -c -i -f "$conf"
    wait_for 20 "slurmctld start" scontrol ping
    slurmd -c -f "$conf" -N "$host"
    wait_for 30 "the node becoming idle" node_idle
    echo "export SLURM_CONF=$conf"
}

stop() {
    export SLURM_CONF=$conf
    if pid_alive "$dir/run/slurmctld.pid"; then
        scancel --user="$user" >/dev/null 2>&1 || true
    fi
    local name pid
    for name in slurmd slurmctld munged; do
        pid_alive "$dir/run/$name.pid" || continue
        pid=$(cat "$dir/run/$name.pid")
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        rm -f "$dir/run/$name.pid"
    done
}

case $cmd in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
