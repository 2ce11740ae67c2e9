// The worker's side of kforge's light headers (evaluation/shim_light): the kforge_light_api whose
// functions call LibTorch for a candidate that parsed none of its headers, and the adapter that
// turns such a candidate's registered functions into the registry's ext::Functions, so the checks
// and timing treat both kinds of candidate alike.
#pragma once

#include <vector>

#include "evaluation/shim_light/kforge/light_abi.h"
#include "kforge/extension_registry.h"

namespace kforge::worker {

/// The worker's functions, handed to a light candidate's entry point.
const kforge_light_api& light_api();

/// The functions a light candidate registered, callable with c10::IValue arguments.
std::vector<ext::Function> adapt_light_module(const kforge_light_module& module);

}  // namespace kforge::worker
