#pragma once
// What the steps of the chooser's fallback chain share (chooser.cpp holds the chain,
// nearest.cpp its nearest-shape step): the request, stored configs made ready for it,
// and the trail lines of what a step skipped.
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/choice.hpp"

namespace gemmtune::detail {

/// What every step reads: the problem, its alignment class, the GPU model's limits and data.
struct ChoiceRequest {
  const Problem& p;
  int alignment;
  const DeviceLimits& limits;
  const TuningSnapshot& snapshot;
  bool deterministic = false;                     ///< skip split-K configs
  Precision precision = Precision::ieee;          ///< skip configs of classes it does not admit
  const Fp32Qualified* fp32_qualified = nullptr;  ///< the fp32 policy's 3xTF32 configs
};

/// A stored config name made ready for a problem: parsed, validated, its access widths fitted to
/// the data's alignment, checked against the problem. `why` says what failed.
struct Adapted {
  std::optional<GemmConfig> config;
  /// A config of another kernel family than sgemm (the registry's), made ready instead of
  /// `config`: taken as stored by the exact, nearest and model-default steps (families/README.md,
  /// "What is still outside").
  std::string family_config;
  std::string why;
  bool narrowed = false;  ///< the data narrowed an access width the stored config had
};

/// Why the request's precision policy does not run the config stored as `name`, of accuracy
/// class `precision`: its class, or, for a 3xTF32 config under fp32, accuracy not shown: on
/// `tuned_on` (the exact choice's tuned problem), else on every tuned problem that measured it.
/// nullopt: it may run.
std::optional<std::string> precision_refusal(const std::string& name, Precision precision,
                                             const ChoiceRequest& r,
                                             const TunedProblem* tuned_on = nullptr);

/// `name` made ready for the request's problem (measured on `tuned_on`, for the exact choice).
/// A name of another registered family is made ready by its family (its precision class and
/// determinism, validate, can_implement).
Adapted adapt(const std::string& name, const ChoiceRequest& r,
              const TunedProblem* tuned_on = nullptr);

/// Makes `a`, stored as `stored`, the choice, from `source`.
void take(Choice& c, ChoiceSource source, const Adapted& a, const std::string& stored);

/// Whether `t` has the layout (operations of A and B) of `p`.
bool same_layout(const TunedProblem& t, const Problem& p);

/// Whether `t` has the problem's layout and alignment class.
bool same_class(const TunedProblem& t, const ChoiceRequest& r);

/// Whether `t` is the problem itself: same class and shape.
bool is_exact(const TunedProblem& t, const ChoiceRequest& r);

/// What one step skipped, in the trail: the first few listed, the rest counted in one line, so
/// that a database of many stale rows does not bury the answer.
class SkipNotes {
 public:
  SkipNotes(std::vector<std::string>& trail, std::string step)
      : trail_(trail), step_(std::move(step)) {}
  /// Lists "<step>: <why>", or counts it once enough are listed.
  void add(const std::string& why) {
    if (listed_ < kListed) {
      trail_.push_back(step_ + ": " + why);
      ++listed_;
    } else {
      ++unlisted_;
    }
  }
  /// "<step>: N more <what> skipped", when some were not listed.
  void count_unlisted(const std::string& what) {
    if (unlisted_)
      trail_.push_back(step_ + ": " + std::to_string(unlisted_) + " more " + what + " skipped");
  }

 private:
  static constexpr int kListed = 6;
  std::vector<std::string>& trail_;
  std::string step_;
  int listed_ = 0, unlisted_ = 0;
};

/// The largest power of two not above `x` (1 for x < 2; at most 2^40), for sizing splits of K.
inline long long floor_pow2(double x) {
  long long p = 1;
  while (p < (1LL << 40) && p * 2 <= x) p *= 2;
  return p;
}

/// The power of two nearest `x` in log scale (1 for x below about 1.4).
inline long long nearest_pow2(double x) { return floor_pow2(x * 1.4142135); }

/// The SM count splits are sized for when the snapshot does not know the GPU's (a chooser made
/// without a device: `gemmtune explain --arch`, tests): an H100's or H200's.
inline constexpr int kAssumedSmCount = 132;

/// How far (shape_distance(): natural logs of M, N, K and batch) a tuned problem may be and still
/// lend its configs: about 12 times along one dimension. Farther, the shape-class config does
/// better: of 46 untuned shapes benched on an H200 with a shipped file and with the class configs
/// alone (docs/PERFORMANCE.md, 2026-12-02, "The nearest step's reach"), the 11 that borrowed from
/// beyond 2.5 ran at 0.64x cuBLAS (geometric mean) and their class configs at 0.82x.
inline constexpr double kNearestReach = 2.5;

/// Step 2 of the chain: one of the fastest configs of a nearby tuned problem of the same layout,
/// within kNearestReach, of the same alignment class (for a problem of alignment 2, also of
/// alignment 4, its accesses narrowed here), the same regime first. False, with the trail noted,
/// when none is usable.
bool choose_nearest(const ChoiceRequest& r, Choice& c);

/// Step 3 of the chain: the built-in config of the problem's shape class (dot product,
/// matrix-vector, skinny, deep K, tiny, medium, large), its split of K sized for the GPU's SM count
/// (the snapshot's). nullopt, with `why_not` set, when it cannot run the problem on these limits:
/// the chain then goes on to the model default, then default_config().
std::optional<GemmConfig> shape_class_config(const ChoiceRequest& r, std::string& why_not);

}  // namespace gemmtune::detail
