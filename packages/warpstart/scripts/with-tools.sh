#!/usr/bin/env bash
# Runs a command of this repository with the package's own tools first on PATH (Node 22, the venv's
# sam and gunicorn, node_modules/.bin, hyperfine), after making sure the parts of scripts/setup.sh it
# needs are installed:
#   bash scripts/with-tools.sh [--with PART[,PART...]] COMMAND...   (the default parts, and these)
#   bash scripts/with-tools.sh --parts PART[,PART...] COMMAND...    (only these)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="${WARPSTART_HOME:-$root}"
parts=(base node22-arm64)
if [ "${1:-}" = --with ]; then
  IFS=, read -r -a more <<<"$2"
  parts+=("${more[@]}")
  shift 2
elif [ "${1:-}" = --parts ]; then
  IFS=, read -r -a parts <<<"$2"
  shift 2
fi
bash "$root/scripts/setup.sh" "${parts[@]}"
export PATH="$home/tools/node22/node_modules/.bin:$home/.venv/bin:$root/node_modules/.bin:$home/tools/hyperfine/usr/bin:$PATH"
export SAM_CLI_TELEMETRY=0
exec "$@"
