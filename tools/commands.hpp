#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself on the root app here.
#include <CLI/CLI.hpp>

namespace gemmtune::cli {

/// Set by a subcommand's callback: the process exit status (0 = success).
inline int& exit_status() {
  static int status = 0;
  return status;
}

void add_info_command(CLI::App& app);
void add_try_command(CLI::App& app);

}  // namespace gemmtune::cli
