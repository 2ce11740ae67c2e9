// CUDA kernels. A pointwise kernel: a few elements per thread, a block's width apart. A reduction
// kernel: a group of threads per outer index (one thread, part of a warp, a warp, or the whole
// block), each stage a strided loop over the inner dimensions, a reduction combined across the
// group by warp shuffles (and shared memory across warps) in a fixed order, so every thread of the
// group holds the result and the stages behind it read it from a register.
#include <string>

#include "generator/emit.hpp"
#include "generator/expr_text.hpp"

namespace kforge::generator {
namespace {

const char* const kCudaReductions = R"(
struct KfSum { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct KfProd { template <class T> __device__ T operator()(T a, T b) const { return a * b; } };
struct KfMax { template <class T> __device__ T operator()(T a, T b) const { return kf_max2(a, b); } };
struct KfMin { template <class T> __device__ T operator()(T a, T b) const { return kf_min2(a, b); } };

// The group's combined value in every thread of the group (G consecutive threads; G = blockDim.x
// for the whole block, a power of two up to 32 otherwise); every thread of the block calls it.
template <int G, class T, class Op>
__device__ __forceinline__ T kf_group_reduce(T v, Op op, T* shared) {
  if constexpr (G == 1) {
    return v;
  } else {
    constexpr int W = G < 32 ? G : 32;
    for (int o = W / 2; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    if constexpr (G <= 32) {
      return v;
    } else {
      __syncthreads();  // shared may still be read by the previous reduction
      if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
      __syncthreads();
      v = shared[0];
      for (int w = 1; w < G / 32; ++w) v = op(v, shared[w]);
      return v;
    }
  }
}

// Arg-max (Max) or arg-min: the best value and its index, the first index among equals, NaN best.
template <bool Max, class T>
__device__ __forceinline__ bool kf_better(T a, int64_t ia, T b, int64_t ib) {
  if (ib < 0) return false;
  if (ia < 0) return true;
  if (b != b) return a == a || ib < ia;
  if (a != a) return false;
  if (Max ? b > a : b < a) return true;
  return b == a && ib < ia;
}

template <int G, bool Max, class T>
__device__ __forceinline__ void kf_group_arg(T& v, int64_t& i, T* shared, int64_t* shared_i) {
  if constexpr (G > 1) {
    constexpr int W = G < 32 ? G : 32;
    for (int o = W / 2; o > 0; o /= 2) {
      const T ov = __shfl_xor_sync(0xffffffffu, v, o);
      const int64_t oi = __shfl_xor_sync(0xffffffffu, i, o);
      if (kf_better<Max>(v, i, ov, oi)) {
        v = ov;
        i = oi;
      }
    }
    if constexpr (G > 32) {
      __syncthreads();
      if (threadIdx.x % 32 == 0) {
        shared[threadIdx.x / 32] = v;
        shared_i[threadIdx.x / 32] = i;
      }
      __syncthreads();
      v = shared[0];
      i = shared_i[0];
      for (int w = 1; w < G / 32; ++w)
        if (kf_better<Max>(v, i, shared[w], shared_i[w])) {
          v = shared[w];
          i = shared_i[w];
        }
    }
  }
}
)";

std::string n(int64_t v) {
  return std::to_string(v);
}

int pick_group(const Kernel& k, const CudaChoices& c) {
  int g = c.group;
  const int64_t inner = numel(k.inner_shape()), outer = numel(k.outer_shape());
  // Reducing across rows (a dimension that is not the last): a thread per output walks its
  // column, so a warp reads 32 neighbouring outputs' elements at once.
  const bool across = !k.inner.empty() && !k.inner.back() && outer >= 4096;
  // A window of up to 32 elements (pooling, a short row) is a thread's own loop: a warp on 16
  // elements left half its lanes idle and shuffled for each output (max_pool2d's 4 x 4: 0.13x).
  if (g < 0) g = across || inner <= 32 ? 1 : inner < 1024 ? 32 : 0;
  return g == 0 ? c.block_threads : g;
}

struct CudaKernel {
  const Program& p;
  const Kernel& k;
  int threads = 256, group = 1;
  int elements = 1;  ///< a pointwise kernel's elements per thread
  std::string out;

