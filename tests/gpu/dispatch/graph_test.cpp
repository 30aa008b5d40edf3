// Deterministic mode and CUDA Graph capture. The tuning database makes a split-K config the
// fastest for a large-K problem, so that the default dispatcher runs split-K (atomic, order-
// dependent sums, a per-stream workspace) and the deterministic one must not.
#include <gtest/gtest.h>

#include <random>

#include "gemmtune/gemmtune.h"
#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

class GraphAndDeterminism : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!gpu_unavailable_reason().empty()) return;
    const DeviceInfo device = device_info(0);
    path_ = (scratch_dir("gpu_graph") / "tuning.db").string();
    TuningDbBuilder b(path_);
    b.gpu(device.name, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
    auto split = tuned_pool(device.limits, Op::N, Op::N, 4);
    ASSERT_FALSE(split.empty());
    b.add(db_problem(Op::N, Op::N, 96, 96, 2048), split.front(), 0.01);
    auto plain = tuned_pool(device.limits, Op::N, Op::N);
    ASSERT_FALSE(plain.empty());
    b.add(db_problem(Op::N, Op::N, 96, 96, 2048), plain.front(),
          0.02);  // slower: chosen only when deterministic
  }
  void SetUp() override {
    GEMMTUNE_REQUIRE_GPU();
    GEMMTUNE_CUDA(cudaSetDevice(0));
    GEMMTUNE_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_) GEMMTUNE_CUDA_NOTHROW(cudaStreamDestroy(stream_));
  }
  static DispatcherOptions options(bool deterministic) {
    DispatcherOptions o;
    o.db_path = path_;
    o.db_access = DbAccess::read_only;
    o.deterministic = deterministic;
    return o;
  }
  // Runs `data` with `d` on the test's stream from its initial C; returns C.
  std::vector<float> run(Dispatcher& d, ProblemData& data) {
    data.reset_c();
    const Problem& p = data.p;
    d.sgemm(Layout::row_major, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb,
            p.beta, p.c, p.ldc, stream_);
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream_));
    return data.result();
  }

  static inline std::string path_;
  cudaStream_t stream_ = nullptr;
};

TEST_F(GraphAndDeterminism, DeterministicModeGivesTheSameBitsEveryRun) {
  std::mt19937_64 rng(21);
  ProblemData data(shape(Op::N, Op::N, 96, 96, 2048), 0, 0, rng);
  Dispatcher fastest(options(false));
  const Explanation split = fastest.explain(data.p);
  EXPECT_GT(explained_config(split).split_k, 1)
      << "the test database should make split-K the fastest:\n"
      << split.to_string();

  Dispatcher same_bits(options(true));
  EXPECT_TRUE(same_bits.deterministic());
  const Explanation choice = same_bits.explain(data.p);
  EXPECT_EQ(explained_config(choice).split_k, 1) << choice.to_string();
  EXPECT_EQ(choice.source, ChoiceSource::exact)
      << choice.to_string();  // the tuned non-split config
  const std::vector<float> first = run(same_bits, data);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(run(same_bits, data), first) << "run " << i + 2;
  Dispatcher another(options(true));
  EXPECT_EQ(run(another, data), first) << "another deterministic dispatcher";

  ReferenceGemm reference(device_info(0).limits.arch());
  EXPECT_LE(dispatch_error(fastest, data, reference, stream_), fp32_tolerance(data.p.k))
      << "split-K result";
}

// Prepared calls are captured into a graph and replayed; the replay gives the bits of a direct
// call (deterministic dispatcher), and a split-K call captured with its workspace is right.
TEST_F(GraphAndDeterminism, PreparedCallsAreCapturedAndReplayed) {
  std::mt19937_64 rng(22);
  ProblemData split_k(shape(Op::N, Op::N, 96, 96, 2048), 0, 0, rng);
  ProblemData plain(shape(Op::N, Op::T, 127, 129, 65), 0, 0, rng);
  ProblemData scale(shape(Op::N, Op::N, 40, 50, 0, 1, 1.f, 0.5f), 0, 0, rng);  // K = 0: C = 0.5 C
  scale.p.lda = 1;  // BLAS: at least 1 even for rows of no floats
  ReferenceGemm reference(device_info(0).limits.arch());
  for (bool deterministic : {true, false}) {
    SCOPED_TRACE(deterministic ? "deterministic" : "fastest");
    Dispatcher d(options(deterministic));
    std::vector<Problem> problems;
    for (ProblemData* data : {&split_k, &plain, &scale}) problems.push_back(data->p);
    d.prepare(problems, stream_);
    std::vector<std::vector<float>> direct;
    for (ProblemData* data : {&split_k, &plain, &scale}) direct.push_back(run(d, *data));

    for (ProblemData* data : {&split_k, &plain, &scale}) data->reset_c();
    split_k.reset_c();
    DeviceArray<double> ref(size_t(split_k.p.m) * split_k.p.n);
    reference.run(split_k.p, ref.get(), nullptr);  // from C's initial values, as each replay starts
    const std::vector<double> want = ref.download();

    cudaGraph_t graph = nullptr;
    GEMMTUNE_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    for (ProblemData* data : {&split_k, &plain, &scale}) {
      const Problem& p = data->p;
      d.sgemm(Layout::row_major, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb,
              p.beta, p.c, p.ldc, stream_);
    }
    GEMMTUNE_CUDA(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    GEMMTUNE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
      SCOPED_TRACE(replay);
      for (ProblemData* data : {&split_k, &plain, &scale}) data->reset_c();
      GEMMTUNE_CUDA(cudaGraphLaunch(exec, stream_));
      GEMMTUNE_CUDA(cudaStreamSynchronize(stream_));
      EXPECT_EQ(scale.result(), direct[2]);
      EXPECT_EQ(plain.result(), direct[1]);
      if (deterministic) {
        EXPECT_EQ(split_k.result(), direct[0]);
      }
      const Problem& q = split_k.p;
      EXPECT_LE(relative_error(split_k.result(), q.ldc, q.stride_c, want, q.m, q.n, 1),
                fp32_tolerance(q.k));
    }
    GEMMTUNE_CUDA(cudaGraphExecDestroy(exec));
    GEMMTUNE_CUDA(cudaGraphDestroy(graph));
  }
}

