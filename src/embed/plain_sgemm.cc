// sgemm by plain loops (gemm.h).
#include "embed/gemm.h"

#include <cstddef>

namespace ragmeter::embed {

void plain_sgemm(bool transpose_b, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  for (int i = 0; i < m; ++i) {
    const float* row = a + static_cast<std::ptrdiff_t>(i) * lda;
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) {
        const float other = transpose_b ? b[static_cast<std::ptrdiff_t>(j) * ldb + p]
                                        : b[static_cast<std::ptrdiff_t>(p) * ldb + j];
        sum += static_cast<double>(row[p]) * other;
      }
      float& out = c[static_cast<std::ptrdiff_t>(i) * ldc + j];
      // beta 0 overwrites, as BLAS does (C may hold anything then).
      out = static_cast<float>(alpha * sum + (beta == 0.0f ? 0.0 : static_cast<double>(beta) * out));
    }
  }
}

}  // namespace ragmeter::embed
