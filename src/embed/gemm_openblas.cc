// sgemm by OpenBLAS (gemm.h).
#include <cblas.h>

#include <mutex>

#include "embed/gemm.h"

namespace ragmeter::embed {

void sgemm_on_calling_thread_only() {
  static std::once_flag single_threaded;
  std::call_once(single_threaded, [] { openblas_set_num_threads(1); });
}

void sgemm(bool transpose_b, int m, int n, int k, float alpha, const float* a, int lda,
           const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha,
              a, lda, b, ldb, beta, c, ldc);
}

}  // namespace ragmeter::embed
