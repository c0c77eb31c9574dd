#!/usr/bin/env bash
# Installs what the package needs, inside its folder (its home: warpstart.mjs), part by part,
# and only what changed since the last run. Safe to run again and again; nothing outside that
# folder is touched (npm and pip keep their usual download caches), but in this repository the
# workspace's node_modules.
#
#   bash scripts/setup.sh [PART...]      default: base arm64, what `sam build`, the lab and the bench need
#
#   base       Node 22 and npm 10 (tools/node22), the Python venv (.venv: SAM CLI, moto, gunicorn), the
#              npm dependencies built for Node 22 (node_modules, published/, emulation/runtime/)
#   arm64      what runs Lambda's arm64 on this machine: qemu-aarch64 with the arm64 C libraries (tools/arm64)
#              on an x86-64 one, and Lambda's arm64 Node 22 (tools/node22-arm64: Warp's arm64 code cache)
#   runtimes-arm64  the Linux arm64 Deno and Bun of the custom runtimes' layers (tools/lambda-arm64), and qemu
#   nodeN      Node N for this machine (tools/nodeN: N is 18, 20 or 24), what the lab runs nodejsN.x with
#   nodeN-arm64  Lambda's arm64 Node N (tools/nodeN-arm64, N is 18, 20 or 24) and qemu: Warp's arm64 code
#              cache of nodejsN.x functions
#   sdk-oldest the oldest AWS SDK release the package supports (tools/sdk-oldest), which the tests build against
#   runtimes   the custom runtimes of the runtime matrix on this machine: Deno and Bun (tools/runtimes)
#   hyperfine  Debian's hyperfine (tools/hyperfine), for the bench's process-start comparison
#   artillery  Artillery (load_test/node_modules), for the load tests
#   all        every part
#
# The commands install what they need themselves: `npm run bench` the default parts, `npm test` those
# and node24 and sdk-oldest, `npm run test:slow` all; the lab adds a runtime's part the first time it runs a
# function on it, a Warp build the arm64 Node of its runtime, `npm run load` artillery; the bench's --runtimes asks for hyperfine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# One install at a time: commands started together (sam build --parallel runs a build per function)
# wait for the first to finish, then find it done.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$root/.setup.lock"
  flock 9
fi

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(base arm64)
wanted() { local part; for part in "${parts[@]}"; do [ "$part" = "$1" ] || [ "$part" = all ] && return 0; done; return 1; }
for part in "${parts[@]}"; do
  case "$part" in base | arm64 | node18 | node20 | node24 | node18-arm64 | node20-arm64 | node24-arm64 | sdk-oldest | runtimes | runtimes-arm64 | hyperfine | artillery | all) ;;
    *) die "unknown part \"$part\": the parts are base, arm64, node18, node20, node24, node18-arm64, node20-arm64, node24-arm64, sdk-oldest, runtimes, runtimes-arm64, hyperfine, artillery and all" ;; esac
done

# Re-run a step only when the files it installs from changed (or it never finished).
stamp_ok() { [ -f "$1/.warpstart-stamp" ] && [ "$(cat "$1/.warpstart-stamp")" = "$2" ]; }
stamp_write() { printf '%s' "$2" >"$1/.warpstart-stamp"; }
digest() { cat "$@" | sha256sum | cut -d' ' -f1; }
# What a folder weighs once installed, for the line that says so.
size_of() { du -sh "$@" 2>/dev/null | awk '{ sub("^" root "/", "", $2); total = total ", " $2 " " $1 } END { sub(/^, /, "", total); print total }' root="$root"; }

# 0. Prerequisites, each checked before anything long starts: one line naming what is missing and
#    how to install it.
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed. $2"; }
need npm "Install Node.js (any version >= 18) with npm; the project fetches its own Node 22 and npm 10."
if wanted base; then
  need python3 "Install Python 3.9-3.13 (Debian: apt-get install python3 python3-venv)."
  python3 -c 'import ensurepip, venv' 2>/dev/null || die "python3's venv module cannot make a venv with pip (Debian: apt-get install python3-venv)."
  need make "Install make (Debian: apt-get install make); SAM's makefile builder runs it."
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || die "no C++ compiler: the runtime interface client is a native addon (Debian: apt-get install g++)."
  [ "$(uname -s)" != Linux ] || command -v setpriv >/dev/null 2>&1 || die "setpriv is not installed: it ends the lab's processes with their owner (Debian: apt-get install util-linux)."
fi

