// The daemon's HTTP API over the gateway actor: routes, JSON documents and Prometheus metrics.
//   GET  /api/state                      every actor's status, every experiment's progress
//   GET  /api/experiments                the archive's experiments
//   POST /api/experiments                start one (body: configuration JSON) -> {"id": N}
//   GET  /api/experiments/ID             one experiment and its best kernels
//   GET  /api/experiments/ID/events      its archived events
//   POST /api/experiments/ID/pause|resume|stop
//   GET  /api/candidates/ID              one candidate whole
//   GET  /api/events[?experiment=ID]     WebSocket: live events, one JSON text message each
//   GET  /metrics                        Prometheus text format
#pragma once

#include <caf/actor_system.hpp>

#include <atomic>
#include <string>

#include "common/json.hpp"
#include "messages/interfaces.hpp"
#include "net/http_server.hpp"

namespace kforge::cli {

class DaemonApi {
 public:
  DaemonApi(caf::actor_system& system, gateway_actor gateway)
      : system_(system), gateway_(std::move(gateway)) {}

  net::HttpResponse handle(const net::HttpRequest& request);
  /// WebSocket upgrades: accepted (status 0) on /api/events with a readable `experiment=` filter
  /// or none; 404 on any other path, 400 for a filter that is not an experiment id.
  net::HttpResponse admit_events(const net::HttpRequest& request);
  void stream_events(const net::HttpRequest& request, net::WebSocketChannel& channel,
                     const std::atomic<bool>& stopping);

 private:
  caf::actor_system& system_;
  gateway_actor gateway_;
};

json::Value state_json(const system_state& state);
json::Value event_json(const event_record& event);
std::string prometheus_metrics(const system_state& state);

}  // namespace kforge::cli
