#!/usr/bin/env bash
# Runs a command with Node 24 (the Lambda runtime, nodejs24.x) first on PATH. When the machine's
# node is older, Node 24 is installed once from the npm registry (the node-linux-<arch> package
# ships the official binary) into a cache folder. Usage: bash tools/with-node24.sh npm test
set -euo pipefail
want=24
have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$have" -lt "$want" ]; then
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "with-node24: no Node $want package for $(uname -m); install Node $want yourself" >&2; exit 2 ;;
  esac
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/cloudforet-export/node$want-$arch"
  bin="$dir/node_modules/node-linux-$arch/bin"
  if [ ! -x "$bin/node" ]; then
    echo "with-node24: node $have is older than $want; installing node-linux-$arch@$want into $dir" >&2
    npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$dir" "node-linux-$arch@$want" &
    npm_pid=$!
    # npm --silent says nothing for the 10-20 s of the download: a line every 5 s says it goes on,
    # timed by the wall clock (EPOCHREALTIME, bash 5) so a slow loop never stretches the silence.
    now_us() { local t=${EPOCHREALTIME:-$SECONDS.000000}; echo "${t//[.,]/}"; }
    started=$(now_us)
    next=5
    while kill -0 "$npm_pid" 2>/dev/null; do
      sleep 0.2
      waited=$((($(now_us) - started) / 1000000))
      if [ "$waited" -ge "$next" ] && kill -0 "$npm_pid" 2>/dev/null; then
        echo "with-node24: still installing Node $want from the npm registry (${waited} s)" >&2
        next=$((next + 5))
      fi
    done
    wait "$npm_pid"
  fi
  export PATH="$bin:$PATH"
fi
exec "$@"
