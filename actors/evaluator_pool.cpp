#include "actors/evaluator_pool.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actors/node_evaluator.hpp"
#include "common/log.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

using self_ptr = evaluator_pool_actor::stateful_pointer<evaluator_pool_state>;

/// What a verdict says when the stage itself failed ("" when it did not).
std::string error_of(const eval_result& r) {
  return r.report.verdict == EvalVerdict::error ? r.report.failure_message : std::string();
}

std::string what_of(const eval_request& r) {
  return "candidate " + std::to_string(r.candidate_id);
}

void dispatch(self_ptr self);

/// An error verdict for request `r` in kforge's words (the evaluation never reached a worker).
eval_result error_result(const eval_request& r, const std::string& message) {
  eval_result out;
  out.candidate_id = r.candidate_id;
  out.config_set = r.worker.mode;
  out.report = evaluation::WorkerReport::failed(EvalVerdict::error, "infrastructure", message);
  return out;
}

/// Member `m`'s job is over: `reply` (a result, or the daemon's own evaluator's error) is the
/// job's one answer, then the member takes the next.
template <class Reply>
void settle(self_ptr self, uint64_t m, Reply reply, const std::string& error) {
  auto& st = self->state;
  auto& member = st.members.at(m);
  const uint64_t id = *member.job;
  member.job.reset();
  member.stats.finished(error);
  st.stats.finished(error);
  if (auto j = st.jobs.find(id); j != st.jobs.end()) {
    j->second.promise.deliver(std::move(reply));
    st.jobs.erase(j);
  }
  dispatch(self);
}

/// Whether the message being handled comes from an actor of the daemon's own process. A node's
/// connection carries the pools' addresses (as the senders of its requests), and CAF delivers a
/// peer's message to any actor whose address crossed a connection: a pool takes work and members
/// only from the daemon's own actors.
bool from_this_process(self_ptr self) {
  const auto& sender = self->current_sender();
  return sender && sender->node() == self->node();
}

/// Job `id` goes back to the queue (a node lost it), or is answered with an error once it was
/// lost too often.
void requeue(self_ptr self, uint64_t id, const std::string& why) {
  auto& st = self->state;
  auto it = st.jobs.find(id);
  if (it == st.jobs.end()) return;
  auto& j = it->second;
  st.stats.finished(why);
  if (++j.losses >= kNodeLossesPerCandidate) {
    j.promise.deliver(error_result(
        j.request,
        "the evaluation was lost with " + std::to_string(j.losses) + " nodes; the last: " + why));
    st.jobs.erase(it);
    return;
  }
  st.queue.emplace(j.request.candidate_id, id);
  st.stats.set_queued(static_cast<int64_t>(st.queue.size()));
}

/// Member `m` leaves the pool; its candidate in flight goes back to the queue.
void drop_member(self_ptr self, uint64_t m, const std::string& why) {
  auto& st = self->state;
  auto it = st.members.find(m);
  if (it == st.members.end()) return;
  const std::string left = it->second.name + " left (" + why + ")";
  const auto job = it->second.job;
  st.members.erase(it);
  if (job)  // the status's last error and the log say so
    requeue(self, *job, left + "; its candidate goes back to the queue");
  else
    st.stats.note_error(left);
  dispatch(self);
}

/// Member `m`'s answer to the `attempt`th sending of job `id`: delivered once, unless the member
/// was dropped meanwhile (the job is in the queue or elsewhere again).
void answered(self_ptr self, uint64_t m, uint64_t attempt, eval_result r) {
  auto& st = self->state;
  auto member = st.members.find(m);
  if (member == st.members.end() || member->second.attempt != attempt || !member->second.job)
    return;
  if (r.report.failure_kind == kNodeFailureKind)  // the node's failure, not the candidate's
    return drop_member(self, m, r.report.failure_message);
  const std::string error = error_of(r);
  settle(self, m, std::move(r), error);
}

/// The node's request for job `j`: the daemon's request and the task's files.
Result<node_eval_request> node_request(self_ptr self, const eval_request& r) {
  auto& files = self->state.task_files;
  auto it = files.find(r.tgt.task_dir);
  if (it == files.end()) {
    auto read = read_task_files(r.tgt.task_dir);
    if (!read) return Result<node_eval_request>::failure(read.error);
    it = files.emplace(r.tgt.task_dir, std::move(*read)).first;
  }
  node_eval_request out;
  out.eval = r;
  out.task_files = it->second;
  return {std::move(out), {}};
}

