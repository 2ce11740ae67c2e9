#include "proposers/builtin/builtin_proposer.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "generator/generate.hpp"
#include "proposers/builtin/builtin_strategies.hpp"
#include "proposers/builtin/kernel_template.hpp"
#include "proposers/builtin/task_family.hpp"
#include "search/novelty.hpp"
#include "search/population.hpp"
#include "search/random_stream.hpp"

namespace kforge::builtin {
namespace {

std::string params_text(const ParamValues& v) {
  return KernelTemplate::to_json(v).dump();
}

/// What the proposer searches: a template's parameters with the task's traits, or the kernel
/// generator's choices for the task.
struct ProposalSpace {
  std::vector<std::string> names_;  ///< its name now and earlier ones
  std::vector<TemplateParam> params_;
  std::function<bool(const ParamValues&)> valid;
  std::function<std::string(const ParamValues&)> render;

  const std::string& name() const { return names_.front(); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<TemplateParam>& params() const { return params_; }
  ParamValues defaults() const {
    ParamValues v;
    for (const auto& p : params_) v[p.name] = p.values[p.default_index];
    return v;
  }
  size_t space_size() const {
    size_t n = 1;
    for (const auto& p : params_) n *= p.values.size();
    return n;
  }
};

ProposalSpace template_space(const KernelTemplate& t, const ParamValues& traits) {
  return {t.names(), t.params(), [&t](const ParamValues& v) { return t.valid(v); },
          [&t, traits](const ParamValues& v) { return t.render(v, traits); }};
}

/// Whether float32 products may run in TF32, and exp and log on the GPU's approximations, for the
/// task: both tolerances at least 1e-3 (TF32 keeps 10 mantissa bits, a relative error of 2^-11 per
/// factor; __expf and __logf are off by a few float steps); the verdict still decides.
bool tolerance_admits_approximations(const json::Value& direction_doc) {
  const auto& t = direction_doc["tolerance"];
  return t["atol"].as_number(0) >= 1e-3 && t["rtol"].as_number(0) >= 1e-3;
}

/// The generator's choices: CUDA block threads, threads per reduced row (-1: by the row's length,
/// 0: the block), and a contraction's output tile and per-thread micro tile (tile 0: untiled);
/// where the task has matrix products or convolutions and the policy lets kernels call
/// libraries, whether those are library calls (`library` 1) or the generator's own kernels; and
/// where its own kernels have tiled contractions and the task's tolerance admits it, whether
/// those run on the tensor cores in TF32 (`tf32` 1), and where the kernel calls exp or log and the
/// tolerance admits it whether they run on the GPU's approximations (`fast_math` 1); whether
/// reductions index in 32 bits
/// (`index32` 1); whether a row that several passes read is held in registers (`row_cache` 1), by
/// a cluster of blocks where one block's share is too long (`cluster` 1); how many elements of a
/// row a reduction's thread loads at once (`unroll`, 0 by rule); how many neighbouring outputs
/// a thread of a short-window reduction computes (`window`, 0 by rule); whether a maximum and its
/// sum of exponentials take one online pass or two over registers (`online`, 0 by rule); whether
/// a short window inside its input is walked without its border checks (`interior` 1); how many
/// outputs a block's width apart a thread of a short-window reduction computes (`spread`, 0 by
/// rule); whether window outputs load their windows four elements at a time (`window_vectors` 1)
/// and whether their warp stores them 32 consecutive a store through shared memory
/// (`window_stores` 1), and how many rows of them a thread computes (`window_rows`, 0 by rule;
/// with a ring, the rows a step of its band);
/// how many output rows a block walks with its windows' input rows in rings in shared memory
/// (`window_ring`, -1 by rule, 0: none) and whether window outputs' vector loads hold their
/// windows' padding (`window_fills`, -1 by rule, 0: never, 1: where it applies);
/// whether a reduction reads a contiguous row four elements a load (`row_vectors` 1), and a
/// pointwise kernel its elements (`pointwise_vectors` 1); whether a scan loads its next step
/// before it scans this one (`scan_prefetch` 0) and how many warps share its row (`scan_warps`, 0
/// by rule); in how many launches of how many blocks an SM
/// a column walk's grid runs (`column_launch`, -1 by rule, 0: one launch) and across how many
/// lanes a block apart its column is split (`column_split`, 0 by rule), and whether a thread of
/// one whose row cache holds the column takes four neighbouring outputs (`column_vectors` 1); about
/// how many partial results a reduction of few outputs over many elements is split into
/// (`partials`, 0 by rule); where an RNN's input products are batched over the sequence, whether
/// they are (`batch_steps` 1) or computed step by step (0); where a recurrent cell's gates are cut
/// into products of their own, whether they are (`split_gates` 1) or one product split (0).
ProposalSpace generator_space(const BuiltinRequest& r, bool heavy_ops, bool contractions,
                              bool exp_or_log, bool step_families, bool gate_splits) {
  ProposalSpace s;
  s.names_ = {"generated_" + r.backend};
  if (r.backend == "cuda")
    s.params_ = {{"block_threads", {128, 256, 512, 1024}, 1},
                 {"group", {-1, 1, 4, 8, 32, 0}, 0},
                 {"tile", {-1, 0, 32, 64, 128}, 0},
                 {"micro", {2, 4, 8}, 1},
                 {"elements", {0, 1, 2, 4, 8}, 0},
                 {"index32", {0, 1}, 0},
                 {"row_cache", {0, 1}, 1},
                 {"cluster", {0, 1}, 1},
                 {"unroll", {0, 4, 8, 16}, 0},
                 {"window", {0, 1, 2, 4, 8}, 0},
                 {"online", {0, 1, 2}, 0},
                 {"interior", {0, 1}, 0},
                 {"spread", {0, 1, 2, 4, 8}, 0},
                 {"window_vectors", {0, 1}, 1},
                 {"window_stores", {0, 1}, 0},
                 {"window_rows", {0, 1, 2, 4}, 0},
                 {"window_ring", {-1, 0, 8, 16}, 0},
                 {"window_fills", {-1, 0, 1}, 0},
                 {"row_vectors", {0, 1}, 1},
                 {"pointwise_vectors", {0, 1}, 1},
                 {"scan_prefetch", {0, 1}, 0},
                 {"scan_warps", {0, 1, 8}, 0},
                 {"column_launch", {-1, 0, 2, 4}, 0},
                 {"column_split", {0, 1, 2, 4}, 0},
                 {"column_vectors", {0, 1}, 1},
                 {"partials", {0, 4096, 16384, 65536}, 0}};
  if (heavy_ops && r.library_calls)
    s.params_.push_back({"library", {0, 1}, r.library_first ? size_t{1} : size_t{0}});
  if (r.backend == "cuda" && contractions && tolerance_admits_approximations(r.direction_doc))
    s.params_.push_back({"tf32", {0, 1}, 0});
  if (r.backend == "cuda" && exp_or_log && tolerance_admits_approximations(r.direction_doc))
    s.params_.push_back({"fast_math", {0, 1}, 0});
  if (step_families) s.params_.push_back({"batch_steps", {1, 0}, 0});
  if (gate_splits) s.params_.push_back({"split_gates", {1, 0}, 0});
  s.valid = [](const ParamValues& v) {
    // Library calls take the products the tensor cores would: the same kernel.
    auto library = v.find("library"), tf32 = v.find("tf32");
    auto tile = v.find("tile"), micro = v.find("micro");
    if (tf32 != v.end() && tf32->second == 1) {
      if (library != v.end() && library->second == 1) return false;
      // The tensor-core kernel has tiles of 64 or 128 and no micro tile: one point for each.
      return tile != v.end() && micro != v.end() &&
             (tile->second == -1 || tile->second == 64 || tile->second == 128) &&
             micro->second == 4;
    }
    if (tile == v.end() || micro == v.end() || tile->second <= 0) return true;
    return generator::valid_tiling(int(tile->second), int(micro->second));
  };
  s.render = [r](const ParamValues& v) {
    generator::GenerateRequest g{r.export_dir, r.direction_doc, r.direction, r.backend, {}, false};
    if (auto it = v.find("library"); it != v.end()) g.library_calls = it->second == 1;
    if (auto it = v.find("block_threads"); it != v.end()) g.cuda.block_threads = int(it->second);
    if (auto it = v.find("group"); it != v.end()) g.cuda.group = int(it->second);
    if (auto it = v.find("tile"); it != v.end()) g.cuda.tile = int(it->second);
    if (auto it = v.find("micro"); it != v.end()) g.cuda.micro = int(it->second);
    if (auto it = v.find("elements"); it != v.end()) g.cuda.elements = int(it->second);
    if (auto it = v.find("tf32"); it != v.end()) g.cuda.tf32 = it->second == 1;
    if (auto it = v.find("fast_math"); it != v.end()) g.cuda.fast_math = it->second == 1;
    if (auto it = v.find("index32"); it != v.end()) g.cuda.index32 = it->second == 1;
    if (auto it = v.find("row_cache"); it != v.end()) g.cuda.row_cache = it->second == 1;
    if (auto it = v.find("cluster"); it != v.end()) g.cuda.cluster = it->second == 1;
    if (auto it = v.find("unroll"); it != v.end()) g.cuda.unroll = int(it->second);
    if (auto it = v.find("window"); it != v.end()) g.cuda.window = int(it->second);
    if (auto it = v.find("online"); it != v.end()) g.cuda.online = int(it->second);
    if (auto it = v.find("interior"); it != v.end()) g.cuda.interior = it->second == 1;
    if (auto it = v.find("spread"); it != v.end()) g.cuda.spread = int(it->second);
    if (auto it = v.find("window_vectors"); it != v.end()) g.cuda.window_vectors = it->second == 1;
    if (auto it = v.find("window_stores"); it != v.end()) g.cuda.window_stores = it->second == 1;
    if (auto it = v.find("window_rows"); it != v.end()) g.cuda.window_rows = int(it->second);
    if (auto it = v.find("window_ring"); it != v.end()) g.cuda.window_ring = int(it->second);
    if (auto it = v.find("window_fills"); it != v.end()) g.cuda.window_fills = int(it->second);
    if (auto it = v.find("row_vectors"); it != v.end()) g.cuda.row_vectors = it->second == 1;
    if (auto it = v.find("pointwise_vectors"); it != v.end())
      g.cuda.pointwise_vectors = it->second == 1;
    if (auto it = v.find("scan_prefetch"); it != v.end()) g.cuda.scan_prefetch = it->second == 1;
    if (auto it = v.find("scan_warps"); it != v.end()) g.cuda.scan_warps = int(it->second);
    if (auto it = v.find("column_launch"); it != v.end()) g.cuda.column_launch = int(it->second);
    if (auto it = v.find("column_split"); it != v.end()) g.cuda.column_split = int(it->second);
    if (auto it = v.find("column_vectors"); it != v.end()) g.cuda.column_vectors = it->second == 1;
    if (auto it = v.find("partials"); it != v.end()) g.partials = it->second;
    if (auto it = v.find("batch_steps"); it != v.end()) g.batch_steps = it->second == 1;
    if (auto it = v.find("split_gates"); it != v.end()) g.split_gates = it->second == 1;
    auto out = generator::generate_kernel(g);
    return out ? out->source : std::string();
  };
  return s;
}

/// Whether the generator writes the target (or why not), and how many library calls it makes.
struct GeneratorTrial {
  bool ok = false;
  std::string error;
  size_t library_steps = 0;
  /// contractions the generator's own kernel can tile (all of them tiled, on the tensor cores:
  /// what TF32 would change; by size, few outputs are not tiled)
  size_t contractions = 0;
  bool exp_or_log = false;     ///< the kernel calls exp or log (what fast_math changes)
  bool step_families = false;  ///< it batches an RNN's input products (what batch_steps changes)
  bool gate_splits = false;    ///< it cuts a cell's gates into products (what split_gates changes)
};

/// The generator's trial for the request, computed once per export folder, direction, backend and
/// policy (task.json's modification time in the key, so a forced re-export is seen again): a
/// trial lowers every config's graph, which a task of many configs makes costly to repeat on every
/// proposal.
GeneratorTrial generator_trial(const BuiltinRequest& r) {
  static std::mutex mutex;
  static std::map<std::string, GeneratorTrial> trials;
  std::error_code ec;
  const auto stamp =
      std::filesystem::last_write_time(std::filesystem::path(r.export_dir) / "task.json", ec);
  const std::string key = r.export_dir + "\n" + r.direction + "\n" + r.backend + "\n" +
                          (r.library_calls ? "library" : "own") + "\n" +
                          std::to_string(ec ? 0 : stamp.time_since_epoch().count());
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = trials.find(key); it != trials.end()) return it->second;
  }
  // The own kernel's contractions are counted with TF32 on, which tiles every one it can (by size,
  // few outputs are not tiled); TF32 changes nothing else the trial reads, so without library
  // calls one generation serves.
  generator::GenerateRequest g{r.export_dir, r.direction_doc, r.direction, r.backend,
                               {},           r.library_calls};
  g.cuda.tf32 = r.backend == "cuda" && !r.library_calls;
  auto generated = generator::generate_kernel(g);
  GeneratorTrial trial{bool(generated),
                       generated ? "" : generated.error,
                       generated ? generated->library_steps : 0,
                       generated && g.cuda.tf32 ? generated->contractions : 0,
                       generated && generated->exp_or_log,
                       generated && generated->step_families > 0,
                       generated && generated->gate_splits > 0};
  if (generated && r.backend == "cuda" && r.library_calls) {
    g.library_calls = false;
    g.cuda.tf32 = true;
    auto own = generator::generate_kernel(g);
    trial.contractions = own ? own->contractions : 0;
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (trials.size() >= 1024) trials.clear();
  trials.emplace(key, trial);
  return trial;
}

BuiltinProposal make(const ProposalSpace& t, const ParamValues& v, std::string source,
                     std::string rationale) {
  BuiltinProposal p;
  p.source = std::move(source);
  p.ok = !p.source.empty();
  if (!p.ok) p.error = t.name() + " cannot write " + params_text(v);
  p.strategy = t.name();
  p.params = params_text(v);
  p.rationale = std::move(rationale);
  return p;
}

/// The most points one proposal renders to find one whose kernel was not proposed before.
constexpr int kSourceRenders = 96;

std::string describe(const ParamValues& v) {
  std::string out;
  for (const auto& [k, x] : v) out += (out.empty() ? "" : ", ") + k + "=" + std::to_string(x);
  return out;
}

/// A neighbouring allowed value of `p` from `value`: the next larger (`up`) or smaller one.
std::optional<int64_t> step(const TemplateParam& p, int64_t value, bool up) {
  std::optional<int64_t> out;
  for (int64_t v : p.values)
    if ((up ? v > value : v < value) && (!out || (up ? v < *out : v > *out))) out = v;
  return out;
}

/// The proposal a strategy's move makes of the parent: the named parameter one step further
/// (and, when that was tried or breaks a rule, one more parameter moved a step). Not ok when the
/// parent's template is not known or has no such step, or everything near it was tried.
template <class Untried, class SourceOf>
BuiltinProposal follow_move(const StrategyMove& move, const ProposalSpace* parent,
                            const ParamValues& base, const Untried& untried,
                            const SourceOf& source_of, search::RandomStream& stream) {
  if (!parent) return {};
  const auto& params = parent->params();
  auto named = std::find_if(params.begin(), params.end(),
                            [&](const TemplateParam& p) { return p.name == move.param; });
  auto at = base.find(move.param);
  if (named == params.end() || at == base.end()) return {};
  const auto next = step(*named, at->second, move.up);
  if (!next) return {};
  const std::string why = std::string("strategy \"") + (move.up ? "raise " : "lower ") +
                          move.param + "\": " + move.param + " " + std::to_string(at->second) +
                          " -> " + std::to_string(*next);
  for (int attempt = 0; attempt < 33; ++attempt) {
    ParamValues v = base;
    v[move.param] = *next;
    std::string also;
    if (attempt > 0) {  // the move alone was tried (or breaks a rule): move one more parameter
      const auto& other = params[stream.below(params.size())];
      auto value = step(other, v[other.name], stream.chance(0.5));
      if (other.name == move.param || !value) continue;
      also =
          ", " + other.name + " " + std::to_string(v[other.name]) + " -> " + std::to_string(*value);
      v[other.name] = *value;
    }
    if (!untried(*parent, v)) continue;
    auto p = make(*parent, v, source_of(*parent, v), why + also);
    p.from_parent = true;
    return p;
  }
  return {};
}

}  // namespace

BuiltinProposal propose_builtin(const BuiltinRequest& r) {
  BuiltinProposal out;
  auto family = recognise_family(r.direction_doc, r.direction);
  std::vector<ProposalSpace> spaces;
  const ParamValues traits(family.traits.begin(), family.traits.end());
  if (!family.family.empty())
    for (const auto& t : builtin_templates())
      if (t.family() == family.family && t.backend() == r.backend && t.supports(traits))
        spaces.push_back(template_space(t, traits));
  std::string generator_error = "the task's export folder is not known";
  if (!r.export_dir.empty()) {
    // With library calls where the policy allows them: whether the task has any to make.
    const auto trial = generator_trial(r);
    if (trial.ok)
      spaces.push_back(generator_space(r, trial.library_steps > 0, trial.contractions > 0,
                                       trial.exp_or_log, trial.step_families, trial.gate_splits));
    else
      generator_error = trial.error;
  }
  if (spaces.empty()) {
    out.unsupported = true;
    out.error = (family.family.empty() ? family.why_not
                                       : "no built-in template implements " + family.family +
                                             " on the " + r.backend + " backend") +
                "; the kernel generator cannot write it: " + generator_error;
    return out;
  }
  std::vector<const ProposalSpace*> usable;
  for (const auto& s : spaces) usable.push_back(&s);
  // Each point's source, rendered once a proposal (make() takes it from here).
  std::map<std::string, std::string> rendered;
  int renders = 0;
  auto source_of = [&](const ProposalSpace& t, const ParamValues& v) -> const std::string& {
    const std::string key = search::proposal_key(t.name(), params_text(v));
    auto it = rendered.find(key);
    if (it == rendered.end()) {
      ++renders;
      it = rendered.emplace(key, t.render(v)).first;
    }
    return it->second;
  };
  // Tried under any of the template's names: an experiment resumed across a rename goes on. A
  // point whose kernel is one proposed before is tried too: most of the generator's choices do not
  // apply to a given kernel (a window's to a softmax, a tile's to a norm), so a move of one of them
  // writes the parent's source again, which the novelty filter would reject unevaluated (a
  // candidate of the target's budget spent on nothing). At most kSourceRenders points a proposal
  // are rendered to find out.
  auto untried = [&](const ProposalSpace& t, const ParamValues& v) {
    if (!t.valid(v)) return false;
    const std::string params = params_text(v);
    if (std::any_of(t.names().begin(), t.names().end(), [&](const std::string& name) {
          return r.tried.count(search::proposal_key(name, params)) > 0;
        }))
      return false;
    if (r.tried_sources.empty()) return true;
    if (!rendered.count(search::proposal_key(t.name(), params)) && renders >= kSourceRenders)
      return false;
    const std::string& source = source_of(t, v);
    return source.empty() || !r.tried_sources.count(search::source_digest(source));
  };
  search::RandomStream stream(r.seed);

  // Optimise: the strategy's move, or one or two of the parent's parameters moved at random.
  if (r.mode == search::ProposalMode::optimise && r.has_parent) {
    const ProposalSpace* parent = nullptr;
    for (const auto* t : usable)
      if (std::count(t->names().begin(), t->names().end(), r.parent_strategy)) parent = t;
    ParamValues base;
    auto parsed = json::parse(r.parent_params);
    const bool known = parent && parsed.value && KernelTemplate::from_json(*parsed.value, base);
    if (auto move = parse_strategy_move(r.strategy)) {
      auto p = follow_move(*move, known ? parent : nullptr, base, untried, source_of, stream);
      if (p.ok) return p;
    }
    if (known && !parent->params().empty()) {
      const auto& params = parent->params();
      for (int attempt = 0; attempt < 64; ++attempt) {
        ParamValues v = base;
        std::string moved;
        const int moves = stream.chance(0.3) ? 2 : 1;
        for (int m = 0; m < moves; ++m) {
          const auto& p = params[stream.below(params.size())];
          auto at = std::find(p.values.begin(), p.values.end(), v[p.name]);
          size_t i = at == p.values.end() ? p.default_index : size_t(at - p.values.begin());
          size_t next;
          if (stream.chance(0.25) || p.values.size() < 2) {
            next = stream.below(p.values.size());
          } else {
            bool up = stream.chance(0.5);
            next = up ? (i + 1 < p.values.size() ? i + 1 : i - 1) : (i > 0 ? i - 1 : i + 1);
          }
          if (p.values[next] == v[p.name]) continue;
          moved += (moved.empty() ? "" : ", ") + p.name + " " + std::to_string(v[p.name]) + " -> " +
                   std::to_string(p.values[next]);
          v[p.name] = p.values[next];
        }
        if (!moved.empty() && untried(*parent, v)) {
          auto p = make(*parent, v, source_of(*parent, v), "mutation of the parent: " + moved);
          p.from_parent = true;
          return p;
        }
      }
    }
  }
  // Translate (and the fallback): each template's defaults, in order.
  for (const auto* t : usable) {
    auto v = t->defaults();
    if (untried(*t, v)) return make(*t, v, source_of(*t, v), "the template's defaults");
  }
  // Explore: an untried point of a template drawn at random.
  for (int attempt = 0; attempt < 256; ++attempt) {
    const auto* t = usable[stream.below(usable.size())];
    ParamValues v;
    for (const auto& p : t->params()) v[p.name] = p.values[stream.below(p.values.size())];
    if (untried(*t, v)) return make(*t, v, source_of(*t, v), "an untried point: " + describe(v));
  }
  // Small or nearly exhausted spaces: the first untried point in order.
  for (const auto* t : usable) {
    const auto& params = t->params();
    std::vector<size_t> index(params.size(), 0);
    for (size_t n = 0; n < t->space_size() && renders < kSourceRenders; ++n) {
      ParamValues v;
      for (size_t i = 0; i < params.size(); ++i) v[params[i].name] = params[i].values[index[i]];
      if (untried(*t, v)) return make(*t, v, source_of(*t, v), "an untried point: " + describe(v));
      for (size_t i = 0; i < params.size() && ++index[i] == params[i].values.size(); ++i)
        index[i] = 0;
    }
  }
  out.exhausted = true;
  out.error =
      "every combination of the " +
      (family.family.empty() ? std::string("generator's choices") : family.family + " templates") +
      " on " + r.backend + " was tried" +
      (renders >= kSourceRenders ? " or, of the " + std::to_string(renders) +
                                       " rendered last, wrote a kernel proposed before"
                                 : std::string());
  return out;
}

}  // namespace kforge::builtin
