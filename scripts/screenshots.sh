#!/usr/bin/env bash
# Regenerates the view pictures in docs/screenshots/ (view-*.png) from the bundled DAS case study, with a fresh
# settings folder (the default layout) and the offscreen platform, so any change to a view can be looked at.
# Usage: scripts/screenshots.sh [build dir] [decision]      (defaults: build, 30)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
DECISION=${2:-30}
GUI="$BUILD/app/gui/schedstudio"
[ -x "$GUI" ] || { echo "screenshots: $GUI not built (scripts/test.sh builds it)" >&2; exit 1; }
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$cfg"
for view in trace cluster topology stepper heatmaps gantt compare whatif history teaching fork; do
  "$GUI" --scenario sample-traces/das-case.scenario.json --run --goto-decision "$DECISION" --view "$view" \
    --screenshot "docs/screenshots/view-$view.png" 2>/dev/null
  echo "docs/screenshots/view-$view.png"
done
