#!/usr/bin/env bash
# Fills in ingest-job.yaml and compact-job.yaml: the completions count from
# the paths file, the paths, the prefix, the data set, the image and
# compact's disk.
#
#   scripts/k8s/render.sh --paths P [--upload-paths s3://BUCKET/KEY]
#       [--prefix D] --out s3://BUCKET/PREFIX/ --image IMAGE
#       [--files-per-task N] [--parallelism K] [--compact-disk GIB] DIR
#
# --paths        the paths file: a URL the pods read (s3://, https://), or
#                a local file, which --upload-paths copies to S3 first;
#                counted here (with the aws CLI or curl for a URL)
# --upload-paths where a local paths file is copied to (aws s3 cp) and the
#                pods read it: outside the data set, where their role may
#                read
# --prefix       prepended to its relative paths (default s3://commoncrawl/)
# --out          the data set, s3://BUCKET/PREFIX/
# --image        the container image, with robostats on its PATH
# --files-per-task N  inputs per pod (default 100): the Job's completions
#                (and --shard-count) are ceil(inputs / N)
# --parallelism K  pods at once (default 10)
# --compact-disk GIB  the volume compact downloads the data set to and
#                writes the compacted one on (default: 2 GiB per 1,000
#                inputs, 10 at least: twice the largest data set measured,
#                0.95 GB per million captures, at 1,000 captures a file)
#
# Writes DIR/ingest.yaml and DIR/compact.yaml, and says the count on
# standard error. Then:
#   kubectl apply -f DIR/ingest.yaml
#   kubectl wait --for=condition=complete --timeout=24h job/robostats-ingest
#   kubectl apply -f DIR/compact.yaml
set -euo pipefail
# shellcheck source=../cluster-lib.sh
. "$(dirname "$0")/../cluster-lib.sh"

usage() {
    sed -n '6,8p' "$0" | sed 's/^# *//' >&2
    exit 2
}
paths='' upload='' prefix=s3://commoncrawl/ out='' image='' files_per_task=100 parallelism=10 disk='' dir=''
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage ;;
        -*) [ $# -ge 2 ] || usage ;;
        *) [ -z "$dir" ] || usage; dir=$1; shift; continue ;;
    esac
    case $1 in
        --paths) paths=$2 ;;
        --upload-paths) upload=$2 ;;
        --prefix) prefix=$2 ;;
        --out) out=$2 ;;
        --image) image=$2 ;;
        --files-per-task) files_per_task=$2 ;;
        --parallelism) parallelism=$2 ;;
        --compact-disk) disk=$2 ;;
        *) echo "render.sh: unknown option $1" >&2; usage ;;
    esac
    shift 2
done
[ -n "$paths" ] && [ -n "$out" ] && [ -n "$image" ] && [ -n "$dir" ] || usage
check_counts "$files_per_task" "$parallelism" "$disk"
check_cloud_values "$out" "$paths" "$upload" "$prefix" "$image"
inputs=$(inputs_of "$paths")
shards=$(shard_count "$inputs" "$files_per_task" 100000 "an Indexed Job's 100,000 completions")
if [ -z "$disk" ]; then
    disk=$(( (inputs * 2 + 999) / 1000 ))
    disk=$(( disk < 10 ? 10 : disk ))
fi
upload_paths "$paths" "$upload" "$out" false

# The value of a placeholder, as sed's replacement.
value() {
    printf '%s' "$1" | sed 's/[|&]/\\&/g'
}
fill=()
for pair in "SHARDS=$shards" "PARALLELISM=$parallelism" "PATHS=$task_paths" "PREFIX=$prefix" "OUT=$out" \
    "IMAGE=$image" "DISK=${disk}Gi"; do
    fill+=(-e "s|\${${pair%%=*}}|$(value "${pair#*=}")|g")
done
mkdir -p "$dir"
here=$(dirname "$0")
sed "${fill[@]}" "$here/ingest-job.yaml" >"$dir/ingest.yaml"
sed "${fill[@]}" "$here/compact-job.yaml" >"$dir/compact.yaml"
