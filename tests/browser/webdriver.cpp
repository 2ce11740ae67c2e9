#include "tests/browser/webdriver.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "net/http_client.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

constexpr const char* kChromium = "/usr/bin/chromium";
constexpr const char* kDriver = "/usr/bin/chromedriver";

bool truthy(const json::Value& v) {
  if (v.is_null()) return false;
  if (v.is_bool()) return v.as_bool();
  if (v.is_number()) return v.as_number() != 0;
  if (v.is_string()) return !v.as_string().empty();
  return true;
}

std::string base64_decode(const std::string& text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return {};
  size_t size = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding's bytes too.
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --size;
  out.resize(size);
  return out;
}

}  // namespace

bool WebDriver::available() {
  return std::filesystem::exists(kChromium) && std::filesystem::exists(kDriver);
}

Result<WebDriver> WebDriver::start(int width, int height) {
  WebDriver d;
  d.state_->port = free_loopback_port();
  evaluation::SpawnOptions o;
  o.argv = {kDriver, "--port=" + std::to_string(d.state_->port)};
  o.isolate_network = false;
  o.capture_output = false;
  auto spawned = evaluation::spawn(o);
  if (!spawned.child) return Result<WebDriver>::failure("chromedriver: " + spawned.error);
  d.state_->driver = std::move(spawned.child);
  bool ready = false;
  for (int i = 0; i < 100 && !ready; ++i) {
    auto r = net::http_call("127.0.0.1", d.state_->port, "GET", "/status", "");
    auto doc = json::parse(r.body);
    ready = r.status == 200 && doc.value && (*doc.value)["value"]["ready"].as_bool(false);
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ready) return Result<WebDriver>::failure("chromedriver did not become ready");
  json::Value args{json::Array{}};
  for (std::string a : {"--headless=new", "--no-sandbox", "--disable-gpu",
                        "--disable-dev-shm-usage", "--hide-scrollbars"})
    args.push(a);
  args.push("--window-size=" + std::to_string(width) + "," + std::to_string(height));
  json::Value options, match, caps, body;
  options.set("binary", kChromium).set("args", args);
  match.set("browserName", "chrome").set("goog:chromeOptions", options);
  caps.set("alwaysMatch", match);
  body.set("capabilities", caps);
  auto session = d.call("POST", "/session", body);
  if (!session) return Result<WebDriver>::failure("a browser session: " + session.error);
  d.state_->session = (*session)["sessionId"].as_string();
  if (d.state_->session.empty())
    return Result<WebDriver>::failure("no session id: " + session->dump());
  return Result<WebDriver>{std::move(d), {}};
}

WebDriver::~WebDriver() {
  if (!state_) return;
  if (!state_->session.empty())
    call("DELETE", "/session/" + state_->session, json::Value(json::Object{}));
  if (state_->driver) state_->driver->kill_group();
}

Result<json::Value> WebDriver::call(const std::string& method, const std::string& path,
                                    const json::Value& body) {
  auto r = net::http_call("127.0.0.1", state_->port, method, path, "",
                          method == "GET" ? "" : body.dump());
  if (r.status == 0) return Result<json::Value>::failure(r.error);
  auto doc = json::parse(r.body);
  if (!doc.value) return Result<json::Value>::failure("not JSON: " + r.body.substr(0, 300));
  const json::Value value = (*doc.value)["value"];
  if (r.status >= 300)
    return Result<json::Value>::failure(value["error"].as_string() + ": " +
                                        value["message"].as_string().substr(0, 600));
  return Result<json::Value>{value, {}};
}

Result<void> WebDriver::navigate(const std::string& url) {
  json::Value body;
  body.set("url", url);
  auto r = call("POST", "/session/" + state_->session + "/url", body);
  if (!r) return Result<void>::failure(r.error);
  return {};
}

Result<json::Value> WebDriver::run(const std::string& script) {
  json::Value body;
  body.set("script", script).set("args", json::Value(json::Array{}));
  return call("POST", "/session/" + state_->session + "/execute/sync", body);
}

Result<json::Value> WebDriver::wait_for(const std::string& script,
                                        std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::string last;
  for (;;) {
    auto v = run(script);
    if (v && truthy(*v)) return v;
    last = v ? v->dump() : v.error;
    if (std::chrono::steady_clock::now() > until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Result<json::Value>::failure("still not true after " + std::to_string(timeout.count()) +
                                      " ms: " + script + " (last: " + last.substr(0, 300) + ")");
}

Result<std::string> WebDriver::screenshot() {
  auto r = call("GET", "/session/" + state_->session + "/screenshot", json::Value());
  if (!r) return Result<std::string>::failure(r.error);
  return Result<std::string>{base64_decode(r->as_string()), {}};
}

std::string WebDriver::url() {
  auto r = call("GET", "/session/" + state_->session + "/url", json::Value());
  return r ? r->as_string() : "";
}

}  // namespace kforge::test
