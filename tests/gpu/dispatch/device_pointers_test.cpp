// Pointers in device memory, on the GPU: the device-array batched call against cuBLAS's
// cublasSgemmBatched on the same buffers (scattered matrices, odd sizes, every layout), device
// pointer mode against cuBLAS's, BLAS semantics with device scalars (beta = 0 over NaN, alpha = 0
// over Inf, K = 0), split-K and repack configs with pointer arrays, and a CUDA Graph captured once
// and replayed with new scalars and new array contents. Argument checks: the unit test of the same
// name.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "gemmtune/choice.hpp"
#include "gpu/dispatch/beside_cublas.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

gemmtune_layout_t c_layout(Layout l) {
  return l == Layout::row_major ? GEMMTUNE_ROW_MAJOR : GEMMTUNE_COL_MAJOR;
}

// `batch` GEMMs of one shape whose matrices lie scattered in one pool per operand: 2 x batch
// slots, the matrices in randomly chosen ones (gaps between them, no constant distance), every
// slot 16-byte aligned as the device-array call requires. Host copies of the pointers and the
// device arrays the calls take. Leading dimensions are padded by `pad` (odd ones narrow accesses).
struct ScatteredBatch {
  Layout layout;
  Problem p;                         // in `layout`; its own pointers and strides are not used
  long long a_slot, b_slot, c_slot;  // floats from one slot to the next
  int slots;
  DeviceArray<float> a_pool, b_pool, c_pool;
  std::vector<float> a_init, b_init, c_init;  // what the pools hold after reset()
  std::vector<const float*> a, b;             // matrix i's pointers
  std::vector<float*> c;
  DeviceArray<const float*> a_array, b_array;
  DeviceArray<float*> c_array;

