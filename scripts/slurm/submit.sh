#!/usr/bin/env bash
# Submits robostats.sbatch as job arrays sized from the paths file.
#
#   scripts/slurm/submit.sh --paths P [--prefix D] --out O
#       [--files-per-task N | --shards N] [--max-running K] [--array LIST]
#       [--max-array-size M] [--robostats BIN] [--ingest-flags 'FLAGS']
#       [--dry-run] [-- SBATCH_FLAGS...]
#
# --paths, --prefix, --out  as for robostats ingest
# --files-per-task N  inputs per array task (default 100); the shard count
#                     is ceil(inputs / N)
# --shards N          the shard count itself, instead of --files-per-task
# --max-running K     tasks running at once, over all the arrays (default:
#                     no limit)
# --array LIST        only these shards (--array 7,12 or 3-5: resubmit
#                     failed tasks; the shard count stays the one above)
# --max-array-size M  tasks per array; default: the cluster's MaxArraySize
#                     and SchedulerParameters max_array_tasks, from
#                     `scontrol show config` (1001, Slurm's default, when it
#                     cannot be read)
# --robostats BIN     the binary, when it is not on the compute nodes' PATH
#                     (default: $ROBOSTATS, when set)
# --ingest-flags 'FLAGS'  more flags for every task's ingest, split at
#                     spaces (default: $ROBOSTATS_ARGS): --agents FILE,
#                     --max-requests-per-second R
# --dry-run           print the sbatch commands instead of running them
# SBATCH_FLAGS        more sbatch flags (--partition, --time, --mem, --wait...)
#
# Shard s is task s % M of array s / M (M the tasks per array), which gets
# --shard-offset (s / M) * M: a crawl of more shards than the cluster takes
# in one array is submitted as several. With --max-running, each array
# waits for the one before it (--dependency=afterany), so that no more than
# K tasks run at once. Prints the job IDs joined by ':', as a dependency
# takes them (sbatch --dependency=afterok:$(scripts/slurm/submit.sh ...)).
# The binary and the ingest flags go into the script's own arguments, not
# the environment: --dry-run shows them, and they reach the tasks on a
# cluster that exports nothing of the submitter's (SBATCH_EXPORT=NONE).
set -euo pipefail
# shellcheck source=../cluster-lib.sh
. "$(dirname "$0")/../cluster-lib.sh"

usage() {
    sed -n '4,7p' "$0" | sed 's/^# *//' >&2
    exit 2
}
paths='' prefix='' out='' files_per_task=100 shards='' max_running='' only='' per_array='' dry_run=false
robostats=${ROBOSTATS:-} ingest_flags=${ROBOSTATS_ARGS:-}
while [ $# -gt 0 ]; do
    case $1 in
        --) shift; break ;;
        --dry-run) dry_run=true; shift; continue ;;
        -h|--help) usage ;;
    esac
    [ $# -ge 2 ] || usage
    case $1 in
        --paths) paths=$2 ;;
        --prefix) prefix=$2 ;;
        --out) out=$2 ;;
        --files-per-task) files_per_task=$2 ;;
        --shards) shards=$2 ;;
        --max-running) max_running=$2 ;;
        --array) only=$2 ;;
        --max-array-size) per_array=$2 ;;
        --robostats) robostats=$2 ;;
        --ingest-flags) ingest_flags=$2 ;;
        *) echo "submit: unknown option $1" >&2; usage ;;
    esac
    shift 2
done
[ -n "$paths" ] && [ -n "$out" ] || usage
check_counts "$files_per_task" "$shards" "$max_running" "$per_array"

# Tasks one array may hold: MaxArraySize (task IDs 0 to MaxArraySize - 1),
# and SchedulerParameters' max_array_tasks when it is lower.
cluster_array_size() {
    local config size tasks
    # (scontrol retries for a minute when slurm.conf is missing)
    if ! config=$(timeout 20 scontrol show config 2>/dev/null); then
        echo "submit: could not read the cluster's MaxArraySize (scontrol show config); assuming 1001" >&2
        echo 1001
        return
    fi
    size=$(sed -n 's/^MaxArraySize *= *\([0-9]*\).*/\1/p' <<<"$config")
    tasks=$(sed -n 's/^SchedulerParameters *=.*max_array_tasks=\([0-9]*\).*/\1/p' <<<"$config")
    size=${size:-1001}
    if [ -n "$tasks" ] && [ "$tasks" -lt "$size" ]; then
        size=$tasks
    fi
    if [ "$size" -eq 0 ]; then
        echo "submit: this cluster does not allow job arrays (MaxArraySize = 0)" >&2
        exit 2
    fi
    echo "$size"
}

