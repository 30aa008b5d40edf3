#include "gemmtune/tuner/threads.hpp"

#include <exception>

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

std::vector<std::thread> start_threads(unsigned count, const std::function<void()>& work,
                                       const std::function<void()>& stop, const std::string& what) {
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < count; ++i) {
    try {
      threads.emplace_back(work);
    } catch (const std::exception& e) {  // std::system_error (EAGAIN) or std::bad_alloc
      stop();
      for (auto& t : threads) t.join();
      throw Error(Status::kInvalidArgument, "the system started only " + std::to_string(i) +
                                                " of the " + std::to_string(count) + " " + what +
                                                " asked for (" + e.what() + "): ask for fewer");
    }
  }
  return threads;
}

}  // namespace gemmtune::tuner
