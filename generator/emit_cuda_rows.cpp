// CudaKernel's walks of a row (generator/emit_cuda_kernel.hpp): its loops (unrolled, nested, four
// elements a load), the row cache in registers or a cluster's shared memory, a maximum and its sum
// of exponentials in one pass, and the reductions combined across a group.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "generator/emit_cuda_kernel.hpp"

namespace kforge::generator::cuda {

std::optional<std::string> CudaKernel::row_vector_base(const Index& i) {
  const auto split = ix::along(i, "r");
  if (!split) return std::nullopt;
  for (const auto& t : split->rest)
    if (ix::factor_of(*t) % 4 != 0) return std::nullopt;
  return row_base(i);
}

std::optional<std::string> CudaKernel::row_base(const Index& i) {
  const auto split = ix::along(i, "r");
  if (!split || split->stride != 1) return std::nullopt;
  std::string base;
  for (const auto& t : split->rest) base += (base.empty() ? "" : " + ") + t->text;
  return base.empty() ? "0" : base;
}

std::optional<size_t> CudaKernel::row_vector(const Expr& l, const std::string& added) const {
  if (!row_vectors || l.buffer < 0 || !added.empty() || !l.index) return std::nullopt;
  const Buffer& b = p.buffers[static_cast<size_t>(l.buffer)];
  if (b.dtype != DType::f32 || std::count(k.stores.begin(), k.stores.end(), l.buffer))
    return std::nullopt;
  const auto base = row_vector_base(*l.index);
  if (!base) return std::nullopt;
  auto g = std::find_if(row_vector_loads.begin(), row_vector_loads.end(), [&](const RowVector& v) {
    return v.buffer == l.buffer && v.base == *base;
  });
  if (g == row_vector_loads.end())
    g = row_vector_loads.insert(row_vector_loads.end(), RowVector{l.buffer, *base});
  return static_cast<size_t>(g - row_vector_loads.begin());
}

std::string CudaKernel::row_vector_text(const ExprPtr& e) const {
  const auto unconditional = unconditional_loads(e);
  return expr_text(e, [&](const Expr& l, const std::string& added) {
    if (std::count(k.local.begin(), k.local.end(), l.buffer))
      return "acc" + std::to_string(l.buffer);
    const std::string memory = "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
    if (!unconditional.count(memory)) return memory;
    const auto g = row_vector(l, added);
    return g ? "kf_rv" + n(static_cast<int64_t>(*g)) + "[kf_e]" : memory;
  });
}

std::string CudaKernel::vector_text(const std::function<std::string()>& make) const {
  if (!row_vectors || window > 1 || !cached_values.empty()) return {};
  vector_pass = true;
  std::string t = make();
  vector_pass = false;
  return t.find("kf_rv") == std::string::npos ? std::string{} : t;
}

std::string CudaKernel::vector_store(const Stage& s) const {
  if (!row_vectors || window > 1 || !s.offset) return {};
  if (!cached_values.empty() && cache_row.empty()) return {};
  const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
  if (b.dtype != DType::f32 || b.kind == Buffer::Kind::input || s.value->dtype != DType::f32)
    return {};
  const auto base = cache_row.empty() ? row_vector_base(*s.offset) : row_base(*s.offset);
  if (base && !cache_row.empty() && *base != cache_row) return {};
  return base ? "b" + std::to_string(s.buffer) + " + (" + *base + ")" : std::string{};
}

ExprPtr CudaKernel::eager_selects(const ExprPtr& e) {
  if (e->kind != Expr::Kind::call) return e;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) args.push_back(eager_selects(a));
  return ex::call(e->fn == "where" ? "select" : e->fn, std::move(args), e->dtype);
}

bool CudaKernel::cacheable(const ExprPtr& e) const {
  bool own = false;
  std::function<bool(const ExprPtr&)> fits = [&](const ExprPtr& x) {
    if (x->kind == Expr::Kind::load) {
      if (!x->args.empty() || std::count(k.local.begin(), k.local.end(), x->buffer) ||
          std::count(k.stores.begin(), k.stores.end(), x->buffer))
        return false;
      own = own || (ix::reads(*x->index, "r") && ix::reads(*x->index, "o"));
    }
    return std::all_of(x->args.begin(), x->args.end(), fits);
  };
  return (e->kind == Expr::Kind::load || e->kind == Expr::Kind::call) && fits(e) && own;
}

