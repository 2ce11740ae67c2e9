// CudaKernel's plan and frame (generator/emit_cuda_kernel.hpp): the choices made for one kernel,
// the text of its expressions, its signature, indices and stages, and the clusters' share of an SM.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "generator/emit_cuda_kernel.hpp"

namespace kforge::generator::cuda {

int64_t window_nest(const Kernel& k) {
  const auto inner = k.inner_shape();
  int64_t e = 1;
  size_t t = inner.size();
  while (t > 0 && e * inner[t - 1] <= kShortWindow) e *= inner[--t];
  return t > 0 && e > 1 ? e : 0;
}

std::optional<size_t> row_dimension(const std::vector<int64_t>& outer) {
  if (outer.size() < 2) return std::nullopt;
  for (size_t d = outer.size() - 1; d-- > 0;)
    if (outer[d] > 1) return d;
  return std::nullopt;
}

bool row_constant(const Kernel& k, const ExprPtr& e) {
  if (e->kind == Expr::Kind::constant) return true;
  if (e->kind == Expr::Kind::load)
    return e->args.empty() && std::count(k.local.begin(), k.local.end(), e->buffer) > 0;
  if (e->kind != Expr::Kind::call) return false;
  return std::all_of(e->args.begin(), e->args.end(),
                     [&](const ExprPtr& a) { return row_constant(k, a); });
}

ExprPtr reciprocal_of_row_constants(const Kernel& k, const ExprPtr& e) {
  if (e->kind != Expr::Kind::call) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(reciprocal_of_row_constants(k, a));
    changed = changed || args.back() != a;
  }
  if (e->fn == "div" && e->dtype == DType::f32 && args.size() == 2) {
    const ExprPtr& d = args[1];
    if (d->dtype == DType::f32 && d->kind != Expr::Kind::constant && row_constant(k, d))
      return ex::call("mul", {args[0], ex::call("reciprocal", {d})});
  }
  return changed ? ex::call(e->fn, std::move(args), e->dtype) : e;
}

ExprPtr with_args(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f) {
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(f(a));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  Expr copy = *e;
  copy.args = std::move(args);
  return std::make_shared<const Expr>(std::move(copy));
}

std::vector<const Expr*> conjuncts(const Expr& c) {
  if (c.kind != Expr::Kind::call || c.fn != "and") return {&c};
  std::vector<const Expr*> out;
  for (const auto& a : c.args)
    for (const Expr* d : conjuncts(*a)) out.push_back(d);
  return out;
}

const std::string& CudaKernel::node_text(const ExprPtr& e) const {
  auto it = node_texts.find(e.get());
  if (it == node_texts.end()) it = node_texts.emplace(e.get(), std::pair(e, memory_text(e))).first;
  return it->second.second;
}

ExprPtr CudaKernel::from_cache(const ExprPtr& e) const {
  if (e->kind == Expr::Kind::constant || e->kind == Expr::Kind::index) return e;
  const size_t at = cached_index(e);
  if (at < cached_values.size() && at < visible) {
    Expr r;
    r.kind = Expr::Kind::load;
    r.dtype = e->dtype;
    r.buffer = -1 - static_cast<int>(at);
    return std::make_shared<const Expr>(std::move(r));
  }
  return with_args(e, [this](const ExprPtr& a) { return from_cache(a); });
}

std::string CudaKernel::text(const ExprPtr& e) const {
  const ExprPtr f = reciprocal_of_row_constants(
      k, strip_borders ? without_borders(without_filled_borders(e)) : without_filled_borders(e));
  if (window > 1 || ring_rows > 0) return eager_text(f);
  if (vector_pass && cached_values.empty()) return row_vector_text(f);
  if (cached_values.empty()) return kernel_expr_text(k, f);
  return expr_text(from_cache(f), [this](const Expr& l, const std::string& added) {
    if (l.buffer < 0)
      return "kf_c" + std::to_string(-1 - l.buffer) +
             (column_quads ? "[kf_j * 4 + kf_v]" : "[kf_j]");
    if (std::count(k.local.begin(), k.local.end(), l.buffer))
      return "acc" + std::to_string(l.buffer);
    if (quad_fill && added.empty()) {
      const auto q =
          std::find(quad_loads.begin(), quad_loads.end(), std::pair(l.buffer, l.index->text));
      if (q != quad_loads.end()) return "kf_q" + n(q - quad_loads.begin()) + "[kf_v]";
    }
    return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
  });
}

int CudaKernel::column_split_rule(const CudaChoices& choices) const {
  const int64_t column = numel(k.inner_shape());
  int v = choices.column_split;
  if (v == 0) v = column >= kSplitColumn ? 4 : 1;
  while (v > 1 && (v > column || threads / v < 32)) v /= 2;
  return v;
}