  ScatteredBatch(Layout l, Op op_a, Op op_b, int m, int n, int k, int batch, int pad,
                 std::mt19937_64& rng)
      : layout(l),
        p(shape_of(l, op_a, op_b, m, n, k, batch, pad)),
        a_slot(slot_floats(l, p.a_rows(), p.a_cols(), p.lda)),
        b_slot(slot_floats(l, p.b_rows(), p.b_cols(), p.ldb)),
        c_slot(slot_floats(l, p.m, p.n, p.ldc)),
        slots(2 * batch),
        a_pool(size_t(a_slot) * slots),
        b_pool(size_t(b_slot) * slots),
        c_pool(size_t(c_slot) * slots),
        a_array(batch),
        b_array(batch),
        c_array(batch) {
    a_init = random_floats(a_pool.size(), rng);
    b_init = random_floats(b_pool.size(), rng);
    c_init = random_floats(c_pool.size(), rng);
    reset();
    std::vector<int> order(slots);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(batch);
    point_to(order);
  }
  static Problem shape_of(Layout l, Op op_a, Op op_b, int m, int n, int k, int batch, int pad) {
    Problem p;
    p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k, p.batch = batch;
    const bool row = l == Layout::row_major;
    p.lda = (row ? p.a_cols() : p.a_rows()) + pad;
    p.ldb = (row ? p.b_cols() : p.b_rows()) + pad;
    p.ldc = (row ? p.n : p.m) + pad;
    return p;
  }
  // A matrix's extent, rounded up to whole 4-float vectors, and a gap of one vector.
  static long long slot_floats(Layout l, int rows, int cols, long long ld) {
    const long long lines = l == Layout::row_major ? rows : cols;
    return (std::max(lines, 1LL) * ld + 3) / 4 * 4 + 4;
  }
  // Matrix i in slot slots_of[i]; uploads the device arrays.
  void point_to(const std::vector<int>& slot_of) {
    a.clear(), b.clear(), c.clear();
    for (int s : slot_of) {
      a.push_back(a_pool.get() + s * a_slot), b.push_back(b_pool.get() + s * b_slot);
      c.push_back(c_pool.get() + s * c_slot);
    }
    a_array.upload(a), b_array.upload(b), c_array.upload(c);
  }
  void reset() { a_pool.upload(a_init), b_pool.upload(b_init), c_pool.upload(c_init); }
  // Fills the pool of C (and its reset value) with `value`, or of A or B.
  static void fill(DeviceArray<float>& pool, std::vector<float>& init, float value) {
    init.assign(init.size(), value);
    pool.upload(init);
  }
  // GEMM i as a row-major problem of its own, with host scalars: what the reference computes.
  Problem single(int i, float alpha, float beta) const {
    Problem q = p;
    q.batch = 1, q.a = a[i], q.b = b[i], q.c = c[i], q.alpha = alpha, q.beta = beta;
    return as_row_major(layout, q);
  }
  // The float64 reference of every GEMM from the operands as they are now (call before the GEMM).
  std::vector<std::vector<double>> references(const ReferenceGemm& reference, float alpha,
                                              float beta) const {
    std::vector<std::vector<double>> out;
    for (int i = 0; i < p.batch; ++i) {
      DeviceArray<double> ref(size_t(p.m) * p.n);
      reference.run(single(i, alpha, beta), ref.get(), nullptr);
      out.push_back(ref.download());
    }
    return out;
  }
  // The largest relative error of the GEMMs' C against `refs` (infinite for NaN or Inf in C).
  double max_error(const std::vector<std::vector<double>>& refs) const {
    const std::vector<float> pool = c_pool.download();
    double worst = 0;
    for (int i = 0; i < p.batch; ++i) {
      const Problem r = single(i, 1.f, 0.f);
      const std::vector<float> matrix(pool.begin() + (c[i] - c_pool.get()), pool.end());
      worst = std::max(worst, relative_error(matrix, r.ldc, 0, refs[i], r.m, r.n, 1));
    }
    return worst;
  }
  // C is exactly beta C0 in every matrix (0 for beta 0, whatever C0 held), the rest of the pool
  // untouched.
  void expect_beta_c(float beta) const {
    std::vector<bool> in_c(c_init.size(), false);
    for (int i = 0; i < p.batch; ++i) {
      const long long base = c[i] - c_pool.get();
      for (long long r = 0; r < p.m; ++r)
        for (long long j = 0; j < p.n; ++j)
          in_c[base + (layout == Layout::row_major ? r * p.ldc + j : r + j * p.ldc)] = true;
    }
    const std::vector<float> got = c_pool.download();
    for (size_t x = 0; x < got.size(); ++x) {
      const float want = !in_c[x] ? c_init[x] : beta == 0.f ? 0.f : beta * c_init[x];
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(got[x])) << x;
      else
        ASSERT_EQ(got[x], want) << x << (in_c[x] ? "" : " (outside the matrices)");
    }
  }
};

std::string describe(const ScatteredBatch& d) {
  return std::string(layout_name(d.layout)) + " " + d.p.layout() + " " + std::to_string(d.p.m) +
         "x" + std::to_string(d.p.n) + "x" + std::to_string(d.p.k) + " batch " +
         std::to_string(d.p.batch) + " lda " + std::to_string(d.p.lda) + " ldb " +
         std::to_string(d.p.ldb) + " ldc " + std::to_string(d.p.ldc);
}

class DevicePointers : public BesideCublas {
 protected:
  void SetUp() override {
    BesideCublas::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    DispatcherOptions cpp;
    cpp.db_access = DbAccess::none;
    cpp.deterministic = true;
    cpp_ = std::make_unique<Dispatcher>(cpp);
    scalars_ = std::make_unique<DeviceArray<float>>(2);
  }
  // Both libraries in device pointer mode, alpha and beta set in device memory.
  void device_mode(float alpha, float beta) {
    GEMMTUNE_OK(gemmtune_set_pointer_mode(handle_, GEMMTUNE_POINTER_MODE_DEVICE));
    CUBLAS_OK(cublasSetPointerMode(cublas_, CUBLAS_POINTER_MODE_DEVICE));
    set_scalars(alpha, beta);
  }
  void set_scalars(float alpha, float beta) {
    scalars_->upload({alpha, beta});
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
  }
  const float* d_alpha() const { return scalars_->get(); }
  const float* d_beta() const { return scalars_->get() + 1; }

