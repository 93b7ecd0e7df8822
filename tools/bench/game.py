#!/usr/bin/env python3
"""The game's frame on screen, measured through scripted headless runs (`blockfall --script`).

Writes three scripts and runs the release binary on each at 1280x720, printing the binary's
summary line (mean frame time, CPU time to play and to record a frame, each pass's GPU time of
the last frame):

  showcase the default world and its showcase, the player at the spawn, 2 s
  blocks   10,000 placed 0.5 m blocks in view (a 100 x 100 floor, on flat ground), 2 s
  pieces   300 single-block pieces falling at once (300 towers of two, the lower blocks broken
           at t = 0.1 s), 2 s

Usage: python3 tools/bench/game.py [PATH-TO-BLOCKFALL [FLAG ...]] (default
target/release/blockfall); the flags go to every run (`--shadows off`).
"""

import json
import os
import subprocess
import sys
import tempfile

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/release/blockfall"
FLAGS = sys.argv[2:]


def showcase():
    return {"duration": 2.0, "report_every": 0}


def blocks():
    floor = [
        {"cell": [x - 50, 0, z + 10], "size": 1, "material": ["Stone", "Bricks", "Planks"][(x + z) % 3]}
        for x in range(100)
        for z in range(100)
    ]
    return {
        "terrain": {"flat": {"height": 0.0}},
        "player": {"feet": [0.0, 0.5, 0.0], "mode": "fly", "pitch_degrees": -30},
        "blocks": floor,
        "duration": 2.0,
        "report_every": 0,
    }


def pieces():
    cells, events = [], []
    for i in range(300):
        x, z = (i % 20) * 4 - 40, (i // 20) * 4 + 12
        cells.append({"cell": [x, -1, z], "material": "Stone"})
        cells.append({"cell": [x, 1, z], "material": "Copper"})
        events.append({"t": 0.1, "break": [x, -1, z]})
    return {
        "terrain": {"flat": {"height": 0.0}},
        "player": {"feet": [0.0, 6.0, -8.0], "mode": "fly", "pitch_degrees": -25},
        "blocks": cells,
        "events": events,
        "duration": 2.0,
        "report_every": 0,
    }


def main():
    with tempfile.TemporaryDirectory() as folder:
        for name, scene in [("showcase", showcase()), ("blocks", blocks()), ("pieces", pieces())]:
            path = os.path.join(folder, name + ".json")
            with open(path, "w") as f:
                json.dump(scene, f)
            run = subprocess.run(
                [BINARY, "--headless", "--width", "1280", "--height", "720", *FLAGS, "--script", path],
                capture_output=True,
                text=True,
            )
            if run.returncode != 0:
                sys.exit(f"{name}: {run.stderr}")
            summary = [line for line in run.stderr.splitlines() if " frames on " in line]
            print(f"{name}: {summary[-1] if summary else run.stderr.strip()}")


if __name__ == "__main__":
    main()
