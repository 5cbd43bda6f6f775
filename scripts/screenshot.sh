#!/usr/bin/env bash
# Runs the real tracelens window under Xvfb and writes a PNG of the screen.
# Usage: scripts/screenshot.sh [TRACE[,TRACE...]] [OUT.png] [SECONDS]   (no TRACE: the embedded sample;
#        several comma-separated files open together, each in its tab)
#        SIZE=WxH (default 1280x800) sets the screen; THEME=dark|light|system starts the window in
#        that theme (from a fresh settings store, so recent files and zoom are the defaults).
# Needs: xvfb xauth imagemagick (and Mesa's GL/Vulkan drivers), see README.
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-}"
out="${2:-screenshot.png}"
wait_s="${3:-4}"
bin="${TRACELENS_BIN:-target/release/tracelens}"
[ -x "$bin" ] || cargo build --release
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-$(id -u)}"; mkdir -p "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
size="${SIZE:-1280x800}"
if [ -n "${THEME:-}" ]; then
  # eframe keeps its store in $XDG_DATA_HOME/tracelens/app.ron: a map of keys to strings.
  export XDG_DATA_HOME; XDG_DATA_HOME=$(mktemp -d)
  mkdir -p "$XDG_DATA_HOME/tracelens"
  theme="$(tr '[:lower:]' '[:upper:]' <<< "${THEME:0:1}")${THEME:1}"
  printf '{"tracelens-settings":"{\\"theme\\":\\"%s\\"}"}\n' "$theme" > "$XDG_DATA_HOME/tracelens/app.ron"
fi
xvfb-run -a -s "-screen 0 ${size}x24 -nolisten tcp" bash -c '
  IFS=, read -r -a files <<< "$1"
  "$0" "${files[@]}" & pid=$!
  sleep "$3"
  # The window fills the screen (there is no window manager to do it).
  w=$(xdotool search --sync --name "tracelens" | head -1)
  xdotool windowmove "$w" 0 0 windowsize "$w" "${4%x*}" "${4#*x}"
  sleep 1.5
  ${XDO:+$XDO}
  import -window root "$2"
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
' "$bin" "$trace" "$out" "$wait_s" "$size"
echo "wrote $out"
