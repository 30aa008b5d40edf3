// gemmtune: the command line. Errors from the library are reported as one line, never a trace.
#include <cstdio>

#include "commands.hpp"
#include "gemmtune/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gemmtune: auto-tuned FP32 GEMM kernels for NVIDIA GPUs"};
  app.set_version_flag("--version", std::string("gemmtune ") + GEMMTUNE_VERSION);
  app.require_subcommand(1);
  for (auto& [name, add] : gemmtune::cli::registry()) add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const gemmtune::Error& e) {
    std::fprintf(stderr, "gemmtune: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune: error: %s\n", e.what());
    return 1;
  }
  return gemmtune::cli::exit_status();
}
