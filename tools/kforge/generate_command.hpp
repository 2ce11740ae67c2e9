// `kforge generate`: the kernel the generator (generator/) writes for a task direction, from the
// ATen graphs its export records; printed or written to a file, for `kforge eval` or an editor.
#pragma once

#include <string>
#include <vector>

namespace kforge::cli {

int run_generate(const std::vector<std::string>& args);

}  // namespace kforge::cli
