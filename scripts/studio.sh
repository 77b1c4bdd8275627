#!/usr/bin/env bash
# Sets up (Debian packages), builds and launches the studio on the bundled DAS case-study scenario.
# Without a display (or with --headless) it runs the same scenario file in the CLI (its policies, seeds and
# variants) and prints the comparison table; options after --headless go to `compare` (e.g. --seeds 1,2,3).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
BUILD=${SCHEDSTUDIO_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
SCENARIO=sample-traces/das-case.scenario.json
if [ "${1:-}" != "--headless" ] && [ -x "$BUILD/app/gui/schedstudio" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  # Decision 30: DAS places a job there, so both the priority and the affinity heatmaps have data.
  exec "$BUILD/app/gui/schedstudio" --scenario "$SCENARIO" --run --goto-decision 30 --view heatmaps
fi
echo "(no display or GUI: running the scenario headless: $SCENARIO)"
exec "$BUILD/app/schedstudio-cli" compare --scenario "$SCENARIO" "${@:2}"
