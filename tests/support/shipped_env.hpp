#pragma once
// The shipped tuning databases on for a scope (support/shipped_off.cpp turns them off for every
// test executable), read from a folder of the test's own.
#include <cstdlib>
#include <optional>
#include <string>

namespace gemmtune::test {

/// While alive: GEMMTUNE_NO_SHIPPED unset and GEMMTUNE_SHIPPED_DIR = `dir` (unset when empty:
/// the folders beside the library); both restored after.
class ShippedOn {
 public:
  explicit ShippedOn(const std::string& dir)
      : no_shipped_(get("GEMMTUNE_NO_SHIPPED")), shipped_dir_(get("GEMMTUNE_SHIPPED_DIR")) {
    ::unsetenv("GEMMTUNE_NO_SHIPPED");
    if (dir.empty())
      ::unsetenv("GEMMTUNE_SHIPPED_DIR");
    else
      ::setenv("GEMMTUNE_SHIPPED_DIR", dir.c_str(), 1);
  }
  ~ShippedOn() {
    restore("GEMMTUNE_NO_SHIPPED", no_shipped_);
    restore("GEMMTUNE_SHIPPED_DIR", shipped_dir_);
  }
  ShippedOn(const ShippedOn&) = delete;
  ShippedOn& operator=(const ShippedOn&) = delete;

 private:
  static std::optional<std::string> get(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  }
  static void restore(const char* name, const std::optional<std::string>& value) {
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  std::optional<std::string> no_shipped_, shipped_dir_;
};

}  // namespace gemmtune::test