std::vector<std::vector<size_t>> CudaKernel::walks_of_stages() const {
  std::vector<std::vector<size_t>> out;
  for (size_t i = 0; i < k.stages.size(); ++i) {
    const Stage& s = k.stages[i];
    if (online_pair(i)) {
      out.push_back({i, i + 1});
      ++i;
    } else if (s.kind == Stage::Kind::reduce &&
               !is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine)) {
      std::vector<const Stage*> together{&s};
      out.push_back({i});
      while (i + 1 < k.stages.size() && !online_pair(i + 1) && joins(together, k.stages[i + 1])) {
        together.push_back(&k.stages[++i]);
        out.back().push_back(i);
      }
    } else {
      out.push_back({i});
    }
  }
  return out;
}

std::vector<ExprPtr> CudaKernel::printed_parts(const std::vector<size_t>& walk) const {
  if (online_pair(walk.front())) return {k.stages[walk.front()].value};
  std::vector<ExprPtr> out;
  for (size_t i : walk) {
    const Stage& s = k.stages[i];
    if (s.kind == Stage::Kind::outer_store) continue;
    const bool widened = s.kind == Stage::Kind::reduce &&
                         !is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine) &&
                         accumulator_type(s) == "double";
    std::function<void(const ExprPtr&)> split = [&](const ExprPtr& e) {
      if (widened && is_float_product(e)) {
        split(e->args[0]);
        split(e->args[1]);
      } else {
        out.push_back(e);
      }
    };
    split(s.value);
  }
  return out;
}

bool CudaKernel::plan_row_cache() {
  cached_values.clear();
  steps = 0;
  const int64_t r = numel(k.inner_shape());
  const int64_t share = (r + span() - 1) / span();
  // the elements a thread's cache holds, of all its values: in shared memory (walked by loops
  // not unrolled whole, so no bound on their code), or in registers
  const int64_t held =
      shared_cache ? kClusterSharedBytes / (4 * int64_t{threads}) : kRowCacheValues;
  if (share > held) return false;
  std::vector<std::vector<ExprPtr>> values;  // each walk's, as it prints them
  size_t nodes = 0;
  for (const auto& walk : walks_of_stages()) {
    values.push_back(printed_parts(walk));
    for (const auto& v : values.back()) nodes += v->size;
  }
  if (!shared_cache && share * int64_t(nodes) > kRowCacheCode) return false;
  std::map<std::string, int> walks;  // a cacheable value's text: the walks that compute it
  for (const auto& walk : values) {
    std::set<std::string> here;
    std::function<void(const ExprPtr&)> visit = [&](const ExprPtr& e) {
      if (cacheable(e)) here.insert(node_text(e));
      for (const auto& a : e->args) visit(a);
    };
    for (const auto& v : walk) visit(v);
    for (const auto& t : here) ++walks[t];
  }
  std::function<void(const ExprPtr&)> pick = [&](const ExprPtr& e) {
    if (cacheable(e) && walks[node_text(e)] >= 2) {
      if (cached_index(e) < cached_values.size() ||
          int64_t(cached_values.size() + 1) * share > held)
        return;
      cached_values.push_back(e);
      return;
    }
    // the cache computes its values before any condition: not what a condition guards
    for (size_t i = 0; i < e->args.size(); ++i)
      if (!evaluated_conditionally(*e, i) || loads_inside_buffers(e->args[i])) pick(e->args[i]);
  };
  for (const auto& walk : values)
    for (const auto& v : walk) pick(v);
  if (cached_values.empty()) return false;
  steps = share;
  std::stable_sort(cached_values.begin(), cached_values.end(),
                   [](const ExprPtr& a, const ExprPtr& b) { return a->size < b->size; });
  return true;
}

void CudaKernel::load_row_cache() {
  if (!cache_row.empty()) {
    load_row_cache_vectors();
    return;
  }
  if (column_quads) {
    load_row_cache_quads();
    return;
  }
  std::string loads;
  for (size_t i = 0; i < cached_values.size(); ++i) {
    out += "  " + std::string(c_type(cached_values[i]->dtype)) + " kf_c" + std::to_string(i) + "[" +
           n(steps) + "];\n";
    visible = i;
    loads += "      kf_c" + std::to_string(i) + "[kf_j] = " + text(cached_values[i]) + ";\n";
  }
  visible = SIZE_MAX;
  cached_loop([&](const std::string&) { return loads; });
}

