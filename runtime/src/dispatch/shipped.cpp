// The shipped tuning databases: finding the folder and the file that fits a GPU, and putting
// their data behind the user's (shipped.hpp).
#include "gemmtune/shipped.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string_view>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/logging.hpp"
#include "store.hpp"

namespace gemmtune {

namespace fs = std::filesystem;

namespace {

// The folder of the file that holds this code: the shared library, or the program a static
// library is linked into (glibc names the main program by its argv[0], which may be relative or
// bare: /proc/self/exe is that file).
fs::path folder_of_library() {
  Dl_info info{};
  std::error_code ec;
  if (dladdr(reinterpret_cast<void*>(&shipped_search_dirs), &info) && info.dli_fname &&
      std::string_view(info.dli_fname).find('/') != std::string_view::npos) {
    fs::path file = fs::canonical(info.dli_fname, ec);
    if (!ec && !fs::equivalent(file, "/proc/self/exe", ec)) return file.parent_path();
  }
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// The one GPU model of a shipped file; nullopt (with a note) when it holds none or several.
std::optional<db::GpuModel> model_of(const db::Database& file, std::vector<std::string>& notes) {
  const std::vector<db::GpuModelRow> models = file.gpu_models();
  if (models.size() == 1) return models.front().model;
  notes.push_back("shipped database '" + file.path() + "' holds " + std::to_string(models.size()) +
                  " GPU models, not one: passed over");
  return std::nullopt;
}

void note_unreadable(const std::string& path, const std::string& why,
                     std::vector<std::string>& notes) {
  const std::string line = "cannot read shipped tuning database '" + path + "': " + why;
  notes.push_back(line);
  detail::warn_once("shipped " + path, line + "; it is passed over");
}

// The *.db files of `dir`, by name; empty when it is not a readable folder.
std::vector<fs::path> database_files(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".db" && it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string shipped_file_name(const std::string& gpu_name) {
  std::string slug;
  for (unsigned char c : gpu_name) {
    if (std::isalnum(c))
      slug += char(std::tolower(c));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return (slug.empty() ? std::string("unnamed") : slug) + ".db";
}

bool shipped_disabled_by_environment() {
  const char* v = std::getenv("GEMMTUNE_NO_SHIPPED");
  return v && *v && std::string_view(v) != "0";
}

std::vector<std::string> shipped_search_dirs() {
  if (const char* dir = std::getenv("GEMMTUNE_SHIPPED_DIR"); dir && *dir) return {dir};
  std::vector<std::string> dirs;
  if (const fs::path lib = folder_of_library(); !lib.empty()) {
    dirs.push_back((lib.parent_path() / "share" / "gemmtune" / "tuning").string());
    dirs.push_back((lib / "tuning").string());
  }
#ifdef GEMMTUNE_INSTALL_TUNING_DIR
  dirs.push_back(GEMMTUNE_INSTALL_TUNING_DIR);
#endif
  return dirs;
}

std::optional<ShippedFile> find_shipped(const GpuIdentity& gpu,
                                        const std::vector<std::string>& dirs,
                                        std::vector<std::string>& notes) {
  if (gpu.cc_major == 0) return std::nullopt;
  for (const std::string& dir : dirs) {
    const std::vector<fs::path> files = database_files(dir);
    if (files.empty()) continue;  // the first folder that holds any is the one
    // Its own model's file first, then the architecture's: the first file by name of that
    // compute capability.
    std::vector<fs::path> order;
    const fs::path own = fs::path(dir) / shipped_file_name(gpu.name);
    if (!gpu.name.empty() && std::find(files.begin(), files.end(), own) != files.end())
      order.push_back(own);
    for (const fs::path& f : files)
      if (f != own || gpu.name.empty()) order.push_back(f);
    for (const fs::path& f : order) {
      try {
        const db::Database file(f.string(), db::OpenMode::read_only, kernel_families());
        const std::optional<db::GpuModel> model = model_of(file, notes);
        if (!model || model->cc_major != gpu.cc_major || model->cc_minor != gpu.cc_minor) continue;
        // A file named for the model but tuned on another (renamed) still fits the architecture.
        return ShippedFile{f.string(), model->name, !gpu.name.empty() && model->name == gpu.name};
      } catch (const std::exception& e) {  // db::DatabaseError, or bad_alloc on a damaged file
        note_unreadable(f.string(), e.what(), notes);
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

TuningSnapshot with_shipped(TuningSnapshot user, const GpuIdentity& gpu, const ShippedFile& file) {
  TuningSnapshot shipped;
  try {
    const db::Database database(file.path, db::OpenMode::read_only, kernel_families());
    shipped = detail::load_tuning_snapshot(
        database, GpuIdentity{file.gpu_name, gpu.cc_major, gpu.cc_minor, 0});
  } catch (const std::exception& e) {
    note_unreadable(file.path, e.what(), user.notes);
    return user;
  }
  if (shipped.bests.empty()) {
    for (const std::string& n : shipped.notes) user.notes.push_back("shipped: " + n);
    return user;
  }
  // The user's result of a problem replaces the shipped one.
  std::set<std::string> tuned_by_user;
  for (const auto* list : {&user.bests, &user.top_configs})
    for (const TunedBest& b : *list) tuned_by_user.insert(b.problem.to_string());
  for (auto [from, to] :
       {std::pair{&shipped.bests, &user.bests}, std::pair{&shipped.top_configs, &user.top_configs}})
    for (TunedBest& b : *from)
      if (!tuned_by_user.count(b.problem.to_string())) {
        b.shipped = true;
        to->push_back(std::move(b));
      }
  user.shipped_database = file.path;
  user.shipped_gpu_model = shipped.gpu_model;
  user.shipped_other_model = !file.same_model;
  // The nearest-shape step models the device's waves: its own SM count where known.
  if (user.sm_count == 0) user.sm_count = gpu.sm_count ? gpu.sm_count : shipped.sm_count;
  return user;
}

TuningSnapshot with_shipped(TuningSnapshot user, const GpuIdentity& gpu, bool enabled) {
  // The nearest-shape step and the built-in configs size for the device's SM count.
  if (user.sm_count == 0) user.sm_count = gpu.sm_count;
  if (!enabled || shipped_disabled_by_environment()) return user;
  if (std::optional<ShippedFile> file = find_shipped(gpu, shipped_search_dirs(), user.notes))
    return with_shipped(std::move(user), gpu, *file);
  return user;
}

}  // namespace gemmtune
