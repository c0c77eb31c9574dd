# SAM's makefile builder runs `make build-<LogicalId>` here for every function of template.yaml:
# the warpstart package's rule builds each one, as in any app that installs the package.
WARPSTART_MK := $(dir $(lastword $(MAKEFILE_LIST)))node_modules/warpstart/warpstart.mk
ifeq ($(wildcard $(WARPSTART_MK)),)
$(error warpstart is not installed beside this Makefile ($(WARPSTART_MK) is missing): run npm install)
endif
include $(WARPSTART_MK)
