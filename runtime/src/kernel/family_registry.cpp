#include <mutex>
#include <string>

#include "gemmtune/db/records.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/waves.hpp"
#include "kernel_args_of.hpp"

namespace gemmtune {

namespace {
// Whether a config name could belong to both prefixes: each with its '_', one starts the other.
bool prefixes_clash(std::string_view a, std::string_view b) {
  const std::string x = std::string(a) + '_', y = std::string(b) + '_';
  return x.starts_with(y) || y.starts_with(x);
}

// A loaded kernel of one entry point taking GemmArgs, launched as its family's launch_shape()
// says: the default KernelFamily::load().
class SingleEntryKernel final : public LoadedKernel {
 public:
  SingleEntryKernel(const KernelFamily& family, std::string name, const std::vector<char>& cubin,
                    const std::string& lowered_name)
      : family_(family), name_(std::move(name)) {
    GEMMTUNE_CUDA(
        cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    try {
      GEMMTUNE_CUDA(cudaLibraryGetKernel(&entry_, library_, lowered_name.c_str()));
    } catch (...) {
      GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_));
      throw;
    }
  }
  ~SingleEntryKernel() override { GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_)); }
  SingleEntryKernel(const SingleEntryKernel&) = delete;
  SingleEntryKernel& operator=(const SingleEntryKernel&) = delete;

  std::string name() const override { return name_; }

  void launch(const Problem& p, cudaStream_t stream, LaunchWorkspace*) const override {
    const std::optional<LaunchShape> shape = family_.launch_shape(name_, p);
    if (!shape)
      throw Error(Status::kInternal, "kernel family '" + std::string(family_.name()) +
                                         "' gives no launch of " + name_);
    // Above 48 KiB a block's dynamic shared memory must be opted in to.
    if (shape->smem_bytes > 48 * 1024)
      GEMMTUNE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(entry_),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(shape->smem_bytes)));
    GemmArgs args = kernel_args_of(p);
    // The second block, where the family gives one (a kernel of one parameter reads only the
    // first); cudaLaunchKernel only reads the bytes.
    void* params[] = {&args, const_cast<std::byte*>(shape->extra_args.data())};
    GEMMTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(entry_), shape->grid, shape->block,
                                   params, shape->smem_bytes, stream));
    GEMMTUNE_CUDA(cudaGetLastError());
  }

 private:
  const KernelFamily& family_;
  std::string name_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t entry_ = nullptr;
};

// `name` (its first 200 characters) in quotes, for messages; built by appending, which GCC 12's
// -Wrestrict does not misread as "'" + std::string(...) is.
std::string quoted(std::string_view name) {
  std::string out = "'";
  out += name.substr(0, 200);
  out += '\'';
  return out;
}

// The process's registry; register_family() adds to it under the lock.
FamilyRegistry& mutable_registry() {
  static FamilyRegistry registry = [] {
    FamilyRegistry r;
    for (const KernelFamily* family : builtin_families()) r.add(*family);
    return r;
  }();
  return registry;
}

std::mutex& registration_mutex() {
  static std::mutex mutex;
  return mutex;
}
}  // namespace

std::optional<std::string> KernelFamily::validate(std::string_view config_name,
                                                  const DeviceLimits&) const {
  if (parse(config_name)) return std::nullopt;
  return quoted(config_name) + " is no config name of family " + std::string(name());
}

std::optional<std::string> KernelFamily::can_implement(std::string_view, const Problem&) const {
  return std::nullopt;
}

std::optional<db::KernelConfig> KernelFamily::db_row(std::string_view) const {
  return std::nullopt;
}

std::optional<std::string> KernelFamily::default_config(const DeviceLimits&, const Problem&) const {
  return std::nullopt;
}

std::vector<std::string> KernelFamily::candidate_configs(const DeviceLimits&,
                                                         const Problem&) const {
  return {};
}

std::optional<LaunchShape> KernelFamily::launch_shape(std::string_view, const Problem&) const {
  return std::nullopt;
}

Precision KernelFamily::precision(std::string_view) const { return Precision::ieee; }

bool KernelFamily::deterministic(std::string_view) const { return true; }

