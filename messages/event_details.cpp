#include "messages/event_details.hpp"

#include <array>

namespace kforge::events {
namespace {

// ---- Writing a field. ----

void put(json::Value& d, const char* key, const std::string& v) {
  d.set(key, v);
}
void put(json::Value& d, const char* key, int64_t v) {
  d.set(key, v);
}
void put(json::Value& d, const char* key, double v) {
  d.set(key, v);
}
void put(json::Value& d, const char* key, bool v) {
  d.set(key, v);
}
void put(json::Value& d, const char* key, const json::Value& v) {
  d.set(key, v);
}
void put(json::Value& d, const char* key, const std::vector<std::string>& v) {
  json::Value list{json::Array{}};
  for (const auto& s : v) list.push(s);
  d.set(key, std::move(list));
}
template <class T>
void put(json::Value& d, const char* key, const std::optional<T>& v) {
  if (v) put(d, key, *v);
}

// ---- Reading one: false when it is there with the wrong type. ----

bool take(const json::Value& v, std::string& out) {
  if (!v.is_string()) return false;
  out = v.as_string();
  return true;
}
bool take(const json::Value& v, int64_t& out) {
  if (!v.is_integer()) return false;
  out = v.as_int();
  return true;
}
bool take(const json::Value& v, double& out) {
  if (!v.is_number()) return false;
  out = v.as_number();
  return true;
}
bool take(const json::Value& v, bool& out) {
  if (!v.is_bool()) return false;
  out = v.as_bool();
  return true;
}
bool take(const json::Value& v, json::Value& out) {
  out = v;
  return true;
}
bool take(const json::Value& v, std::vector<std::string>& out) {
  if (!v.is_array()) return false;
  out.clear();
  for (const auto& s : v.as_array()) {
    if (!s.is_string()) return false;
    out.push_back(s.as_string());
  }
  return true;
}
template <class T>
bool take(const json::Value& v, std::optional<T>& out) {
  T x{};
  if (!take(v, x)) return false;
  out = std::move(x);
  return true;
}

template <class T>
json::Value detail_of(const T& x) {
  json::Value d{json::Object{}};
  T::each(x, [&](const char* key, const auto& v) { put(d, key, v); });
  return d;
}

template <class T>
Result<Event> read_as(const json::Value& d) {
  T x;
  std::string bad;
  T::each(x, [&](const char* key, auto& v) {
    const auto& field = d[key];
    if (!field.is_null() && !take(field, v) && bad.empty()) bad = key;
  });
  if (!bad.empty())
    return Result<Event>::failure("the " + std::string(name(T::kind)) + " event's `" + bad +
                                  "` has the wrong type: " + d[bad].dump().substr(0, 80));
  return {Event(std::move(x)), {}};
}

constexpr size_t kKinds = static_cast<size_t>(Kind::unknown);

template <size_t... I>
constexpr bool kinds_in_order(std::index_sequence<I...>) {
  return ((std::variant_alternative_t<I, Event>::kind == static_cast<Kind>(I)) && ...);
}
static_assert(std::variant_size_v<Event> == kKinds + 1 &&
                  kinds_in_order(std::make_index_sequence<kKinds + 1>{}),
              "Event must list one struct per Kind, in the enum's order, Unknown last");

using Reader = Result<Event> (*)(const json::Value&);
template <size_t... I>
constexpr std::array<Reader, kKinds> readers(std::index_sequence<I...>) {
  return {&read_as<std::variant_alternative_t<I, Event>>...};
}
constexpr auto kReaders = readers(std::make_index_sequence<kKinds>{});

}  // namespace

Kind kind_of(const Event& e) {
  return static_cast<Kind>(e.index());
}

std::string name_of(const Event& e) {
  if (const auto* u = std::get_if<Unknown>(&e)) return u->name;
  return std::string(name(kind_of(e)));
}

json::Value to_json(const Event& e) {
  if (const auto* u = std::get_if<Unknown>(&e)) return u->detail;
  return std::visit([](const auto& x) { return detail_of(x); }, e);
}

Result<Event> read(std::string_view kind_name, const json::Value& detail) {
  const Kind kind = kind_named(kind_name);
  if (kind == Kind::unknown) return {Event(Unknown{std::string(kind_name), detail}), {}};
  if (!detail.is_null() && !detail.is_object())
    return Result<Event>::failure(
        "the " + std::string(kind_name) +
        " event's detail is not a JSON object: " + detail.dump().substr(0, 80));
  return kReaders[static_cast<size_t>(kind)](detail);
}

Result<Event> read_text(std::string_view kind_name, std::string_view detail_json) {
  auto detail = json::parse(detail_json);
  if (!detail)
    return Result<Event>::failure("the " + std::string(kind_name) +
                                  " event's detail is not JSON: " + detail.error);
  return read(kind_name, *detail);
}

std::string target_of(const Event& e) {
  return std::visit(
      [](const auto& x) -> std::string {
        if constexpr (requires { x.target; })
          return x.target;
        else
          return "";
      },
      e);
}

}  // namespace kforge::events
