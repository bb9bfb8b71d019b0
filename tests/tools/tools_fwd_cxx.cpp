// SPDX-License-Identifier: BSD-3-Clause
// tests/tools/tools_fwd_cxx.cpp: tools_fwd.c (gasnet_fwd.h alone) compiled as C++.
#include "tools_fwd.c"