void CudaKernel::load_row_cache_quads() {
  for (size_t q = 0; q < quad_loads.size(); ++q) out += "  float kf_q" + n(int64_t(q)) + "[4];\n";
  for (size_t i = 0; i < cached_values.size(); ++i)
    out += "  " + std::string(c_type(cached_values[i]->dtype)) + " kf_c" + std::to_string(i) + "[" +
           n(4 * steps) + "];\n";
  cached_loop([&](const std::string& in) {
    std::string body = in + "{\n" + in + "  const " + ix + " o = kf_o4;\n";
    for (size_t q = 0; q < quad_loads.size(); ++q) {
      const auto& [buffer, offset] = quad_loads[q];
      body += in + "  kf_row_load4(kf_q" + n(int64_t(q)) + ", b" + std::to_string(buffer) + " + (" +
              offset + "));\n";
      row_vector_buffers.insert(buffer);
    }
    body += in + "}\n#pragma unroll\n" + in + "for (int kf_v = 0; kf_v < 4; ++kf_v) {\n" + in +
            "  const " + ix + " o = kf_o4 + kf_v;\n";
    quad_fill = true;
    for (size_t i = 0; i < cached_values.size(); ++i) {
      visible = i;
      body += in + "  kf_c" + std::to_string(i) + "[kf_j * 4 + kf_v] = " + text(cached_values[i]) +
              ";\n";
    }
    quad_fill = false;
    visible = SIZE_MAX;
    return body + in + "}\n";
  });
}

void CudaKernel::emit_quad_stages() {
  for (int b : quad_stores)
    out += "  float kf_sv" + std::to_string(b) + "[" + n(4 * steps) + "];\n";
  out += "#pragma unroll\n  for (int kf_v = 0; kf_v < 4; ++kf_v) {\n  const " + ix +
         " o = kf_o4 + kf_v;\n";
  emit_stages();
  out += "  }\n";
  std::string stores;
  for (const auto& s : k.stages)
    if (s.kind == Stage::Kind::row_store && quad_stores.count(s.buffer))
      stores += "      kf_row_store4(b" + std::to_string(s.buffer) + " + (" + s.offset->text +
                "), kf_sv" + std::to_string(s.buffer) + " + kf_j * 4);\n";
  if (!stores.empty())
    cached_loop(
        [&](const std::string& in) { return in + "const " + ix + " o = kf_o4;\n" + stores; });
}

void CudaKernel::plan_cache_vectors(const CudaChoices& choices) {
  cache_row.clear();
  cache_quads = 0;
  if (!choices.row_vectors || cluster == 1 || steps == 0 || span() < 8) return;
  std::optional<std::string> base;
  auto same = [&](const std::optional<std::string>& b) {
    if (!b) return false;
    if (!base) base = b;
    return *base == *b;
  };
  auto walked = [&](int buffer) {  // a buffer of the kernel's memory
    return buffer >= 0 && !std::count(k.local.begin(), k.local.end(), buffer);
  };
  for (const auto& v : cached_values)
    if (v->kind != Expr::Kind::load || !walked(v->buffer) || v->dtype != DType::f32 || !v->index ||
        p.buffers[static_cast<size_t>(v->buffer)].dtype != DType::f32 ||
        std::count(k.stores.begin(), k.stores.end(), v->buffer) || !same(row_base(*v->index)))
      return;
  std::function<bool(const ExprPtr&)> reads_row = [&](const ExprPtr& e) {
    if (e->kind == Expr::Kind::load && walked(e->buffer) && e->index && ix::reads(*e->index, "r"))
      return true;
    return std::any_of(e->args.begin(), e->args.end(), reads_row);
  };
  for (const auto& st : k.stages) {
    if (reads_row(from_cache(st.value))) return;
    if (st.kind != Stage::Kind::row_store) continue;
    const Buffer& b = p.buffers[static_cast<size_t>(st.buffer)];
    if (!st.offset || b.dtype != DType::f32 || b.kind == Buffer::Kind::input ||
        st.value->dtype != DType::f32 || std::count(k.loads.begin(), k.loads.end(), st.buffer) ||
        !same(row_base(*st.offset)))
      return;
  }
  if (!base) return;
  cache_row = *base;
  cache_quads = (numel(k.inner_shape()) / 4 + span() - 1) / span();
  steps = 4 * cache_quads + 1;
}

