#include "gemmtune/sgemm/family.hpp"

#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/sgemm/knobs.hpp"
#include "gemmtune/templates.hpp"

namespace gemmtune {

namespace {

class SgemmFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return "sgemm"; }
  std::string_view prefix() const override { return "sgemm"; }
  std::string_view source() const override { return templates::sgemm_source(); }
  std::string_view source_name() const override { return "gemmtune_sgemm.cu"; }

  // A knob column per value knob of kSgemmTable, with the knob's default; the precision classes
  // by `math`, as GemmConfig::precision(): FMA ieee, 1xTF32 tf32, the 3xTF32 forms fp32.
  const db::FamilySchema& db_family() const override {
    static const db::FamilySchema family = [] {
      db::FamilySchema f;
      f.name = "sgemm";
      for (const Knob& knob : kSgemmKnobs)
        f.knobs.push_back(db::KnobColumn{std::string(knob.name), knob.default_value()});
      f.precision = {
          "math", {{0, int(Precision::ieee)}, {1, int(Precision::tf32)}}, int(Precision::fp32)};
      return f;
    }();
    return family;
  }

  std::optional<KernelInstance> parse(std::string_view config_name) const override {
    const std::optional<GemmConfig> config = parse_config_name(std::string(config_name));
    if (!config) return std::nullopt;
    return kernel_instance(*config);
  }

  // The rest delegates to GemmConfig; the dispatcher and the tuner keep their GemmConfig paths
  // for this family, these serve callers that hold a name of any family.
  std::optional<std::string> validate(std::string_view config_name,
                                      const DeviceLimits& limits) const override {
    const std::optional<GemmConfig> config = parse_config_name(std::string(config_name));
    if (!config) return KernelFamily::validate(config_name, limits);
    return config->validate(limits);
  }

  // The config as named: the chooser fits its access widths to the data first (fitted_to).
  std::optional<std::string> can_implement(std::string_view config_name,
                                           const Problem& p) const override {
    const std::optional<GemmConfig> config = parse_config_name(std::string(config_name));
    if (!config) return std::string(config_name.substr(0, 200)) + " does not parse";
    return config->can_implement(p);
  }

  std::optional<db::KernelConfig> db_row(std::string_view config_name) const override {
    const std::optional<GemmConfig> config = parse_config_name(std::string(config_name));
    if (!config) return std::nullopt;
    return to_db(*config);
  }

  std::optional<std::string> default_config(const DeviceLimits& limits,
                                            const Problem& p) const override {
    return config_name(gemmtune::default_config(limits, p));
  }

  // Its configs launch several kernels (copies, C = beta C first, clusters): GemmKernel.
  std::unique_ptr<LoadedKernel> load(std::string_view config_name, const std::vector<char>& cubin,
                                     const std::string& lowered_name) const override {
    const std::optional<GemmConfig> config = parse_config_name(std::string(config_name));
    if (!config)
      throw Error(Status::kInvalidArgument,
                  std::string(config_name.substr(0, 200)) + " does not parse");
    return std::make_unique<GemmKernel>(*config, cubin, lowered_name);
  }
};

}  // namespace

const KernelFamily& sgemm_kernel_family() {
  static const SgemmFamily family;
  return family;
}

KernelInstance kernel_instance(const GemmConfig& config) {
  KernelInstance out;
  out.name_expression = config.name_expression();
  // The kernels that a launch of `config` runs before its GEMM, compiled into its cubin: only
  // those, since each costs every compile its time.
  if (config.repack) out.defines.push_back("-DGEMMTUNE_PACK_OPERAND");
  if (config.wgmma) out.defines.push_back("-DGEMMTUNE_PACK_SPLIT");
  if (config.prescale_c) out.defines.push_back("-DGEMMTUNE_PRESCALE_C");
  out.arch_specific = config.wgmma;
  return out;
}

}  // namespace gemmtune
