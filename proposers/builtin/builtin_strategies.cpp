#include "proposers/builtin/builtin_strategies.hpp"

#include <algorithm>

#include "proposers/builtin/kernel_template.hpp"
#include "proposers/builtin/task_family.hpp"
#include "search/meta_generation.hpp"

namespace kforge::builtin {
namespace {

constexpr const char* kRaise = "raise ";
constexpr const char* kLower = "lower ";

const KernelTemplate* find_template(const std::vector<const KernelTemplate*>& usable,
                                    const std::string& name) {
  for (const auto* t : usable)
    if (std::count(t->names().begin(), t->names().end(), name)) return t;
  return nullptr;
}

/// Whether `p` has an allowed value above (`up`) or below `value`.
bool can_move(const TemplateParam& p, int64_t value, bool up) {
  return std::any_of(p.values.begin(), p.values.end(),
                     [&](int64_t v) { return up ? v > value : v < value; });
}

}  // namespace

std::optional<StrategyMove> parse_strategy_move(const std::string& text) {
  auto rest = [&](const char* prefix) -> std::optional<std::string> {
    const std::string p = prefix;
    if (text.compare(0, p.size(), p) != 0 || text.size() == p.size()) return std::nullopt;
    return text.substr(p.size());
  };
  if (auto name = rest(kRaise)) return StrategyMove{true, *name};
  if (auto name = rest(kLower)) return StrategyMove{false, *name};
  return std::nullopt;
}

BuiltinStrategies builtin_strategies(const BuiltinMetaRequest& r) {
  BuiltinStrategies out;
  auto family = recognise_family(r.direction_doc, r.direction);
  if (family.family.empty()) {
    out.error = family.why_not;
    return out;
  }
  const ParamValues traits(family.traits.begin(), family.traits.end());
  std::vector<const KernelTemplate*> usable;
  for (const auto& t : builtin_templates())
    if (t.family() == family.family && t.backend() == r.backend && t.supports(traits))
      usable.push_back(&t);
  std::vector<std::string> candidates;
  const KernelTemplate* fastest = nullptr;
  ParamValues top;
  if (!r.best.empty()) {
    fastest = find_template(usable, r.best.back().template_name);
    auto doc = json::parse(r.best.back().params);
    if (!fastest || !doc.value || !KernelTemplate::from_json(*doc.value, top)) fastest = nullptr;
  }
  if (fastest) {
    // What made the fastest faster than the slower kernels of its template: keep going that way.
    for (auto k = r.best.rbegin() + 1; k < r.best.rend(); ++k) {
      ParamValues slower;
      auto doc = json::parse(k->params);
      if (find_template(usable, k->template_name) != fastest || !doc.value ||
          !KernelTemplate::from_json(*doc.value, slower))
        continue;
      for (const auto& p : fastest->params()) {
        auto a = top.find(p.name), b = slower.find(p.name);
        if (a == top.end() || b == slower.end() || a->second == b->second) continue;
        const bool up = a->second > b->second;
        if (can_move(p, a->second, up)) candidates.push_back((up ? kRaise : kLower) + p.name);
      }
    }
  }
  // Every other move of the fastest kernel's parameters.
  if (fastest) {
    for (const auto& p : fastest->params()) {
      auto v = top.find(p.name);
      if (v == top.end()) continue;
      for (bool up : {true, false})
        if (can_move(p, v->second, up)) candidates.push_back((up ? kRaise : kLower) + p.name);
    }
  }
  for (const auto& c : candidates) {
    if (static_cast<int>(out.strategies.size()) >= r.count) break;
    auto same = [&](const std::string& s) { return search::same_strategy(s, c); };
    if (std::none_of(r.known.begin(), r.known.end(), same) &&
        std::none_of(out.strategies.begin(), out.strategies.end(), same))
      out.strategies.push_back(c);
  }
  return out;
}

}  // namespace kforge::builtin