TEST_F(GraphAndDeterminism, UnpreparedCallsRefuseDuringCapture) {
  std::mt19937_64 rng(23);
  ProblemData data(shape(Op::T, Op::N, 61, 67, 71), 0, 0, rng);
  const Problem& p = data.p;
  Dispatcher d(options(false));
  gemmtune_handle_t h = nullptr;
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.db_access = GEMMTUNE_DB_NONE;
  ASSERT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  cudaGraph_t graph = nullptr;
  GEMMTUNE_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
  try {
    d.sgemm(Layout::row_major, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb,
            p.beta, p.c, p.ldc, stream_);
    ADD_FAILURE() << "an unprepared call was captured";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kNotPrepared) << e.what();
    EXPECT_NE(std::string(e.what()).find("prepare"), std::string::npos) << e.what();
  }
  // K = 0 needs the C = beta C kernel, not prepared either: the C API says so.
  EXPECT_EQ(gemmtune_sgemm(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 8, 8, 0, 1.f,
                           nullptr, 1, nullptr, 8, 0.5f, p.c, 8, stream_),
            GEMMTUNE_STATUS_NOT_PREPARED)
      << gemmtune_last_error();
  // Nothing was enqueued: the capture is still valid, and empty.
  EXPECT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
  size_t nodes = 99;
  GEMMTUNE_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, 0u);
  GEMMTUNE_CUDA(cudaGraphDestroy(graph));
  EXPECT_EQ(gemmtune_destroy(h), GEMMTUNE_STATUS_SUCCESS);
  // Outside capture the same call compiles and runs.
  EXPECT_NO_THROW(d.sgemm(Layout::row_major, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, p.a, p.lda,
                          p.b, p.ldb, p.beta, p.c, p.ldc, stream_));
  GEMMTUNE_CUDA(cudaStreamSynchronize(stream_));
}

// A C caller describes its call to gemmtune_prepare with the call's leading dimensions: one odd
// lda narrows only A, and the prepared kernel is the one the captured call needs. Describing the
// call by an alignment class alone (all operands narrowed) prepares another kernel.
TEST_F(GraphAndDeterminism, PreparedLeadingDimensionsMatchTheCapturedCall) {
  std::mt19937_64 rng(24);
  ProblemData data(shape(Op::N, Op::N, 96, 128, 256), 4, 0, rng);  // lds padded by 4: aligned
  data.p.lda = data.p.a_cols() + 1;                                // then A's alone odd
  const Problem& p = data.p;
  ASSERT_EQ(p.a_alignment(), 1);
  ASSERT_EQ(p.b_alignment(), 4);
  ASSERT_EQ(p.c_alignment(), 4);
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.db_access = GEMMTUNE_DB_NONE;
  gemmtune_handle_t h = nullptr;
  ASSERT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  auto call = [&] {
    return gemmtune_sgemm(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, p.m, p.n, p.k,
                          p.alpha, p.a, int(p.lda), p.b, int(p.ldb), p.beta, p.c, int(p.ldc),
                          stream_);
  };
  auto capture = [&](cudaGraph_t* graph) {
    GEMMTUNE_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    const gemmtune_status_t s = call();
    EXPECT_EQ(cudaStreamEndCapture(stream_, graph), cudaSuccess);
    return s;
  };
  gemmtune_problem q{};
  q.layout = GEMMTUNE_ROW_MAJOR, q.op_a = GEMMTUNE_OP_N, q.op_b = GEMMTUNE_OP_N;
  q.m = p.m, q.n = p.n, q.k = p.k, q.batch = 1, q.alpha = p.alpha, q.beta = p.beta;
  q.alignment = 1;  // every operand narrowed: not this call's class
  ASSERT_EQ(gemmtune_prepare(h, &q, 1, stream_), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(capture(&graph), GEMMTUNE_STATUS_NOT_PREPARED) << gemmtune_last_error();
  GEMMTUNE_CUDA(cudaGraphDestroy(graph));

  q.alignment = 0, q.lda = int(p.lda), q.ldb = int(p.ldb), q.ldc = int(p.ldc);
  ASSERT_EQ(gemmtune_prepare(h, &q, 1, stream_), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  ASSERT_EQ(capture(&graph), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  cudaGraphExec_t exec = nullptr;
  GEMMTUNE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  ReferenceGemm reference(device_info(0).limits.arch());
  data.reset_c();
  DeviceArray<double> ref(size_t(p.m) * p.n);
  reference.run(p, ref.get(), stream_);
  GEMMTUNE_CUDA(cudaGraphLaunch(exec, stream_));
  GEMMTUNE_CUDA(cudaStreamSynchronize(stream_));
  EXPECT_LE(relative_error(data.result(), p.ldc, p.stride_c, ref.download(), p.m, p.n, 1),
            fp32_tolerance(p.k));
  GEMMTUNE_CUDA(cudaGraphExecDestroy(exec));
  GEMMTUNE_CUDA(cudaGraphDestroy(graph));
  EXPECT_EQ(gemmtune_destroy(h), GEMMTUNE_STATUS_SUCCESS);
}

}  // namespace
}  // namespace gemmtune::test
