#include "messages/registration.hpp"

#include "messages/errors.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

void register_message_types(caf::actor_system_config& config) {
  config.add_message_type<target>("kforge::target")
      .add_message_type<Candidate>("kforge::Candidate")
      .add_message_type<propose_request>("kforge::propose_request")
      .add_message_type<proposal>("kforge::proposal")
      .add_message_type<meta_request>("kforge::meta_request")
      .add_message_type<meta_reply>("kforge::meta_reply")
      .add_message_type<strategies_record>("kforge::strategies_record")
      .add_message_type<verify_request>("kforge::verify_request")
      .add_message_type<verdict>("kforge::verdict")
      .add_message_type<compile_request>("kforge::compile_request")
      .add_message_type<candidate_compile>("kforge::candidate_compile")
      .add_message_type<device_info>("kforge::device_info")
      .add_message_type<export_request>("kforge::export_request")
      .add_message_type<export_result>("kforge::export_result")
      .add_message_type<eval_request>("kforge::eval_request")
      .add_message_type<evaluation::ConfigReport>("kforge::evaluation::ConfigReport")
      .add_message_type<evaluation::KernelResources>("kforge::evaluation::KernelResources")
      .add_message_type<eval_result>("kforge::eval_result")
      .add_message_type<node_eval_request>("kforge::node_eval_request")
      .add_message_type<node_join>("kforge::node_join")
      .add_message_type<node_welcome>("kforge::node_welcome")
      .add_message_type<std::vector<actor_status>>("std::vector<kforge::actor_status>")
      .add_message_type<profile_request>("kforge::profile_request")
      .add_message_type<profile_summary>("kforge::profile_summary")
      .add_message_type<actor_status>("kforge::actor_status")
      .add_message_type<target_best>("kforge::target_best")
      .add_message_type<experiment_status>("kforge::experiment_status")
      .add_message_type<system_state>("kforge::system_state")
      .add_message_type<event_record>("kforge::event_record")
      .add_message_type<experiment_record>("kforge::experiment_record")
      .add_message_type<candidate_state>("kforge::candidate_state")
      .add_message_type<experiment_snapshot>("kforge::experiment_snapshot")
      .add_message_type<query_request>("kforge::query_request")
      .add_message_type<llm::CachedReply>("kforge::llm::CachedReply")
      .add_message_type<reply_key>("kforge::reply_key")
      .add_message_type<reply_lookup>("kforge::reply_lookup")
      .add_message_type<llm::ContextKernel>("kforge::llm::ContextKernel")
      .add_message_type<search::StrategyRecord>("kforge::search::StrategyRecord")
      .add_message_type<LlmCall>("kforge::LlmCall")
      .add_message_type<std::vector<LlmCall>>("std::vector<kforge::LlmCall>")
      .add_message_type<llm_verify_request>("kforge::llm_verify_request")
      .add_message_type<llm_check>("kforge::llm_check")
      .add_message_type<llm_verdict>("kforge::llm_verdict")
      .add_message_type<model_usage>("kforge::model_usage")
      .add_message_type<verdict_record>("kforge::verdict_record")
      .add_message_type<llm_calls_record>("kforge::llm_calls_record")
      .add_message_type<proposed_candidate>("kforge::proposed_candidate")
      .add_message_type<llm_verdict_record>("kforge::llm_verdict_record")
      .add_message_type<status_update>("kforge::status_update")
      .add_message_type<pipeline_job>("kforge::pipeline_job")
      .add_message_type<candidate_outcome>("kforge::candidate_outcome")
      .add_message_type<profile_outcome>("kforge::profile_outcome")
      .add_message_type<confirmation>("kforge::confirmation")
      .add_message_type<profile_advice_request>("kforge::profile_advice_request")
      .add_message_type<profile_advice>("kforge::profile_advice")
      .add_message_type<llm_panel_request>("kforge::llm_panel_request")
      .add_message_type<llm_judgement>("kforge::llm_judgement")
      .add_message_type<target_layout>("kforge::target_layout")
      .add_message_type<experiment_layout>("kforge::experiment_layout")
      .add_message_type<llm_model_actor>("kforge::llm_model_actor")
      .add_message_type<llm_runner_actor>("kforge::llm_runner_actor")
      .add_message_type<proposer_actor>("kforge::proposer_actor")
      .add_message_type<verifier_actor>("kforge::verifier_actor")
      .add_message_type<compiler_actor>("kforge::compiler_actor")
      .add_message_type<evaluator_actor>("kforge::evaluator_actor")
      .add_message_type<node_evaluator_actor>("kforge::node_evaluator_actor")
      .add_message_type<std::vector<node_evaluator_actor>>(
          "std::vector<kforge::node_evaluator_actor>")
      .add_message_type<evaluator_pool_actor>("kforge::evaluator_pool_actor")
      .add_message_type<node_registry_actor>("kforge::node_registry_actor")
      .add_message_type<profiler_actor>("kforge::profiler_actor")
      .add_message_type<archive_actor>("kforge::archive_actor")
      .add_message_type<compile_runner_actor>("kforge::compile_runner_actor")
      .add_message_type<evaluation_runner_actor>("kforge::evaluation_runner_actor")
      .add_message_type<coordinator_actor>("kforge::coordinator_actor")
      .add_message_type<pipeline_listener>("kforge::pipeline_listener")
      .add_message_type<experiment_listener>("kforge::experiment_listener")
      .add_message_type<candidate_pipeline_actor>("kforge::candidate_pipeline_actor")
      .add_message_type<experiment_setup_actor>("kforge::experiment_setup_actor")
      .add_message_type<gateway_actor>("kforge::gateway_actor");
  config.add_error_category(
      error_category, [](uint8_t code, caf::atom_value, const caf::message& context) {
        std::string text = "kforge: " + to_string(static_cast<error_code>(code));
        if (context.match_elements<std::string>()) text += ": " + context.get_as<std::string>(0);
        return text;
      });
}

}  // namespace kforge
