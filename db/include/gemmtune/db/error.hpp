#pragma once
// The one exception type of the tuning database. Its message names the file, the cause and what to
// do.
#include <stdexcept>
#include <string>

namespace gemmtune::db {

/// Any failure of the tuning database: open, schema, SQL, I/O.
class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gemmtune::db
