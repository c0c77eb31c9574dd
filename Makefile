# SAM's makefile builder (BuildMethod: makefile) runs `make build-<LogicalId>` with ARTIFACTS_DIR
# set. One pattern rule builds every function and layer of the template beside the Makefile SAM
# reads (another SAM app includes this file, as examples/Makefile does): `warpstart build` finds
# the rest (source, profile, constants) in the template. It runs on the project's pinned Node 22,
# never on whatever `node` is first on PATH (npm also exports NODE, so the name is our own).
# WARPSTART_TEMPLATE names another template to read: the doctor's build of each fix
# (doctor/measure.mts) is a template of its own, elsewhere.
ROOT := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
APP := $(dir $(abspath $(firstword $(MAKEFILE_LIST))))
WARPSTART_NODE := $(ROOT)tools/node22/node_modules/.bin/node

ifeq ($(wildcard $(WARPSTART_NODE)),)
$(error Node 22 is not installed in tools/node22: run `bash scripts/setup.sh` (npm run bench and npm test run it for you))
endif

build-%:
	$(WARPSTART_NODE) $(ROOT)cli/warpstart.mts build --template "$(or $(WARPSTART_TEMPLATE),$(APP)template.yaml)" "$*" "$(ARTIFACTS_DIR)"
