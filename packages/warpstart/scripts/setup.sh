#!/usr/bin/env bash
# Installs the package's pinned tools, part by part, and only what changed since the last run, in
# its home: WARPSTART_HOME, which the package's commands set (core/paths.mts TOOLS_HOME: the user's
# cache once the package is installed in an app), else the package's own folder (a source checkout).
# Safe to run again and again; nothing outside the home is touched (npm and pip keep their usual
# download caches), but in this repository the workspace's node_modules. Each part says what it
# downloads before it starts, and its size once installed.
#
#   bash scripts/setup.sh [PART...]      default: base node22-arm64, what this repository's commands need
#
#   nodeN      Node N for this machine (tools/nodeN: N is 18, 20, 22 or 24): what the lab runs nodejsN.x
#              with, and a Warp build makes its cache with
#   nodeN-arm64  Lambda's arm64 Node N (tools/nodeN-arm64) and, on an x86-64 machine, qemu-aarch64 with
#              the arm64 C libraries (tools/arm64): Warp's arm64 code cache of nodejsN.x functions
#   sam        SAM CLI in the Python venv (.venv), for a machine whose PATH has none the package supports
#   moto       moto and gunicorn in the Python venv (.venv): the lab's local AWS
#   published  warpstart's own SDK tree (published/: scripts/sync-sdk-trees.mjs), what a build bundles for
#              an app that installs no SDK, and the lab's SDK clients where the app has none
#   runtime-trees  the lab's stand-ins for the managed runtimes (emulation/runtime/<runtime>/: each one's
#              runtime interface client and SDK copy)
#   base       in a source checkout, what its commands run on: node22, sam, moto, and the workspace's
#              npm dependencies with the SDK trees (published, runtime-trees)
#   npm-cache  in a source checkout, npm's records of the package's dependencies, in npm's own cache: what
#              the tests need to install the packed package with npm offline
#   node-oldest the oldest Node the package runs on (tools/node-oldest, its engines' 22.12.0), which the tests run it on once
#   sdk-oldest the oldest AWS SDK release the package supports (tools/sdk-oldest), which the tests build against
#   runtimes   the custom runtimes of the runtime matrix on this machine: Deno and Bun (tools/runtimes)
#   runtimes-arm64  the Linux arm64 Deno and Bun of the custom runtimes' layers (tools/lambda-arm64), and qemu
#   hyperfine  Debian's hyperfine (tools/hyperfine), for the bench's process-start comparison
#   artillery  Artillery (load_test/node_modules), for the load tests
#   all        every part
#
# The commands install what they use themselves (core/tools.mts): `adopt` nothing, a Warp build the
# Node its cache is made for (and for arm64 its Node and qemu), the lab moto, the SDK trees and the
# Node of each runtime it runs, `sam build` SAM CLI where the PATH has none; in this repository
# `npm run bench` the default parts, `npm test` those and node24 and sdk-oldest, `npm run test:slow` all.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="${WARPSTART_HOME:-$root}"
[ -d "$home" ] || mkdir -p "$home"
home="$(cd "$home" && pwd)"
cd "$home"
# One install at a time: commands started together (sam build --parallel runs a build per function)
# wait for the first to finish, then find it done.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$home/.setup.lock"
  flock 9
fi

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(base node22-arm64)
wanted() { local part; for part in "${parts[@]}"; do [ "$part" = "$1" ] || [ "$part" = all ] && return 0; done; return 1; }
PARTS="node18, node20, node22, node24, node18-arm64, node20-arm64, node22-arm64, node24-arm64, sam, moto, published, runtime-trees, base, npm-cache, node-oldest, sdk-oldest, runtimes, runtimes-arm64, hyperfine, artillery and all"
for part in "${parts[@]}"; do
  case "$part" in node18 | node20 | node22 | node24 | node18-arm64 | node20-arm64 | node22-arm64 | node24-arm64 | sam | moto | published | runtime-trees | base | npm-cache | node-oldest | sdk-oldest | runtimes | runtimes-arm64 | hyperfine | artillery | all) ;;
    *) die "unknown part \"$part\": the parts are $PARTS" ;; esac
done
# The parts base stands for.
if wanted base; then parts+=(node22 sam moto published runtime-trees); fi

# Re-run a step only when the files it installs from changed (or it never finished).
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
stamp_write() { printf '%s' "$2" >"$1"; }
digest() { (cd "$root" && cat "$@") | sha256sum | cut -d' ' -f1; }
# What a folder weighs once installed, for the line that says so.
size_of() { du -sh "$@" 2>/dev/null | awk '{ total = total ", " $2 " " $1 } END { sub(/^, /, "", total); print total }'; }
# A folder of the package's whose manifests (package.json, its lockfile, the files beside them) a part
# installs from, placed in the home first when the home is elsewhere: copy_manifests DIR
copy_manifests() {
  [ "$home" = "$root" ] && return 0
  mkdir -p "$home/$1"
  find "$root/$1" -maxdepth 1 -type f -exec cp {} "$home/$1/" \;
}

