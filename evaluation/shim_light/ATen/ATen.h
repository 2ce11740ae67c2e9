// kforge's light ATen/ATen.h: see kforge/light_all.h (the LibTorch names a kernel may use without
// parsing LibTorch's headers; a kernel that needs more is built with LibTorch's headers instead).
#pragma once

#include "kforge/light_all.h"
