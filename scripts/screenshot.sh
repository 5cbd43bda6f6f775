#!/usr/bin/env bash
# Runs the real tracelens window under Xvfb and writes a PNG of the screen.
# Usage: scripts/screenshot.sh [TRACE[,TRACE...]] [OUT.png] [SECONDS]   (no TRACE: the embedded sample;
#        several comma-separated files open together, each in its tab)
# Needs: xvfb xauth imagemagick (and Mesa's GL/Vulkan drivers), see README.
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-}"
out="${2:-screenshot.png}"
wait_s="${3:-4}"
bin="${TRACELENS_BIN:-target/release/tracelens}"
[ -x "$bin" ] || cargo build --release
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-$(id -u)}"; mkdir -p "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" bash -c '
  IFS=, read -r -a files <<< "$1"
  "$0" "${files[@]}" & pid=$!
  sleep "$3"
  ${XDO:+$XDO}
  import -window root "$2"
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
' "$bin" "$trace" "$out" "$wait_s"
echo "wrote $out"
