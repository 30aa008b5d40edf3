#pragma once
// The plan cache: problem class -> loaded kernel. The hot path is find(): a shared (read) lock
// and a hash lookup of a small POD key; no allocation, no strings.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "gemmtune/kernel.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune::detail {

/// What a choice depends on: layout, shape, batch, the alignment of each operand and whether the
/// matrices come from pointer arrays.
struct PlanKey {
  std::int32_t m = 0, n = 0, k = 0, batch = 0;
  std::uint8_t op_a = 0, op_b = 0;
  // Per operand: a kernel fitted to a misaligned B must not run a problem whose A is misaligned.
  std::uint8_t align_a = 0, align_b = 0, align_c = 0;
  // A repack config cannot serve pointer arrays (its copies go by stride): they may get another.
  std::uint8_t pointer_arrays = 0;

  static PlanKey of(const Problem& p) {
    PlanKey key;
    key.m = p.m, key.n = p.n, key.k = p.k, key.batch = p.batch;
    key.op_a = std::uint8_t(p.op_a), key.op_b = std::uint8_t(p.op_b);
    key.align_a = std::uint8_t(p.a_alignment()), key.align_b = std::uint8_t(p.b_alignment());
    key.align_c = std::uint8_t(p.c_alignment());
    key.pointer_arrays = p.pointer_arrays;
    return key;
  }
  bool operator==(const PlanKey&) const = default;
};

/// 64-bit mix of the key's fields (splitmix64 finaliser per field).
struct PlanKeyHash {
  std::size_t operator()(const PlanKey& key) const noexcept {
    auto mix = [](std::uint64_t h, std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h ^= h >> 30, h *= 0xbf58476d1ce4e5b9ULL, h ^= h >> 27, h *= 0x94d049bb133111ebULL,
          h ^= h >> 31;
      return h;
    };
    std::uint64_t h = mix(0, (std::uint64_t(std::uint32_t(key.m)) << 32) | std::uint32_t(key.n));
    h = mix(h, (std::uint64_t(std::uint32_t(key.k)) << 32) | std::uint32_t(key.batch));
    return std::size_t(mix(h, (std::uint64_t(key.pointer_arrays) << 40) |
                                  (std::uint64_t(key.op_a) << 32) |
                                  (std::uint64_t(key.op_b) << 24) | (key.align_a << 16) |
                                  (key.align_b << 8) | key.align_c));
  }
};

/// The kernel a problem class runs: an sgemm kernel (`gemm`, launched directly, with a workspace
/// where its config needs one), or one of another family (`other`, launched through its family).
struct Plan {
  const GemmKernel* gemm = nullptr;
  const LoadedKernel* other = nullptr;
  explicit operator bool() const { return gemm || other; }
};

/// Thread-safe map of problem classes to kernels; the kernels are owned elsewhere and outlive it.
class PlanCache {
 public:
  /// The plan of `key`, or an empty one: a read lock and a lookup.
  Plan find(const PlanKey& key) const {
    std::shared_lock lock(mutex_);
    auto it = plans_.find(key);
    return it == plans_.end() ? Plan{} : it->second;
  }
  /// Adds (or keeps) the plan of `key`.
  void insert(const PlanKey& key, Plan plan) {
    std::unique_lock lock(mutex_);
    plans_.emplace(key, plan);
  }
  /// Number of problem classes.
  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return plans_.size();
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<PlanKey, Plan, PlanKeyHash> plans_;
};

}  // namespace gemmtune::detail