void CudaKernel::load_row_cache_vectors() {
  const int64_t r = numel(k.inner_shape());
  out += "  const " + ix + " kf_h = (4 - ((" + cache_row +
         ") & 3)) & 3;\n  const int kf_n4 = " + "static_cast<int>((" + n(r) +
         " - kf_h) / 4);\n  const int kf_x = " + n(r) + " - 4 * kf_n4;\n  const " + ix +
         " kf_xr = lane < kf_h ? lane : kf_h + 4 * kf_n4 + (lane - kf_h);\n";
  std::string quads, extra;
  if (shared_cache) out += "  extern __shared__ float4 kf_smem[];\n";
  for (size_t i = 0; i < cached_values.size(); ++i) {
    const std::string id = std::to_string(i), c = "kf_c" + id;
    const int buffer = cached_values[i]->buffer;
    const std::string from =
        "b" + std::to_string(buffer) + " + (" + cache_row + ") + " + cache_group("kf_k");
    visible = i;
    if (shared_cache) {
      out += "  float4* const kf_s" + id + " = kf_smem + " + n(int64_t(i) * cache_quads * threads) +
             ";\n  float kf_t" + id + " = 0.0f;\n";
      quads += "      kf_s" + id + "[" + shared_group() +
               "] = __ldg(reinterpret_cast<const float4*>(" + from + "));\n";
      extra += "    kf_t" + id + " = " + text(cached_values[i]) + ";\n";
    } else {
      out += "  float " + c + "[" + n(steps) + "];\n";
      quads += "      kf_row_load4(" + c + " + 4 * kf_k, " + from + ");\n";
      extra += "    " + c + "[" + n(4 * cache_quads) + "] = " + text(cached_values[i]) + ";\n";
    }
    row_vector_buffers.insert(buffer);
  }
  visible = SIZE_MAX;
  out += std::string(shared_cache ? "#pragma unroll 8\n" : "#pragma unroll\n") +
         "  for (int kf_k = 0; kf_k < " + n(cache_quads) + "; ++kf_k) {\n" +
         "    if (live && lane + kf_k * " + n(span()) + " < kf_n4) {\n" + quads + "    }\n  }\n";
  out +=
      "  {\n  const " + ix + " r = kf_xr;\n  if (live && lane < kf_x) {\n" + extra + "  }\n  }\n";
}

void CudaKernel::cached_loop(const std::function<std::string(const std::string&)>& body) {
  const int64_t r = numel(k.inner_shape());
  const std::string bound = steps * span() == r ? "" : " && r < " + n(r);
  out += "#pragma unroll\n  for (int kf_j = 0; kf_j < " + n(steps) + "; ++kf_j) {\n    const " +
         ix + " r = lane + kf_j * " + n(span()) + ";\n    if (live" + bound + ") {\n" +
         body("      ") + "    }\n  }\n";
}

void CudaKernel::nested_loop(const std::function<std::string(const std::string&)>& body) {
  const std::string walk = body("      ");
  static const std::regex reads_r("\\br\\b");
  out += "  if (live) {\n    for (" + ix + " kf_ro = 0; kf_ro < " +
         n(numel(k.inner_shape()) / nest) + "; ++kf_ro) {\n#pragma unroll\n" +
         "    for (int kf_ri = 0; kf_ri < " + n(nest) + "; ++kf_ri) {\n";
  if (std::regex_search(walk, reads_r))
    out += "      const " + ix + " r = kf_ro * " + n(nest) + " + kf_ri;\n";
  out += walk + "    }\n    }\n  }\n";
}

void CudaKernel::inner_loop(const std::function<std::string(const std::string&)>& body) {
  const int64_t r = numel(k.inner_shape());
  if (steps > 0) {
    cached_loop(body);
    return;
  }
  if (nest > 0) {
    nested_loop(body);
    return;
  }
  if (group == 1 && r == 1) {
    out += "  if (live) {\n    const " + ix + " r = 0;\n" + body("    ") + "  }\n";
    return;
  }
  out += "  for (" + ix + " r = lane; live && r < " + n(r) + "; r += " + n(span()) + ") {\n" +
         body("    ") + "  }\n";
}