  // cuBLAS's cublasSgemmBatched on `d`'s device arrays (a row-major batch as its column-major
  // transpose), with scalars as its pointer mode says.
  void cublas_batched(const ScatteredBatch& d, const float* alpha, const float* beta) {
    const Problem& p = d.p;
    if (d.layout == Layout::col_major) {
      CUBLAS_OK(cublasSgemmBatched(cublas_, cublas_op(p.op_a), cublas_op(p.op_b), p.m, p.n, p.k,
                                   alpha, d.a_array.get(), int(p.lda), d.b_array.get(), int(p.ldb),
                                   beta, d.c_array.get(), int(p.ldc), p.batch));
    } else {
      CUBLAS_OK(cublasSgemmBatched(cublas_, cublas_op(p.op_b), cublas_op(p.op_a), p.n, p.m, p.k,
                                   alpha, d.b_array.get(), int(p.ldb), d.a_array.get(), int(p.lda),
                                   beta, d.c_array.get(), int(p.ldc), p.batch));
    }
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
  }
  // gemmtune's device-array call on `d`: cuBLAS-shaped for column-major, else the CBLAS-shaped one.
  void gemmtune_batched(const ScatteredBatch& d, float alpha, float beta) {
    const Problem& p = d.p;
    if (d.layout == Layout::col_major) {
      GEMMTUNE_OK(gemmtune_cublasSgemmBatched(
          handle_, c_op(p.op_a), c_op(p.op_b), p.m, p.n, p.k, &alpha, d.a_array.get(), int(p.lda),
          d.b_array.get(), int(p.ldb), &beta, d.c_array.get(), int(p.ldc), p.batch));
    } else {
      GEMMTUNE_OK(gemmtune_sgemm_batched_device(handle_, GEMMTUNE_ROW_MAJOR, c_op(p.op_a),
                                                c_op(p.op_b), p.m, p.n, p.k, alpha, d.a_array.get(),
                                                p.lda, d.b_array.get(), p.ldb, beta,
                                                d.c_array.get(), p.ldc, p.batch, nullptr));
    }
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
  }
  // The device-array call on `d` with the device scalars: cuBLAS-shaped in device pointer mode for
  // column-major, the C++ call with Scalar::on_device for row-major.
  void gemmtune_batched_device_scalars(const ScatteredBatch& d) {
    const Problem& p = d.p;
    if (d.layout == Layout::col_major) {
      GEMMTUNE_OK(gemmtune_cublasSgemmBatched(
          handle_, c_op(p.op_a), c_op(p.op_b), p.m, p.n, p.k, d_alpha(), d.a_array.get(),
          int(p.lda), d.b_array.get(), int(p.ldb), d_beta(), d.c_array.get(), int(p.ldc), p.batch));
    } else {
      cpp_->sgemm_batched_device(Layout::row_major, p.op_a, p.op_b, p.m, p.n, p.k,
                                 Scalar::on_device(d_alpha()), d.a_array.get(), p.lda,
                                 d.b_array.get(), p.ldb, Scalar::on_device(d_beta()),
                                 d.c_array.get(), p.ldc, p.batch);
    }
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
  }

  std::unique_ptr<Dispatcher> cpp_;  // the C++ API, like handle_ (built-in kernels, deterministic)
  std::unique_ptr<DeviceArray<float>> scalars_;  // alpha, beta in device memory
};