# Node 22 and the npm that installs everything else, from the npm registry, pinned in
# tools/node22/package-lock.json (the machine's own npm only bootstraps them). Every part uses it.
node_dir="$root/tools/node22/node_modules"
want="$(digest tools/node22/package.json tools/node22/package-lock.json)"
if ! stamp_ok "$root/tools/node22" "$want" || [ ! -x "$node_dir/.bin/node" ]; then
  say "installing Node $(sed -n 's/.*"node": "\(.*\)".*/\1/p' tools/node22/package.json) and npm into tools/node22"
  npm ci --prefix tools/node22 --no-audit --no-fund --loglevel=error >&2
  stamp_write "$root/tools/node22" "$want"
  say "installed: $(size_of tools/node22)"
fi
node_bin="$(cd "$node_dir/.bin" && pwd)"
# Native addons (the runtime interface client, Artillery's unix-dgram) must match Node 22's ABI: they
# are compiled against the headers its platform package ships (include/node), not the machine's Node's.
node_headers=""
for candidate in "$node_dir"/node/node_modules/node-*/; do
  [ -d "$candidate/include/node" ] && node_headers="${candidate%/}"
done
[ -n "$node_headers" ] || die "Node headers not found under $node_dir/node; delete tools/node22/node_modules and run again."
export PATH="$node_bin:$PATH" npm_config_nodedir="$node_headers"

if wanted base; then
  # The Python venv: SAM CLI, moto and gunicorn, pinned in requirements.txt.
  want="$(digest requirements.txt)"
  if ! stamp_ok "$root/.venv" "$want" 2>/dev/null || [ ! -x .venv/bin/sam ]; then
    say "creating the Python venv .venv (aws-sam-cli, moto, gunicorn; about a minute)"
    python3 -m venv .venv || die "python3 -m venv failed (Debian: apt-get install python3-venv)."
    .venv/bin/python -m pip install --quiet --upgrade pip >&2
    .venv/bin/python -m pip install --quiet -r requirements.txt >&2
    stamp_write "$root/.venv" "$want"
    say "installed: $(size_of .venv)"
  fi

  # npm dependencies, installed by Node 22, then the SDK trees (scripts/sync-sdk-trees.mjs):
  # published/ (the SDK bundled for an app that installs none) and emulation/runtime/<runtime>/
  # (each managed runtime's client and SDK copy). In this repository the package is a workspace of the demo app: `npm ci` there installs
  # both, and its `dependencies` script first brings the trees' manifests in step with its lockfile.
  # Elsewhere (the package's home, warpstart.mjs) what the package's code imports, as
  # tools/dependencies pins it (node_modules is a link to its tree), then the SDK trees as their
  # lockfiles pin them.
  workspace="$(cd "$root/../.." && pwd)"
  if [ -f "$workspace/package.json" ] && grep -q '"packages/warpstart"' "$workspace/package.json"; then
    npm_dir="$workspace"
  else
    npm_dir=""
  fi
  npm_inputs() { digest package.json tools/dependencies/package-lock.json ${npm_dir:+"$npm_dir/package.json" "$npm_dir/package-lock.json"} published/package.json published/package-lock.json emulation/runtime/*/package.json emulation/runtime/*/package-lock.json; }
  if ! stamp_ok "$root/node_modules" "$(npm_inputs)" 2>/dev/null; then
    [ -n "$npm_dir" ] && mkdir -p "$root/node_modules"
    if [ -n "$npm_dir" ]; then
      say "installing npm dependencies with Node $(node --version) in $npm_dir (node_modules, the SDK trees; about two minutes)"
      (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed (see above)."
    else
      say "installing the package's npm dependencies and the SDK trees with Node $(node --version) (about a minute)"
      npm ci --prefix tools/dependencies --no-audit --no-fund --loglevel=error >&2 || die "npm ci of the package's dependencies (tools/dependencies) failed (see above)."
      ln -sfn tools/dependencies/node_modules node_modules
      node scripts/sync-sdk-trees.mjs >&2 || die "installing the SDK trees failed (see above)."
    fi
    # After the install: the sync may have rewritten the manifests it follows.
    stamp_write "$root/node_modules" "$(npm_inputs)"
    say "installed: $(size_of ${npm_dir:+"$npm_dir/node_modules"} tools/dependencies/node_modules published/node_modules emulation/runtime/*/node_modules)"
  fi
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
    # A package's links into files of packages not fetched (its docs) dangle: `sam build --cached`
    # reads every file under a CodeUri of `.` and stops at the first it cannot open.
    find "$into" -xtype l -delete
    rm -rf "$scratch"
  else
    rm -rf "$scratch"
    return 1
  fi
}
can_fetch_debs() { command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; }