void CudaKernel::inner_loop_unrolled(const std::vector<Walk>& walks) {
  const int64_t r = numel(k.inner_shape());
  auto consume_all = [&](const std::string& in, const std::function<std::string(size_t)>& v) {
    std::string body;
    for (size_t w = 0; w < walks.size(); ++w) body += walks[w].consume(in, v(w));
    return body;
  };
  auto direct = [&](size_t w) { return "(" + walks[w].value + ")"; };
  if (steps > 0 && !cache_row.empty()) {
    cached_vector_loop(walks);
    return;
  }
  if (steps > 0) {
    cached_loop([&](const std::string& in) { return consume_all(in, direct); });
    return;
  }
  if (nest > 0) {
    nested_loop([&](const std::string& in) { return consume_all(in, direct); });
    return;
  }
  // A short window one thread walks (a 3-D pooling window of 27 elements): every step unrolled,
  // so that the window's offsets (r / 9, r % 3) are constants rather than divisions at run time.
  if (group == 1 && r <= kShortWindow) {
    const std::string loop = "#pragma unroll\n    for (int r = 0; r < " + n(r) + "; ++r) {\n";
    // Window outputs: every load stays inside its buffer (eager_text), so no guard (a guard per
    // output kept the compiler from merging the loads that neighbouring windows share, and
    // from issuing the next output's loads before this one's sum). Spread outputs: o is
    // clamped to an output, so no guard either; each load keeps its border check.
    if (window > 1 || spread > 1 || ring_rows > 0) {
      out += "  {\n" + loop + consume_all("      ", direct) + "    }\n  }\n";
      return;
    }
    // An output whose whole window lies inside its input (all but the border's) walks it
    // without a check an element (interior_condition).
    const std::string interior = interior_condition();
    const bool stripped = std::any_of(walks.begin(), walks.end(), [](const Walk& w) {
      return !w.inside.empty() && w.inside != w.value;
    });
    if (interior.empty() || !stripped) {
      out += "  if (live) {\n" + loop + consume_all("      ", direct) + "    }\n  }\n";
      return;
    }
    auto inside = [&](size_t w) {
      return "(" + (walks[w].inside.empty() ? walks[w].value : walks[w].inside) + ")";
    };
    out += "  if (live && " + interior + ") {\n" + loop + consume_all("      ", inside) +
           "    }\n  } else if (live) {\n" + loop + consume_all("      ", direct) + "    }\n  }\n";
    return;
  }
  // By rule eight where a warp or more shares a long row (softmax over 393216 elements reached
  // 66 % of DRAM peak with four), else four (a thread walking a column); the choice `unroll`
  // says otherwise.
  const int64_t g = span();
  const int kUnroll = unroll > 0 ? unroll : group >= 32 && r >= 8 * g ? 8 : 4;
  if (r < kUnroll * g) {
    inner_loop([&](const std::string& i) { return consume_all(i, direct); });
    return;
  }
  if (kUnroll >= 4 && std::any_of(walks.begin(), walks.end(), [](const Walk& w) {
        return !w.vector.empty() || !w.store.empty();
      })) {
    inner_loop_vectors(walks, kUnroll / 4);
    return;
  }
  const std::string each = "#pragma unroll\n    for (int kf_j = 0; kf_j < " + n(kUnroll) +
                           "; ++kf_j) {\n      const " + ix + " r = kf_r + kf_j * " + n(g) + ";\n";
  auto unrolled = [&](size_t w) { return "kf_u" + n(static_cast<int64_t>(w)) + "[kf_j]"; };
  out += "  {\n  " + ix + " kf_r = lane;\n  for (; live && kf_r + " + n((kUnroll - 1) * g) + " < " +
         n(r) + "; kf_r += " + n(kUnroll * g) + ") {\n";
  for (size_t w = 0; w < walks.size(); ++w)
    out +=
        "    " + walks[w].type + " kf_u" + n(static_cast<int64_t>(w)) + "[" + n(kUnroll) + "];\n";
  out += each;
  for (size_t w = 0; w < walks.size(); ++w)
    out += "      " + unrolled(w) + " = " + walks[w].value + ";\n";
  out += "    }\n" + each + consume_all("      ", unrolled) + "    }\n  }\n";
  out += "  for (; live && kf_r < " + n(r) + "; kf_r += " + n(g) + ") {\n    const " + ix +
         " r = kf_r;\n" + consume_all("    ", direct) + "  }\n  }\n";
}