// Scattered matrices, prime sizes, every op pair, both layouts, C poisoned with NaN when beta is
// 0: gemmtune and cuBLAS on the same device arrays, both within the reference tolerance, and
// gemmtune's one launch gives the bits of its host-array call (one launch per GEMM, same kernel).
TEST_F(DevicePointers, DeviceArraysMatchCublasSgemmBatched) {
  std::mt19937_64 rng(31);
  struct Scalars {
    float alpha, beta;
  };
  for (Layout layout : {Layout::col_major, Layout::row_major})
    for (auto [oa, ob] : {std::pair{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}})
      for (auto [m, n, k, batch, pad] : {std::tuple{37, 53, 71, 5, 0},
                                         {61, 29, 131, 3, 1},
                                         {1, 67, 43, 4, 0},
                                         {67, 1, 89, 3, 2},
                                         {128, 64, 96, 3, 0}})
        for (Scalars s : {Scalars{1.25f, 0.f}, Scalars{0.75f, -0.5f}}) {
          ScatteredBatch d(layout, oa, ob, m, n, k, batch, pad, rng);
          SCOPED_TRACE(describe(d) + " alpha " + std::to_string(s.alpha) + " beta " +
                       std::to_string(s.beta));
          if (s.beta == 0.f) ScatteredBatch::fill(d.c_pool, d.c_init, kNaN);  // must not be read
          const auto refs = d.references(*reference_, s.alpha, s.beta);
          const double tolerance = fp32_tolerance(k);

          cublas_batched(d, &s.alpha, &s.beta);
          EXPECT_LE(d.max_error(refs), tolerance) << "cuBLAS";

          d.reset();
          gemmtune_batched(d, s.alpha, s.beta);
          EXPECT_LE(d.max_error(refs), tolerance) << "gemmtune device arrays";
          const std::vector<float> one_launch = d.c_pool.download();

          d.reset();
          GEMMTUNE_OK(gemmtune_sgemm_batched(handle_, c_layout(layout), c_op(oa), c_op(ob), m, n, k,
                                             s.alpha, d.a.data(), d.p.lda, d.b.data(), d.p.ldb,
                                             s.beta, d.c.data(), d.p.ldc, batch, nullptr));
          GEMMTUNE_CUDA(cudaDeviceSynchronize());
          EXPECT_EQ(std::memcmp(d.c_pool.download().data(), one_launch.data(),
                                one_launch.size() * sizeof(float)),
                    0)
              << "the host-array call gave other bits";
        }
}

