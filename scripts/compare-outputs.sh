#!/usr/bin/env bash
# Runs the commands whose output must not change over FILE... with two tracelens binaries and
# compares each command's stdout (md5), exit code and stderr. Prints every difference and a
# count; exits 1 when any output differs.
#
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN FILE...
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 OLD_BIN NEW_BIN FILE..." >&2
    exit 2
fi
old=$1 new=$2
shift 2
commands=(
    "profile"
    "profile --html"
    "profile --clock cpu"
    "profile --range 1.."
    "profile --transform collapse-recursion:*"
    "profile --compensate --overhead-ns 700"
    "summary --json"
    "summary --json --compensate --overhead-ns 700"
    "diff @ @"
    "graph -o /dev/stdout"
)
# One command's result: md5 of stdout, exit code, md5 of stderr.
run() {
    local bin=$1 file=$2 cmd=$3
    local words=(${cmd//@/$file})
    local err
    err=$(mktemp)
    local out rc
    # The command's file goes after the subcommand unless the command names it already.
    if [[ $cmd == *@* ]]; then
        out=$(timeout 120 "$bin" "${words[@]}" 2>"$err" | md5sum)
        rc=${PIPESTATUS[0]}
    else
        out=$(timeout 120 "$bin" "${words[0]}" "$file" "${words[@]:1}" 2>"$err" | md5sum)
        rc=${PIPESTATUS[0]}
    fi
    echo "${out%% *} rc=$rc err=$(md5sum <"$err" | cut -c1-32)"
    rm -f "$err"
}
compared=0 differing=0
for file in "$@"; do
    for cmd in "${commands[@]}"; do
        a=$(run "$old" "$file" "$cmd")
        b=$(run "$new" "$file" "$cmd")
        compared=$((compared + 1))
        if [ "$a" != "$b" ]; then
            differing=$((differing + 1))
            echo "DIFF $file: $cmd: old $a, new $b"
        fi
    done
done
echo "$compared comparisons, $differing differences"
[ "$differing" -eq 0 ]
