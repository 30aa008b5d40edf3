#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself with a file-scope
//   static const gemmtune::cli::Registration reg("name", add_my_command);
// main.cpp adds every registered command to the root app, in name order.
#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>

namespace gemmtune::cli {

/// Set by a subcommand's callback: the process exit status (0 = success).
inline int& exit_status() {
  static int status = 0;
  return status;
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
