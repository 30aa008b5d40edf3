#include "support/naive_family/naive_family.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include "support/naive_family/naive_args.h"

namespace gemmtune::test {

std::string_view naive_source();  // embedded by tests/CMakeLists.txt (naive_source.cpp)

namespace {

constexpr int kBlocks[] = {64, 128, 256};

// A parsed config: its layout, block size and whether it rounds the operands to TF32.
struct NaiveConfig {
  Op op_a = Op::N, op_b = Op::N;
  int threads = 0;
  bool tf32 = false;
};

// "naivegemm_<a><b>_b<threads>[_tf32]", threads one of kBlocks; nothing else.
std::optional<NaiveConfig> parse_naive(std::string_view name) {
  constexpr std::string_view prefix = "naivegemm_";
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  if (name.size() < 5 || name[2] != '_' || name[3] != 'b') return std::nullopt;
  const auto op = [](char c) -> std::optional<Op> {
    if (c == 'n') return Op::N;
    if (c == 't') return Op::T;
    return std::nullopt;
  };
  const std::optional<Op> a = op(name[0]), b = op(name[1]);
  if (!a || !b) return std::nullopt;
  const bool tf32 = name.ends_with("_tf32");
  if (tf32) name.remove_suffix(5);
  for (int threads : kBlocks)
    if (name.substr(4) == std::to_string(threads)) return NaiveConfig{*a, *b, threads, tf32};
  return std::nullopt;
}

class NaiveFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return "naive"; }
  std::string_view prefix() const override { return "naivegemm"; }
  std::string_view source() const override { return naive_source(); }
  std::string_view source_name() const override { return "gemmtune_naive.cu"; }

  // Its own knob columns (no other family declares them).
  const db::FamilySchema& db_family() const override {
    static const db::FamilySchema family{"naive", {{"naive_block", 128}, {"naive_tf32", 0}}, {}};
    return family;
  }

  // The `_tf32` configs are of the tf32 class: verified and chosen as 1xTF32 kernels are.
  Precision precision(std::string_view config_name) const override {
    const std::optional<NaiveConfig> c = parse_naive(config_name);
    return c && c->tf32 ? Precision::tf32 : Precision::ieee;
  }

  std::optional<KernelInstance> parse(std::string_view config_name) const override {
    const std::optional<NaiveConfig> c = parse_naive(config_name);
    if (!c) return std::nullopt;
    // `_tf32` is a launch argument (launch_shape): the plain config's instance.
    return KernelInstance{
        "gemmtune::naive_gemm<" + std::string(c->op_a == Op::T ? "true" : "false") + "," +
            (c->op_b == Op::T ? "true" : "false") + "," + std::to_string(c->threads) + ">",
        {},
        false};
  }

  std::optional<std::string> validate(std::string_view config_name,
                                      const DeviceLimits& limits) const override {
    const std::optional<NaiveConfig> c = parse_naive(config_name);
    if (!c) return KernelFamily::validate(config_name, limits);
    if (c->threads > limits.max_threads_per_block)
      return std::to_string(c->threads) + " threads exceed a block's " +
             std::to_string(limits.max_threads_per_block);
    return std::nullopt;
  }

  std::optional<std::string> can_implement(std::string_view config_name,
                                           const Problem& p) const override {
    const std::optional<NaiveConfig> c = parse_naive(config_name);
    if (!c) return std::string("not a naive config");
    if (c->op_a != p.op_a || c->op_b != p.op_b) return std::string("another layout");
    if ((static_cast<long long>(p.m) * p.n + c->threads - 1) / c->threads > 0x7fffffffLL)
      return std::string("more blocks than a grid can hold");
    return std::nullopt;
  }

  std::optional<db::KernelConfig> db_row(std::string_view config_name) const override {
    const std::optional<NaiveConfig> c = parse_naive(config_name);
    if (!c) return std::nullopt;
    db::KernelConfig row;
    row.family = "naive";
    row.name = std::string(config_name);
    row.op_a = c->op_a == Op::T ? 't' : 'n';
    row.op_b = c->op_b == Op::T ? 't' : 'n';
    row.knobs.emplace("naive_block", c->threads);
    row.knobs.emplace("naive_tf32", c->tf32 ? 1 : 0);
    return row;
  }

  std::optional<std::string> default_config(const DeviceLimits&, const Problem& p) const override {
    return naive_config_name(p.op_a, p.op_b, 128);
  }

  std::vector<std::string> candidate_configs(const DeviceLimits& limits,
                                             const Problem& p) const override {
    std::vector<std::string> out;
    for (int threads : kBlocks)
      if (threads <= limits.max_threads_per_block)
        out.push_back(naive_config_name(p.op_a, p.op_b, threads));
    return out;
  }

  std::optional<LaunchShape> launch_shape(std::string_view config_name,
                                          const Problem& p) const override {
    const std::optional<NaiveConfig> c = parse_naive(config_name);
    if (!c) return std::nullopt;
    LaunchShape shape;
    const long long blocks = (static_cast<long long>(p.m) * p.n + c->threads - 1) / c->threads;
    shape.grid = dim3(unsigned(blocks), unsigned(std::min(p.batch, 65535)), 1);
    shape.block = dim3(unsigned(c->threads), 1, 1);
    const NaiveArgs extra{c->tf32 ? 0xffffe000u : 0xffffffffu};
    shape.extra_args.resize(sizeof extra);
    std::memcpy(shape.extra_args.data(), &extra, sizeof extra);
    return shape;
  }
};

}  // namespace

const KernelFamily& naive_kernel_family() {
  static const NaiveFamily family;
  return family;
}

void register_naive_family() {
  static std::once_flag once;
  std::call_once(once, [] { register_family(naive_kernel_family()); });
}

std::string naive_config_name(Op op_a, Op op_b, int threads, bool tf32) {
  return std::string("naivegemm_") + (op_a == Op::T ? 't' : 'n') + (op_b == Op::T ? 't' : 'n') +
         "_b" + std::to_string(threads) + (tf32 ? "_tf32" : "");
}

}  // namespace gemmtune::test
