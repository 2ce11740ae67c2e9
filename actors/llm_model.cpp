#include "actors/llm_model.hpp"

#include <algorithm>

namespace kforge {
namespace {

using self_ptr = llm_model_actor::stateful_pointer<llm_model_state>;

}  // namespace

void account(model_usage& usage, const std::vector<LlmCall>& calls) {
  for (const auto& c : calls) {
    ++usage.calls;
    usage.failures += !c.ok;
    usage.cached += c.cached;
    usage.input_tokens += c.input_tokens;
    usage.output_tokens += c.output_tokens;
    usage.cost_usd += c.cost_usd;
  }
}

llm_model_actor::behavior_type llm_model_impl(self_ptr self, llm_runner_options options) {
  auto& st = self->state;
  st.pool.stats() = stage_stats("llm " + options.model.name, "llm");
  st.usage.name = options.model.name;
  for (int i = 0; i < std::max(1, options.model.max_concurrency); ++i) {
    auto runner = self->system().spawn<caf::detached>(llm_runner_impl, options);
    self->link_to(runner);  // the runners end with the model
    st.pool.add(runner);
  }
  // Every answer's calls go to the model's ledger; what failed, to its status row.
  auto account_proposal = [self](const proposal& p) {
    account(self->state.usage, p.calls);
    return p.failure;
  };
  auto account_verdict = [self](const llm_verdict& v) {
    account(self->state.usage, v.calls);
    return v.failure;
  };
  return {
      [self](status_atom) {
        auto s = self->state.pool.stats().status();
        const auto& u = self->state.usage;
        char money[32];
        std::snprintf(money, sizeof money, "%.4f", u.cost_usd);
        s.current = std::to_string(u.calls) + " calls, " + std::to_string(u.failures) +
                    " failed, " + std::to_string(u.input_tokens + u.output_tokens) + " tokens, $" +
                    money + (s.current.empty() ? "" : "; " + s.current);
        return s;
      },
      [self, account_proposal](propose_atom, propose_request& r) {
        auto what = "propose " + r.tgt.key() + " #" + std::to_string(r.sequence);
        return relay<proposal>(self, self->state.pool, std::move(what), std::nullopt,
                               account_proposal, propose_atom::value, std::move(r));
      },
      [self](meta_atom, meta_request& r) {
        auto what = "strategies for " + r.tgt.key();
        auto account_meta = [self](const meta_reply& m) {
          account(self->state.usage, m.calls);
          return m.failure;
        };
        return relay<meta_reply>(self, self->state.pool, std::move(what), std::nullopt,
                                 account_meta, meta_atom::value, std::move(r));
      },
      [self](profile_atom, profile_advice_request& r) {
        auto what = "advice on #" + std::to_string(r.sequence);
        auto account_advice = [self](const profile_advice& a) {
          account(self->state.usage, a.calls);
          return a.failure;
        };
        return relay<profile_advice>(self, self->state.pool, std::move(what), std::nullopt,
                                     account_advice, profile_atom::value, std::move(r));
      },
      [self, account_verdict](verify_atom, llm_verify_request& r) {
        auto what = "verify #" + std::to_string(r.candidate.sequence);
        return relay<llm_verdict>(self, self->state.pool, std::move(what), std::nullopt,
                                  account_verdict, verify_atom::value, std::move(r));
      },
  };
}

}  // namespace kforge
