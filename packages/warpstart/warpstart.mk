# The rule SAM's makefile builder (BuildMethod: makefile) runs for every function and layer of an
# app: `make build-<LogicalId>` with ARTIFACTS_DIR set. An app's Makefile includes this file (beside
# its template.yaml, or in each CodeUri folder); `warpstart build` finds the rest (source, profile,
# constants) in the template. APP is the folder of the first Makefile make read, the app's, wherever
# SAM runs make; WARPSTART_TEMPLATE names another template to read (the doctor's build of each fix
# is a template of its own, elsewhere), and WARPSTART_APPLICATION the nested application in it whose
# function make builds (Orders/: SAM runs make build-Lister for Orders/Lister). The build runs on the
# Node on PATH, as SAM's esbuild builder's does (warpstart.mjs).
WARPSTART_PROGRAM := $(dir $(realpath $(lastword $(MAKEFILE_LIST))))warpstart.mjs
APP := $(dir $(abspath $(firstword $(MAKEFILE_LIST))))

build-%:
	node "$(WARPSTART_PROGRAM)" build --template "$(or $(WARPSTART_TEMPLATE),$(APP)template.yaml)" "$(WARPSTART_APPLICATION)$*" "$(ARTIFACTS_DIR)"
