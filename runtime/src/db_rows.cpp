#include "gemmtune/db_rows.hpp"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string_view>

#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/sgemm/family.hpp"

namespace gemmtune {

// The registry's families as the database knows them (gemmtune/family.hpp), in its order. A list
// is made again when register_family() has added one since; the older lists stay (a deque keeps
// them in place), so that a span handed out before stays valid.
std::span<const db::FamilySchema> kernel_families() {
  static std::mutex mutex;
  static std::deque<std::vector<db::FamilySchema>> lists;
  std::lock_guard lock(mutex);
  const std::span<const KernelFamily* const> registered = families();
  if (lists.empty() || lists.back().size() != registered.size()) {
    std::vector<db::FamilySchema> out;
    for (const KernelFamily* family : registered) out.push_back(family->db_family());
    lists.push_back(std::move(out));
  }
  return lists.back();
}

const db::FamilySchema& sgemm_family() {
  static const db::FamilySchema& family = []() -> const db::FamilySchema& {
    for (const db::FamilySchema& f : kernel_families())
      if (f.name == sgemm_kernel_family().name()) return f;
    throw Error(Status::kInternal, "the sgemm family is not registered");
  }();
  return family;
}

db::KernelConfig to_db(const GemmConfig& c) {
  db::KernelConfig r;
  r.family = sgemm_family().name;
  r.name = config_name(c);
  r.op_a = op_char(c.op_a);
  r.op_b = op_char(c.op_b);
  for (const Knob& knob : kSgemmKnobs) r.knobs.emplace(knob.name, knob.get(c));
  return r;
}

std::optional<GemmConfig> from_db(const db::KernelConfig& r) {
  if (r.family != sgemm_family().name) return std::nullopt;
  auto a = op_from_char(r.op_a), b = op_from_char(r.op_b);
  if (!a || !b) return std::nullopt;
  // The access widths and the flags (repack, stage_c, split_tail, early_barrier...) are no
  // knobs (no columns): the name holds them.
  GemmConfig c = parse_config_name(r.name).value_or(GemmConfig{});
  for (const Knob& knob : kSgemmKnobs) {
    const auto value = r.knobs.find(knob.name);
    knob.set(c, value != r.knobs.end() ? value->second : knob.default_value());
  }
  c.op_a = *a, c.op_b = *b;
  return c;
}

db::ProblemKey to_db(const Problem& p) {
  db::ProblemKey k;
  k.dtype = "f32";
  k.op_a = op_char(p.op_a);
  k.op_b = op_char(p.op_b);
  k.m = p.m, k.n = p.n, k.k = p.k, k.batch = p.batch;
  k.alignment = p.alignment();
  return k;
}

db::GpuModel to_db(const DeviceInfo& d) {
  db::GpuModel g;
  g.name = d.name;
  g.cc_major = d.limits.cc_major;
  g.cc_minor = d.limits.cc_minor;
  g.sm_count = d.sm_count;
  g.memory_bytes = static_cast<std::int64_t>(d.memory_bytes);
  g.l2_bytes = d.l2_bytes;
  g.smem_per_block_optin = d.limits.max_smem_per_block_optin;
  g.clock_khz = d.clock_khz;
  return g;
}

db::Binary to_binary(const std::string& config_name, const std::string& arch,
                     const std::string& key, const CompiledKernel& kernel, int dynamic_smem) {
  db::Binary b;
  b.key = key;
  b.arch = arch;
  b.nvrtc_version = nvrtc_version_string();
  b.config_name = config_name;
  b.lowered_name = kernel.lowered_name;
  b.cubin.resize(kernel.cubin.size());
  std::transform(kernel.cubin.begin(), kernel.cubin.end(), b.cubin.begin(),
                 [](char x) { return std::byte(x); });
  if (kernel.resources.registers >= 0) b.registers = kernel.resources.registers;
  b.spill_bytes = kernel.resources.spill_stores;
  b.smem_bytes = dynamic_smem + kernel.resources.static_smem;
  return b;
}

db::Binary to_binary(const GemmConfig& config, const std::string& arch, const std::string& key,
                     const CompiledKernel& kernel) {
  return to_binary(config_name(config), arch, key, kernel, config.smem_bytes());
}

namespace {

// The start of the mangled name (Itanium C++ ABI) of the kernel instance that `expression`
// ("ns::name<1,true,...>", GemmConfig::name_expression) names: "_ZN2ns4nameI" and each argument
// it gives ("Li1E", "Lb1E"), up to the ones it leaves to their defaults.
std::string mangled_prefix(std::string_view expression) {
  const std::size_t open = expression.find('<');
  if (open == std::string_view::npos || expression.back() != '>') return "";
  std::string out = "_ZN";
  for (std::string_view name = expression.substr(0, open);;) {
    const std::size_t end = name.find("::");
    const std::string_view part = name.substr(0, end);
    out += std::to_string(part.size()) + std::string(part);
    if (end == std::string_view::npos) break;
    name.remove_prefix(end + 2);
  }
  out += 'I';
  std::string_view args = expression.substr(open + 1, expression.size() - open - 2);
  while (!args.empty()) {
    const std::size_t comma = args.find(',');
    const std::string_view arg = args.substr(0, comma);
    if (arg == "true" || arg == "false")
      out += arg == "true" ? "Lb1E" : "Lb0E";
    else
      out +=
          "Li" + (arg.front() == '-' ? "n" + std::string(arg.substr(1)) : std::string(arg)) + "E";
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

bool cached_binaries_disabled() {
  const char* v = std::getenv("GEMMTUNE_NO_CACHED_BINARIES");
  return v && *v && std::string_view(v) != "0";
}

std::string entry_name_prefix(const GemmConfig& config) {
  return mangled_prefix(config.name_expression());
}

bool is_entry_of(const GemmConfig& config, std::string_view lowered_name) {
  return is_entry_of(std::string_view(config.name_expression()), lowered_name);
}

bool is_entry_of(std::string_view name_expression, std::string_view lowered_name) {
  const std::string prefix = mangled_prefix(name_expression);
  if (prefix.empty() || lowered_name.substr(0, prefix.size()) != prefix) return false;
  lowered_name.remove_prefix(prefix.size());
  // The flags the expression leaves out default to false.
  while (lowered_name.substr(0, 4) == "Lb0E") lowered_name.remove_prefix(4);
  return lowered_name.substr(0, 3) == "EEv";  // the arguments end, the name ends; it returns void
}

std::optional<CompiledKernel> from_binary(const GemmConfig& config, const std::string& arch,
                                          const db::Binary& row, std::string* why) {
  return from_binary(config_name(config), config.name_expression(), config.smem_bytes(), arch, row,
                     why);
}

std::optional<CompiledKernel> from_binary(const std::string& name, std::string_view name_expression,
                                          int dynamic_smem, const std::string& arch,
                                          const db::Binary& row, std::string* why) {
  if (cached_binaries_disabled()) return std::nullopt;
  std::string reason;
  if (row.config_name != name)
    reason = "it was stored for config " + row.config_name;
  else if (row.arch != arch)
    reason = "it was compiled for " + row.arch + ", not " + arch;
  else if (row.nvrtc_version != nvrtc_version_string())
    reason = "it was compiled by NVRTC " + row.nvrtc_version + ", not " + nvrtc_version_string();
  else if (!is_entry_of(name_expression, row.lowered_name))
    reason = "its entry point '" + row.lowered_name.substr(0, 200) + "' is not the config's kernel";
  CompiledKernel k;
  if (reason.empty()) {
    k.cubin.resize(row.cubin.size());
    std::transform(row.cubin.begin(), row.cubin.end(), k.cubin.begin(),
                   [](std::byte x) { return char(x); });
    k.lowered_name = row.lowered_name;
    // Registers and the stack frame are read from the cubin itself, never from the row.
    k.resources = cubin_resources(k.cubin, k.lowered_name);
    k.resources.static_smem = static_cast<int>(std::max<std::int64_t>(
        0, row.smem_bytes.value_or(dynamic_smem) - dynamic_smem));  // a figure to record
    if (k.resources.registers < 0)
      reason = "its cubin has no entry point '" + row.lowered_name + "'";
  }
  if (!reason.empty()) {
    if (why)
      *why = "cached binary '" + row.key + "' for " + name + " is not loaded: " + reason +
             "; compiling it";
    return std::nullopt;
  }
  // Spills cannot exceed the stack frame: the row's figure (from ptxas) bounded by the cubin's.
  const int stack = k.resources.stack_bytes;
  const int spills =
      static_cast<int>(std::clamp<std::int64_t>(row.spill_bytes.value_or(stack), 0, stack));
  k.resources.spill_stores = k.resources.spill_loads = spills;
  return k;
}

}  // namespace gemmtune
