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
