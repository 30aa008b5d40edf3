#pragma once
// The tuning databases shipped with gemmtune (db/shipped/, docs/database.md "Shipped tuning
// databases"): where they live, which one fits a GPU, and how their data joins the user's. The
// one home of these rules: the dispatcher, `gemmtune explain` and the tests go through it.
//
// A shipped file holds the results of one GPU model (its `gpu_models` row names the model and
// its compute capability: the file's name is only where to look first) and no binaries. Files
// are opened read-only and never written.
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/choice.hpp"

namespace gemmtune {

/// The file name of a GPU model's shipped database: the model's name as the CUDA runtime reports
/// it (and `gemmtune db devices` shows it), lower case, each run of characters other than
/// letters and digits made one '-', then ".db": "NVIDIA H200" -> "nvidia-h200.db".
std::string shipped_file_name(const std::string& gpu_name);

/// Whether $GEMMTUNE_NO_SHIPPED switches the shipped databases off: any value but empty or "0".
bool shipped_disabled_by_environment();

/// The folders that may hold shipped databases, in the order they are tried: $GEMMTUNE_SHIPPED_DIR
/// alone when it is set and not empty; else, from the folder of the file that holds libgemmtune's
/// code (the shared library, or the program a static one is linked into), ../share/gemmtune/tuning
/// (an install prefix, and a build folder: build/runtime/ and build/tools/ both reach
/// build/share/), then tuning/ beside it (the Python package: gemmtune/lib/tuning/), then the
/// folder the build would install them to (a program linked statically outside the prefix).
std::vector<std::string> shipped_search_dirs();

/// The shipped database that fits a GPU.
struct ShippedFile {
  std::string path;         ///< the file
  std::string gpu_name;     ///< the GPU model it was tuned on (its gpu_models row)
  bool same_model = false;  ///< tuned on the GPU's own model; false: another model of the same
                            ///< compute capability (the architecture's default)
};

/// The shipped database for `gpu`, from the first of `dirs` that holds any `*.db` file: the file
/// named for its model (shipped_file_name) when its GPU row is that model, else the first file by
/// name whose one GPU model has the same compute capability. nullopt when none fits (or `gpu`'s
/// compute capability is 0). A file that cannot be read is passed over with a line in `notes`
/// and a warning (once per process).
std::optional<ShippedFile> find_shipped(const GpuIdentity& gpu,
                                        const std::vector<std::string>& dirs,
                                        std::vector<std::string>& notes);

/// `user` (the user's database's snapshot for `gpu`) with the shipped data for `gpu` behind it,
/// as the chooser reads them (choice.hpp, "the fallback chain"): the rows of `file` marked
/// `shipped`, less those of problems `user` has tuned (the user's own results of a problem
/// replace the shipped ones). A file that cannot be read adds a note, never an error.
TuningSnapshot with_shipped(TuningSnapshot user, const GpuIdentity& gpu, const ShippedFile& file);

/// with_shipped() with the file find_shipped() finds in shipped_search_dirs(), or `user` as it is
/// when none fits, or when `enabled` is false or $GEMMTUNE_NO_SHIPPED is set; either way with the
/// GPU's SM count where `user` has none.
TuningSnapshot with_shipped(TuningSnapshot user, const GpuIdentity& gpu, bool enabled = true);

}  // namespace gemmtune
