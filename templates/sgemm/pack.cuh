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