# A pinned tree of the npm registry's packages (a Node, a runtime's binaries), installed as its
# lockfile says when it changed or never finished: npm_tree DIR WHAT [NPM OPTION...]
npm_tree() {
  local dir="$1" what="$2"
  shift 2
  local want
  want="$(digest "$dir/package.json" "$dir/package-lock.json")"
  if ! stamp_ok "$root/$dir" "$want" || [ ! -d "$dir/node_modules" ]; then
    say "installing $what into $dir"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error "$@" >&2
    stamp_write "$root/$dir" "$want"
    say "installed: $(size_of "$dir")"
  fi
}
# Lambda's Linux arm64 binaries: npm installs them only when told that platform.
arm64_tree() { npm_tree "$1" "$2" --cpu=arm64 --os=linux --libc=glibc; }

# What runs Lambda's arm64 Node on an x86-64 host: qemu-aarch64 (Debian's qemu-user-static: one
# static binary) and the arm64 C libraries Node links to, into tools/arm64 (qemu's -L root). An
# arm64 host runs it as it is.
arm64_emulation() {
  if [ "$(uname -m)" = x86_64 ] && [ ! -x tools/arm64/qemu-aarch64-static ]; then
    can_fetch_debs || die "Warp's code cache for arm64 functions needs qemu-aarch64 on this x86-64 machine: install Debian's qemu-user-static (or build on an arm64 machine)."
    say "fetching Debian's qemu-user-static and arm64 libc6, libstdc++6, libgcc-s1 into tools/arm64"
    scratch_qemu="$(mktemp -d)"
    if fetch_debs "$scratch_qemu" -- qemu-user-static && fetch_debs tools/arm64/sysroot -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -- libc6 libstdc++6 libgcc-s1; then
      mv "$scratch_qemu/usr/bin/qemu-aarch64-static" tools/arm64/qemu-aarch64-static
      rm -rf "$scratch_qemu"
      say "installed: $(size_of tools/arm64)"
    else
      rm -rf "$scratch_qemu" tools/arm64
      die "could not fetch qemu-user-static and the arm64 C libraries from Debian's archive (see above): Warp's arm64 code cache needs them."
    fi
  fi
}

version_in() { sed -n 's/.*"node\(-linux-arm64\)\{0,1\}": "\(.*\)".*/\2/p' "$1/package.json"; }
if wanted arm64; then
  arm64_tree tools/node22-arm64 "Lambda's arm64 Node $(version_in tools/node22-arm64) (Warp's arm64 code cache)"
  arm64_emulation
fi
# Only a custom runtime's layer ships them: an app of Node functions never downloads them.
if wanted runtimes-arm64; then
  arm64_tree tools/lambda-arm64 "Linux arm64 Deno and Bun (the custom runtimes' layers)"
  arm64_emulation
fi
# Each managed runtime's Node but nodejs22.x's (base): for this machine, and Lambda's arm64 one.
for major in 18 20 24; do
  if wanted "node$major"; then
    npm_tree "tools/node$major" "Node $(version_in "tools/node$major") (nodejs$major.x in the lab)"
  fi
  if wanted "node$major-arm64"; then
    arm64_tree "tools/node$major-arm64" "Lambda's arm64 Node $(version_in "tools/node$major-arm64") (Warp's arm64 code cache of nodejs$major.x functions)"
    arm64_emulation
  fi
done

if wanted sdk-oldest; then
  npm_tree tools/sdk-oldest "the oldest AWS SDK release the package supports (the tests build against it)"
fi

# Deno and Bun for this machine, the same versions as tools/lambda-arm64's.
if wanted runtimes; then
  npm_tree tools/runtimes "Deno and Bun (the runtime matrix's custom runtimes)"
fi

if wanted hyperfine && ! command -v hyperfine >/dev/null 2>&1 && [ ! -x tools/hyperfine/usr/bin/hyperfine ]; then
  can_fetch_debs || die "hyperfine is not installed: the bench's --runtimes needs it (Debian: apt-get install hyperfine)."
  say "fetching Debian's hyperfine into tools/hyperfine"
  fetch_debs tools/hyperfine -- hyperfine || die "could not fetch hyperfine from Debian's archive (see above); the bench's --runtimes needs it."
fi

if wanted artillery; then
  # Artillery, in its own tree: it is large, and would otherwise download a browser it does not need here.
  want="$(digest load_test/package.json load_test/package-lock.json)"
  if ! stamp_ok "$root/load_test/node_modules" "$want" 2>/dev/null; then
    say "installing Artillery into load_test (about a minute)"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix load_test --no-audit --no-fund --loglevel=error >&2 ||
      die "npm ci in load_test failed (see above)."
    stamp_write "$root/load_test/node_modules" "$want"
    say "installed: $(size_of load_test/node_modules)"
  fi
fi
