// OpenBLAS behind cpu_blas.hpp; GEMMTUNE_HAVE_OPENBLAS is defined when CMake found it.
#include "cpu_blas.hpp"

#include <sched.h>

#include <fstream>
#include <thread>

#include "gemmtune/error.hpp"

#ifdef GEMMTUNE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace gemmtune::cli {
namespace {

// The processor's model name, as /proc/cpuinfo says it.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "";
}

// Cores this process may run on (its affinity mask; a container's CPU set included).
int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

#ifdef GEMMTUNE_HAVE_OPENBLAS

CpuBlas cpu_blas_setup() {
  openblas_set_num_threads(usable_cores());
  return {cpu_model(), openblas_get_config(), openblas_get_num_threads()};
}

void cpu_sgemm(const Problem& p) {
  const auto op = [](Op o) { return o == Op::N ? CblasNoTrans : CblasTrans; };
  for (int i = 0; i < p.batch; ++i) {
    cblas_sgemm(CblasRowMajor, op(p.op_a), op(p.op_b), p.m, p.n, p.k, p.alpha, p.a + i * p.stride_a,
                int(p.lda), p.b + i * p.stride_b, int(p.ldb), p.beta, p.c + i * p.stride_c,
                int(p.ldc));
  }
}

#else

namespace {
[[noreturn]] void no_openblas() {
  throw Error(
      Status::kInvalidArgument,
      "this gemmtune was built without OpenBLAS, which --cpu times: install it (Debian or Ubuntu: "
      "apt-get install libopenblas-dev, or tools/setup.sh) and build again (cmake --build build)");
}
}  // namespace

CpuBlas cpu_blas_setup() { no_openblas(); }
void cpu_sgemm(const Problem&) { no_openblas(); }

#endif

}  // namespace gemmtune::cli
