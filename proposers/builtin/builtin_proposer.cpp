#include "proposers/builtin/builtin_proposer.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "proposers/builtin/builtin_strategies.hpp"
#include "proposers/builtin/kernel_template.hpp"
#include "proposers/builtin/task_family.hpp"
#include "search/population.hpp"
#include "search/random_stream.hpp"

namespace kforge::builtin {
namespace {

std::string params_text(const ParamValues& v) {
  return KernelTemplate::to_json(v).dump();
}

BuiltinProposal make(const KernelTemplate& t, const ParamValues& v, const ParamValues& traits,
                     std::string rationale) {
  BuiltinProposal p;
  p.ok = true;
  p.source = t.render(v, traits);
  p.strategy = t.name();
  p.params = params_text(v);
  p.rationale = std::move(rationale);
  return p;
}

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
template <class Untried>
BuiltinProposal follow_move(const StrategyMove& move, const KernelTemplate* parent,
                            const ParamValues& base, const ParamValues& traits,
                            const Untried& untried, search::RandomStream& stream) {
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
    auto p = make(*parent, v, traits, why + also);
    p.from_parent = true;
    return p;
  }
  return {};
}

}  // namespace

BuiltinProposal propose_builtin(const BuiltinRequest& r) {
  BuiltinProposal out;
  auto family = recognise_family(r.direction_doc, r.direction);
  if (family.family.empty()) {
    out.unsupported = true;
    out.error = family.why_not;
    return out;
  }
  std::vector<const KernelTemplate*> usable;
  const ParamValues traits(family.traits.begin(), family.traits.end());
  for (const auto& t : builtin_templates())
    if (t.family() == family.family && t.backend() == r.backend && t.supports(traits))
      usable.push_back(&t);
  if (usable.empty()) {
    out.unsupported = true;
    out.error =
        "no built-in template implements " + family.family + " on the " + r.backend + " backend";
    return out;
  }
  // Tried under any of the template's names: an experiment resumed across a rename goes on.
  auto untried = [&](const KernelTemplate& t, const ParamValues& v) {
    if (!t.valid(v)) return false;
    const std::string params = params_text(v);
    return std::none_of(t.names().begin(), t.names().end(), [&](const std::string& name) {
      return r.tried.count(search::proposal_key(name, params)) > 0;
    });
  };
  search::RandomStream stream(r.seed);

  // Optimise: the strategy's move, or one or two of the parent's parameters moved at random.
  if (r.mode == search::ProposalMode::optimise && r.has_parent) {
    const KernelTemplate* parent = nullptr;
    for (const auto* t : usable)
      if (std::count(t->names().begin(), t->names().end(), r.parent_strategy)) parent = t;
    ParamValues base;
    auto parsed = json::parse(r.parent_params);
    const bool known = parent && parsed.value && KernelTemplate::from_json(*parsed.value, base);
    if (auto move = parse_strategy_move(r.strategy)) {
      auto p = follow_move(*move, known ? parent : nullptr, base, traits, untried, stream);
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
          auto p = make(*parent, v, traits, "mutation of the parent: " + moved);
          p.from_parent = true;
          return p;
        }
      }
    }
  }
  // Translate (and the fallback): each template's defaults, in order.
  for (const auto* t : usable) {
    auto v = t->defaults();
    if (untried(*t, v)) return make(*t, v, traits, "the template's defaults");
  }
  // Explore: an untried point of a template drawn at random.
  for (int attempt = 0; attempt < 256; ++attempt) {
    const auto* t = usable[stream.below(usable.size())];
    ParamValues v;
    for (const auto& p : t->params()) v[p.name] = p.values[stream.below(p.values.size())];
    if (untried(*t, v)) return make(*t, v, traits, "an untried point: " + describe(v));
  }
  // Small or nearly exhausted spaces: the first untried point in order.
  for (const auto* t : usable) {
    const auto& params = t->params();
    std::vector<size_t> index(params.size(), 0);
    for (size_t n = 0; n < t->space_size(); ++n) {
      ParamValues v;
      for (size_t i = 0; i < params.size(); ++i) v[params[i].name] = params[i].values[index[i]];
      if (untried(*t, v)) return make(*t, v, traits, "an untried point: " + describe(v));
      for (size_t i = 0; i < params.size() && ++index[i] == params[i].values.size(); ++i)
        index[i] = 0;
    }
  }
  out.exhausted = true;
  out.error =
      "every combination of the " + family.family + " templates on " + r.backend + " was tried";
  return out;
}

}  // namespace kforge::builtin
