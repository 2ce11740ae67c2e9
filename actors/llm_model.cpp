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

/// Queues a request for the next free runner; its answer is accounted and passed back.
template <class Reply, class Atom, class Request, class Ledger>
caf::typed_response_promise<Reply> through_runner(self_ptr self, Atom atom, Request request,
                                                  std::string what, Ledger ledger) {
  auto promise = self->template make_response_promise<Reply>();
  enqueue(self, [self, promise, atom, request, what, ledger](size_t slot) mutable {
    self->state.stats.started(what);
    self->request(self->state.runners[slot], caf::infinite, atom, request)
        .then(
            [self, promise, slot, ledger](Reply& reply) mutable {
              auto [calls, failure] = ledger(reply);
              account(self->state.usage, calls);
              release(self, slot, failure);
              promise.deliver(std::move(reply));
            },
            [self, promise, slot](caf::error& e) mutable {
              release(self, slot, caf::to_string(e));
              promise.deliver(std::move(e));
            });
  });
  return promise;
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
        auto what = "propose " + r.tgt.key() + " #" + std::to_string(r.sequence);
        return through_runner<proposal>(
            self, propose_atom::value, std::move(r), std::move(what),
            [](const proposal& p) { return std::make_pair(p.calls, p.failure); });
      },
      [self](verify_atom, llm_verify_request& r) {
        auto what = "verify #" + std::to_string(r.candidate.sequence);
        return through_runner<llm_verdict>(
            self, verify_atom::value, std::move(r), std::move(what),
            [](const llm_verdict& v) { return std::make_pair(v.calls, v.failure_kind); });
      },
  };
}

}  // namespace kforge