int CudaKernel::column_launch_rule() const {
  if (numel(k.inner_shape()) < 1024) return 0;
  int passes = 0;
  for (const auto& walk : walks_of_stages()) {
    const Stage& s = k.stages[walk.front()];
    if (s.kind == Stage::Kind::outer_store) continue;
    if (s.kind != Stage::Kind::reduce || is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine))
      return 0;
    ++passes;
  }
  return passes == 1 ? 4 : 0;
}

void CudaKernel::plan(const CudaChoices& choices) {
  shared_cache = false;
  if (!choices.row_cache || nest > 0) return;
  two_passes = choices.online != 1;
  if (two_passes && plan_row_cache() && maxima_from_cache()) return;
  two_passes = false;
  if (plan_row_cache() || !choices.cluster || group != threads) return;
  for (const auto& s : k.stages)
    if (s.kind == Stage::Kind::scan ||
        (s.kind == Stage::Kind::reduce && is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine)))
      return;
  const int64_t outer = numel(k.outer_shape());
  for (cluster = 2; cluster <= 16; cluster *= 2)
    if (outer * cluster <= INT32_MAX && plan_row_cache() && steps <= kClusterShare) {
      plan_cache_vectors(choices);
      return;
    }
  // A row too long for a cluster's registers, cached in groups of four: in the blocks' shared
  // memory, of the clusters whose blocks' shares fit kClusterSharedBytes the one whose SMs hold
  // the most threads. Its maxima and sums of exponentials in two passes where the cache holds
  // what they read, as a block's own cache's: the online pass's branch and rescaling, at the
  // few threads an SM that the shared memory allows, are not hidden behind memory (23_Softmax
  // 7.04 ms online, 4.74 in two passes).
  shared_cache = threads <= kClusterSharedBlock;
  for (const bool two : {true, false}) {
    if (!shared_cache) break;
    if (two && choices.online == 1) continue;  // one pass asked for
    int best = 0;  // the cluster whose SMs hold the most threads, the smaller of equals
    int64_t most = 0;
    for (cluster = 2; cluster <= 16; cluster *= 2) {
      two_passes = two;
      if (outer * cluster > INT32_MAX || !plan_row_cache() || (two_passes && !maxima_from_cache()))
        continue;
      plan_cache_vectors(choices);
      if (cache_row.empty() || shared_bytes() > kClusterSharedBytes) continue;
      if (const int64_t held = shared_blocks_per_sm() * threads; held > most) {
        most = held;
        best = cluster;
      }
    }
    if (most < kClusterSharedThreads) continue;
    cluster = best;
    two_passes = two;
    plan_row_cache();
    plan_cache_vectors(choices);
    return;
  }
  shared_cache = false;
  two_passes = false;
  cluster = 1;
  plan_row_cache();  // clears what the last try planned
  cache_row.clear();
  cache_quads = 0;
}

bool CudaKernel::maxima_from_cache() {
  std::function<bool(const ExprPtr&)> reads_memory = [&](const ExprPtr& e) {
    if (e->kind == Expr::Kind::load && e->buffer >= 0 &&
        !std::count(k.local.begin(), k.local.end(), e->buffer))
      return true;
    return std::any_of(e->args.begin(), e->args.end(), reads_memory);
  };
  two_passes = false;
  bool held = true;
  for (size_t i = 0; i < k.stages.size() && held; ++i)
    if (online_pair(i)) held = !reads_memory(from_cache(k.stages[i].value));
  two_passes = true;
  return held;
}

std::string CudaKernel::cluster_blocks_per_sm() const {
  if (cluster == 1) return "";
  if (shared_cache) return ", " + n(shared_blocks_per_sm());
  int64_t registers = 16;
  for (const auto& v : cached_values) registers += steps * (v->dtype == DType::f32 ? 1 : 2);
  const int64_t blocks = std::clamp<int64_t>(65536 / (threads * registers), 1, 2048 / threads);
  return ", " + n(blocks);
}

