#include "gemmtune/tuner/db_convert.hpp"

namespace gemmtune::tuner {

db::KernelConfig to_db(const GemmConfig& c) {
  db::KernelConfig r;
  r.family = "sgemm";
  r.name = config_name(c);
  r.op_a = op_char(c.op_a);
  r.op_b = op_char(c.op_b);
#define GEMMTUNE_COPY_TO_DB(p) r.p = c.p;
  GEMMTUNE_DB_CONFIG_PARAMS(GEMMTUNE_COPY_TO_DB)
#undef GEMMTUNE_COPY_TO_DB
  return r;
}

static std::optional<Op> op_of(char c) {
  if (c == 'n') return Op::N;
  if (c == 't') return Op::T;
  return std::nullopt;
}

std::optional<GemmConfig> from_db(const db::KernelConfig& r) {
  if (r.family != "sgemm") return std::nullopt;
  auto a = op_of(r.op_a), b = op_of(r.op_b);
  if (!a || !b) return std::nullopt;
  GemmConfig c;
  c.op_a = *a, c.op_b = *b;
#define GEMMTUNE_COPY_FROM_DB(p) c.p = r.p;
  GEMMTUNE_DB_CONFIG_PARAMS(GEMMTUNE_COPY_FROM_DB)
#undef GEMMTUNE_COPY_FROM_DB
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

}  // namespace gemmtune::tuner
