#pragma once
// Old spellings of options, accepted for one more release with a note on stderr (docs/cli.md,
// "Old spellings"). Each old spelling is declared next to its new one and listed apart in --help,
// under "Deprecated"; giving both is a usage error.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <set>
#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune::cli {

/// Says on stderr, once per run and spelling, that `old_spelling` is deprecated for `new_spelling`.
inline void note_deprecated(const std::string& old_spelling, const std::string& new_spelling) {
  static std::set<std::string> noted;
  if (!noted.insert(old_spelling).second) return;
  std::fprintf(stderr, "gemmtune: %s is deprecated and goes in the next release: write %s\n",
               old_spelling.c_str(), new_spelling.c_str());
}

/// The --help group of the old spellings.
inline const char* const kDeprecatedGroup = "Deprecated";

/// Throws CLI11's usage error when both spellings of one option were given; CLI11 puts the old
/// spelling's name in front ("--device: ...").
inline void refuse_both(const CLI::Option* current) {
  if (current->count() > 0)
    throw CLI::ValidationError("the old spelling of " + current->get_name() + ": give one of them");
}

/// Adds `old_name` (e.g. "--device") as an alias of `current`, the option that stores into
/// `variable`; using it writes a note. Returns the alias.
template <typename T>
CLI::Option* add_old_spelling(CLI::App* cmd, CLI::Option* current, const std::string& old_name,
                              T& variable) {
  const std::string new_name = current->get_name();
  CLI::Option* old =
      cmd->add_option(old_name, variable,
                      "The old spelling of " + new_name + " (goes in the next release)")
          ->group(kDeprecatedGroup);
  // Runs once the whole command line is parsed, before the values are stored.
  old->each([current, old_name, new_name](const std::string&) {
    refuse_both(current);
    note_deprecated(old_name, new_name);
  });
  return old;
}

/// Adds `--shape MxNxK` (one problem, into `shape`) and its older positional spelling
/// (`gemmtune explain 64x64x64`). The command says when neither is
/// given (require_shape).
inline void add_shape_option(CLI::App* cmd, std::string& shape, const std::string& help) {
  CLI::Option* current = cmd->add_option("--shape", shape, help);
  CLI::Option* old = cmd->add_option("shape", shape,
                                     "The old spelling of --shape MxNxK (goes in the next release)")
                         ->group(kDeprecatedGroup);
  old->each([current](const std::string& value) {
    refuse_both(current);
    note_deprecated("a shape without --shape", "--shape " + value);
  });
}

/// Throws a usage error when no --shape was given.
inline void require_shape(const std::string& shape) {
  if (shape.empty())
    throw Error(Status::kInvalidArgument,
                "no problem given: write --shape MxNxK, e.g. --shape 4096x4096x4096");
}

}  // namespace gemmtune::cli