std::optional<double> KernelFamily::predicted_efficiency(std::string_view config_name,
                                                         const Problem& p, int sm_count) const {
  const std::optional<LaunchShape> shape = launch_shape(config_name, p);
  if (!shape) return std::nullopt;
  if (sm_count <= 0) return 1.0;
  const double blocks = double(shape->grid.x) * double(shape->grid.y) * double(shape->grid.z);
  return predicted_fill(blocks, sm_count, 1, p.m, p.n);
}

std::unique_ptr<LoadedKernel> KernelFamily::load(std::string_view config_name,
                                                 const std::vector<char>& cubin,
                                                 const std::string& lowered_name) const {
  if (!parse(config_name))
    throw Error(Status::kInvalidArgument,
                quoted(config_name) + " is no config name of kernel family " + std::string(name()));
  return std::make_unique<SingleEntryKernel>(*this, std::string(config_name), cubin, lowered_name);
}

bool KernelFamily::owns(std::string_view config_name) const {
  const std::string_view p = prefix();
  return config_name.size() > p.size() && config_name.starts_with(p) &&
         config_name[p.size()] == '_';
}

std::string KernelFamily::source_hash() const { return db::content_hash(source()); }

std::string KernelFamily::binary_key(const KernelInstance& instance,
                                     const std::string& arch) const {
  return db::content_hash(std::string(source()) + '\n' + binary_identity(instance, arch));
}

std::string binary_identity(const KernelInstance& instance, const std::string& arch) {
  // The key's text, so keys stay what databases hold.
  std::string text = instance.name_expression;
  for (const std::string& part : {arch, "nvrtc " + nvrtc_version_string()}) (text += '\n') += part;
  for (const std::string& define : instance.defines) (text += '\n') += define;
  return text;
}

std::string compile_arch(const KernelInstance& instance, const std::string& arch) {
  return instance.arch_specific && arch == "sm_90" ? "sm_90a" : arch;
}

CompileResult compile_instance(const KernelFamily& family, const KernelInstance& instance,
                               const std::string& arch) {
  CompileOptions opts;
  opts.arch = compile_arch(instance, arch);
  opts.extra = instance.defines;
  return compile_cuda(family.source(), family.source_name(), instance.name_expression, opts);
}

void FamilyRegistry::add(const KernelFamily& family) {
  const std::string name(family.name()), prefix(family.prefix());
  const auto refuse = [&](const std::string& why) {
    throw Error(Status::kInvalidArgument, "kernel family '" + name + "' is not registered: " + why);
  };
  if (prefix.empty()) refuse("its config-name prefix is empty");
  if (family.db_family().name != name)
    refuse("its database name is '" + family.db_family().name + "'");
  for (const KernelFamily* other : families_) {
    if (other->name() == name) refuse("a family of that name is registered");
    if (prefixes_clash(other->prefix(), prefix))
      refuse("its config-name prefix '" + prefix + "' clashes with the prefix '" +
             std::string(other->prefix()) + "' of family '" + std::string(other->name()) + "'");
  }
  families_.push_back(&family);
}

const KernelFamily* FamilyRegistry::find(std::string_view config_name) const {
  for (const KernelFamily* family : families_)
    if (family->owns(config_name)) return family;
  return nullptr;
}

const KernelFamily& FamilyRegistry::of(std::string_view config_name) const {
  if (const KernelFamily* family = find(config_name)) return *family;
  throw Error(Status::kInvalidArgument,
              "'" + std::string(config_name.substr(0, 200)) +
                  "' is no config name of a known kernel family (its prefix and '_' start a "
                  "config name); the known prefixes: " +
                  (families_.empty() ? std::string("none") : prefixes()));
}

std::string FamilyRegistry::prefixes() const {
  std::string out;
  for (const KernelFamily* family : families_) (out += out.empty() ? "" : ", ") += family->prefix();
  return out;
}

std::string FamilyRegistry::source_hash() const {
  if (families_.size() == 1) return families_.front()->source_hash();
  std::string lines;
  for (const KernelFamily* family : families_)
    (((lines += family->name()) += ' ') += family->source_hash()) += '\n';
  return db::content_hash(lines);
}

const FamilyRegistry& family_registry() { return mutable_registry(); }

void register_family(const KernelFamily& family) {
  std::lock_guard lock(registration_mutex());
  mutable_registry().add(family);
}

std::span<const KernelFamily* const> families() { return family_registry().families(); }

const KernelFamily& family_of(std::string_view config_name) {
  return family_registry().of(config_name);
}

}  // namespace gemmtune
