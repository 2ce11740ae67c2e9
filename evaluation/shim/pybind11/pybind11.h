// kforge's pybind11/pybind11.h: candidates written for torch.utils.cpp_extension include it next to
// torch/extension.h; kforge has no Python, so it is the same registry shim.
#pragma once

#include <torch/extension.h>
