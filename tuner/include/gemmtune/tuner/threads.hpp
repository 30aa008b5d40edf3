#pragma once
// Starting a pool of threads when the system may refuse some (too many asked for, no memory for a
// stack): the threads already started are stopped and joined, and the caller gets an Error,
// where a vector of joinable threads unwinding would call std::terminate.
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace gemmtune::tuner {

/// Starts `count` threads, each running `work`. When one cannot be started, calls `stop` (which
/// must make every `work` return soon), joins the started ones and throws Error(kInvalidArgument)
/// saying how many of the `count` `what` (e.g. "compile threads") started and why the next did not.
std::vector<std::thread> start_threads(unsigned count, const std::function<void()>& work,
                                       const std::function<void()>& stop, const std::string& what);

}  // namespace gemmtune::tuner