# The shard indices of --array LIST (IDs, ranges A-B, ranges with a step
# A-B:S), one a line.
expand_array() {
    local item first last step
    for item in ${1//,/ }; do
        if [[ $item =~ ^([0-9]+)(-([0-9]+)(:([1-9][0-9]*))?)?$ ]]; then
            first=${BASH_REMATCH[1]} last=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}} step=${BASH_REMATCH[5]:-1}
            seq "$first" "$step" "$last"
        else
            echo "submit: --array: '$item' is not an index or a range" >&2
            exit 2
        fi
    done
}

inputs=$(inputs_of "$paths")
shards=${shards:-$(( (inputs + files_per_task - 1) / files_per_task ))}
per_array=${per_array:-$(cluster_array_size)}
if [ -n "$only" ]; then
    wanted=$(expand_array "$only" | sort -nu)
    if [ "$(tail -n1 <<<"$wanted")" -ge "$shards" ]; then
        echo "submit: --array $only: the shards are 0 to $((shards - 1))" >&2
        exit 2
    fi
else
    wanted=$(seq 0 $((shards - 1)))
fi

# One array per block of per_array shards that has a wanted shard.
arrays=()
offsets=()
for ((offset = 0; offset < shards; offset += per_array)); do
    ids=$(awk -v lo="$offset" -v n="$per_array" '$1 >= lo && $1 < lo + n { print $1 - lo }' <<<"$wanted")
    [ -n "$ids" ] || continue
    if [ -z "$only" ]; then
        ids="0-$(tail -n1 <<<"$ids")"
    else
        ids=$(paste -sd, <<<"$ids")
    fi
    arrays+=("$ids${max_running:+%$max_running}")
    offsets+=("$offset")
done
echo "submit: $inputs inputs in $shards shards, ${#arrays[@]} array(s) of at most $per_array tasks" >&2

script=("$(dirname "$0")/robostats.sbatch" --paths "$paths")
if [ -n "$prefix" ]; then
    script+=(--prefix "$prefix")
fi
script+=(--out "$out" --shards "$shards")
if [ -n "$robostats" ]; then
    script+=(--robostats "$robostats")
fi
# (after the shard offset, last)
flags=()
if [ -n "$ingest_flags" ]; then
    # shellcheck disable=SC2206 # split at spaces, as documented
    flags=(-- $ingest_flags)
fi
waits=false
for flag in "$@"; do
    if [ "$flag" = --wait ] || [ "$flag" = -W ]; then
        waits=true
    fi
done

jobs=() status=0
for i in "${!arrays[@]}"; do
    command=(sbatch --parsable --array="${arrays[$i]}")
    # With --wait each sbatch returns when its array is done; otherwise
    # the next array waits for this one, so that --max-running holds.
    if [ -n "$max_running" ] && ! $waits && [ "$i" -gt 0 ]; then
        command+=(--dependency="afterany:${jobs[$((i - 1))]}")
    fi
    command+=("$@" "${script[@]}" --shard-offset "${offsets[$i]}" "${flags[@]}")
    if $dry_run; then
        print_command "${command[@]}"
        jobs+=("JOB$i")
        continue
    fi
    echo "submit: --array=${arrays[$i]} (shards from ${offsets[$i]})" >&2
    rc=0
    job=$("${command[@]}") || rc=$?
    if [ -z "$job" ]; then
        exit "$((rc > 0 ? rc : 1))"
    fi
    jobs+=("${job%%;*}")
    status=$((rc > status ? rc : status))
done
if ! $dry_run; then
    (IFS=:; echo "${jobs[*]}")
fi
exit "$status"
