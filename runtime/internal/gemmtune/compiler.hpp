#pragma once
// NVRTC: compiles CUDA C++ source to a cubin for one architecture, without a GPU.
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune {

/// Resource figures from ptxas's report of a compiled kernel.
struct KernelResources {
  int registers = -1;    ///< registers per thread
  int spill_stores = 0;  ///< bytes stored to local memory by spilling
  int spill_loads = 0;   ///< bytes loaded from local memory by spilling
  int stack_bytes = 0;   ///< stack frame per thread
  int static_smem = 0;   ///< static shared memory per block
};

/// What one compilation produced. Failures are data: ok == false and `log` says why.
struct CompileResult {
  bool ok = false;
  std::string log;            ///< NVRTC's log (errors, warnings, ptxas -v report)
  std::vector<char> cubin;    ///< the machine code, when ok
  std::string lowered_name;   ///< mangled name of the requested instance, when ok
  KernelResources resources;  ///< parsed from the ptxas report
  double seconds = 0;         ///< wall time of the compilation
};

/// Options of one compilation.
struct CompileOptions {
  std::string arch = "sm_90";      ///< target, e.g. "sm_80", "sm_90"
  std::vector<std::string> extra;  ///< more NVRTC options, e.g. "-DFOO=1"
};

/// Compiles `source` (named `source_name` in diagnostics) and instantiates `name_expression`
/// (a __global__ function or template instance). Never throws for a compile error; throws
/// Error(kCompileError) only when NVRTC itself cannot run.
CompileResult compile_cuda(std::string_view source, std::string_view source_name,
                           const std::string& name_expression, const CompileOptions& options);

/// Parses ptxas's "-v" lines for `lowered_name` out of an NVRTC log.
KernelResources parse_ptxas_report(std::string_view log, std::string_view lowered_name);

/// Registers and stack frame of `kernel_name` read from a cubin's ELF image (spill figures are
/// not stored there: a non-zero stack frame is the sign of local memory use). registers is -1
/// when the image or kernel is not found.
KernelResources cubin_resources(const std::vector<char>& elf, std::string_view kernel_name);

/// NVRTC's version as "13.0".
std::string nvrtc_version_string();

}  // namespace gemmtune
