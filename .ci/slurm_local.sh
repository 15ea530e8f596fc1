#!/usr/bin/env bash
# A real single-node Slurm on localhost without systemd (Debian 12), for CI and local testing.
#
#   bash .ci/slurm_local.sh {install|start|stop|restart|status|smoke|all}   (default: all = start + smoke)
#
# install  apt-get the Debian packages, only if one is missing (needs root and the network)
# start    install if needed, write /etc/slurm/slurm.conf, start munged, slurmctld, slurmd as
#          background daemons and wait until the node is idle
# stop     cancel every job, then stop each daemon by the PID in its PID file (never by name)
# status   print which daemons run and what sinfo says
# smoke    srun, a 4-task sbatch array with --wait, a failing job
#
# Knobs (environment): SLURM_LOCAL_DIR (state, spool, logs, PID files; /var/spool/slurm-local),
# SLURM_NODE (node name; `hostname -s` if it resolves, else localhost), SLURM_CONF
# (/etc/slurm/slurm.conf), SLURM_START_TIMEOUT (60 s), SLURM_CPUS (CPUs to advertise; default the
# real count), SLURM_MIN_JOB_AGE (5 s). Accounting (slurmdbd) is not set up: relmc does not need it.
set -euo pipefail

PACKAGES=(slurm-wlm slurmctld slurmd slurm-client munge)
LOCAL_DIR=${SLURM_LOCAL_DIR:-/var/spool/slurm-local}
CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}
START_TIMEOUT=${SLURM_START_TIMEOUT:-60}
MIN_JOB_AGE=${SLURM_MIN_JOB_AGE:-5}
RUN_DIR=$LOCAL_DIR/run
LOG_DIR=$LOCAL_DIR/log
MUNGE_PID=/run/munge/munged.pid
export SLURM_CONF=$CONF

log() { printf '[slurm_local] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

node_name() {
    if [[ -n ${SLURM_NODE:-} ]]; then
        printf '%s\n' "$SLURM_NODE"
        return
    fi
    local short
    short=$(hostname -s 2>/dev/null || true)
    if [[ -n $short ]] && getent hosts "$short" >/dev/null 2>&1; then
        printf '%s\n' "$short"
    else
        printf 'localhost\n'
    fi
}

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            printf '%s\n' "$p"
        fi
    done
}

cmd_install() {
    local missing
    missing=$(missing_packages)
    if [[ -z $missing ]]; then
        log "packages present: ${PACKAGES[*]}"
        return
    fi
    [[ $(id -u) -eq 0 ]] || die "installing packages needs root"
    log "installing: $(echo "$missing" | tr '\n' ' ')"
    apt-get update -q
    # policy-rc.d (if present) keeps the postinsts from starting services; we start them below
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
}

# A process is alive and runs the expected command (zombies count as stopped: PID 1 here is not
# a real init and reaps them about 2 s late).
proc_alive() {
    local pid=$1 comm=$2 state
    [[ -n $pid && -r /proc/$pid/comm ]] || return 1
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || return 1
    state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $state && $state != Z && $state != X ]]
}

read_pid() { tr -dc '0-9' 2>/dev/null <"$1" || true; }

# A PID file names a live process of the expected command.
pid_alive() {
    [[ -f $1 ]] || return 1
    proc_alive "$(read_pid "$1")" "$2"
}

