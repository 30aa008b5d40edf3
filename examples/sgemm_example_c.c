/* gemmtune from C: one SGEMM through the C API, checked against a CPU loop. Exits 0 on success,
 * 1 on a wrong result or an error, 77 when this machine has no GPU. */
#include <gemmtune/gemmtune.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { M = 65, N = 33, K = 129 };

int main(void) {
  static float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 7919) % 201 - 100) / 100.f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 104729) % 199 - 99) / 100.f;

  gemmtune_handle_t h = NULL;
  gemmtune_status_t s = gemmtune_create(&h, NULL);
  if (s != GEMMTUNE_STATUS_SUCCESS) {
    fprintf(stderr, "gemmtune_create: %s: %s\n", gemmtune_status_string(s), gemmtune_last_error());
    return s == GEMMTUNE_STATUS_NO_DEVICE ? 77 : 1;
  }
  float *da, *db, *dc;
  if (cudaMalloc((void**)&da, sizeof a) || cudaMalloc((void**)&db, sizeof b) || cudaMalloc((void**)&dc, sizeof c)) {
    fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  s = gemmtune_sgemm(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, M, N, K, 1.f, da, K, db, N, 0.f, dc, N, NULL);
  if (s != GEMMTUNE_STATUS_SUCCESS) {
    fprintf(stderr, "gemmtune_sgemm: %s: %s\n", gemmtune_status_string(s), gemmtune_last_error());
    return 1;
  }
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int p = 0; p < K; ++p) want += (double)a[i * K + p] * b[p * N + j];
      double d = fabs(c[i * N + j] - want) / (1.0 + fabs(want));
      if (d > worst) worst = d;
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  gemmtune_destroy(h);
  printf("max relative difference %.2e: %s\n", worst, worst < 1e-5 ? "OK" : "WRONG RESULT");
  return worst < 1e-5 ? 0 : 1;
}
