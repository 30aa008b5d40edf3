#include "gemmtune/db_rows.hpp"

#include <algorithm>

namespace gemmtune {

db::KernelConfig to_db(const GemmConfig& c) {
  db::KernelConfig r;
  static_cast<SgemmKnobs&>(r) = c;
  r.family = "sgemm";
  r.name = config_name(c);
  r.op_a = op_char(c.op_a);
  r.op_b = op_char(c.op_b);
  return r;
}

std::optional<GemmConfig> from_db(const db::KernelConfig& r) {
  if (r.family != "sgemm") return std::nullopt;
  auto a = op_from_char(r.op_a), b = op_from_char(r.op_b);
  if (!a || !b) return std::nullopt;
  // The access widths and the flags (repack, stage_c, split_tail, early_barrier...) are no
  // knobs (no columns): the name holds them.
  GemmConfig c = parse_config_name(r.name).value_or(GemmConfig{});
  static_cast<SgemmKnobs&>(c) = r;
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

db::Binary to_binary(const GemmConfig& config, const std::string& arch, const std::string& key,
                     const CompiledKernel& kernel) {
  db::Binary b;
  b.key = key;
  b.arch = arch;
  b.nvrtc_version = nvrtc_version_string();
  b.config_name = config_name(config);
  b.lowered_name = kernel.lowered_name;
  b.cubin.resize(kernel.cubin.size());
  std::transform(kernel.cubin.begin(), kernel.cubin.end(), b.cubin.begin(), [](char x) { return std::byte(x); });
  if (kernel.resources.registers >= 0) b.registers = kernel.resources.registers;
  b.spill_bytes = kernel.resources.spill_stores;
  b.smem_bytes = config.smem_bytes() + kernel.resources.static_smem;
  return b;
}

CompiledKernel from_binary(const GemmConfig& config, const db::Binary& row) {
  CompiledKernel k;
  k.cubin.resize(row.cubin.size());
  std::transform(row.cubin.begin(), row.cubin.end(), k.cubin.begin(), [](std::byte x) { return char(x); });
  k.lowered_name = row.lowered_name;
  k.resources.registers = static_cast<int>(row.registers.value_or(-1));
  k.resources.spill_stores = static_cast<int>(row.spill_bytes.value_or(0));
  k.resources.static_smem = static_cast<int>(row.smem_bytes.value_or(config.smem_bytes()) - config.smem_bytes());
  return k;
}

}  // namespace gemmtune
