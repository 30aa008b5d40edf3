// The kernels a launch runs before the GEMM, each compiled into the cubins of the configs that run
// it (GemmKernel loads them from there; the compiler defines the macro that guards each, as
// compile_config() in runtime/src/kernel/kernel.cpp chooses): the copies of repack
// (GEMMTUNE_PACK_OPERAND) and warpgroup configs (GEMMTUNE_PACK_SPLIT), and the C = beta C of
// prescale_c configs (GEMMTUNE_PRESCALE_C, at the end). Left out elsewhere: the three took about
// half of a dot product's compile time and a third of a large tile's (NVRTC 13.0).
//
// The copy that repack configs (GemmConfig::repack) run before the GEMM: an operand whose rows
// would narrow the kernel's accesses (an odd leading dimension, say) is copied into the launch
// workspace with rows padded to a multiple of 4 floats, so that the kernel reads it at full
// width. Not a template: it is in the cubin of every repack config, and GemmKernel loads it from
// there.
//
// Threads along a row each write 4 floats of the copy as one vector and read them one float at a
// time (the source may have any alignment); a warp reads and writes contiguous runs of the row.
// The padding columns get zeros: the kernel's vector loads past a row's end (whole vectors are
// bounds-checked by their first element) then read zeros, never uninitialised memory. Grid-stride
// in x (column quads), y (rows) and z (batch), so any shape fits the grid's limits; block
// (threads along a row) x (rows), chosen by the launcher for the row length.
#ifdef GEMMTUNE_PACK_OPERAND
extern "C" __global__ void gemmtune_pack_operand(gemmtune::PackArgs p) {
  const long long quads = p.dst_ld / 4;
  for (int b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (long long r = blockIdx.y * blockDim.y + threadIdx.y; r < p.rows;
         r += (long long)gridDim.y * blockDim.y) {
      const float* src = p.src + b * p.stride + r * p.ld;
      float* dst = p.dst + b * p.dst_stride + r * p.dst_ld;
      for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < quads;
           q += (long long)gridDim.x * blockDim.x) {
        const long long c = 4 * q;
        float4 v;
        v.x = c < p.cols ? src[c] : 0.f;
        v.y = c + 1 < p.cols ? src[c + 1] : 0.f;
        v.z = c + 2 < p.cols ? src[c + 2] : 0.f;
        v.w = c + 3 < p.cols ? src[c + 3] : 0.f;
        *reinterpret_cast<float4*>(dst + c) = v;
      }
    }
}
#endif

// The copy that warpgroup configs (WGMMA, wgmma.cuh) run before the GEMM, for A and for B: each
// operand split into TF32 parts and laid out K-major (SplitPackArgs). A block moves
// kSplitPackRows rows x 32 of K through shared memory, so that both the read (along the source's
// contiguous dimension) and the write (along K) are coalesced whichever the layout. Each thread
// reads two 4-float vectors (4 floats one at a time where the source is not aligned to 4 floats,
// `vec` 0, or a vector would cross its edge) and writes two. Grid-stride in y (row groups) and z
// (batch).
//
// The layout is the kernel's shared-memory image, so that one bulk copy moves a whole slice: the
// rows of a tile (tile_rows of them) are stored slice by slice, each slice tile_rows x 32 floats,
// row r of it 128 bytes with its 16-byte chunk c at chunk c ^ (r % 8) (the 128-byte swizzle).
//
// On sm_90 the GEMM after it is launched as its programmatic dependant: it may start while the
// last blocks of this copy run, and waits for them before its first read of a copy
// (griddepcontrol).
namespace gemmtune {
namespace detail {
// v = the 4 floats at `at`, those with index >= `left` zero: one vector when `vec` and all 4 are
// there.
__device__ __forceinline__ void load_4(float (&v)[4], const float* at, long long left, bool vec) {
  if (vec && left >= 4) {
    const float4 x = *reinterpret_cast<const float4*>(at);
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = e < left ? at[e] : 0.f;
  }
}

// The TF32 parts of x: big = tf32(x) rounded to nearest, small = tf32(x - big).
__device__ __forceinline__ void split_tf32(float x, float& big, float& small) {
  unsigned b, s;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(b) : "f"(x));
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(s) : "f"(x - __uint_as_float(b)));
  big = __uint_as_float(b), small = __uint_as_float(s);
}
}  // namespace detail
}  // namespace gemmtune