void CudaKernel::cached_vector_loop(const std::vector<Walk>& walks) {
  std::string group, stores;
  for (size_t w = 0; w < walks.size(); ++w) {
    const std::string u = "kf_w" + n(static_cast<int64_t>(w));
    if (walks[w].store.empty()) {
      group += walks[w].consume("        ", "(" + walks[w].value + ")");
      continue;
    }
    group += "        " + u + "[kf_e] = " + walks[w].value + ";\n";
    stores +=
        "      kf_row_store4(" + walks[w].store + " + " + cache_group("kf_k") + ", " + u + ");\n";
  }
  std::string declared, tail;
  for (size_t w = 0; w < walks.size(); ++w)
    if (!walks[w].store.empty())
      declared += "      " + walks[w].type + " kf_w" + n(static_cast<int64_t>(w)) + "[4];\n";
  // A shared_cache's group read into registers kf_c<i>[4] (kf_j its element), and its element
  // of head or tail into kf_c<i>[1] (kf_j 0).
  for (size_t i = 0; shared_cache && i < cached_values.size(); ++i) {
    const std::string id = std::to_string(i);
    declared += "      const float4 kf_g" + id + " = kf_s" + id + "[" + shared_group() +
                "];\n      const float kf_c" + id + "[4] = {kf_g" + id + ".x, kf_g" + id +
                ".y, kf_g" + id + ".z, kf_g" + id + ".w};\n";
    tail += "  const float kf_c" + id + "[1] = {kf_t" + id + "};\n";
  }
  out += std::string(shared_cache ? "#pragma unroll 4\n" : "#pragma unroll\n") +
         "  for (int kf_k = 0; kf_k < " + n(cache_quads) + "; ++kf_k) {\n" +
         "    if (live && lane + kf_k * " + n(span()) + " < kf_n4) {\n" + declared +
         "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) {\n        const int kf_j = " +
         (shared_cache ? "kf_e" : "kf_k * 4 + kf_e") + ";\n        const " + ix +
         " r = " + cache_group("kf_k") + " + kf_e;\n" + group + "      }\n" + stores +
         "    }\n  }\n";
  std::string direct;
  for (const auto& w : walks) direct += w.consume("    ", "(" + w.value + ")");
  out += "  {\n  const int kf_j = " + (shared_cache ? std::string("0") : n(4 * cache_quads)) +
         ";\n" + tail + "  const " + ix + " r = kf_xr;\n  if (live && lane < kf_x) {\n" + direct +
         "  }\n  }\n";
}

void CudaKernel::inner_loop_vectors(const std::vector<Walk>& walks, int64_t quads) {
  const int64_t r = numel(k.inner_shape()), g = 4 * span();
  std::vector<std::string> vectors;
  for (const auto& w : walks) vectors.push_back(w.vector);
  const std::string quad = "#pragma unroll\n    for (int kf_k = 0; kf_k < " + n(quads) +
                           "; ++kf_k) {\n      const " + ix + " kf_r4 = kf_r + kf_k * " + n(g) +
                           ";\n";
  const std::string each = "#pragma unroll\n      for (int kf_e = 0; kf_e < 4; ++kf_e) {\n" +
                           std::string("        const ") + ix + " r = kf_r4 + kf_e;\n";
  out += "  {\n  " + ix + " kf_r = lane * 4;\n  for (; live && kf_r + " + n((quads - 1) * g + 3) +
         " < " + n(r) + "; kf_r += " + n(quads * g) + ") {\n";
  for (size_t w = 0; w < walks.size(); ++w)
    out +=
        "    " + walks[w].type + " kf_u" + n(static_cast<int64_t>(w)) + "[" + n(4 * quads) + "];\n";
  out += quad + load_row_vectors(vectors, "      ") + each;
  for (size_t w = 0; w < walks.size(); ++w)
    out += "        kf_u" + n(static_cast<int64_t>(w)) +
           "[kf_k * 4 + kf_e] = " + (walks[w].vector.empty() ? walks[w].value : walks[w].vector) +
           ";\n";
  out += "      }\n    }\n" + quad;
  std::string body;
  for (size_t w = 0; w < walks.size(); ++w) {
    const std::string u = "kf_u" + n(static_cast<int64_t>(w));
    if (walks[w].store.empty()) {
      body += walks[w].consume("        ", u + "[kf_k * 4 + kf_e]");
      continue;
    }
    out += "      kf_row_store4(" + walks[w].store + " + kf_r4, " + u + " + kf_k * 4);\n";
  }
  if (!body.empty()) out += each + body + "      }\n";
  out += "    }\n  }\n";
  std::string direct;
  for (const auto& w : walks) direct += w.consume("        ", "(" + w.value + ")");
  out += "  for (; live && kf_r < " + n(r) + "; kf_r += " + n(g) + ") {\n    const " + ix +
         " kf_r4 = kf_r;\n  " + each + "        if (r < " + n(r) + ") {\n" + direct +
         "        }\n      }\n  }\n  }\n";
}

