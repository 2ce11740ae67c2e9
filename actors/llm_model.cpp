#include "actors/llm_model.hpp"

#include <algorithm>

namespace kforge {
namespace {

using self_ptr = llm_model_actor::stateful_pointer<llm_model_state>;

void dispatch(self_ptr self) {
  auto& st = self->state;
  for (size_t slot = 0; slot < st.runners.size() && !st.queue.empty(); ++slot) {
    if (st.busy[slot]) continue;
    auto job = std::move(st.queue.front());
    st.queue.pop_front();
    st.busy[slot] = true;
    st.stats.set_queued(static_cast<int64_t>(st.queue.size()));
    job(slot);
  }
}

void release(self_ptr self, size_t slot, const std::string& error) {
  self->state.busy[slot] = false;
  self->state.stats.finished(error);
  dispatch(self);
}

void enqueue(self_ptr self, std::function<void(size_t)> job) {
  self->state.queue.push_back(std::move(job));
  self->state.stats.set_queued(static_cast<int64_t>(self->state.queue.size()));
  dispatch(self);
}

}  // namespace

void account(model_usage& usage, const std::vector<llm_call>& calls) {
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
  st.stats = stage_stats("llm " + options.model.name, "llm");
  st.usage.name = options.model.name;
  for (int i = 0; i < std::max(1, options.model.max_concurrency); ++i) {
    auto runner = self->system().spawn<caf::detached>(llm_runner_impl, options);
    self->link_to(runner);  // the runners end with the model
    st.runners.push_back(runner);
    st.busy.push_back(false);
  }
  return {
      [self](status_atom) {
        auto s = self->state.stats.status();
        const auto& u = self->state.usage;
        char money[32];
        std::snprintf(money, sizeof money, "%.4f", u.cost_usd);
        s.current = std::to_string(u.calls) + " calls, " + std::to_string(u.failures) +
                    " failed, " + std::to_string(u.input_tokens + u.output_tokens) + " tokens, $" +
                    money + (s.current.empty() ? "" : "; " + s.current);
        return s;
      },
      [self](propose_atom, propose_request& r) {
        auto promise = self->make_response_promise<proposal>();
        enqueue(self, [self, promise, r](size_t slot) mutable {
          self->state.stats.started("propose " + r.tgt.key() + " #" + std::to_string(r.sequence));
          self->request(self->state.runners[slot], caf::infinite, propose_atom::value, r)
              .then(
                  [self, promise, slot](proposal& p) mutable {
                    account(self->state.usage, p.calls);
                    release(self, slot, p.failure);
                    promise.deliver(std::move(p));
                  },
                  [self, promise, slot](caf::error& e) mutable {
                    release(self, slot, caf::to_string(e));
                    promise.deliver(std::move(e));
                  });
        });
        return promise;
      },
      [self](verify_atom, llm_verify_request& r) {
        auto promise = self->make_response_promise<llm_verdict>();
        enqueue(self, [self, promise, r](size_t slot) mutable {
          self->state.stats.started("verify #" + std::to_string(r.candidate.sequence));
          self->request(self->state.runners[slot], caf::infinite, verify_atom::value, r)
              .then(
                  [self, promise, slot](llm_verdict& v) mutable {
                    account(self->state.usage, v.calls);
                    release(self, slot, v.failure_kind);
                    promise.deliver(std::move(v));
                  },
                  [self, promise, slot](caf::error& e) mutable {
                    release(self, slot, caf::to_string(e));
                    promise.deliver(std::move(e));
                  });
        });
        return promise;
      },
  };
}

}  // namespace kforge
