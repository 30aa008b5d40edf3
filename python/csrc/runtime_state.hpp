#pragma once
// The operators' dispatchers: one gemmtune::Dispatcher per CUDA device, created on first use with
// the options of the last `configure`, and per problem class the cached decision whether gemmtune
// or PyTorch runs it ("never slower than PyTorch": see decide()).
#include <gemmtune/gemmtune.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gemmtune_torch {

/// What `configure` sets (gemmtune.configure documents each).
struct Settings {
  std::optional<std::string> db_path;  ///< nullopt: the library's default
  std::string db_access = "automatic";
  bool deterministic = false;
  bool verbose = false;
  std::string precision = "ieee";
  /// "torch": a problem class runs on gemmtune only where its tuned kernel measured faster than
  /// cuBLAS (else PyTorch's own product); "never": always gemmtune.
  std::string fallback = "torch";
};

/// Validates `settings` (ValueError naming the bad one), then drops every dispatcher and decision
/// (each dispatcher waits for its device first), so the next call creates them with `settings`.
void configure(const Settings& settings);

/// Who runs a problem class, and why (for `explain`).
struct Decision {
  bool gemmtune = true;
  std::string reason;
};

/// The dispatcher that runs row-major `p` on `device` (created on first use; throws
/// gemmtune::Error without a GPU), or null when PyTorch runs it: the cached decision of its
/// problem class (layout, M, N, K, batch, alignment class), made on first sight, a hash lookup
/// after that. The pointer keeps the dispatcher alive through a concurrent `configure`.
std::shared_ptr<gemmtune::Dispatcher> gemmtune_for(int device, const gemmtune::Problem& p);

/// The decision for `p` with its reason, and the dispatcher's explanation of its kernel choice.
std::string explain(int device, const gemmtune::Problem& p);

}  // namespace gemmtune_torch
