#pragma once
// Checks made on a database file before SQLite sees it, so that errors name the cause in words.
#include <string>

#include "gemmtune/db/sqlite.hpp"

namespace gemmtune::db::detail {

/// Throws DatabaseError when `path` cannot be opened in `mode`: empty path, a directory, a missing
/// file (read-only) or directory (read-write), a file that is not SQLite or is truncated.
void check_file_before_open(const std::string& path, OpenMode mode);

/// True when `path`-wal exists and is not empty (then the main file alone is not the whole
/// database).
bool has_wal_content(const std::string& path);

/// "file:" URI of `path` with `query` (e.g. "immutable=1"), percent-encoding what URIs reserve.
std::string file_uri(const std::string& path, const std::string& query);

}  // namespace gemmtune::db::detail
