#!/usr/bin/env bash
# Runs the tests with the clock moved ahead (15 months by default) through libfaketime, to prove
# that no test expires as the real clock moves past Cloudforet's 12-month retention.
# Needs faketime (Debian/Ubuntu: apt-get install faketime). Not in CI: the whole suite takes
# about 13 minutes on two cores. Usage: bash tools/test-shifted.sh [vitest args, e.g. a file]
#   SHIFT=+600d bash tools/test-shifted.sh    # another offset (libfaketime's syntax)
set -euo pipefail
shift_by="${SHIFT:-+456d}"
if ! command -v faketime >/dev/null; then
  echo "test-shifted: needs faketime (Debian/Ubuntu: apt-get install faketime)" >&2
  exit 2
fi
real=$(date +%s)
seen=$(faketime -f "$shift_by" bash tools/with-node24.sh node -p 'Math.floor(Date.now() / 1000)')
if [ $((seen - real)) -lt 86400 ] && [ $((real - seen)) -lt 86400 ]; then
  echo "test-shifted: Node does not see the shifted clock (libfaketime not preloaded?)" >&2
  exit 2
fi
echo "test-shifted: clock at $(date -u -d "@$seen" +%F) (real $(date -u +%F))" >&2
exec faketime -f "$shift_by" bash tools/with-node24.sh npx vitest run "$@"
