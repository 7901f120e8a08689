#!/usr/bin/env bash
# Submits robostats.sbatch as a job array sized from the paths file.
#
#   scripts/slurm/submit.sh PATHS OUT [PREFIX]
#
# Environment:
#   FILES_PER_TASK  inputs per array task (default 20); the shard count is
#                   ceil(inputs / FILES_PER_TASK)
#   SHARDS          the shard count itself, instead of FILES_PER_TASK
#   MAX_RUNNING     tasks running at once (--array=0-N%K; default: no limit)
#   ARRAY           only these indices (ARRAY=7,12: resubmit failed tasks;
#                   the shard count stays the one above)
#   SBATCH_ARGS     more sbatch flags (--partition, --time, --mem, --wait...)
# Prints the job id. The array indices are the shard indices, 0 to
# shards - 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 PATHS OUT [PREFIX]" >&2
    exit 2
fi
paths=$1

# Inputs, counted as robostats counts them: blank lines and # comments
# are not inputs.
count_inputs() {
    if [ "$(head -c2 "$1" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
        gzip -dc "$1"
    else
        cat "$1"
    fi | grep -cvE '^[[:space:]]*(#|$)' || true
}
inputs=$(count_inputs "$paths")
if [ "$inputs" -eq 0 ]; then
    echo "submit: no inputs in $paths" >&2
    exit 2
fi
shards=${SHARDS:-$(( (inputs + ${FILES_PER_TASK:-20} - 1) / ${FILES_PER_TASK:-20} ))}
array="${ARRAY:-0-$((shards - 1))}${MAX_RUNNING:+%$MAX_RUNNING}"
echo "submit: $inputs inputs in $shards shards (--array=$array)" >&2
# shellcheck disable=SC2086 # word splitting of SBATCH_ARGS is intended
exec sbatch --parsable --array="$array" --export="ALL,ROBOSTATS_SHARDS=$shards" ${SBATCH_ARGS:-} \
    "$here/robostats.sbatch" "$@"