std::string CudaKernel::load_row_vectors(const std::vector<std::string>& texts,
                                         const std::string& in) {
  std::string loads;
  for (size_t v = 0; v < row_vector_loads.size(); ++v) {
    const std::string id = n(static_cast<int64_t>(v));
    if (std::none_of(texts.begin(), texts.end(), [&](const std::string& t) {
          return t.find("kf_rv" + id + "[") != std::string::npos;
        }))
      continue;
    const RowVector& rv = row_vector_loads[v];
    loads += in + "float kf_rv" + id + "[4];\n" + in + "kf_row_load4(kf_rv" + id + ", b" +
             std::to_string(rv.buffer) + " + (" + rv.base + ") + kf_r4);\n";
    row_vector_buffers.insert(rv.buffer);
  }
  return loads;
}

bool CudaKernel::online_pair(size_t i) const {
  if (two_passes || i + 1 >= k.stages.size()) return false;
  const Stage &a = k.stages[i], &b = k.stages[i + 1];
  if (a.kind != Stage::Kind::reduce || b.kind != Stage::Kind::reduce) return false;
  const Buffer& ma = p.buffers[static_cast<size_t>(a.buffer)];
  const Buffer& sb = p.buffers[static_cast<size_t>(b.buffer)];
  if (ma.combine != Combine::max || sb.combine != Combine::sum || ma.scale != 1 ||
      ma.dtype != DType::f32 || sb.dtype != DType::f32 || a.value->dtype != DType::f32 ||
      b.value->dtype != DType::f32)
    return false;
  return text(b.value) == "expf((" + text(a.value) + " - acc" + std::to_string(ma.id) + "))";
}

void CudaKernel::reduce_online(size_t i) {
  const Stage &a = k.stages[i], &b = k.stages[i + 1];
  const Buffer& ma = p.buffers[static_cast<size_t>(a.buffer)];
  const Buffer& sb = p.buffers[static_cast<size_t>(b.buffer)];
  const std::string m = "s" + std::to_string(ma.id), s = "s" + std::to_string(sb.id);
  out += "  float " + m + " = (-INFINITY);\n  double " + s + " = 0.0;\n";
  inner_loop_unrolled(
      "float", text(a.value),
      [&](const std::string& in, const std::string& v) {
        return in + "kf_online_add(" + m + ", " + s + ", " + v + ");\n";
      },
      vector_text([&] { return text(a.value); }));
  out += "  kf_group_online<" + group_arguments() + ">(" + m + ", " + s +
         ", kf_shared_f, kf_shared_d);\n";
  if (cluster > 1) {
    const std::string slots_m = cluster_slots("float");  // declared in this order
    const std::string slots = slots_m + ", " + cluster_slots("double");
    out += "  kf_cluster_online<" + n(cluster) + ", " + next_cluster_step() + ">(" + m + ", " + s +
           ", " + slots + ");\n";
  }
  std::string sum = s;
  if (sb.scale != 1) sum = "(" + sum + " * " + constant_text(sb.scale, DType::f32) + ")";
  out += "  const float acc" + std::to_string(ma.id) + " = " + m + ";\n  const float acc" +
         std::to_string(sb.id) + " = static_cast<float>(" + sum + ");\n";
  for (const Stage* st : {&a, &b})
    if (std::count(k.stores.begin(), k.stores.end(), st->buffer))
      out += "  " + store_guard() + "b" + std::to_string(st->buffer) + "[" + st->offset->text +
             "] = acc" + std::to_string(st->buffer) + ";\n";
}

std::string CudaKernel::accumulator_type(const Stage& s) const {
  const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
  const DType in = s.value->dtype == DType::b8 ? DType::i64 : s.value->dtype;
  const bool wide = in == DType::f32 && b.combine == Combine::sum &&
                    numel(k.inner_shape()) > kShortWindow && nest == 0;
  return wide ? "double" : c_type(in);
}

bool CudaKernel::joins(const std::vector<const Stage*>& together, const Stage& s) const {
  if (s.kind != Stage::Kind::reduce || is_arg(p.buffers[static_cast<size_t>(s.buffer)].combine))
    return false;
  const auto reads = loaded_buffers(s.value);
  return std::none_of(together.begin(), together.end(),
                      [&](const Stage* t) { return reads.count(t->buffer) > 0; });
}