int64_t CudaKernel::emit(const std::string& name) {
  if (cluster > 1)
    out += std::string(kClusterMark) + " " + n(cluster) + " blocks" +
           (shared_cache ? ", cached in their shared memory" : "") + "\n";
  out += "__global__ void __launch_bounds__(" + n(threads) + cluster_blocks_per_sm() + ") " + name +
         "(" + kernel_parameters(p, k) + (column_launch > 0 ? ", int64_t kf_block0" : "") + ") {\n";
  if (!k.reduces()) {
    emit_pointwise();
    return grid_of_pointwise();
  }
  const int64_t outer = numel(k.outer_shape());
  const int per_block = scan_warps > 1 ? 1 : threads / group;
  const int64_t threads_outer = column_quads ? outer / 4 : outer;  // a thread's first outputs
  const int64_t grid = cluster > 1 ? outer * cluster : (threads_outer + per_block - 1) / per_block;
  cluster_steps = cluster_arrays = 0;
  if (cluster > 1) out += "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\n";
  // a value a warp; lanes apart, a value a thread
  const std::string slots = "[" + n(apart > 1 ? threads : 32) + "];\n";
  out += "  __shared__ float kf_shared_f" + slots + "  __shared__ double kf_shared_d" + slots +
         "  __shared__ int64_t kf_shared_i" + slots + "  __shared__ int64_t kf_shared_j" + slots;
  if (ring_rows > 0) return emit_ring();
  if (window > 1) {
    const int64_t last = k.outer_shape().back(), lines = outer / last;
    const int64_t chunks = (last + window - 1) / window;
    // rows over 1: a thread's rows, `rows` of the `height` of a plane (the last group's past
    // its end computed again, stored by none)
    const int64_t height = rows > 1 ? k.outer_shape()[*row_dimension(k.outer_shape())] : 1;
    const int64_t groups = (height + rows - 1) / rows, planes = lines / height;
    if (window_vectors) {
      const std::string kept = out;
      emit_stages();
      out = kept;
      plan_vectors();
      plan_vector_fills();
    }
    const bool stores = window_stores && !outer_stores().empty();
    if (stores) {
      // every thread of a warp reaches its stores: those past the outputs compute the last
      // thread's again and store nothing
      for (const Stage* s : outer_stores())
        out += std::string("  __shared__ ") +
               c_type(p.buffers[static_cast<size_t>(s->buffer)].dtype) + " kf_st" +
               std::to_string(s->buffer) + "[" + n(int64_t{threads} * (window + 1)) + "];\n";
      out += "  const int64_t kf_t = kf_min_i64(static_cast<int64_t>(blockIdx.x) * " + n(threads) +
             " + threadIdx.x, " + n(lines * chunks - 1) + ");\n";
    } else {
      out += "  const int64_t kf_t = static_cast<int64_t>(blockIdx.x) * " + n(threads) +
             " + threadIdx.x;\n";
    }
    if (rows > 1) {
      out += "  const int64_t kf_c = kf_t % " + n(chunks) + ";\n  const int64_t kf_rg = (kf_t / " +
             n(chunks) + ") % " + n(groups) + ";\n  const int64_t kf_z = kf_t / " +
             n(chunks * groups) + ";\n  if (kf_z >= " + n(planes) + ") return;\n";
    } else {
      out += "  const int64_t kf_q = kf_t / " + n(chunks) + ";\n  const int64_t kf_c = kf_t % " +
             n(chunks) + ";\n" + (stores ? "" : "  if (kf_q >= " + n(lines) + ") return;\n");
    }
    out += "  const int lane = 0;\n";
    emit_vector_loads();
    // The thread's outputs, each load's border check kept (or, `stripped`, without them).
    auto outputs = [&](bool stripped) {
      const std::string kept = out;
      out = rows > 1 ? "#pragma unroll\n  for (int kf_rw = 0; kf_rw < " + n(rows) +
                           "; ++kf_rw) {\n  const int64_t kf_h = kf_rg * " + n(rows) + " + kf_rw;\n"
                     : "";
      out += "#pragma unroll\n  for (int kf_v = 0; kf_v < " + n(window) +
             "; ++kf_v) {\n  const int64_t kf_j = kf_c * " + n(window) +
             " + kf_v;\n  const bool live = kf_j < " + n(last) +
             (rows > 1 ? " && kf_h < " + n(height) : "") + ";\n";
      strip_borders = stripped;
      emit_stages();
      strip_borders = false;
      std::string loop = out + (rows > 1 ? "  }\n  }\n" : "  }\n");
      out = kept;
      return loop;
    };
    const std::string checked = outputs(false);
    // The choice interior: a thread whose outputs' windows all lie inside the input (one check
    // each, its bound over the thread's outputs and the window) walks them without checks.
    std::string inside, condition;
    if (interior) {
      interior_checks.clear();
      inside = outputs(true);
      condition = interior_condition();
    }
    if (condition.empty() || inside == checked)
      out += checked;
    else
      out += "  if " + condition + " {\n" + inside + "  } else {\n" + checked + "  }\n";
    if (stores) emit_window_stores(chunks, lines, last);
    out += "}\n\n";
    return (planes * groups * chunks + threads - 1) / threads;
  }
  if (spread > 1) {
    const int64_t per = int64_t{threads} * spread;
    out += "  const int64_t kf_b = static_cast<int64_t>(blockIdx.x) * " + n(per) +
           " + threadIdx.x;\n  const int lane = 0;\n#pragma unroll\n  for (int kf_v = 0; kf_v < " +
           n(spread) + "; ++kf_v) {\n  const int64_t kf_o = kf_b + kf_v * " + n(threads) +
           ";\n  const bool live = kf_o < " + n(outer) + ";\n  const " + ix + " o = static_cast<" +
           ix + ">(live ? kf_o : " + n(outer - 1) + ");\n";
    emit_stages();
    out += "  }\n}\n\n";
    return (outer + per - 1) / per;
  }
  if (cluster > 1) {
    out += "  __cluster_barrier_arrive_relaxed();  // this block runs (kf_cluster_reduce)\n";
    out += "  const " + ix + " o = static_cast<" + ix + ">(blockIdx.x / " + n(cluster) +
           ");\n  const int lane = static_cast<int>(cooperative_groups::this_cluster()."
           "block_rank()) * " +
           n(group) + " + static_cast<int>(threadIdx.x);\n";
  } else {
    const std::string block = column_launch > 0 ? "kf_block0 + blockIdx.x" : "blockIdx.x";
    if (scan_warps > 1)
      out += "  const " + ix + " o = static_cast<" + ix + ">(" + block +
             ");\n  const int lane = threadIdx.x % 32;\n  const int kf_wp = threadIdx.x / 32;\n";
    else if (column_quads)
      out += "  const " + ix + " kf_o4 = (static_cast<" + ix + ">(" + block + ") * " +
             n(per_block) + " + threadIdx.x " + (apart > 1 ? "% " : "/ ") +
             n(apart > 1 ? apart : group) + ") * 4;\n  const int lane = threadIdx.x " +
             (apart > 1 ? "/ " : "% ") + n(apart > 1 ? apart : group) + ";\n";
    else if (apart > 1)
      out += "  const " + ix + " o = static_cast<" + ix + ">(" + block + ") * " + n(per_block) +
             " + threadIdx.x % " + n(apart) + ";\n  const int lane = threadIdx.x / " + n(apart) +
             ";\n";
    else
      out += "  const " + ix + " o = static_cast<" + ix + ">(" + block + ") * " + n(per_block) +
             " + threadIdx.x / " + n(group) + ";\n  const int lane = threadIdx.x % " + n(group) +
             ";\n";
  }
  out += std::string("  const bool live = ") + (column_quads ? "kf_o4" : "o") + " < " + n(outer) +
         ";\n";
  if (steps > 0) load_row_cache();
  if (column_quads)
    emit_quad_stages();
  else
    emit_stages();
  if (cluster > 1) out += "#endif\n";
  out += "}\n\n";
  return grid;
}

