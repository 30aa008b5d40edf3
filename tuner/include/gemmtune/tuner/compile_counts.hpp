#pragma once
// Where the compiled kernels a sweep used came from: counted per problem and over the sweep.
#include <cstddef>
#include <string>

namespace gemmtune::tuner {

/// Where a compiled candidate handed to the consumer came from.
enum class CompileOrigin {
  compiled,  ///< NVRTC compiled it, and no one has taken it before: store it in the binary cache
  cache,     ///< read from the database's binary cache
  reused,    ///< taken before in this pool's life (another problem, class or plan): stored already
};

/// How many of the candidates a consumer took came from where.
struct CompileCounts {
  std::size_t compiled = 0;  ///< compiled by NVRTC for it
  std::size_t cached = 0;    ///< from the database's binary cache
  std::size_t reused = 0;    ///< compiled (or read) earlier in the sweep, kept in memory
  /// Adds one take of `origin`.
  void add(CompileOrigin origin);
  /// All takes.
  std::size_t total() const { return compiled + cached + reused; }
  CompileCounts& operator+=(const CompileCounts& o);
  /// "40 compiled, 3 cached, 2 reused".
  std::string describe() const;
  bool operator==(const CompileCounts&) const = default;
};

}  // namespace gemmtune::tuner