# 0. Prerequisites, each checked before anything long starts: one line naming what is missing and
#    how to install it.
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed. $2"; }
need npm "Install Node.js (22 or later) with npm."
if wanted sam || wanted moto; then
  need python3 "Install Python 3.9-3.13 (Debian: apt-get install python3 python3-venv)."
  python3 -c 'import ensurepip, venv' 2>/dev/null || die "python3's venv module cannot make a venv with pip (Debian: apt-get install python3-venv)."
fi
if wanted sam; then
  need make "Install make (Debian: apt-get install make); SAM's makefile builder runs it."
fi
if wanted runtime-trees; then
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || die "no C++ compiler: the runtime interface client is a native addon (Debian: apt-get install g++)."
  [ "$(uname -s)" != Linux ] || command -v setpriv >/dev/null 2>&1 || die "setpriv is not installed: it ends the lab's processes with their owner (Debian: apt-get install util-linux)."
fi

version_in() { sed -n 's/.*"node\(-linux-arm64\)\{0,1\}": "\(.*\)".*/\2/p' "$root/$1/package.json"; }

# A pinned tree of the npm registry's packages (a Node, a runtime's binaries), installed as its
# lockfile says when it changed or never finished: npm_tree DIR WHAT [NPM OPTION...]
npm_tree() {
  local dir="$1" what="$2"
  shift 2
  local want
  want="$(digest "$dir/package.json" "$dir/package-lock.json")"
  if ! stamp_ok "$dir/.warpstart-stamp" "$want" || [ ! -d "$dir/node_modules" ]; then
    say "downloading $what into $home/$dir"
    copy_manifests "$dir"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error "$@" >&2
    stamp_write "$dir/.warpstart-stamp" "$want"
    say "installed: $(size_of "$dir")"
  fi
}

# Node 22 and the npm that installs the SDK trees and the lab's native addons, from the npm
# registry, pinned in tools/node22/package-lock.json.
node_tools() {
  local node_dir="$home/tools/node22/node_modules"
  npm_tree tools/node22 "Node $(version_in tools/node22) and npm (nodejs22.x in the lab; Warp's cache of nodejs22.x functions)"
  node_bin="$(cd "$node_dir/.bin" && pwd)"
  # Native addons (the runtime interface client, Artillery's unix-dgram) must match Node 22's ABI: they
  # are compiled against the headers its platform package ships (include/node), not the machine's Node's.
  node_headers=""
  for candidate in "$node_dir"/node/node_modules/node-*/; do
    [ -d "$candidate/include/node" ] && node_headers="${candidate%/}"
  done
  [ -n "$node_headers" ] || die "Node headers not found under $node_dir/node; delete $home/tools/node22/node_modules and run again."
  export PATH="$node_bin:$PATH" npm_config_nodedir="$node_headers"
}
if wanted node22 || wanted runtime-trees || wanted artillery; then node_tools; fi

# The Python venv: SAM CLI and moto, each pinned in requirements/ and installed when first wanted.
venv_part() {
  local part="$1" what="$2" want
  want="$(digest "requirements/$part.txt")"
  stamp_ok ".venv/.warpstart-stamp-$part" "$want" 2>/dev/null && return 0
  say "downloading $what into $home/.venv (Python packages from PyPI; about a minute)"
  [ -x .venv/bin/python ] || python3 -m venv .venv || die "python3 -m venv failed (Debian: apt-get install python3-venv)."
  .venv/bin/python -m pip install --quiet --upgrade pip >&2
  .venv/bin/python -m pip install --quiet -r "$root/requirements/$part.txt" >&2
  stamp_write ".venv/.warpstart-stamp-$part" "$want"
  say "installed: $(size_of .venv)"
}
if wanted sam; then venv_part sam "SAM CLI $(sed -n 's/^aws-sam-cli==//p' "$root/requirements/sam.txt")"; fi
if wanted moto; then venv_part moto "moto $(sed -n 's/^moto\[server\]==//p' "$root/requirements/moto.txt") and gunicorn (the lab's local AWS)"; fi