void send(self_ptr self, uint64_t m, uint64_t id) {
  auto& st = self->state;
  auto& member = st.members.at(m);
  auto& j = st.jobs.at(id);
  const uint64_t attempt = ++st.next_attempt;
  member.job = id;
  member.attempt = attempt;
  member.stats.started(what_of(j.request));
  st.stats.started(what_of(j.request));
  auto done = [self, m, attempt](eval_result& r) { answered(self, m, attempt, std::move(r)); };
  if (member.local) {
    self->request(member.local, caf::infinite, evaluate_atom::value, j.request)
        .then(done, [self, m](caf::error& e) {
          // The daemon's own evaluator failed as a stage: the experiment hears it, as without a
          // pool (the daemon's own member is never dropped, so the attempt is this one).
          const std::string error = describe(e);
          settle(self, m, std::move(e), error);
        });
    return;
  }
  auto request = node_request(self, j.request);
  if (!request)
    return answered(
        self, m, attempt,
        error_result(j.request, "the task's files could not be sent to a node: " + request.error));
  self->request(member.remote, caf::infinite, evaluate_atom::value, std::move(*request))
      .then(done, [self, m, attempt](caf::error& e) {
        auto member = self->state.members.find(m);
        if (member == self->state.members.end() || member->second.attempt != attempt) return;
        drop_member(self, m, "it answered " + describe(e));
      });
}

void dispatch(self_ptr self) {
  auto& st = self->state;
  for (auto& [m, member] : st.members) {
    if (member.job) continue;
    // The oldest candidate this member may take: confirmations only on the first member.
    const bool first = m == st.members.begin()->first;
    auto next = std::find_if(st.queue.begin(), st.queue.end(), [&](const auto& q) {
      return first || !st.jobs.at(q.second).request.confirmation;
    });
    if (next == st.queue.end()) continue;
    const uint64_t id = next->second;
    st.queue.erase(next);
    send(self, m, id);
  }
  st.stats.set_queued(static_cast<int64_t>(st.queue.size()));
}

}  // namespace

Result<std::map<std::string, std::string>> read_task_files(const std::string& dir, size_t limit) {
  namespace fs = std::filesystem;
  using Files = Result<std::map<std::string, std::string>>;
  std::map<std::string, std::string> out;
  size_t total = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return Files::failure("cannot read the task folder " + dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Files::failure("cannot read the task folder " + dir + ": " + ec.message());
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || name == "__pycache__") {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    total += static_cast<size_t>(it->file_size(ec));
    if (total > limit)
      return Files::failure("the task folder " + dir + " holds more than " +
                            std::to_string(limit >> 20) + " MiB of files");
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return Files::failure("cannot read " + it->path().string());
    out[fs::relative(it->path(), dir, ec).string()] = text.str();
  }
  if (out.empty()) return Files::failure("the task folder " + dir + " holds no file");
  return {std::move(out), {}};
}

evaluator_pool_actor::behavior_type evaluator_pool_impl(
    evaluator_pool_actor::stateful_pointer<evaluator_pool_state> self, std::string key,
    evaluator_actor local) {
  auto& st = self->state;
  st.key = key;
  st.stats = stage_stats("evaluator pool " + key, "evaluator");
  if (local) {
    auto& m = st.members[st.next_member++];
    m.name = "evaluator " + key;
    m.local = local;
    m.stats = stage_stats(m.name, "evaluator");
    self->link_to(local);  // it ends with the pool
  }
  self->set_down_handler([self](caf::down_msg& down) {
    for (const auto& [m, member] : self->state.members)
      if (member.remote && member.remote.address() == down.source) {
        drop_member(self, m, "its node went: " + caf::to_string(down.reason));
        return;
      }
  });
  return {
      [self](status_atom) { return self->state.stats.status(); },
      [self](nodes_atom) {
        std::vector<actor_status> rows;
        for (auto& [m, member] : self->state.members)
          if (member.remote) rows.push_back(member.stats.status());
        return rows;
      },
      [self](device_atom) -> caf::result<device_info> {
        // The first member's: the daemon's own evaluator, where there is one, else a node's.
        if (!self->state.members.empty()) {
          const auto& first = self->state.members.begin()->second;
          if (first.local) return self->delegate(first.local, device_atom::value);
          return first.device;
        }
        device_info none;
        none.error = "no evaluator serves " + self->state.key +
                     " yet: the daemon has none of its own and no node offered one";
        return none;
      },
      [self](join_atom, node_evaluator_actor& remote, device_info& device, std::string& name) {
        auto& s = self->state;
        if (!from_this_process(self)) return;
        for (const auto& [id, member] : s.members)
          if (member.remote && member.remote.address() == remote.address()) return;  // rejoined
        auto& m = s.members[s.next_member++];
        m.name = name;
        m.remote = remote;
        m.device = std::move(device);
        m.stats = stage_stats(name, "evaluator");
        self->monitor(remote);
        log::info(s.stats.status().name + ": " + name + " joined (" + m.device.name + ")");
        dispatch(self);
      },
      [self](evaluate_atom, eval_request& r) -> caf::result<eval_result> {
        if (!from_this_process(self))
          return make_error(error_code::not_authorized,
                            "evaluations are asked of a pool by the daemon's own actors only");
        auto& s = self->state;
        const uint64_t id = s.next_job++;
        auto promise = self->make_response_promise<eval_result>();
        s.queue.emplace(r.candidate_id, id);
        s.jobs.emplace(id, evaluator_pool_state::job{std::move(r), promise, 0});
        dispatch(self);
        return promise;
      },
  };
}

}  // namespace kforge
