// Linked into every test executable: the tuning databases shipped with gemmtune (db/shipped/,
// found beside the build's binaries) are off unless the environment says otherwise, so that a
// test chooses from the databases it builds whatever db/shipped/ holds. The tests of the shipped
// databases turn them on for a scope (ShippedOn, support/shipped_env.hpp); child processes (the
// CLI) inherit the setting.
#include <cstdlib>

namespace {
const bool kShippedOff = ::setenv("GEMMTUNE_NO_SHIPPED", "1", /*overwrite=*/0) == 0;
}  // namespace
