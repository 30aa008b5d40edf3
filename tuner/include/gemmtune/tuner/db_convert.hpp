#pragma once
// The one place where the runtime's types become database rows and back.
#include <optional>

#include "gemmtune/config.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune::tuner {

/// The database row of a config (family "sgemm", its procedural name, every parameter).
db::KernelConfig to_db(const GemmConfig& config);

/// The config a database row describes; nullopt when the row is not of the sgemm family or its
/// layout characters are not 'n'/'t'.
std::optional<GemmConfig> from_db(const db::KernelConfig& row);

/// The database key of a problem: dtype f32, layout, shape, batch and alignment class.
db::ProblemKey to_db(const Problem& problem);

/// The database description of a GPU (its key is name, compute capability, SM count).
db::GpuModel to_db(const DeviceInfo& device);

}  // namespace gemmtune::tuner