  std::string text(const ExprPtr& e) const { return kernel_expr_text(k, e); }

  void inner_loop(const std::function<std::string(const std::string&)>& body) {
    const int64_t r = numel(k.inner_shape());
    if (group == 1 && r == 1) {
      out += "  if (live) {\n    const int64_t r = 0;\n" + body("    ") + "  }\n";
      return;
    }
    out += "  for (int64_t r = lane; live && r < " + n(r) + "; r += " + n(group) + ") {\n" +
           body("    ") + "  }\n";
  }

  void reduce(const Stage& s) {
    const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
    const std::string id = std::to_string(b.id);
    const std::string x = text(s.value);
    const DType in = s.value->dtype == DType::b8 ? DType::i64 : s.value->dtype;
    const std::string t = c_type(in);
    const bool real = in == DType::f32;
    const std::string shared = real ? "kf_shared_f" : "kf_shared_i";
    if (b.combine == Combine::argmax || b.combine == Combine::argmin) {
      const bool max = b.combine == Combine::argmax;
      out += "  " + t + " best" + id + " = 0;\n  int64_t s" + id + " = -1;\n";
      inner_loop([&](const std::string& i) {
        return i + "const " + t + " x = " + x + ";\n" + i + "if (kf_better<" +
               (max ? "true" : "false") + ">(best" + id + ", s" + id + ", x, r)) {\n" + i +
               "  best" + id + " = x;\n" + i + "  s" + id + " = r;\n" + i + "}\n";
      });
      out += "  kf_group_arg<" + n(group) + ", " + (max ? "true" : "false") + ">(best" + id +
             ", s" + id + ", " + shared + ", kf_shared_j);\n";
      out += "  const int64_t acc" + id + " = s" + id + ";\n";
    } else {
      std::string init, op;
      switch (b.combine) {
        case Combine::sum:
          init = real ? "0.0f" : "int64_t(0)";
          op = "KfSum";
          break;
        case Combine::prod:
          init = real ? "1.0f" : "int64_t(1)";
          op = "KfProd";
          break;
        case Combine::max:
          init = real ? "(-INFINITY)" : "INT64_MIN";
          op = "KfMax";
          break;
        default:
          init = real ? "INFINITY" : "INT64_MAX";
          op = "KfMin";
          break;
      }
      out += "  " + t + " s" + id + " = " + init + ";\n";
      inner_loop([&](const std::string& i) {
        return i + "s" + id + " = " + op + "()(s" + id + ", static_cast<" + t + ">(" + x + "));\n";
      });
      out += "  s" + id + " = kf_group_reduce<" + n(group) + ">(s" + id + ", " + op + "(), " +
             shared + ");\n";
      std::string v = "s" + id;
      if (b.scale != 1) v = "(" + v + " * " + constant_text(b.scale, DType::f32) + ")";
      out += "  const " + std::string(c_type(b.dtype)) + " acc" + id + " = static_cast<" +
             c_type(b.dtype) + ">(" + v + ");\n";
    }
    if (std::count(k.stores.begin(), k.stores.end(), b.id))
      out += "  if (live && lane == 0) b" + id + "[" + s.offset->text + "] = acc" + id + ";\n";
  }

  /// Whether 32-bit index arithmetic holds every offset of the kernel: its space and every buffer
  /// it reads or writes under 2^30 elements (the margin covers a padded window's terms).
  bool narrow_indices() const {
    const int64_t limit = int64_t{1} << 30;
    if (numel(k.space) >= limit) return false;
    for (const auto* list : {&k.loads, &k.stores})
      for (int b : *list)
        if (numel(p.buffers[static_cast<size_t>(b)].shape) >= limit) return false;
    return true;
  }

