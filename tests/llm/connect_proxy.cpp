// Boost 1.74's Asio in C++20 needs <utility> before it.
#include <utility>

#include "tests/llm/connect_proxy.hpp"

#include <openssl/evp.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <mutex>
#include <thread>
#include <vector>

namespace kforge::test {

using tcp = boost::asio::ip::tcp;

struct ConnectProxy::Impl {
  boost::asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)};
  std::thread accept_thread;
  std::vector<std::thread> tunnels_threads;
  std::mutex mutex;
  std::atomic<int> tunnels{0};
  std::atomic<int> refusals{0};
  std::string wanted_authorization;  ///< "Basic ..." or empty
  std::atomic<bool> stopping{false};
  std::string last_authority;

  static void pipe(tcp::socket& from, tcp::socket& to) {
    char buf[16384];
    boost::system::error_code ec;
    for (;;) {
      size_t n = from.read_some(boost::asio::buffer(buf), ec);
      if (ec || n == 0) break;
      boost::asio::write(to, boost::asio::buffer(buf, n), ec);
      if (ec) break;
    }
    to.shutdown(tcp::socket::shutdown_send, ec);
  }

  void serve(tcp::socket client) {
    boost::system::error_code ec;
    boost::asio::streambuf head;
    boost::asio::read_until(client, head, "\r\n\r\n", ec);
    if (ec) return;
    std::string text(boost::asio::buffers_begin(head.data()),
                     boost::asio::buffers_end(head.data()));
    // "CONNECT host:port HTTP/1.1"
    auto first_space = text.find(' '), second_space = text.find(' ', first_space + 1);
    if (text.rfind("CONNECT ", 0) != 0 || second_space == std::string::npos) return;
    std::string authority = text.substr(first_space + 1, second_space - first_space - 1);
    if (!wanted_authorization.empty() &&
        text.find("\r\nProxy-Authorization: " + wanted_authorization + "\r\n") ==
            std::string::npos) {
      ++refusals;
      boost::asio::write(client,
                         boost::asio::buffer(std::string(
                             "HTTP/1.1 407 Proxy Authentication Required\r\n"
                             "Proxy-Authenticate: Basic realm=\"kforge-test\"\r\n"
                             "Content-Length: 0\r\n\r\n")),
                         ec);
      return;
    }
    auto colon = authority.rfind(':');
    std::string host = authority.substr(0, colon);
    if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);  // IPv6
    tcp::socket upstream(io);
    tcp::resolver resolver(io);
    auto endpoints = resolver.resolve(host, authority.substr(colon + 1), ec);
    if (!ec) boost::asio::connect(upstream, endpoints, ec);
    if (ec) {
      boost::asio::write(client,
                         boost::asio::buffer(std::string("HTTP/1.1 502 Bad Gateway\r\n\r\n")), ec);
      return;
    }
    {
      std::lock_guard lock(mutex);
      last_authority = authority;
    }
    ++tunnels;
    boost::asio::write(
        client, boost::asio::buffer(std::string("HTTP/1.1 200 Connection established\r\n\r\n")),
        ec);
    std::thread back([&] { pipe(upstream, client); });
    pipe(client, upstream);
    back.join();
  }
};

ConnectProxy::ConnectProxy(std::string credentials) : impl_(std::make_shared<Impl>()) {
  if (!credentials.empty()) {
    std::string encoded(4 * ((credentials.size() + 2) / 3) + 1, '\0');
    encoded.resize(static_cast<size_t>(
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                        reinterpret_cast<const unsigned char*>(credentials.data()),
                        static_cast<int>(credentials.size()))));
    impl_->wanted_authorization = "Basic " + encoded;
  }
  auto impl = impl_;
  impl_->accept_thread = std::thread([impl] {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket(impl->io);
      impl->acceptor.accept(socket, ec);
      if (impl->stopping) return;
      if (ec) continue;
      std::lock_guard lock(impl->mutex);
      impl->tunnels_threads.emplace_back(
          [impl, s = std::move(socket)]() mutable { impl->serve(std::move(s)); });
    }
  });
}

ConnectProxy::~ConnectProxy() {
  impl_->stopping = true;
  boost::system::error_code ec;
  {
    tcp::socket poke(impl_->io);
    poke.connect(impl_->acceptor.local_endpoint(ec), ec);
  }
  impl_->accept_thread.join();
  std::lock_guard lock(impl_->mutex);
  for (auto& t : impl_->tunnels_threads) t.join();
}

std::string ConnectProxy::url() const {
  boost::system::error_code ec;
  return "http://127.0.0.1:" + std::to_string(impl_->acceptor.local_endpoint(ec).port());
}

int ConnectProxy::tunnels() const {
  return impl_->tunnels;
}

int ConnectProxy::refusals() const {
  return impl_->refusals;
}

std::string ConnectProxy::last_authority() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->last_authority;
}

}  // namespace kforge::test
