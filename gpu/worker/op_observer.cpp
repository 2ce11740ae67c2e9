#include "gpu/worker/op_observer.hpp"

#include <ATen/record_function.h>

#include <mutex>

namespace kforge::worker {
namespace {

thread_local std::set<std::string>* current = nullptr;

// Operators a kernel may call without handing its work to the library.
const std::set<std::string>& allowed() {
  static const std::set<std::string> ops = {
      "aten::empty",
      "aten::empty_like",
      "aten::empty_strided",
      "aten::zeros",
      "aten::zeros_like",
      "aten::ones",
      "aten::ones_like",
      "aten::full",
      "aten::full_like",
      "aten::fill_",
      "aten::zero_",
      "aten::contiguous",
      "aten::clone",
      "aten::copy_",
      "aten::to",
      "aten::_to_copy",
      "aten::view",
      "aten::reshape",
      "aten::_reshape_alias",
      "aten::as_strided",
      "aten::resize_",
      "aten::size",
      "aten::stride",
      "aten::t",
      "aten::transpose",
      "aten::permute",
      "aten::expand",
      "aten::select",
      "aten::slice",
      "aten::unsqueeze",
      "aten::squeeze",
      "aten::narrow",
      "aten::detach",
      "aten::alias",
      "aten::lift_fresh",
      "aten::item",
      "aten::_local_scalar_dense",
      "aten::set_",
      "aten::numel",
      "aten::dim",
      "aten::is_contiguous",
      "aten::flatten",
      "aten::view_as",
      "aten::expand_as",
      "aten::scalar_tensor",
      "aten::result_type",
      "aten::record_stream",
      "aten::lift",
  };
  return ops;
}

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
    if (!allowed().count(op)) out.insert(op);
  return out;
}

}  // namespace kforge::worker