// Device pointer mode through the three cuBLAS-shaped calls, against cuBLAS in the same mode.
TEST_F(DevicePointers, DevicePointerModeMatchesCublas) {
  std::mt19937_64 rng(32);
  ScatteredBatch d(Layout::col_major, Op::T, Op::N, 59, 83, 97, 3, 1, rng);
  const Problem& p = d.p;
  const float alpha = -1.5f, beta = 0.25f;
  device_mode(alpha, beta);
  gemmtune_pointer_mode_t mode = GEMMTUNE_POINTER_MODE_HOST;
  GEMMTUNE_OK(gemmtune_get_pointer_mode(handle_, &mode));
  EXPECT_EQ(mode, GEMMTUNE_POINTER_MODE_DEVICE);
  const auto refs = d.references(*reference_, alpha, beta);
  const double tolerance = fp32_tolerance(p.k);

  cublas_batched(d, d_alpha(), d_beta());
  EXPECT_LE(d.max_error(refs), tolerance) << "cuBLAS";
  d.reset();
  GEMMTUNE_OK(gemmtune_cublasSgemmBatched(
      handle_, GEMMTUNE_OP_T, GEMMTUNE_OP_N, p.m, p.n, p.k, d_alpha(), d.a_array.get(), int(p.lda),
      d.b_array.get(), int(p.ldb), d_beta(), d.c_array.get(), int(p.ldc), p.batch));
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(d.max_error(refs), tolerance) << "gemmtune_cublasSgemmBatched";

  // GEMM 0 alone, and the batch as strided with the distance of GEMM 0 to GEMM 1 (both cuBLAS
  // calls in device mode on the same matrices).
  for (int i = 0; i < p.batch; ++i) {
    d.reset();
    CUBLAS_OK(cublasSgemm(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, p.m, p.n, p.k, d_alpha(), d.a[i],
                          int(p.lda), d.b[i], int(p.ldb), d_beta(), d.c[i], int(p.ldc)));
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    const std::vector<float> from_cublas = d.c_pool.download();
    d.reset();
    GEMMTUNE_OK(gemmtune_cublasSgemm(handle_, GEMMTUNE_OP_T, GEMMTUNE_OP_N, p.m, p.n, p.k,
                                     d_alpha(), d.a[i], int(p.lda), d.b[i], int(p.ldb), d_beta(),
                                     d.c[i], int(p.ldc)));
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    const std::vector<float> got = d.c_pool.download();
    const Problem r = d.single(i, alpha, beta);
    const size_t at = size_t(d.c[i] - d.c_pool.get());
    EXPECT_LE(relative_error(std::vector<float>(got.begin() + at, got.end()), r.ldc, 0, refs[i],
                             r.m, r.n, 1),
              tolerance)
        << i;
    EXPECT_LE(relative_error(std::vector<float>(from_cublas.begin() + at, from_cublas.end()), r.ldc,
                             0, refs[i], r.m, r.n, 1),
              tolerance)
        << i;
  }
  d.reset();
  GEMMTUNE_OK(gemmtune_cublasSgemmStridedBatched(
      handle_, GEMMTUNE_OP_T, GEMMTUNE_OP_N, p.m, p.n, p.k, d_alpha(), d.a_pool.get(), int(p.lda),
      d.a_slot, d.b_pool.get(), int(p.ldb), d.b_slot, d_beta(), d.c_pool.get(), int(p.ldc),
      d.c_slot, 2));
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  const std::vector<float> got = d.c_pool.download();
  for (int slot = 0; slot < 2; ++slot) {
    Problem q = p;
    q.batch = 1, q.a = d.a_pool.get() + slot * d.a_slot, q.b = d.b_pool.get() + slot * d.b_slot;
    q.c = d.c_pool.get() + slot * d.c_slot, q.alpha = alpha;
    q.beta = beta;
    const Problem r = as_row_major(Layout::col_major, q);
    d.c_pool.upload(d.c_init);  // the reference reads C's initial values
    DeviceArray<double> ref(size_t(p.m) * p.n);
    reference_->run(r, ref.get(), nullptr);
    EXPECT_LE(relative_error(std::vector<float>(got.begin() + slot * d.c_slot, got.end()), r.ldc, 0,
                             ref.download(), r.m, r.n, 1),
              tolerance)
        << "strided, slot " << slot;
  }
  // Back to host mode: the pointers are host pointers again.
  GEMMTUNE_OK(gemmtune_set_pointer_mode(handle_, GEMMTUNE_POINTER_MODE_HOST));
  d.reset();
  gemmtune_batched(d, alpha, beta);
  EXPECT_LE(d.max_error(refs), tolerance) << "host mode again";
}

