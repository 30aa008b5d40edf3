#include "gemmtune/compiler.hpp"

#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <regex>

#include "gemmtune/error.hpp"

namespace gemmtune {

namespace {
// Owns an nvrtcProgram; destroys it however compilation ends.
struct Program {
  nvrtcProgram handle = nullptr;
  Program() = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() {
    if (handle) nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(nvrtcProgram prog) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);
  return log;
}

int match_int(std::string_view text, const std::regex& re) {
  std::cmatch m;
  if (std::regex_search(text.begin(), text.end(), m, re)) return std::stoi(m[1].str());
  return 0;
}
}  // namespace

KernelResources parse_ptxas_report(std::string_view log, std::string_view lowered_name) {
  KernelResources r;
  // ptxas prints a block per function: "Compiling entry function '<name>' for 'sm_90'", then
  // "Function properties ..." with stack and spills, then "Used N registers, ...".
  std::string key = "Compiling entry function '" + std::string(lowered_name) + "'";
  size_t start = log.find(key);
  if (start == std::string_view::npos) return r;
  size_t end = log.find("Compiling entry function", start + key.size());
  std::string_view block =
      log.substr(start, end == std::string_view::npos ? log.npos : end - start);
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex stores(R"((\d+) bytes spill stores)");
  static const std::regex loads(R"((\d+) bytes spill loads)");
  static const std::regex smem(R"((\d+) bytes smem)");
  if (block.find("Used ") != std::string_view::npos) r.registers = match_int(block, regs);
  r.stack_bytes = match_int(block, stack);
  r.spill_stores = match_int(block, stores);
  r.spill_loads = match_int(block, loads);
  r.static_smem = match_int(block, smem);
  return r;
}

CompileResult compile_cuda(std::string_view source, std::string_view source_name,
                           const std::string& name_expression, const CompileOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  CompileResult out;
  Program prog;
  std::string src(source), name(source_name);
  GEMMTUNE_NVRTC(nvrtcCreateProgram(&prog.handle, src.c_str(), name.c_str(), 0, nullptr, nullptr));
  GEMMTUNE_NVRTC(nvrtcAddNameExpression(prog.handle, name_expression.c_str()));

  std::vector<std::string> opts = {"--gpu-architecture=" + options.arch, "--std=c++17",
                                   "--ptxas-options=-v", "-DGEMMTUNE_NVRTC=1"};
  opts.insert(opts.end(), options.extra.begin(), options.extra.end());
  std::vector<const char*> argv;
  for (auto& o : opts) argv.push_back(o.c_str());

  nvrtcResult rc = nvrtcCompileProgram(prog.handle, int(argv.size()), argv.data());
  out.log = program_log(prog.handle);
  if (rc != NVRTC_SUCCESS) {
    out.log = std::string(nvrtcGetErrorString(rc)) + "\n" + out.log;
  } else {
    const char* lowered = nullptr;
    GEMMTUNE_NVRTC(nvrtcGetLoweredName(prog.handle, name_expression.c_str(), &lowered));
    out.lowered_name = lowered;
    size_t size = 0;
    GEMMTUNE_NVRTC(nvrtcGetCUBINSize(prog.handle, &size));
    if (size == 0) {
      out.log +=
          "\nNVRTC produced no cubin: the architecture must be a real one such as sm_90, not "
          "compute_90";
    } else {
      out.cubin.resize(size);
      GEMMTUNE_NVRTC(nvrtcGetCUBIN(prog.handle, out.cubin.data()));
      out.resources = parse_ptxas_report(out.log, out.lowered_name);
      if (out.resources.registers < 0) {
        // NVRTC's compile cache skipped ptxas: take the figures from the cubin, and count any
        // stack frame as spilled bytes so that pruning by spills stays conservative.
        out.resources = cubin_resources(out.cubin, out.lowered_name);
        out.resources.spill_stores = out.resources.spill_loads = out.resources.stack_bytes;
      }
      out.ok = true;
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string nvrtc_version_string() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace gemmtune
