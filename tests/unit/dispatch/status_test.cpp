// The status an exception reports at the C API. A failure of the tuning database is a database
// error, not "internal error, a bug". (No dispatcher path raises one today: an unusable database
// degrades to the built-in defaults. This guards the mapping for any that would.)
#include <gtest/gtest.h>

#include <fstream>
#include <new>
#include <stdexcept>
#include <string>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db/error.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/gemmtune.h"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

TEST(StatusOf, DatabaseErrorIsADatabaseError) {
  EXPECT_EQ(detail::status_of(db::DatabaseError("disk I/O error")), Status::kDatabaseError);
}

TEST(StatusOf, ADamagedDatabaseFileIsADatabaseError) {
  const std::string path = (scratch_dir("status_of") / "damaged.db").string();
  std::ofstream(path)
      << "not a database at all, but long enough to look like it might have a header";
  try {
    db::Database damaged(path, db::OpenMode::read_only, kernel_families());
    ADD_FAILURE() << "opened a file that is not a database";
  } catch (const std::exception& e) {
    EXPECT_EQ(detail::status_of(e), Status::kDatabaseError) << e.what();
    EXPECT_EQ(int(detail::status_of(e)), GEMMTUNE_STATUS_DATABASE_ERROR);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(StatusOf, AnErrorKeepsItsOwnStatus) {
  for (int s = 1; s <= 8; ++s) {
    EXPECT_EQ(detail::status_of(Error(Status(s), "x")), Status(s)) << status_name(Status(s));
  }
}

TEST(StatusOf, AnythingElseIsInternal) {
  EXPECT_EQ(detail::status_of(std::runtime_error("x")), Status::kInternal);
  EXPECT_EQ(detail::status_of(std::logic_error("x")), Status::kInternal);
  EXPECT_EQ(detail::status_of(std::bad_alloc()), Status::kInternal);
}

}  // namespace
}  // namespace gemmtune::test