// BLAS semantics with scalars in device memory: beta = 0 never reads C (NaN there); alpha = 0
// still runs the GEMM (the host cannot see it) but gives exactly beta C with Inf in A and NaN in
// B; K = 0 scales C by the device beta without A or B (null arrays). cuBLAS agrees where it
// defines the result.
TEST_F(DevicePointers, DeviceScalarsKeepBlasSemantics) {
  std::mt19937_64 rng(33);
  for (Layout layout : {Layout::col_major, Layout::row_major}) {
    SCOPED_TRACE(layout_name(layout));
    ScatteredBatch d(layout, Op::N, Op::T, 45, 77, 53, 3, 1, rng);
    const Problem& p = d.p;
    device_mode(0.5f, 0.f);
    ScatteredBatch::fill(d.c_pool, d.c_init, kNaN);
    const auto refs = d.references(*reference_, 0.5f, 0.f);
    gemmtune_batched_device_scalars(d);
    EXPECT_LE(d.max_error(refs), fp32_tolerance(p.k)) << "device beta 0 over NaN";

    d.c_init = random_floats(d.c_init.size(), rng);
    ScatteredBatch::fill(d.a_pool, d.a_init, kInf);
    ScatteredBatch::fill(d.b_pool, d.b_init, kNaN);
    for (float beta : {-2.f, 0.f}) {
      SCOPED_TRACE("alpha 0, beta " + std::to_string(beta));
      set_scalars(0.f, beta);
      d.reset();
      gemmtune_batched_device_scalars(d);
      d.expect_beta_c(beta);
      if (layout == Layout::col_major) {  // the strided call reads the first slots
        d.reset();
        GEMMTUNE_OK(gemmtune_cublasSgemmStridedBatched(
            handle_, GEMMTUNE_OP_N, GEMMTUNE_OP_T, p.m, p.n, p.k, d_alpha(), d.a_pool.get(),
            int(p.lda), d.a_slot, d.b_pool.get(), int(p.ldb), d.b_slot, d_beta(), d.c_pool.get(),
            int(p.ldc), d.c_slot, 1));
        GEMMTUNE_CUDA(cudaDeviceSynchronize());
        const std::vector<float> got = d.c_pool.download();
        for (long long j = 0; j < p.n; ++j)
          for (long long i = 0; i < p.m; ++i)
            ASSERT_EQ(got[i + j * p.ldc], beta == 0.f ? 0.f : beta * d.c_init[i + j * p.ldc])
                << i << ", " << j;
      }
    }

    // K = 0: C = beta C from the device beta, A and B not needed.
    for (float beta : {3.f, 0.f, 1.f}) {
      SCOPED_TRACE("K = 0, beta " + std::to_string(beta));
      set_scalars(7.f, beta);
      d.c_init = random_floats(d.c_init.size(), rng);
      if (beta == 0.f) d.c_init[d.c[1] - d.c_pool.get()] = kNaN;  // does not survive beta 0
      d.reset();
      if (layout == Layout::col_major) {
        GEMMTUNE_OK(gemmtune_cublasSgemmBatched(handle_, GEMMTUNE_OP_N, GEMMTUNE_OP_T, p.m, p.n, 0,
                                                d_alpha(), nullptr, int(p.lda), nullptr, int(p.ldb),
                                                d_beta(), d.c_array.get(), int(p.ldc), p.batch));
      } else {
        cpp_->sgemm_batched_device(layout, Op::N, Op::T, p.m, p.n, 0, Scalar::on_device(d_alpha()),
                                   nullptr, p.lda, nullptr, p.ldb, Scalar::on_device(d_beta()),
                                   d.c_array.get(), p.ldc, p.batch);
      }
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      d.expect_beta_c(beta);
    }
    GEMMTUNE_OK(gemmtune_set_pointer_mode(handle_, GEMMTUNE_POINTER_MODE_HOST));
  }
  // A null device address is an argument error, in C++.
  float* c = nullptr;
  EXPECT_THROW(cpp_->sgemm(Layout::row_major, Op::N, Op::N, 4, 4, 0, 1.f, nullptr, 1, nullptr, 4,
                           Scalar::on_device(nullptr), c, 4),
               Error);
}

