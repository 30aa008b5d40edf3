// gemmtune: the command line. Errors from the library are reported as one line, never a trace.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "gemmtune/error.hpp"

namespace {

// The exit status of a gemmtune::Error: bad input, no GPU, or a failure.
int exit_status_of(gemmtune::Status status) {
  switch (status) {
    case gemmtune::Status::kInvalidArgument: return gemmtune::cli::kExitUsage;
    case gemmtune::Status::kNoDevice: return gemmtune::cli::kExitNoGpu;
    default: return gemmtune::cli::kExitError;
  }
}

int run(int argc, char** argv) {
  CLI::App app{"gemmtune: auto-tuned FP32 GEMM kernels for NVIDIA GPUs"};
  app.set_version_flag("--version", std::string("gemmtune ") + GEMMTUNE_VERSION);
  app.require_subcommand(1);
  for (auto& [name, add] : gemmtune::cli::registry()) add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with status 0; every other one is a usage error.
    return app.exit(e) == 0 ? gemmtune::cli::kExitOk : gemmtune::cli::kExitUsage;
  } catch (const gemmtune::Error& e) {
    std::fprintf(stderr, "gemmtune: %s\n", e.what());
    return exit_status_of(e.status());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune: error: %s\n", e.what());
    return gemmtune::cli::kExitError;
  }
  return gemmtune::cli::exit_status();
}

// Why writing to stdout failed (a full disk, /dev/full), or "" when all of it got there. Commands
// write through both stdio and std::cout; this checks both, once, at the end.
std::string stdout_error() {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout;
  if (!failed) return "";
  // An earlier write's errno is gone when the last flush had nothing left to write.
  return errno ? std::strerror(errno) : "a write to stdout failed";
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f) a write then fails with an error the command reports,
  // instead of the signal ending it (and the database, consistent, keeping what it committed).
  std::signal(SIGXFSZ, SIG_IGN);
  const int status = run(argc, argv);
  if (const std::string error = stdout_error(); !error.empty()) {
    std::fprintf(stderr, "gemmtune: cannot write the output: %s\n", error.c_str());
    return status ? status : gemmtune::cli::kExitError;
  }
  return status;
}
