#!/usr/bin/env bash
# Prints every Rust function in FILE... longer than MAX lines (default 80), counting its
# signature and its closing brace, and exits 1 if there is one. Relies on rustfmt's layout: a
# function's closing brace is alone on its line at the indentation of its `fn` line.
#
#   MAX=80 scripts/fn-lengths.sh src/analysis/profile.rs src/analysis/profile/**/*.rs
max=${MAX:-80}
awk -v max="$max" '
    FNR == 1 { depth = 0 }
    match($0, /^ *((pub(\([a-z: ]+\))? )?(const )?(async )?(unsafe )?(extern "C" )?fn [A-Za-z_0-9]+)/) {
        indent = match($0, /[^ ]/) - 1
        depth++
        start[depth] = FNR; pad[depth] = indent
        name[depth] = $0; sub(/^.*fn /, "", name[depth]); sub(/[(<].*/, "", name[depth])
    }
    depth > 0 && $0 ~ /^ *\}$/ && (match($0, /[^ ]/) - 1) == pad[depth] {
        len = FNR - start[depth] + 1
        if (len > max) { printf "%s:%d: %s: %d lines\n", FILENAME, start[depth], name[depth], len; bad = 1 }
        longest = len > longest ? len : longest
        depth--
    }
    depth > 0 && $0 ~ /\);$/ && FNR == start[depth] { depth-- }
    END { printf "longest function: %d lines (limit %d)\n", longest, max; exit bad }
' "$@"
