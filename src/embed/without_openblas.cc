// sgemm in a build without OpenBLAS (RAGMETER_WITH_OPENBLAS=OFF; docs/library.md,
// "Building without a dependency"): plain loops, the same products, several times slower.
#include "embed/gemm.h"

namespace ragmeter::embed {

void sgemm_on_calling_thread_only() {}  // the loops have no threads of their own

std::string sgemm_kernels() { return "plain loops"; }

void sgemm(bool transpose_b, int m, int n, int k, float alpha, const float* a, int lda,
           const float* b, int ldb, float beta, float* c, int ldc) {
  plain_sgemm(transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace ragmeter::embed
