#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself with a file-scope
//   static const gemmtune::cli::Registration reg("name", add_my_command);
// main.cpp adds every registered command to the root app, in name order.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "gemmtune/version.h"

/// The version every command reports (--version, info, the records of bench and sweep): the
/// library's, generated from the project version.
#define GEMMTUNE_VERSION GEMMTUNE_VERSION_STRING

namespace gemmtune::cli {

/// The exit statuses of every command (README, "Exit status"). CLI11's own parse errors map
/// to kExitUsage; gemmtune::Error's status picks one of the others (main.cpp).
inline constexpr int kExitOk = 0;     ///< done
inline constexpr int kExitError = 1;  ///< failed: a CUDA, compile or database error, wrong results
inline constexpr int kExitUsage =
    2;  ///< bad command line or bad input (a missing file, a bad shape)
inline constexpr int kExitNoGpu = 3;          ///< the command needs a GPU and this machine has none
inline constexpr int kExitInterrupted = 130;  ///< Ctrl-C (SIGINT), as a shell reports it

/// Set by a subcommand's callback: the process exit status (kExitOk = success).
inline int& exit_status() {
  static int status = 0;
  return status;
}

/// The help text of a command's --db option: what the database is for there, then where it is
/// by default (db/src/database.cpp), in the same words for every command.
inline std::string db_option_help(const std::string& what) {
  return what + " (default: $GEMMTUNE_DB, else ${XDG_CACHE_HOME:-~/.cache}/gemmtune/tuning.db)";
}

/// The check of a number option: a finite number from `min` (above it when `above`) to `max`.
/// CLI11's own NonNegativeNumber and PositiveNumber take nan (and nan compares false to all).
/// `what` says what to give, e.g. "a number of seconds, 0 or more (0: no limit)".
inline CLI::Validator finite_number(double min, bool above, double max, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(v) &&
            (above ? v > min : v >= min) && v <= max)
          return "";
        return "'" + text + "' is not " + what;
      },
      "NUMBER", "finite number");
}

/// Function that adds one subcommand (with its options and callback) to the root app.
using AddCommand = std::function<void(CLI::App&)>;

/// Every registered subcommand, by name.
inline std::map<std::string, AddCommand>& registry() {
  static std::map<std::string, AddCommand> commands;
  return commands;
}

/// Registers a subcommand at static-initialisation time.
struct Registration {
  Registration(const std::string& name, AddCommand add) { registry()[name] = std::move(add); }
};

}  // namespace gemmtune::cli
