#include "generator/table_graph.hpp"

#include <string_view>
#include <vector>

namespace kforge::generator {
namespace {

constexpr std::string_view kKernelHead = "__global__ void __launch_bounds__(";

/// A parameter as kernel_parameters writes it (`const float* __restrict__ b3`): its pointer type
/// and name, or nothing where it is not one.
bool pointer_parameter(std::string_view p, std::string& type, std::string& name) {
  constexpr std::string_view restrict_mark = "* __restrict__ ";
  const size_t at = p.find(restrict_mark);
  if (at == std::string_view::npos || at == 0) return false;
  name = std::string(p.substr(at + restrict_mark.size()));
  type = std::string(p.substr(0, at + 1));
  if (name.size() < 2 || name[0] != 'b') return false;
  for (char c : name.substr(1))
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

std::string graph_kernel(const std::string& kernel) {
  return kernel + "_graph";
}

std::map<std::string, std::string> graph_copies(const std::string& functions) {
  std::map<std::string, std::string> out;
  for (size_t at = functions.find(kKernelHead); at != std::string::npos;
       at = functions.find(kKernelHead, at + 1)) {
    if (at > 0 && functions[at - 1] != '\n') continue;
    // __launch_bounds__(threads) name(parameters) {\n body }\n
    const size_t bounds_end = functions.find(") ", at + kKernelHead.size());
    const size_t open = functions.find('(', bounds_end + 2);
    const size_t close = functions.find(") {\n", open);
    const size_t line_end = functions.find('\n', at);
    if (bounds_end == std::string::npos || open == std::string::npos ||
        close == std::string::npos || close > line_end)
      continue;
    const std::string bounds =
        functions.substr(at + kKernelHead.size(), bounds_end - at - kKernelHead.size());
    if (bounds.find(',') != std::string::npos) continue;  // a cluster's kernel: never a row
    const std::string name = functions.substr(bounds_end + 2, open - bounds_end - 2);
    const size_t body_end = functions.find("\n}\n", close);
    if (body_end == std::string::npos) continue;
    std::string parameters = "void* const* __restrict__ kf_tab", prologue;
    const std::string_view list(functions.data() + open + 1, close - open - 1);
    bool pointers = !list.empty();
    size_t a = 0;
    for (size_t begin = 0; pointers && begin <= list.size(); ++a) {
      size_t end = list.find(", ", begin);
      if (end == std::string_view::npos) end = list.size();
      std::string type, id;
      pointers = pointer_parameter(list.substr(begin, end - begin), type, id);
      const std::string arg = "kf_a" + std::to_string(a);
      parameters += ", kf_at " + arg;
      prologue += "  " + type + " __restrict__ " + id + " = static_cast<" + type + ">(kf_tab[" +
                  arg + ".slot]) + " + arg + ".by;\n";
      begin = end + 2;
    }
    if (!pointers) continue;
    out[name] = "__global__ void __launch_bounds__(" + bounds + ") " + graph_kernel(name) + "(" +
                parameters + ") {\n" + prologue +
                functions.substr(close + 4, body_end + 3 - (close + 4));
  }
  return out;
}

const char* host_graph_prelude() {
  return R"(// A graph table's argument: the pointer at kf_tab[slot] moved by `by` elements.
struct kf_at {
  int64_t slot, by;
};
// A launch table as one CUDA graph of its kernels' copies, which read their pointers from a device
// table: captured on a side stream the first time, then each call copies kf_ptr to the table and
// replays the graph on the caller's stream (after the last replay, whatever stream it was on).
// Where CUDA refuses any of it, on a device other than the one it was captured on, and into a
// caller's own capture, the table launches its kernels as written.
struct kf_graph {
  std::mutex mu;
  cudaGraphExec_t exec = nullptr;
  void** tab = nullptr;
  size_t slots = 0;
  cudaEvent_t done = nullptr;
  int device = -1;
  bool off = false;
  template <class Launches>
  void run(const std::vector<void*>& ptr, cudaStream_t stream, Launches&& launches) {
    std::lock_guard<std::mutex> lock(mu);
    // a caller capturing its own graph (torch.cuda.graphs) gets the launches as written in it:
    // allocating the table or copying from the host would break its capture
    int current = -1;
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (cudaGetDevice(&current) != cudaSuccess ||
        cudaStreamIsCapturing(stream, &capturing) != cudaSuccess ||
        capturing != cudaStreamCaptureStatusNone)
      return launches(stream, nullptr);
    if (!off && !exec) {
      device = current;
      off = !capture(ptr.size(), launches);
    }
    if (off || current != device) return launches(stream, nullptr);
    TORCH_CHECK(cudaStreamWaitEvent(stream, done, 0) == cudaSuccess &&
                    cudaMemcpyAsync(tab, ptr.data(), slots * sizeof(void*), cudaMemcpyHostToDevice,
                                    stream) == cudaSuccess &&
                    cudaGraphLaunch(exec, stream) == cudaSuccess &&
                    cudaEventRecord(done, stream) == cudaSuccess,
                "kforge: a launch table's graph failed: ", cudaGetErrorString(cudaGetLastError()));
  }
  template <class Launches>
  bool capture(size_t n, Launches& launches) {
    slots = n;
    cudaStream_t side = nullptr;
    cudaGraph_t graph = nullptr;
    bool ok = cudaMalloc(reinterpret_cast<void**>(&tab), n * sizeof(void*)) == cudaSuccess &&
              cudaEventCreateWithFlags(&done, cudaEventDisableTiming) == cudaSuccess &&
              cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess &&
              cudaStreamBeginCapture(side, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
    if (ok) {
      launches(side, static_cast<void* const*>(tab));
      ok = cudaStreamEndCapture(side, &graph) == cudaSuccess && graph != nullptr &&
           cudaGraphInstantiateWithFlags(&exec, graph, 0) == cudaSuccess;
    }
    if (graph) cudaGraphDestroy(graph);
    if (side) cudaStreamDestroy(side);
    if (!ok)  // said once; the launches as written report their own errors
      std::fprintf(stderr,
                   "kforge: CUDA refused a launch table's graph (%s): its kernels launch one by "
                   "one\n",
                   cudaGetErrorString(cudaGetLastError()));
    return ok;
  }
};

)";
}

}  // namespace kforge::generator
