#pragma once
// Running test code in a forked child: for what must not happen in the test process itself
// (dropping privileges, limiting memory, code that may abort).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>

namespace gemmtune::test {

/// Runs `fn` in a forked child and returns what it returned (or the exception it threw, prefixed
/// "threw: "). With `unprivileged`, a root child first becomes nobody, so file permissions apply.
inline std::string run_in_child(const std::function<std::string()>& fn, bool unprivileged = false) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      if (unprivileged && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
        out = "threw: cannot drop privileges";
      } else {
        out = fn();
      }
    } catch (const std::exception& e) {
      out = std::string("threw: ") + e.what();
    }
    const char* p = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      const ssize_t w = write(fds[1], p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    _exit(0);  // no gtest or static destructors in the child
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t r;
  while ((r = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(r));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out += " [child did not exit cleanly]";
  return out;
}

/// Limits this process's address space to what it maps now plus `extra_bytes`, so that the next
/// large mappings (e.g. thread stacks) fail. For a forked child only; false when it cannot.
inline bool limit_address_space(long long extra_bytes) {
  long long pages = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return false;
  const bool read = std::fscanf(statm, "%lld", &pages) == 1;
  std::fclose(statm);
  if (!read) return false;
  const rlimit limit{rlim_t(pages * sysconf(_SC_PAGESIZE) + extra_bytes), RLIM_INFINITY};
  return setrlimit(RLIMIT_AS, &limit) == 0;
}

}  // namespace gemmtune::test
