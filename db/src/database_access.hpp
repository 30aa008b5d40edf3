#pragma once
// The connection behind a Database, for db's own free functions (export, reports). Database's
// public interface does not offer it: outside db/ every query is a named one.
#include "gemmtune/db/database.hpp"

namespace gemmtune::db::detail {

/// Grants db's sources the connection of a Database (a friend of it).
struct DatabaseAccess {
  static Connection& connection(const Database& db) { return db.conn_; }
  /// The knob columns of its configs, as opened.
  static const std::vector<std::string>& knob_columns(const Database& db) {
    return db.knob_columns_;
  }
};

}  // namespace gemmtune::db::detail
