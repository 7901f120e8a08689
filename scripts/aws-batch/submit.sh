#!/usr/bin/env bash
# Submits robostats to AWS Batch: an array job of ingest children sized
# from the paths file, then the compact job that waits for it.
#
#   scripts/aws-batch/submit.sh --paths P [--upload-paths s3://BUCKET/KEY]
#       [--prefix D] --out s3://BUCKET/PREFIX/ --queue Q [--files-per-task N]
#       [--job-definition NAME] [--compact-job-definition NAME] [--dry-run]
#       [-- SUBMIT_JOB_FLAGS...]
#
# --paths        the paths file: a URL the children read (s3://, https://),
#                or a local file, which --upload-paths copies to S3 first;
#                counted here (with the aws CLI or curl for a URL)
# --upload-paths where a local paths file is copied to (aws s3 cp) and the
#                children read it: outside the data set, where the job role
#                may read (any key of YOUR-BUCKET in job-role-policy.json)
# --prefix       prepended to its relative paths (default s3://commoncrawl/)
# --out          the data set, s3://BUCKET/PREFIX/
# --queue        the job queue
# --files-per-task N  inputs per child (default 100): the array's size is
#                ceil(inputs / N), at least 2 and at most 10,000 (Batch's
#                bounds)
# --job-definition, --compact-job-definition  the names ingest.json and
#                compact.json were registered under (default robostats-ingest
#                and robostats-compact, their own names)
# --dry-run      print the aws commands instead of running them
# SUBMIT_JOB_FLAGS  more flags for the array job's submit-job (--tags,
#                --scheduling-priority-override, --timeout...)
#
# The job definitions hold the commands; this script gives them their
# parameters (Ref::paths, Ref::prefix, Ref::out). Child i of the array runs
# `robostats ingest --shard auto`, which reads AWS_BATCH_JOB_ARRAY_INDEX and
# AWS_BATCH_JOB_ARRAY_SIZE: it takes every N-th input, from the i-th. The
# compact job depends on the array job, so it starts once every child has
# succeeded, and fails unrun when one has failed. Prints the two job IDs,
# the array's first.
set -euo pipefail
# shellcheck source=../cluster-lib.sh
. "$(dirname "$0")/../cluster-lib.sh"

usage() {
    sed -n '5,8p' "$0" | sed 's/^# *//' >&2
    exit 2
}
paths='' upload='' prefix=s3://commoncrawl/ out='' queue='' files_per_task=100
definition=robostats-ingest compact_definition=robostats-compact dry_run=false
while [ $# -gt 0 ]; do
    case $1 in
        --) shift; break ;;
        --dry-run) dry_run=true; shift; continue ;;
        -h|--help) usage ;;
    esac
    [ $# -ge 2 ] || usage
    case $1 in
        --paths) paths=$2 ;;
        --upload-paths) upload=$2 ;;
        --prefix) prefix=$2 ;;
        --out) out=$2 ;;
        --queue) queue=$2 ;;
        --files-per-task) files_per_task=$2 ;;
        --job-definition) definition=$2 ;;
        --compact-job-definition) compact_definition=$2 ;;
        *) echo "submit.sh: unknown option $1" >&2; usage ;;
    esac
    shift 2
done
[ -n "$paths" ] && [ -n "$out" ] && [ -n "$queue" ] || usage
check_counts "$files_per_task"
check_cloud_values "$out" "$paths" "$upload" "$prefix"

inputs=$(inputs_of "$paths")
size=$(shard_count "$inputs" "$files_per_task" 10000 "Batch's 10,000 children")
# An array job has 2 children at least: the second then takes no input.
size=$(( size < 2 ? 2 : size ))
upload_paths "$paths" "$upload" "$out" "$dry_run"

exec 3>&1
# Submits a job and prints its ID; under --dry-run prints the command and
# a name for the ID.
submit() {
    local command=(aws batch submit-job --query jobId --output text "$@")
    if $dry_run; then
        print_command "${command[@]}" >&3
        echo "${2^^}-ID"
    else
        "${command[@]}"
    fi
}
ingest=$(submit --job-name robostats-ingest --job-queue "$queue" --job-definition "$definition" \
    --array-properties "size=$size" \
    --parameters "{\"paths\": \"$task_paths\", \"prefix\": \"$prefix\", \"out\": \"$out\"}" "$@")
compact=$(submit --job-name robostats-compact --job-queue "$queue" --job-definition "$compact_definition" \
    --depends-on "jobId=$ingest" --parameters "{\"out\": \"$out\"}")
if ! $dry_run; then
    echo "$ingest"
    echo "$compact"
fi