void CudaKernel::emit_stages() {
  for (const auto& walk : walks_of_stages()) {
    const Stage& s = k.stages[walk.front()];
    if (online_pair(walk.front())) {
      reduce_online(walk.front());
    } else if (s.kind == Stage::Kind::reduce &&
               is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine)) {
      reduce_arg(s);
    } else if (s.kind == Stage::Kind::reduce) {
      std::vector<const Stage*> together;
      for (size_t i : walk) together.push_back(&k.stages[i]);
      reduce_together(together);
    } else if (s.kind == Stage::Kind::scan) {
      scan(s);
    } else if (s.kind == Stage::Kind::outer_store && window > 1 && window_stores) {
      // kept in shared memory until the warp stores its outputs together (emit_window_stores)
      out += "  kf_st" + std::to_string(s.buffer) + "[threadIdx.x * " + n(window + 1) +
             " + kf_v] = " + text(s.value) + ";\n";
    } else if (s.kind == Stage::Kind::outer_store) {
      out += "  " + store_guard() + "b" + std::to_string(s.buffer) + "[" + s.offset->text +
             "] = " + text(s.value) + ";\n";
    } else if (column_quads && quad_stores.count(s.buffer)) {
      cached_loop([&](const std::string& i) {
        return i + "kf_sv" + std::to_string(s.buffer) + "[kf_j * 4 + kf_v] = " + text(s.value) +
               ";\n";
      });
    } else if (std::count(k.loads.begin(), k.loads.end(), s.buffer)) {
      // a stage that reads what it stores: one element at a time
      inner_loop([&](const std::string& i) {
        return i + "b" + std::to_string(s.buffer) + "[" + s.offset->text + "] = " + text(s.value) +
               ";\n";
      });
    } else {
      inner_loop_unrolled(
          c_type(s.value->dtype), text(s.value),
          [&](const std::string& i, const std::string& v) {
            return i + "b" + std::to_string(s.buffer) + "[" + s.offset->text + "] = " + v + ";\n";
          },
          vector_text([&] { return text(s.value); }), vector_store(s));
    }
  }
}

}  // namespace kforge::generator::cuda
