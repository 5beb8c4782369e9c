#!/usr/bin/env bash
# `npm run test:system [-- <area>... | <vitest args>]`: the system tier, or some of its areas.
# An area is a folder of test/system/ (cloudforet, costs, focus, ...): `npm run test:system -- focus
# infra` runs those two folders only. Other arguments (a file, `-t name`, flags) pass to vitest.
# TEST_SYSTEM_DRY_RUN=1 prints the vitest command instead of running it.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
previous=""
for arg in "$@"; do
  # A bare word is an area, unless it is the value of the option before it (`-t name`).
  if [[ "$arg" =~ ^[a-z][a-z0-9-]*$ && ! ( "$previous" == -* && "$previous" != *=* ) ]]; then
    if [ -d "test/system/$arg" ]; then
      args+=("test/system/$arg/")
      previous="$arg"
      continue
    fi
    areas=$(ls test/system | tr '\n' ' ')
    echo "test:system: no area '$arg'; the areas are: ${areas% }" >&2
    exit 2
  fi
  args+=("$arg")
  previous="$arg"
done
if [ -n "${TEST_SYSTEM_DRY_RUN:-}" ]; then
  echo "vitest run --project system ${args[*]}"
  exit 0
fi
exec bash tools/with-node24.sh vitest run --project system "${args[@]}"
