#!/usr/bin/env bash
# Runs every test of the workspace: unit tests, scenario tests, GPU tests on lavapipe (or the
# machine's GPU) and the windowed test. Installs what is missing first (tools/setup.sh) and,
# where there is no display, starts Xvfb for the windowed test and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh

xvfb_pid=""
stop_xvfb() {
  if [ -n "$xvfb_pid" ]; then
    kill "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
  fi
}
trap stop_xvfb EXIT

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  if ! command -v Xvfb >/dev/null 2>&1; then
    echo "test: no display and no Xvfb; the windowed test will fail (install xvfb)" >&2
  else
    # The first free display number from :90 on.
    number=90
    while [ -e "/tmp/.X11-unix/X$number" ] || [ -e "/tmp/.X$number-lock" ]; do
      number=$((number + 1))
    done
    Xvfb ":$number" -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 1 50); do
      [ -e "/tmp/.X11-unix/X$number" ] && break
      sleep 0.1
    done
    export DISPLAY=":$number"
    echo "test: started Xvfb on $DISPLAY (pid $xvfb_pid)" >&2
  fi
fi

cargo test --workspace --locked "$@"
