#pragma once
// Compiling many configs for a test at once: NVRTC on every core, results in the configs' order.
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gemmtune/kernel.hpp"

namespace gemmtune::test {

inline std::vector<CompileResult> compile_all(const std::vector<GemmConfig>& configs,
                                              const std::string& arch) {
  std::vector<CompileResult> results(configs.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < configs.size();) results[i] = compile_config(configs[i], arch);
    });
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace gemmtune::test
