# SPDX-License-Identifier: MIT
#
# The stack's one version, from the file VERSION at the top of the tree
# (MAJOR.MINOR.PATCH): the package, libm890's file name and .pc, m890.ko's
# MODULE_VERSION (Kbuild reads the same file), icnctl, the perf tools and
# the DKMS package.  Included by the makefiles that use it.

ifndef M890_VERSION
M890_VERSION := $(strip $(file <VERSION))
M890_VERSION_WORDS := $(subst ., ,$(M890_VERSION))
M890_VERSION_MAJOR := $(word 1,$(M890_VERSION_WORDS))
M890_VERSION_MINOR := $(word 2,$(M890_VERSION_WORDS))
M890_VERSION_PATCH := $(word 3,$(M890_VERSION_WORDS))
ifeq ($(M890_VERSION_PATCH),)
$(error VERSION must hold MAJOR.MINOR.PATCH, not '$(M890_VERSION)')
endif
endif
