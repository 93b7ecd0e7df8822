#!/usr/bin/env bash
# Captures frame 3 of a headless run of the world under RenderDoc and checks that the capture
# names every pass of the frame (debug labels) and holds named objects. Needs `renderdoccmd`
# (Debian: apt-get install renderdoc) and a release build (cargo build --release -p blockfall).
# Usage: bash tools/renderdoc-check.sh [PATH-TO-BLOCKFALL] (default target/release/blockfall)
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/release/blockfall}"
command -v renderdoccmd >/dev/null || { echo "renderdoc-check: renderdoccmd not found (apt-get install renderdoc)" >&2; exit 2; }
[ -x "$binary" ] || { echo "renderdoc-check: $binary not built (cargo build --release -p blockfall)" >&2; exit 2; }
binary="$(realpath "$binary")"
folder="$(mktemp -d)"
trap 'rm -rf "$folder"' EXIT
if ! (cd "$folder" && renderdoccmd capture -w -c "$folder/blockfall" "$binary" --headless \
  --frames 5 --renderdoc-capture-frame 3 --width 320 --height 180 \
  --screenshot "$folder/shot.png" >"$folder/run.log" 2>&1); then
  cat "$folder/run.log" >&2
  exit 1
fi
capture="$(ls "$folder"/*.rdc | head -n 1)"
renderdoccmd convert -f "$capture" -o "$folder/capture.xml" -c zip.xml >/dev/null
python3 - "$folder/capture.xml" <<'PY'
import re, sys
xml = open(sys.argv[1]).read()
labels = []
for chunk in re.findall(r'<chunk[^>]*name="vkCmdBeginDebugUtilsLabelEXT"[^>]*>(.*?)</chunk>', xml, re.S):
    found = re.search(r'name="pLabelName"[^>]*>([^<]*)<', chunk)
    if found:
        labels.append(found.group(1))
objects = re.findall(r'<string name="ObjectName"[^>]*>([^<]*)<', xml)
print(f"passes labelled in the captured frame: {', '.join(labels)}")
print(f"objects named: {len(objects)} (e.g. {', '.join(objects[:4])})")
missing = [name for name in ["terrain", "blocks", "pieces", "markers", "hud"] if name not in labels]
if missing or not objects:
    sys.exit(f"renderdoc-check: missing pass labels {missing} or no named objects")
PY
