#pragma once
// What a fuzz target does when a property fails: print the property and the input, then abort,
// which libFuzzer reports as a crash and saves the input under build-fuzz/crashes/.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gemmtune::fuzz {

[[noreturn]] inline void property_failed(const char* property, const std::string& input,
                                         const char* file, int line) {
  std::fprintf(stderr, "%s:%d: property failed: %s\ninput (%zu bytes): '", file, line, property,
               input.size());
  for (unsigned char c : input) {
    if (c >= 0x20 && c < 0x7f && c != '\\')
      std::fputc(c, stderr);
    else
      std::fprintf(stderr, "\\x%02x", c);
  }
  std::fprintf(stderr, "'\n");
  std::abort();
}

/// What an error message can quote of `text`: what() ends at the first NUL byte.
inline std::string quotable(const std::string& text) { return text.substr(0, text.find('\0')); }

}  // namespace gemmtune::fuzz

/// Aborts with the input when `cond` is false.
#define FUZZ_CHECK(cond, input) \
  ((cond) ? (void)0 : ::gemmtune::fuzz::property_failed(#cond, (input), __FILE__, __LINE__))
