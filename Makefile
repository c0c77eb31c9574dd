# SAM's makefile builder (BuildMethod: makefile) runs `make build-<LogicalId>` with
# ARTIFACTS_DIR set. Every target calls the one esbuild pipeline; the variant's options live in
# build/variants.mts. It runs on the project's pinned Node 22, never on whatever `node` is first
# on PATH (npm also exports NODE, so the name is our own).
ROOT := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
WARPSTART_NODE := $(ROOT)tools/node22/node_modules/.bin/node

ifeq ($(wildcard $(WARPSTART_NODE)),)
$(error Node 22 is not installed in tools/node22: run `bash scripts/setup.sh` (npm run bench and npm test run it for you))
endif

build-Raw build-Bundled build-Optimized build-Warp build-Floor build-Cjs build-NoKeepAlive:
	$(WARPSTART_NODE) $(ROOT)build/build.mts $(@:build-%=%) "$(ARTIFACTS_DIR)"

# The custom runtimes' layers (build/runtimes.mts says what each holds).
build-DenoRuntime build-BunRuntime:
	$(WARPSTART_NODE) $(ROOT)build/runtime-layer.mts $(@:build-%=%) "$(ARTIFACTS_DIR)"

.PHONY: build-Raw build-Bundled build-Optimized build-Warp build-Floor build-Cjs build-NoKeepAlive build-DenoRuntime build-BunRuntime
