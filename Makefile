# SAM's makefile builder (BuildMethod: makefile) runs `make build-<LogicalId>` with
# ARTIFACTS_DIR set. Every target calls the one esbuild pipeline; the variant's options live in
# build/variants.mts. The project's own Node 22 is used when it is installed (scripts/setup.sh).
NODE ?= $(firstword $(wildcard $(CURDIR)/tools/node22/node_modules/.bin/node) node)

build-Raw build-Bundled build-Optimized:
	$(NODE) build/build.mts $(@:build-%=%) "$(ARTIFACTS_DIR)"

.PHONY: build-Raw build-Bundled build-Optimized
