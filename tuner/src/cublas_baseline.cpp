#include "gemmtune/tuner/cublas_baseline.hpp"

#include <cublas_v2.h>

#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

static void check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Error(Status::kCudaError,
                std::string("cuBLAS: ") + cublasGetStatusString(s) + " in " + call);
}
#define GEMMTUNE_CUBLAS(call) check((call), #call)

CublasSgemm::CublasSgemm(bool tf32) {
  cublasHandle_t h = nullptr;
  GEMMTUNE_CUBLAS(cublasCreate(&h));
  handle_ = h;
  // By default no TF32, no reduced-precision shortcuts: the FP32 SGEMM gemmtune competes with.
  GEMMTUNE_CUBLAS(cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
}

CublasSgemm::~CublasSgemm() {
  if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

void CublasSgemm::run(const Problem& p, cudaStream_t stream) const {
  auto h = static_cast<cublasHandle_t>(handle_);
  GEMMTUNE_CUBLAS(cublasSetStream(h, stream));
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
  cublasOperation_t ta = p.op_b == Op::T ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t tb = p.op_a == Op::T ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (p.batch == 1) {
    GEMMTUNE_CUBLAS(cublasSgemm(h, ta, tb, p.n, p.m, p.k, &p.alpha, p.b, int(p.ldb), p.a,
                                int(p.lda), &p.beta, p.c, int(p.ldc)));
  } else {
    GEMMTUNE_CUBLAS(cublasSgemmStridedBatched(h, ta, tb, p.n, p.m, p.k, &p.alpha, p.b, int(p.ldb),
                                              p.stride_b, p.a, int(p.lda), p.stride_a, &p.beta, p.c,
                                              int(p.ldc), p.stride_c, p.batch));
  }
}

}  // namespace gemmtune::tuner
