#include "evaluation/worker/op_observer.hpp"

#include <ATen/record_function.h>

#include "evaluation/library_policy.hpp"

#include <mutex>

namespace kforge::worker {
namespace {

thread_local std::set<std::string>* current = nullptr;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (current) current->insert(fn.name());
  return nullptr;
}

}  // namespace

OpObserver::OpObserver() {
  current = new std::set<std::string>();
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start).scopes({at::RecordScope::FUNCTION}));
}

OpObserver::~OpObserver() {
  at::removeCallback(handle_);
  delete current;
  current = nullptr;
}

std::set<std::string> OpObserver::compute_ops() const {
  std::set<std::string> out;
  if (!current) return out;
  for (const auto& op : *current)
    if (op.rfind("aten::", 0) != 0 ||
        !evaluation::is_bookkeeping_op(std::string_view(op).substr(6)))
      out.insert(op);
  return out;
}

}  // namespace kforge::worker