  /// The kernel function; returns the launch's grid size.
  int64_t emit(const std::string& name) {
    const int64_t outer = numel(k.outer_shape());
    int64_t grid;
    out += "__global__ void __launch_bounds__(" + n(threads) + ") " + name + "(" +
           kernel_parameters(p, k) + ") {\n";
    if (!k.reduces()) {
      // pointwise: `elements` elements per thread, a block's width apart (each load coalesced,
      // several in flight per thread), in 32-bit arithmetic where every offset fits
      const int64_t total = numel(k.space);
      const int64_t per_block = int64_t{threads} * elements;
      grid = (total + per_block - 1) / per_block;
      const char* type = narrow_indices() ? "int" : "int64_t";
      const int64_t r = numel(k.inner_shape());
      out += "  const " + std::string(type) + " first = static_cast<" + type + ">(blockIdx.x) * " +
             n(per_block) + " + static_cast<" + type + ">(threadIdx.x);\n";
      out += "#pragma unroll\n  for (int j = 0; j < " + n(elements) + "; ++j) {\n";
      out += "    const " + std::string(type) + " e = first + j * " + n(threads) + ";\n";
      out += "    if (e >= " + n(total) + ") return;\n";
      out += "    const " + std::string(type) + " o = e / " + n(r) + ";\n    const " +
             std::string(type) + " r = e % " + n(r) + ";\n";
      for (const auto& s : k.stages)
        out += "    b" + std::to_string(s.buffer) + "[" + s.offset->text + "] = " + text(s.value) +
               ";\n";
      out += "  }\n}\n\n";
      return grid;
    }
    const int per_block = threads / group;
    grid = (outer + per_block - 1) / per_block;
    out +=
        "  __shared__ float kf_shared_f[32];\n  __shared__ int64_t kf_shared_i[32];\n"
        "  __shared__ int64_t kf_shared_j[32];\n";
    out += "  const int64_t o = static_cast<int64_t>(blockIdx.x) * " + n(per_block) +
           " + threadIdx.x / " + n(group) + ";\n  const int64_t lane = threadIdx.x % " + n(group) +
           ";\n  const bool live = o < " + n(outer) + ";\n";
    for (const auto& s : k.stages) {
      if (s.kind == Stage::Kind::reduce) {
        reduce(s);
      } else if (s.kind == Stage::Kind::outer_store) {
        out += "  if (live && lane == 0) b" + std::to_string(s.buffer) + "[" + s.offset->text +
               "] = " + text(s.value) + ";\n";
      } else {
        inner_loop([&](const std::string& i) {
          return i + "b" + std::to_string(s.buffer) + "[" + s.offset->text +
                 "] = " + text(s.value) + ";\n";
        });
      }
    }
    out += "}\n\n";
    return grid;
  }
};

}  // namespace

const char* cuda_reductions_prelude() {
  return kCudaReductions;
}

EmittedKernels emit_cuda(const EmitInput& in, const CudaChoices& choices) {
  EmittedKernels e;
  for (size_t i = 0; i < in.kernels->size(); ++i) {
    const Kernel& k = (*in.kernels)[i];
    if (k.library >= 0) {
      e.calls += library_call_text(*in.program, k);
      continue;
    }
    const std::string name = in.prefix + "k" + std::to_string(i);
    if (auto tiled = emit_cuda_contraction(*in.program, k, name, choices)) {
      e.functions += tiled->function;
      e.calls += tiled->call;
      continue;
    }
    CudaKernel c{*in.program, k, choices.block_threads, 1, choices.elements, ""};
    if (k.reduces()) c.group = pick_group(k, choices);
    const int64_t grid = c.emit(name);
    e.functions += c.out;
    e.calls += "  " + name + "<<<" + std::to_string(grid) + ", " +
               std::to_string(choices.block_threads) + ", 0, stream>>>(" + kernel_arguments(k) +
               ");\n";
  }
  return e;
}

}  // namespace kforge::generator
