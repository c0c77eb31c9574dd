#!/usr/bin/env bash
# Runs a command with the project's own tools first on PATH (Node 22, the venv's sam and
# gunicorn, node_modules/.bin), after making sure they are installed (scripts/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
export PATH="$root/tools/node22/node_modules/.bin:$root/.venv/bin:$root/node_modules/.bin:$root/tools/hyperfine/usr/bin:$PATH"
export SAM_CLI_TELEMETRY=0
exec "$@"
