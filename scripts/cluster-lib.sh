# What the job submitters of scripts/slurm/, scripts/aws-batch/ and
# scripts/k8s/ share; sourced, not run.

# The inputs of a paths file, counted as robostats counts them: blank lines
# and # comments are not inputs. The file is local, or read with the aws
# CLI (s3://) or curl (http:// and https://); plain or gzip, as
# robostats takes it.
count_inputs() {
    local lines
    if ! lines=$(
        set -o pipefail
        case $1 in
            s3://*) aws s3 cp --quiet "$1" - ;;
            http://* | https://*) curl -sSfL "$1" ;;
            *) cat -- "$1" ;;
        esac | gzip -dcf
    ); then
        echo "${0##*/}: could not read the paths file $1" >&2
        return 2
    fi
    grep -cvE '^[[:space:]]*(#|$)' <<<"$lines" || true
}

# The inputs of the paths file $1, counted, or exit with status 2 when it
# cannot be read or holds none.
inputs_of() {
    local inputs
    inputs=$(count_inputs "$1") || exit 2
    if [ "$inputs" -eq 0 ]; then
        echo "${0##*/}: no inputs in $1" >&2
        exit 2
    fi
    echo "$inputs"
}

# The shard count of $1 inputs at $2 inputs a shard: ceil($1 / $2), said on
# standard error with the inputs. Exits with status 2 when there are more
# shards than $3 (a scheduler's limit, which $4 names).
shard_count() {
    local shards=$(( ($1 + $2 - 1) / $2 ))
    if [ "$shards" -gt "$3" ]; then
        echo "${0##*/}: $1 inputs make $shards shards, more than $4: raise --files-per-task" >&2
        exit 2
    fi
    echo "${0##*/}: $1 inputs in $shards shards" >&2
    echo "$shards"
}

# The paths file as tasks that share no file system read it, in
# task_paths: $1 itself when it is a URL (s3://, http://, https://); a
# local file is copied with the aws CLI to $2 (--upload-paths
# s3://BUCKET/KEY, outside the data set $3) and read from there. With $4
# true (a dry run) the copy is printed, not made.
upload_paths() {
    local paths=$1 upload=$2 out=$3 dry_run=$4
    case $paths in
        s3://* | http://* | https://*)
            if [ -n "$upload" ]; then
                echo "${0##*/}: --upload-paths copies a local paths file; $paths is read where it is" >&2
                exit 2
            fi
            task_paths=$paths
            return
            ;;
    esac
    if [ -z "$upload" ]; then
        echo "${0##*/}: the tasks cannot read the local file $paths: give --upload-paths s3://BUCKET/KEY" \
            "to copy it there (the job role must be allowed to read it), or give its URL" >&2
        exit 2
    fi
    if [[ $upload != s3://?*/?* || $upload == */ ]]; then
        echo "${0##*/}: --upload-paths must be s3://BUCKET/KEY" >&2
        exit 2
    fi
    if [[ $upload == "${out%/}/"* ]]; then
        echo "${0##*/}: --upload-paths must lie outside the data set $out" >&2
        exit 2
    fi
    local command=(aws s3 cp --quiet -- "$paths" "$upload")
    if $dry_run; then
        print_command "${command[@]}"
    elif ! "${command[@]}"; then
        echo "${0##*/}: could not copy $paths to $upload" >&2
        exit 2
    fi
    task_paths=$upload
}

# For the schedulers whose tasks share no file system: exits with status 2
# unless the data set $1 is s3://BUCKET/PREFIX/, and when a value (the
# arguments) holds a quote, a backslash or a line break: they go into JSON
# and YAML strings as they are.
check_cloud_values() {
    if [[ $1 != s3://?*/* ]]; then
        echo "${0##*/}: --out must be s3://BUCKET/PREFIX/: the tasks share no file system" >&2
        exit 2
    fi
    local value
    for value in "$@"; do
        if [[ $value == *[\"\\$'\n']* ]]; then
            echo "${0##*/}: a quote, a backslash or a line break in $value" >&2
            exit 2
        fi
    done
}

# Exits with status 2 unless every argument is empty or a positive whole
# number.
check_counts() {
    local n
    for n in "$@"; do
        if [ -n "$n" ] && ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
            echo "${0##*/}: '$n' is not a positive whole number" >&2
            exit 2
        fi
    done
}

# Prints a command as a shell would take it back: words quoted only when
# they need it, in single quotes when they hold none.
print_command() {
    local words=() word
    for word in "$@"; do
        if [[ $word =~ ^[][A-Za-z0-9_./:=,%+@-]+$ ]]; then
            words+=("$word")
        elif [[ $word != *\'* ]]; then
            words+=("'$word'")
        else
            words+=("$(printf %q "$word")")
        fi
    done
    echo "${words[*]}"
}