// Split-K (a tuned database makes it the fastest) with pointer arrays and device scalars: the tile
// counters are indexed by batch as before; a device alpha of 0 leaves exactly beta C (the other
// splits add nothing).
// Split-K on pointer arrays with device scalars, both ways of starting the splits: the protocol
// in one launch, and C scaled by a kernel before (prescale_c), which reads beta on the device.
TEST_F(DevicePointers, SplitKWithPointerArraysAndDeviceScalars) {
  const DeviceInfo device = device_info(0);
  for (bool prescale : {false, true}) {
    SCOPED_TRACE(prescale ? "prescale_c" : "split-K protocol");
    const std::string path =
        (scratch_dir("gpu_device_pointers") / (prescale ? "split_k_prescaled.db" : "split_k.db"))
            .string();
    {
      TuningDbBuilder b(path);
      b.gpu(device.name, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
      auto split = tuned_pool(device.limits, Op::N, Op::N, 4);
      ASSERT_FALSE(split.empty());
      GemmConfig config = split.front();
      config.prescale_c = prescale;
      b.add(db_problem(Op::N, Op::N, 96, 96, 2048, 3), config, 0.01);
    }
    DispatcherOptions o;
    o.db_path = path;
    o.db_access = DbAccess::read_only;
    Dispatcher d(o);
    std::mt19937_64 rng(34);
    ScatteredBatch data(Layout::row_major, Op::N, Op::N, 96, 96, 2048, 3, 0, rng);
    const Problem& p = data.p;
    const Explanation choice =
        d.explain(shape_only_problem(Op::N, Op::N, 96, 96, 2048, 3, 0, true));
    ASSERT_GT(explained_config(choice).split_k, 1) << choice.to_string();
    ASSERT_EQ(explained_config(choice).prescale_c, prescale) << choice.to_string();

    set_scalars(1.5f, -0.75f);
    const auto refs = data.references(*reference_, 1.5f, -0.75f);
    d.sgemm_batched_device(Layout::row_major, Op::N, Op::N, p.m, p.n, p.k,
                           Scalar::on_device(d_alpha()), data.a_array.get(), p.lda,
                           data.b_array.get(), p.ldb, Scalar::on_device(d_beta()),
                           data.c_array.get(), p.ldc, p.batch);
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    EXPECT_LE(data.max_error(refs), fp32_tolerance(p.k));

    ScatteredBatch::fill(data.a_pool, data.a_init, kInf);
    set_scalars(0.f, -0.75f);
    data.reset();
    d.sgemm_batched_device(Layout::row_major, Op::N, Op::N, p.m, p.n, p.k,
                           Scalar::on_device(d_alpha()), data.a_array.get(), p.lda,
                           data.b_array.get(), p.ldb, Scalar::on_device(d_beta()),
                           data.c_array.get(), p.ldc, p.batch);
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    data.expect_beta_c(-0.75f);
  }
}

// A tuned repack config (copies misaligned operands by stride) cannot serve pointer arrays: the
// strided call packs, the device-array call of the same class runs the config narrowed, and is
// right.
TEST_F(DevicePointers, RepackConfigsRunNarrowedOnPointerArrays) {
  const DeviceInfo device = device_info(0);
  const std::string path = (scratch_dir("gpu_device_pointers") / "repack.db").string();
  GemmConfig repack = tuned_pool(device.limits, Op::N, Op::N).front();
  repack.repack = true;
  {
    TuningDbBuilder b(path);
    b.gpu(device.name, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
    b.add(db_problem(Op::N, Op::N, 61, 67, 71, 3, 1), repack, 0.01);
  }
  DispatcherOptions o;
  o.db_path = path;
  o.db_access = DbAccess::read_only;
  Dispatcher d(o);
  const Explanation strided = d.explain(shape_only_problem(Op::N, Op::N, 61, 67, 71, 3));
  EXPECT_EQ(strided.source, ChoiceSource::exact) << strided.to_string();
  EXPECT_TRUE(explained_config(strided).repack) << strided.to_string();
  const Explanation arrays = d.explain(shape_only_problem(Op::N, Op::N, 61, 67, 71, 3, 0, true));
  EXPECT_EQ(arrays.source, ChoiceSource::exact) << arrays.to_string();
  EXPECT_FALSE(explained_config(arrays).repack) << arrays.to_string();
  EXPECT_EQ(explained_config(arrays).width_a(), 1) << arrays.to_string();

  std::mt19937_64 rng(35);
  ScatteredBatch data(Layout::row_major, Op::N, Op::N, 61, 67, 71, 3, 0, rng);
  const Problem& p = data.p;
  const auto refs = data.references(*reference_, 0.5f, 2.f);
  d.sgemm_batched_device(Layout::row_major, Op::N, Op::N, p.m, p.n, p.k, 0.5f, data.a_array.get(),
                         p.lda, data.b_array.get(), p.ldb, 2.f, data.c_array.get(), p.ldc, p.batch);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(data.max_error(refs), fp32_tolerance(p.k));
}

// One capture, many replays: the device-array call (device scalars, on the handle's stream) and
// a K = 0 call, prepared first; each replay runs with new alpha and beta and new array contents,
// checked against the reference. Unprepared, the same call refuses during capture.
TEST_F(DevicePointers, GraphReplaysNewScalarsAndArrays) {
  cudaStream_t stream = nullptr;
  GEMMTUNE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GEMMTUNE_OK(gemmtune_set_stream(handle_, stream));
  std::mt19937_64 rng(36);
  ScatteredBatch d(Layout::col_major, Op::T, Op::T, 45, 37, 59, 4, 0,
                   rng);  // packed, odd: alignment 1
  ScatteredBatch k0(Layout::col_major, Op::N, Op::N, 30, 20, 0, 2, 0, rng);
  const Problem& p = d.p;
  device_mode(1.f, 0.f);
  // The captured calls, on the handle's stream.
  auto capture_calls = [&] {
    const gemmtune_status_t s = gemmtune_cublasSgemmBatched(
        handle_, GEMMTUNE_OP_T, GEMMTUNE_OP_T, p.m, p.n, p.k, d_alpha(), d.a_array.get(),
        int(p.lda), d.b_array.get(), int(p.ldb), d_beta(), d.c_array.get(), int(p.ldc), p.batch);
    if (s != GEMMTUNE_STATUS_SUCCESS) return s;
    return gemmtune_cublasSgemmBatched(handle_, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 30, 20, 0, d_alpha(),
                                       nullptr, 30, nullptr, 1, d_beta(), k0.c_array.get(), 30, 2);
  };

  cudaGraph_t graph = nullptr;
  GEMMTUNE_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  EXPECT_EQ(capture_calls(), GEMMTUNE_STATUS_NOT_PREPARED) << gemmtune_last_error();
  EXPECT_NE(std::string(gemmtune_last_error()).find("prepare"), std::string::npos)
      << gemmtune_last_error();
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  size_t nodes = 99;
  GEMMTUNE_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, 0u);
  GEMMTUNE_CUDA(cudaGraphDestroy(graph));

  gemmtune_problem problems[2] = {};
  problems[0] = {GEMMTUNE_COL_MAJOR,
                 GEMMTUNE_OP_T,
                 GEMMTUNE_OP_T,
                 p.m,
                 p.n,
                 p.k,
                 p.batch,
                 0.f,
                 0.f,
                 0,
                 1,
                 1,
                 0,
                 0,
                 0};
  problems[1] = {
      GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 30, 20, 0, 2, 0.f, 0.f, 0, 1, 1, 0, 0, 0};
  GEMMTUNE_OK(gemmtune_prepare(handle_, problems, 2, stream));
  GEMMTUNE_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  EXPECT_EQ(capture_calls(), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  GEMMTUNE_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  struct Replay {
    float alpha, beta;
    std::vector<int> slots;  // where matrix i lies in this replay
  };
  for (const Replay& r : {Replay{1.f, 0.f, {0, 2, 4, 6}}, Replay{-0.5f, 2.f, {7, 1, 5, 3}},
                          Replay{0.f, 0.5f, {3, 0, 6, 1}}, Replay{2.f, -1.f, {5, 4, 3, 2}}}) {
    SCOPED_TRACE("replay alpha " + std::to_string(r.alpha) + " beta " + std::to_string(r.beta));
    d.point_to(r.slots);
    d.c_init = random_floats(d.c_init.size(), rng);
    if (r.beta == 0.f) ScatteredBatch::fill(d.c_pool, d.c_init, kNaN);
    d.reset();
    k0.c_init = random_floats(k0.c_init.size(), rng);
    k0.reset();
    set_scalars(r.alpha, r.beta);
    const auto refs = d.references(*reference_, r.alpha, r.beta);
    GEMMTUNE_CUDA(cudaGraphLaunch(exec, stream));
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
    if (r.alpha == 0.f)
      d.expect_beta_c(r.beta);
    else
      EXPECT_LE(d.max_error(refs), fp32_tolerance(p.k));
    k0.expect_beta_c(r.beta);
  }
  GEMMTUNE_CUDA(cudaGraphExecDestroy(exec));
  GEMMTUNE_CUDA(cudaGraphDestroy(graph));
  GEMMTUNE_OK(gemmtune_set_stream(handle_, nullptr));
  GEMMTUNE_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace gemmtune::test
