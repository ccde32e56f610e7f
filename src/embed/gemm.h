// Single-precision matrix products for the local encoder (bert_encoder.cc), row-major:
// C = alpha * A * op(B) + beta * C, with A m x k, op(B) k x n (B itself, or B transposed
// when `transpose_b`), C m x n, and lda, ldb, ldc the row strides. Internal to src/embed/.
#pragma once

#include <string>

namespace ragmeter::embed {

// OpenBLAS's sgemm (gemm_openblas.cc), or plain_sgemm in a build without OpenBLAS
// (RAGMETER_WITH_OPENBLAS=OFF, without_openblas.cc): the same products, slower.
void sgemm(bool transpose_b, int m, int n, int k, float alpha, const float* a, int lda,
           const float* b, int ldb, float beta, float* c, int ldc);

// Makes sgemm run on its calling thread alone, for the whole process (OpenBLAS's own
// threads off: the embedder runs its own). Thread-safe; once is enough.
void sgemm_on_calling_thread_only();

// Which kernels sgemm runs: "OpenBLAS SkylakeX", "OpenBLAS Haswell (by the CPU's features;
// OpenBLAS chose Prescott)" when ragmeter chose them for a CPU OpenBLAS does not know
// (gemm_openblas.cc), or "plain loops" without OpenBLAS.
std::string sgemm_kernels();

// The same product by plain loops (sums in double), in every build: the OpenBLAS-less
// build's sgemm, which the unit tests compare with OpenBLAS's.
void plain_sgemm(bool transpose_b, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);

}  // namespace ragmeter::embed
