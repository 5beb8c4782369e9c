#!/usr/bin/env bash
# Renders every HTML statement under a destination's statements/ folder to a PNG beside it with
# headless Chromium (Debian: apt-get install chromium), to look at them as a reader would.
# Usage: bash tools/render-statements.sh <destination directory> [month YYYY-MM]
set -euo pipefail
dir="${1:?usage: bash tools/render-statements.sh <destination directory> [YYYY-MM]}"
month="${2:-*}"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$browser" ]]; then
  echo "render-statements: no chromium on PATH; install it (apt-get install chromium)" >&2
  exit 2
fi
shopt -s nullglob
pages=("$dir"/statements/billed_month=$month/*.html)
if (( ${#pages[@]} == 0 )); then
  echo "render-statements: no statements under $dir/statements/billed_month=$month/ (run cloudforet-export statements first)" >&2
  exit 2
fi
for page in "${pages[@]}"; do
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1300 \
    --screenshot="${page%.html}.png" "file://$(realpath "$page")" >/dev/null 2>&1
  echo "${page%.html}.png"
done
