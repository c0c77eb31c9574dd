# SAM's makefile builder (BuildMethod: makefile) runs `make build-<LogicalId>` with
# ARTIFACTS_DIR set. Every target calls the one esbuild pipeline; the variant's options live in
# build/variants.mts. The project's own Node 22 runs it when installed (scripts/setup.sh).
ROOT := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
NODE ?= $(firstword $(wildcard $(ROOT)tools/node22/node_modules/.bin/node) node)

build-Raw build-Bundled build-Optimized:
	$(NODE) $(ROOT)build/build.mts $(@:build-%=%) "$(ARTIFACTS_DIR)"

.PHONY: build-Raw build-Bundled build-Optimized