void CudaKernel::reduce_arg(const Stage& s) {
  const Buffer& b = p.buffers[static_cast<size_t>(s.buffer)];
  const std::string id = std::to_string(b.id);
  const std::string t = accumulator_type(s);
  const std::string shared = t == "float" ? "kf_shared_f" : "kf_shared_i";
  const bool max = b.combine == Combine::argmax;
  // Every walk takes a thread's elements in the row's order. The one that does not, the row
  // cache's groups of four (their head last), is a cluster's, and a kernel with an arg
  // reduction is never a cluster's (plan).
  const std::string flag = max ? "true" : "false";
  const std::string better = "kf_later_better<" + flag + ">(best" + id + ", s" + id + ", x)";
  out += "  " + t + " best" + id + " = 0;\n  int64_t s" + id + " = -1;\n";
  inner_loop_unrolled(
      t, text(s.value),
      [&](const std::string& i, const std::string& v) {
        return i + "const " + t + " x = " + v + ";\n" + i + "if (" + better + ") {\n" + i +
               "  best" + id + " = x;\n" + i + "  s" + id + " = r;\n" + i + "}\n";
      },
      vector_text([&] { return text(s.value); }));
  out += "  kf_group_arg<" + n(group) + ", " + flag + (apart > 1 ? ", " + n(apart) : "") +
         ">(best" + id + ", s" + id + ", " + shared + ", kf_shared_j);\n";
  out += "  const int64_t acc" + id + " = s" + id + ";\n";
  store_accumulator(s);
}

void CudaKernel::reduce_together(const std::vector<const Stage*>& stages) {
  // A walk's own interior path (inner_loop_unrolled) reads its own checks; a window's or
  // ring's stripped pass (strip_borders) gathers those of all its walks for one condition.
  if (!strip_borders) interior_checks.clear();
  std::vector<Walk> walks;
  std::vector<std::string> ops;
  for (const Stage* s : stages) {
    const Buffer& b = p.buffers[static_cast<size_t>(s->buffer)];
    const std::string id = std::to_string(b.id);
    const std::string t = accumulator_type(*s);
    const bool real = t != "int64_t";
    std::string init, op;
    switch (b.combine) {
      case Combine::sum:
        init = t == "double" ? "0.0" : real ? "0.0f" : "int64_t(0)";
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
    ops.push_back(op);
    auto term = [&] {
      return t == "double" ? double_term_text(s->value, [&](const ExprPtr& e) { return text(e); })
                           : "static_cast<" + t + ">(" + text(s->value) + ")";
    };
    const std::string value = term();
    const bool stripped = strip_borders;
    strip_borders = true;
    const std::string inside = interior ? term() : value;
    strip_borders = stripped;
    walks.push_back({t, value,
                     [id, op](const std::string& i, const std::string& v) {
                       return i + "s" + id + " = " + op + "()(s" + id + ", " + v + ");\n";
                     },
                     inside, vector_text(term)});
  }
  inner_loop_unrolled(walks);
  for (size_t j = 0; j < stages.size(); ++j) {
    const Stage* s = stages[j];
    const Buffer& b = p.buffers[static_cast<size_t>(s->buffer)];
    const std::string id = std::to_string(b.id);
    const std::string t = accumulator_type(*s);
    const std::string shared = t == "double"  ? "kf_shared_d"
                               : t == "float" ? "kf_shared_f"
                                              : "kf_shared_i";
    out += "  s" + id + " = kf_group_reduce<" + group_arguments() + ">(s" + id + ", " + ops[j] +
           "(), " + shared + ");\n";
    if (cluster > 1) {
      const std::string slots = cluster_slots(t);
      out += "  s" + id + " = kf_cluster_reduce<" + n(cluster) + ", " + next_cluster_step() +
             ">(s" + id + ", " + ops[j] + "(), " + slots + ");\n";
    }
    std::string v = "s" + id;
    if (b.scale != 1) v = "(" + v + " * " + constant_text(b.scale, DType::f32) + ")";
    out += "  const " + std::string(c_type(b.dtype)) + " acc" + id + " = static_cast<" +
           c_type(b.dtype) + ">(" + v + ");\n";
    store_accumulator(*s);
  }
}

void CudaKernel::store_accumulator(const Stage& s) {
  const std::string id = std::to_string(s.buffer);
  if (!std::count(k.stores.begin(), k.stores.end(), s.buffer)) return;
  if (window > 1 && window_stores)
    out += "  kf_st" + id + "[threadIdx.x * " + n(window + 1) + " + kf_v] = acc" + id + ";\n";
  else
    out += "  " + store_guard() + "b" + id + "[" + s.offset->text + "] = acc" + id + ";\n";
}

}  // namespace kforge::generator::cuda
