# SAM's makefile builder (BuildMethod: makefile) runs `make build-<LogicalId>` here for the functions whose
# CodeUri is this folder: the warpstart package's rule builds them.
HERE := $(dir $(lastword $(MAKEFILE_LIST)))
WARPSTART_TEMPLATE ?= $(abspath $(HERE)template.yaml)
WARPSTART_MK := $(HERE)node_modules/warpstart/warpstart.mk
ifeq ($(wildcard $(WARPSTART_MK)),)
$(error warpstart is not installed ($(WARPSTART_MK) is missing): run npm install)
endif
include $(WARPSTART_MK)