write_config() {
    local node=$1 hw cpus sockets cores threads mem overrides=""
    hw=$(slurmd -C | head -n 1)
    cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
    sockets=$(sed -n 's/.*SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$hw")
    cores=$(sed -n 's/.*CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$hw")
    threads=$(sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$hw")
    mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
    [[ -n $cpus && -n $sockets && -n $cores && -n $threads && -n $mem ]] \
        || die "cannot parse 'slurmd -C': $hw"
    if [[ -n ${SLURM_CPUS:-} && ${SLURM_CPUS} != "$cpus" ]]; then
        [[ $SLURM_CPUS =~ ^[1-9][0-9]*$ ]] || die "SLURM_CPUS must be a positive integer"
        # advertise more CPUs than exist (oversubscribe) so more array tasks run at once
        cpus=$SLURM_CPUS sockets=1 cores=$SLURM_CPUS threads=1
        overrides="SlurmdParameters=config_overrides"
    fi
    mkdir -p "$(dirname "$CONF")" "$LOCAL_DIR/ctld" "$LOCAL_DIR/d" "$LOG_DIR" "$RUN_DIR"
    chown slurm:slurm "$LOCAL_DIR/ctld" "$LOG_DIR" "$RUN_DIR"
    cat >"$CONF.tmp" <<EOF
# written by .ci/slurm_local.sh; overwritten on every start
ClusterName=relmc-ci
SlurmctldHost=$node(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
MailProg=/bin/true
KillWait=5
MinJobAge=$MIN_JOB_AGE
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$LOCAL_DIR/ctld
SlurmdSpoolDir=$LOCAL_DIR/d
SlurmctldPidFile=$RUN_DIR/slurmctld.pid
SlurmdPidFile=$RUN_DIR/slurmd.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
$overrides
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    mv "$CONF.tmp" "$CONF"
    chmod 0644 "$CONF"
}

start_munge() {
    if pid_alive "$MUNGE_PID" munged; then
        log "munged already running"
    else
        mkdir -p /run/munge
        chown munge:munge /run/munge
        chmod 0755 /run/munge
        if [[ ! -f /etc/munge/munge.key ]]; then
            mungekey --create --keyfile=/etc/munge/munge.key
            chown munge:munge /etc/munge/munge.key
            chmod 0400 /etc/munge/munge.key
        fi
        runuser -u munge -- munged --pid-file="$MUNGE_PID"
    fi
    munge -n | unmunge >/dev/null || die "munge self-test failed"
}

print_logs() {
    local f
    for f in "$LOG_DIR"/slurmctld.log "$LOG_DIR"/slurmd.log; do
        [[ -f $f ]] && { log "--- tail $f"; tail -n 30 "$f" >&2; }
    done
    return 0
}

wait_idle() {
    local node=$1 deadline state=""
    deadline=$((SECONDS + START_TIMEOUT))
    while ((SECONDS < deadline)); do
        state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
        if [[ $state == idle || $state == mixed || $state == allocated ]]; then
            log "node $node is $state"
            return 0
        fi
        sleep 0.2
    done
    print_logs
    die "node $node not idle after ${START_TIMEOUT}s (state: '${state}')"
}

cmd_start() {
    cmd_install
    local node
    node=$(node_name)
    if pid_alive "$RUN_DIR/slurmctld.pid" slurmctld && pid_alive "$RUN_DIR/slurmd.pid" slurmd; then
        log "slurmctld and slurmd already running"
        wait_idle "$node"
        return
    fi
    # one of them may be up from an earlier, half-finished start: restart both on one config
    stop_daemons
    write_config "$node"
    start_munge
    slurmctld -c
    slurmd -N "$node"
    wait_idle "$node"
}

# SIGTERM the process in a PID file, wait for it (SIGKILL after 20 s). Never kills by name.
stop_pidfile() {
    local pidfile=$1 comm=$2 pid i
    pid=""
    if [[ -f $pidfile ]]; then pid=$(read_pid "$pidfile"); fi
    if ! proc_alive "$pid" "$comm"; then
        rm -f "$pidfile"
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        proc_alive "$pid" "$comm" || { rm -f "$pidfile"; log "stopped $comm ($pid)"; return 0; }
        sleep 0.2
    done
    log "$comm ($pid) ignored SIGTERM for 20 s; SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}

stop_daemons() {
    stop_pidfile "$RUN_DIR/slurmd.pid" slurmd
    stop_pidfile "$RUN_DIR/slurmctld.pid" slurmctld
}

cmd_stop() {
    if pid_alive "$RUN_DIR/slurmctld.pid" slurmctld; then
        local ids i
        ids=$(squeue -h -o %A 2>/dev/null || true)
        if [[ -n $ids ]]; then
            # shellcheck disable=SC2086  # word splitting of job ids is intended
            scancel $ids 2>/dev/null || true
            # wait (up to 30 s) for the queue to drain so that slurmstepd processes exit
            for ((i = 0; i < 150; i++)); do
                [[ -z $(squeue -h -o %A 2>/dev/null || true) ]] && break
                sleep 0.2
            done
        fi
    fi
    stop_daemons
    stop_pidfile "$MUNGE_PID" munged
}

cmd_status() {
    local d
    for d in "$RUN_DIR/slurmctld.pid:slurmctld" "$RUN_DIR/slurmd.pid:slurmd" "$MUNGE_PID:munged"; do
        if pid_alive "${d%%:*}" "${d##*:}"; then
            echo "${d##*:}: running (pid $(read_pid "${d%%:*}"))"
        else
            echo "${d##*:}: stopped"
        fi
    done
    if pid_alive "$RUN_DIR/slurmctld.pid" slurmctld; then
        sinfo
        squeue
    else
        return 1
    fi
}

cmd_smoke() {
    local tmp out
    tmp=$(mktemp -d)
    out=$(srun -N1 -n1 hostname)
    log "srun hostname -> $out"
    sbatch --wait --quiet --array=0-3 --output="$tmp/arr-%a.out" \
        --wrap 'echo "task $SLURM_ARRAY_TASK_ID"' >/dev/null
    for i in 0 1 2 3; do
        grep -qx "task $i" "$tmp/arr-$i.out" || die "array task $i wrote no output"
    done
    log "sbatch --array=0-3 --wait: ok"
    if sbatch --wait --quiet --output=/dev/null --wrap 'exit 3' >/dev/null 2>&1; then
        die "a failing job reported success"
    fi
    log "failing job reported failure: ok"
    rm -rf "$tmp"
    log "smoke test passed"
}

case ${1:-all} in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    restart) cmd_stop; cmd_start ;;
    status) cmd_status ;;
    smoke) cmd_smoke ;;
    all) cmd_start; cmd_smoke ;;
    *) die "usage: $0 {install|start|stop|restart|status|smoke|all}" ;;
esac
