#!/usr/bin/env bash
# Opens a trace in the real window under Xvfb with TRACELENS_TIMING=1, waits until it is
# interactive, zooms and pans with xdotool (wheel notches, W/S/A/D, a drag), and prints the
# window's first-paint (the first frame showing trace data: the threads' activity sampled before
# the records are read), timeline (the first frame drawing calls) and interactive times (ms since
# the process started), the frames' UI time (CPU and wall) while zooming and panning (median,
# p99, max), the software rasterizer's CPU time a frame, and the process's peak resident memory.
#
# Usage: scripts/frame-timing.sh [TRACE]
#   No TRACE: a trace of RECORDS records (default 10 000 000) is generated once in $TMPDIR:
#   `tracelens gen --records RECORDS --threads 8 --methods 20000 --seed 1`.
#   SIZE=WxH (default 1600x1000) sets the screen; LOG=FILE keeps the timing lines; WAIT=S (default
#   60) is how long to wait for the trace to become interactive before zooming all the same.
# Needs: xvfb xauth xdotool (and Mesa's GL drivers), see README.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${TRACELENS_BIN:-target/release/tracelens}"
[ -x "$bin" ] || cargo build --release
trace="${1:-}"
if [ -z "$trace" ]; then
  records="${RECORDS:-10000000}"
  trace="${TMPDIR:-/tmp}/tracelens-timing-$records.trace"
  [ -s "$trace" ] || "$bin" gen --records "$records" --threads 8 --methods 20000 --seed 1 -o "$trace"
fi
size="${SIZE:-1600x1000}"
log="${LOG:-$(mktemp)}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-$(id -u)}"; mkdir -p "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
# A fresh settings store: no remembered window size or zoom.
export XDG_DATA_HOME; XDG_DATA_HOME=$(mktemp -d)
export TRACELENS_TIMING=1
xvfb-run -a -s "-screen 0 ${size}x24 -nolisten tcp" bash -c '
  bin=$1 trace=$2 log=$3 size=$4 wait=$5
  "$bin" "$trace" 2> "$log" & pid=$!
  w=$(timeout 60 xdotool search --sync --name "tracelens" | head -1)
  xdotool windowmove "$w" 0 0 windowsize "$w" "${size%x*}" "${size#*x}"
  xdotool windowfocus "$w" 2>/dev/null || true
  for _ in $(seq $(( wait * 10 ))); do grep -q "^timing: interactive" "$log" && break; sleep 0.1; done
  sleep 1
  # (The app writes the log from its own offset: the cut goes to a file beside it.)
  wc -l < "$log" > "$log.cut"
  # The software renderer (Mesa llvmpipe/lavapipe) rasterizes on threads of its own, after the
  # frame: their CPU time over the interaction, divided by its frames, is what a frame costs it.
  renderer_ticks() { cat /proc/$pid/task/*/stat 2>/dev/null | awk "/\(llvmpipe/ { s += \$14 + \$15 } END { print s + 0 }"; }
  renderer_ticks > "$log.renderer"
  # The pointer over the timeline rows (the upper part of the window, right of the labels).
  xdotool mousemove $(( ${size%x*} / 2 )) 160
  for _ in $(seq 8); do xdotool click 4; sleep 0.15; done
  for _ in $(seq 6); do xdotool key d; sleep 0.15; done
  for _ in $(seq 4); do xdotool key w; sleep 0.15; done
  for _ in $(seq 6); do xdotool key a; sleep 0.15; done
  for _ in $(seq 12); do xdotool click 5; sleep 0.15; done
  xdotool mousedown 1; for x in $(seq 0 40 400); do xdotool mousemove $(( ${size%x*} / 2 - x )) 160; sleep 0.05; done; xdotool mouseup 1
  for _ in $(seq 4); do xdotool key s; sleep 0.15; done
  sleep 1
  renderer_ticks >> "$log.renderer"
  grep VmHWM /proc/$pid/status >> "$log"
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
' _ "$bin" "$trace" "$log" "$size" "${WAIT:-60}"
python3 - "$log" "$trace" <<'EOF'
import os, sys
log, trace = sys.argv[1], sys.argv[2]
lines = open(log).read().splitlines()
def first(name):
    v = [float(l.split()[2]) for l in lines if l.startswith(f"timing: {name} ")]
    return f"{v[0]:.0f} ms" if v else "never"
cut = int(open(log + ".cut").read())
def after_cut(name):
    return sorted(float(l.split()[2]) for l in lines[cut:] if l.startswith(f"timing: {name} "))
frames, walls, whole = after_cut("frame"), after_cut("frame-wall"), after_cut("whole-frame")
peak = [int(l.split()[1]) for l in lines if l.startswith("VmHWM:")]
size = os.path.getsize(trace)
print(f"trace        {trace} ({size / 1e6:.1f} MB)")
print(f"first-paint  {first('first-paint')}")
print(f"timeline     {first('timeline')}")
print(f"interactive  {first('interactive')}")
def stats(v):
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))]
    return f"{len(v)} frames, median {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms, max {v[-1]:.1f} ms"
if frames:
    print(f"UI work      {stats(frames)} (CPU time, while zooming and panning)")
if walls:
    print(f"UI work wall {stats(walls)}")
if whole:
    print(f"whole frame  {stats(whole)} (UI, tessellation and rendering)")
ticks = [int(v) for v in open(log + ".renderer").read().split()]
if frames and len(ticks) == 2:
    per_frame = (ticks[1] - ticks[0]) * 1000 / os.sysconf("SC_CLK_TCK") / len(frames)
    print(f"renderer     {per_frame:.0f} ms CPU a frame (the software rasterizer's threads, mean)")
if peak:
    print(f"peak RSS     {peak[0] / 1024:.0f} MiB = {peak[0] * 1024 / size:.2f}x the file")
EOF
