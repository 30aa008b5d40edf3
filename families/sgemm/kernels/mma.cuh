// The tensor-core step of the FP32 GEMM family (MATH > 0): mma.sync m16n8k8 with TF32 operands
// (sm_80 and newer), FP32 accumulation.
//
// A warp's WM x WN tile is (WM / 16) x (WN / 8) mma tiles. Lane l holds, of each, rows g and
// g + 8 and columns 2t and 2t + 1 (g = l / 4, t = l % 4): the accumulator layout of the
// instruction, which Traits describes to the Epilogue as a thread tile of TM = WM / 8 rows,
// 8 apart (VM = 1, TY = 8), and TN = WN / 4 columns in pairs 8 apart (VN = 2, TX = 4).
//
// FP32 accuracy from TF32 products: x = big + small with big = tf32(x) and small =
// tf32(x - big) (both rounded to nearest; x - big is exact in FP32), and a*b ~ big_a*big_b +
// big_a*small_b + small_a*big_b, the dropped small_a*small_b being ~2^-22 of it. The tensor core
// adds into its accumulator without rounding to nearest, so a sum kept there over all of K
// drifts (measured: relative error 5.7e-5 at K = 8192 against FP32 FMA's 1.6e-6, H200). MATH:
//   1  big*big only, summed in the tensor core: TF32 accuracy (~3e-4), the fast option
//   2  the three products, small terms first, summed in the tensor core over all of K
//   3  the three products of one BK slice summed in the tensor core from zero, then added to
//      the FP32 accumulators with a rounded FADD: the drift is confined to BK-long sums
//   4  as 3, with small*small too
namespace gemmtune {
namespace detail {

// x rounded to the nearest TF32 value (10-bit mantissa, ties away from zero), as the bits of an
// FP32 register; infinities and NaN kept. Measured on an H200 against the integer rounding
// (add 0x1000, mask), which needs a NaN test beside it (its carry turns CUDA's canonical NaN into
// a zero): 1xTF32 at 4096^3 119 against 101 TFLOP/s, 3xTF32 the same.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// x = big + small, both TF32 (x - big is exact). An infinite x gives a NaN small part, and any
// 3xTF32 scheme multiplies a zero small part by an infinite big one: infinite inputs give NaN
// outputs (docs/precision.md); NaN inputs give NaN outputs, as in FP32.
__device__ __forceinline__ void split_tf32(float x, unsigned& big, unsigned& small) {
  big = to_tf32(x);
  small = to_tf32(x - __uint_as_float(big));
}

// d += a * b for one m16n8k8 tile (d = a * b when FROM_ZERO): a holds rows g, g+8 at columns t,
// t+4 (a0..a3 in the instruction's order); b rows t, t+4 at column g.
template <bool FROM_ZERO = false>
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2]) {
  const float z = 0.f;
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(FROM_ZERO ? z : d[0]),
        "f"(FROM_ZERO ? z : d[1]), "f"(FROM_ZERO ? z : d[2]), "f"(FROM_ZERO ? z : d[3]));
}

// An operand's fragments split into big and small TF32 parts (small only when the math uses it).
template <int N, bool SPLIT>
struct SplitFragment {
  unsigned big[N];
  unsigned small[SPLIT ? N : 1];

  __device__ __forceinline__ void set(int i, float x) {
    if constexpr (SPLIT) {
      split_tf32(x, big[i], small[i]);
    } else {
      big[i] = to_tf32(x);
    }
  }
};

// The mma step on one shared-memory slice. As and Bs are laid out as the operands lie in global
// memory (OperandSlices): A as As[m][k] (row stride LDA) unless transposed, then As[k][m]; B as
// Bs[k][n] unless transposed, then Bs[n][k]. Each warp splits the values it reads (splitting
// once on the way to shared memory, through registers with stages 2, measured slower: 40 against
// 51 TFLOP/s at 4096^3 on an H200). row0 is the lane's first row (warp row + g), bcol
// its B column (warp column + g). acc[2 * mi + h][2 * ni + e] is row 16 mi + 8 h, column
// 8 ni + 2 t + e of the warp's tile; for MATH >= 3 rows TM.. hold the slice's sums.
template <class Cfg, class Acc>
__device__ __forceinline__ void mma_slice(Acc& acc, const float* as, const float* bs, int row0,
                                          int bcol, int t) {
  constexpr int MI = Cfg::WM / 16, NI = Cfg::WN / 8, MATH = Cfg::MATH, TM = Cfg::TM;
  constexpr bool kSplit = MATH >= 2;
  constexpr int kSum = MATH >= 3 ? TM : 0;  // first row of the accumulators the mma adds into
  auto a_at = [&](int r, int k) { return Cfg::TA ? as[k * Cfg::LDA + r] : as[r * Cfg::LDA + k]; };
  auto b_at = [&](int k, int c) { return Cfg::TB ? bs[c * Cfg::LDB + k] : bs[k * Cfg::LDB + c]; };
#pragma unroll
  for (int kk = 0; kk < Cfg::BK; kk += 8) {
    SplitFragment<4, kSplit> a[MI];
    SplitFragment<2, kSplit> b[NI];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      const int r = row0 + mi * 16;
      a[mi].set(0, a_at(r, kk + t));
      a[mi].set(1, a_at(r + 8, kk + t));
      a[mi].set(2, a_at(r, kk + t + 4));
      a[mi].set(3, a_at(r + 8, kk + t + 4));
    }
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      b[ni].set(0, b_at(kk + t, bcol + ni * 8));
      b[ni].set(1, b_at(kk + t + 4, bcol + ni * 8));
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        float d[4] = {acc[kSum + 2 * mi][2 * ni], acc[kSum + 2 * mi][2 * ni + 1],
                      acc[kSum + 2 * mi + 1][2 * ni], acc[kSum + 2 * mi + 1][2 * ni + 1]};
        // A slice's sums (MATH >= 3) start from zero: its first product does not read d.
        if constexpr (MATH == 4) {
          if (kk == 0)
            mma_tf32<true>(d, a[mi].small, b[ni].small);
          else
            mma_tf32(d, a[mi].small, b[ni].small);
          mma_tf32(d, a[mi].small, b[ni].big);
        } else if constexpr (MATH == 3) {
          if (kk == 0)
            mma_tf32<true>(d, a[mi].small, b[ni].big);
          else
            mma_tf32(d, a[mi].small, b[ni].big);
        } else if constexpr (MATH == 2) {
          mma_tf32(d, a[mi].small, b[ni].big);
        }
        if constexpr (kSplit) mma_tf32(d, a[mi].big, b[ni].small);
        mma_tf32(d, a[mi].big, b[ni].big);
        acc[kSum + 2 * mi][2 * ni] = d[0], acc[kSum + 2 * mi][2 * ni + 1] = d[1];
        acc[kSum + 2 * mi + 1][2 * ni] = d[2], acc[kSum + 2 * mi + 1][2 * ni + 1] = d[3];
      }
  }
  if constexpr (kSum > 0) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::TN; ++j) acc[i][j] += acc[TM + i][j];
  }
}

}  // namespace detail
}  // namespace gemmtune
