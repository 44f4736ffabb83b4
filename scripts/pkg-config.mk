# SPDX-License-Identifier: MIT
#
# pkg-config flags computed when a recipe first needs them, not when make
# reads the makefiles: the top-level Makefile installs the packages
# (scripts/deps.sh) before it builds anything, and `make help` or `make
# clean` never ask pkg-config at all.  Included by the makefiles that
# use it (paths relative to the repository top).
#
#   VAR = $(call m890_pkg_config,VAR,OPTIONS PACKAGES)
#
# VAR must be recursive (`=`): on its first expansion pkg-config runs once
# and VAR becomes a simple variable holding the output.  A package that
# pkg-config does not find stops make with a message naming it.

ifndef m890_pkg_config
m890_pkg_config = $(eval $(1) := $$(call m890_pkg_config_run,$(2)))$($(1))
m890_pkg_config_run = $(call m890_pkg_config_check,$(1),$(shell \
	pkg-config $(1) 2>/dev/null || echo m890-pkg-config-failed))
m890_pkg_config_check = $(if $(filter m890-pkg-config-failed,$(2)),$(error \
	pkg-config $(1) failed: a development package is missing \
	(make deps, as root, installs it)),$(2))
endif
