#pragma once
// Running the gemmtune executable (or any program) as a user does: arguments as given (no shell),
// stdin from /dev/null, optional changes to the environment; stdout, stderr and the exit status
// come back. run_cli waits for the end; ChildProcess runs in the background (to interrupt it).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace gemmtune::test {

/// The gemmtune executable: $GEMMTUNE_TEST_CLI, else the one built beside the tests ("" when the
/// build has none).
inline std::string cli_path() {
  const char* env = std::getenv("GEMMTUNE_TEST_CLI");
  return env && *env ? env : GEMMTUNE_CLI_PATH;
}

/// How a program is run.
struct RunOptions {
  std::vector<std::pair<std::string, std::string>> set_env = {};  ///< variables set for the run
  std::vector<std::string> unset_env = {};                        ///< variables removed for the run
  bool merge_stderr = false;     ///< stderr goes into `out`, interleaved as a terminal shows it
  std::string stdout_file = {};  ///< stdout goes to this file instead of `out` (e.g. /dev/full)
};

/// What a run printed and returned.
struct CliRun {
  /// The exit status; 128 + the signal when a signal ended it (as a shell says); 127 when the
  /// program could not be started.
  int status = -1;
  std::string out, err;
};

/// A program running in the background; its output is read as it comes (it never blocks on a
/// full pipe). Destroying it before wait() kills it.
class ChildProcess {
 public:
  /// Starts `argv` (argv[0] is looked up in PATH when it has no '/').
  ChildProcess(const std::vector<std::string>& argv, const RunOptions& options = {}) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    if (pipe2(err, O_CLOEXEC) != 0) {
      close(out[0]), close(out[1]);
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (options.stdout_file.empty())
      posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    else
      posix_spawn_file_actions_addopen(&actions, 1, options.stdout_file.c_str(), O_WRONLY | O_TRUNC,
                                       0);
    posix_spawn_file_actions_adddup2(&actions, options.merge_stderr ? out[1] : err[1], 2);
    std::vector<std::string> args = argv, env = environment(options);
    std::vector<char*> c_args = pointers(args), c_env = pointers(env);
    started_ = posix_spawnp(&pid_, c_args[0], &actions, nullptr, c_args.data(), c_env.data()) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    close(err[1]);
    reader_ = std::thread([this, o = out[0], e = err[0]] { read_all(o, e); });
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (!reader_.joinable()) return;
    send(SIGKILL);
    wait();
  }

  /// Sends `signal` to the program.
  void send(int signal) const {
    if (started_) ::kill(pid_, signal);
  }
  /// Whether the program is still running (its status is left for wait()).
  bool running() const {
    if (!started_) return false;
    siginfo_t info{};
    return waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  }
  /// Waits for the program to end (once) and returns what it printed and returned.
  CliRun wait() {
    if (reader_.joinable()) reader_.join();
    if (!started_) return result_;
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    result_.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    started_ = false;
    return result_;
  }

 private:
  static std::vector<std::string> environment(const RunOptions& o) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string var = *e, name = var.substr(0, var.find('='));
      bool replaced = false;
      for (const auto& n : o.unset_env) replaced |= n == name;
      for (const auto& [n, value] : o.set_env) replaced |= n == name;
      if (!replaced) env.push_back(var);
    }
    for (const auto& [name, value] : o.set_env) env.push_back(name + "=" + value);
    return env;
  }
  static std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> p;
    for (auto& s : strings) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
  }
  // Reads both pipes until both are closed; out and err go to result_.
  void read_all(int out, int err) {
    pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
    std::string* sink[2] = {&result_.out, &result_.err};
    for (int open = 2; open > 0;) {
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        for (const pollfd& f : fds)
          if (f.fd >= 0) close(f.fd);
        return;
      }
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !fds[i].revents) continue;
        char buf[4096];
        const ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          sink[i]->append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open;
        }
      }
    }
  }

  pid_t pid_ = -1;
  bool started_ = false;
  CliRun result_{127, "", ""};
  std::thread reader_;
};

/// Runs `argv` to its end.
inline CliRun run_program(const std::vector<std::string>& argv, const RunOptions& options = {}) {
  return ChildProcess(argv, options).wait();
}

/// `args` after the gemmtune executable.
inline std::vector<std::string> cli_argv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {cli_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

/// Runs `gemmtune <args>` to its end.
inline CliRun run_cli(const std::vector<std::string>& args, const RunOptions& options = {}) {
  return run_program(cli_argv(args), options);
}

}  // namespace gemmtune::test