#ifdef GEMMTUNE_PACK_SPLIT
extern "C" __global__ void __launch_bounds__(256) gemmtune_pack_split(gemmtune::SplitPackArgs p) {
#if __CUDA_ARCH__ >= 800  // cvt.rna.tf32: warpgroup configs run on sm_90 only
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  // Each thread reads and writes one 4-float vector per 32 rows (a part): 32 x 32 floats / 256.
  constexpr int kRows = gemmtune::kSplitPackRows, kParts = kRows / 32;
  __shared__ float tile[kRows][33];
  const int t = threadIdx.y * 32 + threadIdx.x;  // 32 x 8 threads
  const long long k0 = 32LL * blockIdx.x;
  const bool vec = p.vec != 0;
  for (int b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (long long r0 = 1LL * kRows * blockIdx.y; r0 < p.dst_rows; r0 += 1LL * kRows * gridDim.y) {
      const float* src = p.src + b * p.stride;
      // Vectors along the source's contiguous dimension: r when transposed (a row i of the source
      // holds kRows / 4 of them), else i (8 per row r).
      // All loads first, so that they are in flight together.
      float v[kParts][4];
#pragma unroll
      for (int q = 0; q < kParts; ++q) {
        const int g = t + 256 * q;
        if (p.transposed) {  // (r, i) at src[i * ld + r]
          const long long i = k0 + g / (kRows / 4), r = r0 + 4 * (g % (kRows / 4));
          gemmtune::detail::load_4(v[q], src + i * p.ld + r, i < p.k ? p.rows - r : 0, vec);
        } else {
          const long long r = r0 + g / 8, i = k0 + 4 * (g % 8);
          gemmtune::detail::load_4(v[q], src + r * p.ld + i, r < p.rows ? p.k - i : 0, vec);
        }
      }
#pragma unroll
      for (int q = 0; q < kParts; ++q) {
        const int g = t + 256 * q;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (p.transposed)
            tile[4 * (g % (kRows / 4)) + e][g / (kRows / 4)] = v[q][e];
          else
            tile[g / 8][4 * (g % 8) + e] = v[q][e];
        }
      }
      __syncthreads();
      // Vector q of each thread lies in part q, 32 rows (8 vectors a row). A part lies in one tile
      // (tile_rows and r0 are multiples of 32): its slice rows start at `out`, row j 32 floats
      // after row 0, its chunks swizzled by j % 8. (Computed once per part: 64-bit divisions per
      // element made this copy about 1.5 times slower.)
#pragma unroll
      for (int q = 0; q < kParts; ++q) {
        const long long r = r0 + 32 * q, tile_index = r / p.tile_rows;
        if (r >= p.dst_rows) break;
        float* out = p.dst + b * p.dst_stride + (tile_index * p.dst_ld + k0) * p.tile_rows +
                     (r - tile_index * p.tile_rows) * 32;
        const int j = t / 8, c = t % 8;  // row j of the part, chunk c
        float4 big, small;
        const float* x = &tile[32 * q + j][4 * c];
        gemmtune::detail::split_tf32(x[0], big.x, small.x);
        gemmtune::detail::split_tf32(x[1], big.y, small.y);
        gemmtune::detail::split_tf32(x[2], big.z, small.z);
        gemmtune::detail::split_tf32(x[3], big.w, small.w);
        const int at = j * 32 + ((c ^ (j % 8)) * 4);
        // (Vector stores spelled out: plain assignments came out as four stores each.)
        __stcg(reinterpret_cast<float4*>(out + at), big);
        if (p.split) __stcg(reinterpret_cast<float4*>(out + p.plane + at), small);
      }
      __syncthreads();
    }
#endif
}
#endif

// C = beta * C (zeros where beta is 0, C unread) for every matrix of a launch, before a
// prescale_c instance whose splits then only add to it (GemmConfig::prescale_c): that kernel is
// launched as this one's programmatic dependent, starts at once and waits for this one only
// before its first add (griddepcontrol). Grid-stride over the elements of all matrices.
#ifdef GEMMTUNE_PRESCALE_C
extern "C" __global__ void __launch_bounds__(256) gemmtune_prescale_c(gemmtune::GemmArgs p) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  const float beta = p.beta_ptr ? *p.beta_ptr : p.beta;
  const long long per_matrix = static_cast<long long>(p.m) * p.n;
  for (long long e = blockIdx.x * 256LL + threadIdx.x; e < per_matrix * p.batch;
       e += gridDim.x * 256LL) {
    const long long at = e % per_matrix;
    float* const c =
        gemmtune::detail::batch_c(p, int(e / per_matrix)) + at / p.n * p.ldc + at % p.n;
    *c = beta == 0.f ? 0.f : beta * *c;
  }
}
#endif
