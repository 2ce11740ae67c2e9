// One thread of an LLM model (spawned detached by llm_model): builds the prompt from the request,
// makes the blocking call through llm::Client with the archive actor as its response cache, and
// parses the reply. Failures come back inside the answer (a proposal without source, an undecided
// check) with the calls they cost, never as a lost message.
#pragma once

#include <memory>
#include <string>

#include "llm/client.hpp"
#include "messages/interfaces.hpp"
#include "search/experiment_spec.hpp"

namespace kforge {

struct llm_runner_options {
  llm::ModelConfig model;
  archive_actor archive;  ///< keeps the response cache (the archive's llm_replies)
  bool offline = false;   ///< never call out: a reply missing from the cache is a failure
};

/// The client's configuration of a model as an experiment names it (prices already resolved).
llm::ModelConfig model_config(const std::string& name, const search::ModelSpec& spec);

llm_runner_actor::behavior_type llm_runner_impl(llm_runner_actor::pointer self,
                                                llm_runner_options options);

}  // namespace kforge