if wanted published || wanted runtime-trees; then
  # In this repository the package is a workspace of the demo app: `npm ci` there installs what the
  # package's code imports and, through its `dependencies` script, the SDK trees. Elsewhere the SDK
  # trees alone, as their lockfiles pin them, into the home.
  workspace="$(cd "$root/../.." && pwd)"
  if [ "$home" = "$root" ] && [ -f "$workspace/package.json" ] && grep -q '"packages/warpstart"' "$workspace/package.json"; then
    npm_inputs() { (cd "$root" && digest package.json "$workspace/package.json" "$workspace/package-lock.json" published/package.json published/package-lock.json emulation/runtime/*/package.json emulation/runtime/*/package-lock.json); }
    if ! stamp_ok "$root/node_modules/.warpstart-stamp" "$(npm_inputs)" 2>/dev/null; then
      mkdir -p "$root/node_modules"
      say "downloading npm dependencies with Node $(node --version) in $workspace (node_modules, the SDK trees; about two minutes)"
      (cd "$workspace" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed (see above)."
      # After the install: the sync may have rewritten the manifests it follows.
      stamp_write "$root/node_modules/.warpstart-stamp" "$(npm_inputs)"
      say "installed: $(size_of "$workspace/node_modules" published/node_modules emulation/runtime/*/node_modules)"
    fi
  else
    # It says what it downloads, tree by tree, and installs only those whose lockfile changed.
    if wanted published; then
      copy_manifests published
      (cd "$root" && WARPSTART_HOME="$home" node scripts/sync-sdk-trees.mjs --only published >&2) || die "installing warpstart's SDK tree failed (see above)."
    fi
    if wanted runtime-trees; then
      for tree in "$root"/emulation/runtime/*/; do
        tree="${tree%/}"
        copy_manifests "${tree#"$root"/}"
      done
      (cd "$root" && WARPSTART_HOME="$home" node scripts/sync-sdk-trees.mjs --only runtimes >&2) || die "installing the runtimes' SDK trees failed (see above)."
    fi
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

# Lambda's Linux arm64 binaries: npm installs them only when told that platform.
arm64_tree() { npm_tree "$1" "$2" --cpu=arm64 --os=linux --libc=glibc; }

# What runs Lambda's arm64 Node on an x86-64 host: qemu-aarch64 (Debian's qemu-user-static: one
# static binary) and the arm64 C libraries Node links to, into tools/arm64 (qemu's -L root). An
# arm64 host runs it as it is.
arm64_emulation() {
  if [ "$(uname -m)" = x86_64 ] && [ ! -x tools/arm64/qemu-aarch64-static ]; then
    can_fetch_debs || die "Warp's code cache for arm64 functions needs qemu-aarch64 on this x86-64 machine: install Debian's qemu-user-static (or build on an arm64 machine)."
    say "downloading Debian's qemu-user-static and arm64 libc6, libstdc++6, libgcc-s1 into $home/tools/arm64"
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

# Only a custom runtime's layer ships them: an app of Node functions never downloads them.
if wanted runtimes-arm64; then
  arm64_tree tools/lambda-arm64 "Linux arm64 Deno and Bun (the custom runtimes' layers)"
  arm64_emulation
fi
# Each managed runtime's Node (nodejs22.x's above): for this machine, and Lambda's arm64 one.
for major in 18 20 22 24; do
  if wanted "node$major" && [ "$major" != 22 ]; then
    npm_tree "tools/node$major" "Node $(version_in "tools/node$major") (nodejs$major.x in the lab)"
  fi
  if wanted "node$major-arm64"; then
    arm64_tree "tools/node$major-arm64" "Lambda's arm64 Node $(version_in "tools/node$major-arm64") (Warp's arm64 code cache of nodejs$major.x functions)"
    arm64_emulation
  fi
done

if wanted npm-cache; then
  # npm cache add fetches each one's record and tarball; an install that finds them needs no registry.
  want="$(digest package.json ../../package-lock.json)"
  if ! stamp_ok .warpstart-stamp-npm-cache "$want"; then
    say "downloading npm's records of the package's dependencies into npm's cache (the tests install the packed package offline)"
    # shellcheck disable=SC2046 # one argument per line of the list
    npm cache add $(node "$root/scripts/pin-dependencies.mjs" --specs "$root") >&2 || die "npm cache add failed (see above)."
    stamp_write .warpstart-stamp-npm-cache "$want"
  fi
fi

if wanted node-oldest; then
  npm_tree tools/node-oldest "Node $(version_in tools/node-oldest), the oldest the package runs on (the tests run it there)"
fi

if wanted sdk-oldest; then
  npm_tree tools/sdk-oldest "the oldest AWS SDK release the package supports (the tests build against it)"
fi

# Deno and Bun for this machine, the same versions as tools/lambda-arm64's.
if wanted runtimes; then
  npm_tree tools/runtimes "Deno and Bun (the runtime matrix's custom runtimes)"
fi

if wanted hyperfine && ! command -v hyperfine >/dev/null 2>&1 && [ ! -x tools/hyperfine/usr/bin/hyperfine ]; then
  can_fetch_debs || die "hyperfine is not installed: the bench's --runtimes needs it (Debian: apt-get install hyperfine)."
  say "downloading Debian's hyperfine into $home/tools/hyperfine"
  fetch_debs tools/hyperfine -- hyperfine || die "could not fetch hyperfine from Debian's archive (see above); the bench's --runtimes needs it."
fi

if wanted artillery; then
  # Artillery, in its own tree: it is large, and would otherwise download a browser it does not need here.
  want="$(digest load_test/package.json load_test/package-lock.json)"
  if ! stamp_ok load_test/node_modules/.warpstart-stamp "$want" 2>/dev/null; then
    say "downloading Artillery into $home/load_test (about a minute)"
    copy_manifests load_test
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix load_test --no-audit --no-fund --loglevel=error >&2 ||
      die "npm ci in load_test failed (see above)."
    stamp_write load_test/node_modules/.warpstart-stamp "$want"
    say "installed: $(size_of load_test/node_modules)"
  fi
fi
