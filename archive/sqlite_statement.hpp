// Internal to archive/: prepared statements, plain execution and transactions over SQLite.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <optional>
#include <string>

#include "archive/archive.hpp"

namespace kforge::archive::detail {

inline double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// One prepared statement: bind by position from 1, step, read columns from 0.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) error_ = sqlite3_errmsg(db);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    if (v) return bind(i, *v);
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  /// True while there is a row; errors land in error().
  bool step() {
    if (!error_.empty()) return false;
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) error_ = sqlite3_errmsg(db_);
    return false;
  }
  Status run() {
    step();
    return Status{error_};
  }
  int64_t integer(int c) const { return sqlite3_column_int64(stmt_, c); }
  double real(int c) const { return sqlite3_column_double(stmt_, c); }
  std::string text(int c) const {
    auto p = sqlite3_column_text(stmt_, c);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, c))
             : std::string();
  }
  std::optional<double> maybe_real(int c) const {
    if (sqlite3_column_type(stmt_, c) == SQLITE_NULL) return std::nullopt;
    return real(c);
  }
  std::optional<int64_t> maybe_integer(int c) const {
    if (sqlite3_column_type(stmt_, c) == SQLITE_NULL) return std::nullopt;
    return integer(c);
  }
  const std::string& error() const { return error_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string error_;
};

/// Every row `s` gives, each read by `read`, or the error SQLite reported instead: a read that
/// fails never looks like one that found nothing.
template <class Read>
auto rows(Statement& s, Read read) -> Result<std::vector<decltype(read(s))>> {
  std::vector<decltype(read(s))> out;
  while (s.step()) out.push_back(read(s));
  if (!s.error().empty()) return {std::nullopt, "reading the archive: " + s.error()};
  return {std::move(out), {}};
}

/// The first row `s` gives (none when it gives none), or the error SQLite reported.
template <class Read>
auto first_row(Statement& s, Read read) -> Result<std::optional<decltype(read(s))>> {
  std::optional<decltype(read(s))> out;
  if (s.step()) out = read(s);
  if (!s.error().empty()) return {std::nullopt, "reading the archive: " + s.error()};
  return {std::move(out), {}};
}

inline Status exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) return {};
  Status s{message ? message : "sqlite error"};
  sqlite3_free(message);
  return s;
}

/// BEGIN IMMEDIATE on construction; ROLLBACK unless commit() succeeded.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db), begun_(exec(db, "BEGIN IMMEDIATE;")) {}
  ~Transaction() {
    if (begun_ && !committed_) exec(db_, "ROLLBACK;");
  }
  const Status& begun() const { return begun_; }
  Status commit() {
    auto s = exec(db_, "COMMIT;");
    committed_ = static_cast<bool>(s);
    return s;
  }

 private:
  sqlite3* db_;
  Status begun_;
  bool committed_ = false;
};

}  // namespace kforge::archive::detail
