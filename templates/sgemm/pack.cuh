// The copy that repack configs (GemmConfig::repack) run before the GEMM: an operand whose rows
// would narrow the kernel's accesses (an odd leading dimension, say) is copied into the launch
// workspace with rows padded to a multiple of 4 floats, so that the kernel reads it at full
// width. Not a template: it is in every compiled cubin, and GemmKernel loads it from there.
//
// Threads along a row each write 4 floats of the copy as one vector and read them one float at a
// time (the source may have any alignment); a warp reads and writes contiguous runs of the row.
// The padding columns get zeros: the kernel's vector loads past a row's end (whole vectors are
// bounds-checked by their first element) then read zeros, never uninitialised memory. Grid-stride
// in x (column quads), y (rows) and z (batch), so any shape fits the grid's limits; block
// (threads along a row) x (rows), chosen by the launcher for the row length.
extern "C" __global__ void gemmtune_pack_operand(gemmtune::PackArgs p) {
  const long long quads = p.dst_ld / 4;
  for (int b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (long long r = blockIdx.y * blockDim.y + threadIdx.y; r < p.rows; r += (long long)gridDim.y * blockDim.y) {
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

// The copy that warpgroup configs (WGMMA, wgmma.cuh) run before the GEMM, for A and for B: each
// operand split into TF32 parts and laid out K-major (SplitPackArgs). A block moves
// kSplitPackRows rows x 32 of K through shared memory, so that both the read (along the source's
// contiguous dimension) and the write (along K) are coalesced whichever the layout, with
// kSplitPackRows / 8 loads per thread in flight at once. Grid-stride in y (row groups) and z
// (batch).
//
// The layout is the kernel's shared-memory image, so that one bulk copy moves a whole slice: the
// rows of a tile (tile_rows of them) are stored slice by slice, each slice tile_rows x 32 floats,
// row r of it 128 bytes with its 16-byte chunk c at chunk c ^ (r % 8) (the 128-byte swizzle).
extern "C" __global__ void __launch_bounds__(256) gemmtune_pack_split(gemmtune::SplitPackArgs p) {
#if __CUDA_ARCH__ >= 800  // cvt.rna.tf32: warpgroup configs run on sm_90 only
  constexpr int kRows = gemmtune::kSplitPackRows, kParts = kRows / 32;
  __shared__ float tile[kRows][33];
  const int x = threadIdx.x, y = threadIdx.y;  // 32 x 8 threads
  const long long k0 = 32LL * blockIdx.x;
  for (int b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (long long r0 = 1LL * kRows * blockIdx.y; r0 < p.dst_rows; r0 += 1LL * kRows * gridDim.y) {
      const float* src = p.src + b * p.stride;
      // Lanes read along the source's contiguous dimension: r when transposed, else i.
      if (p.transposed) {  // (r, i) at src[i * ld + r]: lanes along r, 32 rows a part
#pragma unroll
        for (int q = 0; q < 4 * kParts; ++q) {
          const int j = y + 8 * (q % 4), part = 32 * (q / 4);
          const long long i = k0 + j, r = r0 + part + x;
          tile[part + x][j] = i < p.k && r < p.rows ? src[i * p.ld + r] : 0.f;
        }
      } else {  // lanes along i
#pragma unroll
        for (int q = 0; q < 4 * kParts; ++q) {
          const int j = y + 8 * q;
          const long long r = r0 + j, i = k0 + x;
          tile[j][x] = i < p.k && r < p.rows ? src[r * p.ld + i] : 0.f;
        }
      }
      __syncthreads();
      // Each part's 32 rows lie in one tile (tile_rows and r0 are multiples of 32): their slice
      // rows start at `out`, row j 32 floats after row 0, its chunks swizzled by j % 8. (Computed
      // once per part: 64-bit divisions per element made this copy about 1.5 times slower.)
      for (int h = 0; h < kParts && r0 + 32 * h < p.dst_rows; ++h) {
        const long long r = r0 + 32 * h, tile_index = r / p.tile_rows;
        float* out = p.dst + b * p.dst_stride + (tile_index * p.dst_ld + k0) * p.tile_rows +
                     (r - tile_index * p.tile_rows) * 32;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int j = y + 8 * q;
          const float v = tile[32 * h + j][x];
          unsigned big, small;
          asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(v));
          asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(v - __uint_as_float(big)));
          const int at = j * 32 + (((x / 4) ^ (j % 8)) * 4) + x % 4;
          out[at] = __uint_as_float(big);
          if (p.split) out[p.plane + at] = __uint_as_float(small);
        }
      }
      __syncthreads();
    }
#endif
}
