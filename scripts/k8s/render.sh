#!/usr/bin/env bash
# Fills in ingest-job.yaml and compact-job.yaml: the completions count from
# the paths file, the paths, the prefix, the data set and the image.
#
#   scripts/k8s/render.sh --paths P [--prefix D] --out s3://BUCKET/PREFIX/
#       --image IMAGE [--files-per-task N] [--parallelism K] DIR
#
# --paths        the paths file as the pods read it (s3://, https://);
#                counted here with the aws CLI or curl
# --prefix       prepended to its relative paths (default s3://commoncrawl/)
# --out          the data set, s3://BUCKET/PREFIX/
# --image        the container image, with robostats on its PATH
# --files-per-task N  inputs per pod (default 100): the Job's completions
#                (and --shard-count) are ceil(inputs / N)
# --parallelism K  pods at once (default 10)
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
    sed -n '5,6p' "$0" | sed 's/^# *//' >&2
    exit 2
}
paths='' prefix=s3://commoncrawl/ out='' image='' files_per_task=100 parallelism=10 dir=''
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage ;;
        -*) [ $# -ge 2 ] || usage ;;
        *) [ -z "$dir" ] || usage; dir=$1; shift; continue ;;
    esac
    case $1 in
        --paths) paths=$2 ;;
        --prefix) prefix=$2 ;;
        --out) out=$2 ;;
        --image) image=$2 ;;
        --files-per-task) files_per_task=$2 ;;
        --parallelism) parallelism=$2 ;;
        *) echo "render.sh: unknown option $1" >&2; usage ;;
    esac
    shift 2
done
[ -n "$paths" ] && [ -n "$out" ] && [ -n "$image" ] && [ -n "$dir" ] || usage
check_counts "$files_per_task" "$parallelism"
check_cloud_values "$out" "$paths" "$prefix" "$image"
shards=$(shard_count "$paths" "$files_per_task" 100000 "an Indexed Job's 100,000 completions")

# The value of a placeholder, as sed's replacement.
value() {
    printf '%s' "$1" | sed 's/[|&]/\\&/g'
}
fill=()
for pair in "SHARDS=$shards" "PARALLELISM=$parallelism" "PATHS=$paths" "PREFIX=$prefix" "OUT=$out" "IMAGE=$image"; do
    fill+=(-e "s|\${${pair%%=*}}|$(value "${pair#*=}")|g")
done
mkdir -p "$dir"
here=$(dirname "$0")
sed "${fill[@]}" "$here/ingest-job.yaml" >"$dir/ingest.yaml"
sed "${fill[@]}" "$here/compact-job.yaml" >"$dir/compact.yaml"
