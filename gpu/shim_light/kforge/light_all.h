// Everything kforge's light headers offer; each LibTorch header name they answer to includes this.
#pragma once

#include "kforge/light_cuda.h"
#include "kforge/light_dispatch.h"
#include "kforge/light_registry.h"
#include "kforge/light_tensor.h"
#include "kforge/pybind11_names.h"
