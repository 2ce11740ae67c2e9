// A CUDA launch table replayed as one CUDA graph. An RNN's steps are thousands of small launches
// (KernelBench's 36_LSTMHn: 9212 at full size), each a few microseconds of the host's time,
// more than the GPU spends on most of them; from a graph the GPU runs them back to back. A graph
// holds its launches' arguments, and a caller passes other tensors each call (the evaluator
// rotates its inputs among up to 64 sets), so the graph's kernels are copies of the table's that
// read their pointers from a device table (kf_ptr, copied there each call): one graph per table
// and process, captured on the first call, whatever the pointers.
#pragma once

#include <map>
#include <string>

namespace kforge::generator {

/// The name of kernel `kernel`'s graph copy.
std::string graph_kernel(const std::string& kernel);

/// Each CUDA kernel of `functions` whose parameters are all buffer pointers (as
/// kernel_parameters writes them), by name: the text of its graph copy, which takes the device
/// table and each pointer's place in it and the elements it is moved by (kf_at), and runs the
/// same body.
std::map<std::string, std::string> graph_copies(const std::string& functions);

/// The host's and device's helpers a graph table needs (kf_at, kf_graph), for the source's prelude.
const char* host_graph_prelude();

}  // namespace kforge::generator
