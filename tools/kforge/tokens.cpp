#include "tools/kforge/tokens.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "evaluation/hashing.hpp"

namespace kforge::cli {

Result<std::string> new_token() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[32];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    return Result<std::string>::failure("cannot read /dev/urandom");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) out += {hex[b >> 4], hex[b & 15]};
  return {out, {}};
}

Result<void> write_private(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Result<void>::failure("cannot write " + tmp + ": " + std::strerror(errno));
  ::fchmod(fd, 0600);
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0)
    return Result<void>::failure("cannot write " + path);
  return {};
}

Result<std::string> stable_token(const std::string& path) {
  std::ifstream in(path);
  std::string kept;
  std::getline(in, kept);
  std::error_code ec;
  const auto perms = std::filesystem::status(path, ec).permissions();
  const bool private_file =
      !ec && (perms & (std::filesystem::perms::group_all | std::filesystem::perms::others_all)) ==
                 std::filesystem::perms::none;
  if (kept.size() == 64 && kept.find_first_not_of("0123456789abcdef") == std::string::npos &&
      private_file)
    return {kept, {}};
  auto made = new_token();
  if (!made) return made;
  if (auto written = write_private(path, *made + "\n"); !written)
    return Result<std::string>::failure(written.error);
  return made;
}

Result<std::string> read_token_file(const std::string& path) {
  auto file = evaluation::read_file(path);
  if (!file.ok)
    return Result<std::string>::failure("cannot read the daemon's token: " + file.error);
  std::string token = file.text.substr(0, file.text.find('\n'));
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  const bool plausible = !token.empty() && std::all_of(token.begin(), token.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
  });
  if (!plausible)
    return Result<std::string>::failure("the token file " + path +
                                        " does not hold a token (one line of letters and digits)");
  return {token, {}};
}

}  // namespace kforge::cli
