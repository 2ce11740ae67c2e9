// Whether the machine is too busy for times to be trusted: other processes competing for the
// CPU cores slow both the kernel and eager PyTorch and widen their spread (most on the CPU
// backend; on a GPU through the launching thread).
#pragma once

#include <optional>
#include <string>

namespace kforge::evaluation {

/// A warning when the 1-minute load average (from `loadavg_text`, /proc/loadavg's format)
/// exceeds three quarters of `cores`; nothing otherwise or when the text cannot be read.
std::optional<std::string> load_warning(const std::string& loadavg_text, unsigned cores);

/// The same for this machine now (/proc/loadavg, the cores this process may run on).
std::optional<std::string> machine_load_warning();

}  // namespace kforge::evaluation
