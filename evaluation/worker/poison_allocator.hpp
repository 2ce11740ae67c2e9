// A CPU allocator wrapped around LibTorch's: while poisoning is on, every allocation is filled with
// 0xFF bytes (NaN for floating types), so output a candidate leaves unwritten can never pass.
#pragma once

namespace kforge::worker {

/// Installs the wrapper as LibTorch's CPU allocator (once per process).
void install_poison_allocator();
void set_cpu_poisoning(bool on);

}  // namespace kforge::worker
