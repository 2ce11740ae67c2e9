// kforge's light c10/cuda/CUDAGuard.h: see kforge/light_all.h (the LibTorch names a kernel may use
// without parsing LibTorch's headers; a kernel that needs more is built with LibTorch's headers
// instead).
#pragma once

#include "kforge/light_all.h"
#include "kforge/light_cuda.h"
