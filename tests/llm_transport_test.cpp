// The LLM client's HTTP(S) transport: certificates verified, URLs as RFC 3986 writes them (a
// user and password for a proxy, IPv6 literals), the environment's proxy kept off loopback, and
// HTTP CONNECT tunnels through a proxy, one that demands credentials included.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "tests/llm/connect_proxy.hpp"
#include "common/json.hpp"
#include "llm/client.hpp"
#include "tests/llm/fake_provider.hpp"
#include "tests/llm/llm_test_support.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {
namespace {

using llm::ProviderKind;

TEST(Transport, CertificatesAreVerified) {
  FakeProvider fake(true);
  auto config = model_for(fake, ProviderKind::openai);
  config.ca_file.clear();  // the fake's certificate is not trusted by the system store
  config.max_attempts = 1;
  RecordingClient c(config);
  auto r = c.client.call(kChat, 1, 0);
  EXPECT_FALSE(r.record.ok);
  EXPECT_NE(r.record.error.find("TLS handshake"), std::string::npos) << r.record.error;
  EXPECT_EQ(fake.request_count(), 0u);
  // A provider's URL with credentials is refused (keys go in headers only): nothing is sent.
  config.base_url = "https://user:secret@127.0.0.1:" + std::to_string(fake.port()) + "/v1";
  RecordingClient with_user(config);
  auto refused = with_user.client.call(kChat, 1, 0);
  EXPECT_FALSE(refused.record.ok);
  EXPECT_NE(refused.record.error.find("a user and password in a provider's URL are not sent"),
            std::string::npos)
      << refused.record.error;
  EXPECT_EQ(fake.request_count(), 0u);
}

// URLs as RFC 3986 writes them: user and password (percent-encoded) before the host, an IPv6
// address in brackets, a query right after the host.
TEST(Transport, UrlsParseAsRfc3986WritesThem) {
  auto proxy = llm::parse_url("http://us%40er:p%3Ass%25w@proxy.corp:3128");
  ASSERT_TRUE(proxy) << proxy.error;
  EXPECT_EQ(proxy->user, "us@er");
  EXPECT_EQ(proxy->password, "p:ss%w");
  EXPECT_EQ(proxy->host, "proxy.corp");
  EXPECT_EQ(proxy->port, "3128");
  auto v6 = llm::parse_url("https://[2001:db8::1]:8443/v1");
  ASSERT_TRUE(v6) << v6.error;
  EXPECT_EQ(v6->host, "2001:db8::1");
  EXPECT_EQ(v6->port, "8443");
  EXPECT_EQ(v6->target, "/v1");
  EXPECT_EQ(v6->authority(), "[2001:db8::1]:8443");
  auto v6_default = llm::parse_url("https://[::1]");
  ASSERT_TRUE(v6_default) << v6_default.error;
  EXPECT_EQ(v6_default->port, "443");
  EXPECT_EQ(v6_default->target, "/");
  EXPECT_EQ(llm::parse_url("http://host?x=1")->target, "/?x=1");
  EXPECT_EQ(llm::parse_url("https://localhost:8443/v1")->authority(), "localhost:8443");
  for (const char* bad : {"https://::1/v1", "https://[::1/v1", "https://[::1]x/v1",
                          "https://[not-v6]/v1", "https://host:http/v1", "https://u%zz@h/",
                          "ftp://host/", "host/v1"})
    EXPECT_FALSE(llm::parse_url(bad)) << bad;
  EXPECT_NE(llm::parse_url("https://::1/v1").error.find("in brackets"), std::string::npos);
}

// A provider at an IPv6 literal (a local server on [::1]): connected, Host written with brackets,
// the certificate's IP address checked.
TEST(Transport, AnIpv6LiteralBaseUrlIsReached) {
  std::unique_ptr<FakeProvider> fake;
  try {
    fake = std::make_unique<FakeProvider>(true, "::1");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "this machine has no IPv6 loopback: " << e.what();
  }
  fake->push(ProviderStep::reply("over IPv6"));
  auto config = model_for(*fake, ProviderKind::openai, false);
  ASSERT_EQ(config.base_url.rfind("https://[::1]:", 0), 0u) << config.base_url;
  RecordingClient c(config);
  auto r = c.client.call(kChat, 1, 0);
  ASSERT_TRUE(r.record.ok) << r.record.error;
  EXPECT_EQ(r.reply.text, "over IPv6");
  EXPECT_EQ(fake->requests().back().headers.at("host"),
            "[::1]:" + std::to_string(fake->port()));
}

TEST(Transport, LoopbackNeverGoesThroughAProxy) {
  ::setenv("HTTPS_PROXY", "http://127.0.0.1:9", 1);
  EXPECT_EQ(llm::proxy_from_environment("127.0.0.1"), "");
  EXPECT_EQ(llm::proxy_from_environment("api.openai.com"), "http://127.0.0.1:9");
  ::setenv("NO_PROXY", "example.com,.openai.com", 1);
  EXPECT_EQ(llm::proxy_from_environment("api.openai.com"), "");
  EXPECT_EQ(llm::proxy_from_environment("api.anthropic.com"), "http://127.0.0.1:9");
  ::unsetenv("NO_PROXY");
  FakeProvider fake(true);
  fake.push(ProviderStep::reply("through"));
  RecordingClient c(model_for(fake, ProviderKind::openai));
  auto r = c.client.call(kChat, 1, 0);
  ::unsetenv("HTTPS_PROXY");
  EXPECT_TRUE(r.record.ok) << r.record.error;
}

/// A whole (not streamed) OpenAI request to the fake provider, as the transport sends it.
llm::HttpRequest whole_openai_request(const FakeProvider& fake) {
  llm::WireRequest w;
  w.kind = ProviderKind::openai;
  w.base_url = fake.base_url("openai");
  w.model = "m";
  w.stream = false;
  w.messages = kChat;
  return llm::build_http_request(w);
}

TEST(Transport, HttpsGoesThroughAConnectProxyWithTheServersCertificateChecked) {
  FakeProvider fake(true);
  fake.push(ProviderStep::reply("tunnelled"));
  test::ConnectProxy proxy;
  const auto request = whole_openai_request(fake);
  llm::TransportOptions options;
  options.proxy = proxy.url();
  options.ca_file = fake.ca_file();
  auto sent = llm::send_http(request, options);
  ASSERT_TRUE(sent.ok) << sent.error;
  EXPECT_EQ(sent.response.status, 200);
  EXPECT_EQ(llm::read_reply(ProviderKind::openai, sent.response.body).reply.text, "tunnelled");
  EXPECT_EQ(proxy.tunnels(), 1);
  EXPECT_EQ(proxy.last_authority(), "127.0.0.1:" + std::to_string(fake.port()));
  // End to end through the tunnel, TLS still verifies the provider, not the proxy.
  options.ca_file.clear();
  auto untrusted = llm::send_http(request, options);
  EXPECT_FALSE(untrusted.ok);
  EXPECT_NE(untrusted.error.find("TLS handshake"), std::string::npos) << untrusted.error;
}

// A proxy that wants credentials (a corporate one): HTTPS_PROXY's user and password, written
// percent-encoded, go to it as Basic credentials; without them or with wrong ones the error says
// the proxy asked for them.
TEST(Transport, AProxyThatWantsCredentialsGetsThoseOfHttpsProxy) {
  FakeProvider fake(true);
  fake.push(ProviderStep::reply("authenticated"));
  test::ConnectProxy proxy("us@er:p:ss");
  const std::string hostport = proxy.url().substr(std::string("http://").size());
  const auto request = whole_openai_request(fake);
  llm::TransportOptions options;
  options.ca_file = fake.ca_file();
  options.proxy = "http://us%40er:p%3Ass@" + hostport;
  auto sent = llm::send_http(request, options);
  ASSERT_TRUE(sent.ok) << sent.error;
  EXPECT_EQ(llm::read_reply(ProviderKind::openai, sent.response.body).reply.text, "authenticated");
  EXPECT_EQ(proxy.tunnels(), 1);
  options.proxy = "http://" + hostport;
  auto anonymous = llm::send_http(request, options);
  EXPECT_FALSE(anonymous.ok);
  EXPECT_NE(anonymous.error.find("HTTP 407 (it wants credentials"), std::string::npos)
      << anonymous.error;
  options.proxy = "http://us%40er:wrong@" + hostport;
  auto wrong = llm::send_http(request, options);
  EXPECT_NE(wrong.error.find("does not take the user and password"), std::string::npos)
      << wrong.error;
  EXPECT_EQ(proxy.refusals(), 2);
  EXPECT_EQ(proxy.tunnels(), 1);
}

}  // namespace
}  // namespace kforge::test
