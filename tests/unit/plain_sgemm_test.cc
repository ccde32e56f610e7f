// The plain-loop sgemm of a build without OpenBLAS (src/embed/gemm.h) against OpenBLAS's,
// on the shapes and strides the encoder uses, and a product worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <random>
#include <vector>

#include "embed/gemm.h"

namespace ragmeter::embed {
namespace {

TEST(PlainSgemmTest, WorkedByHand) {
  // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]: A * B = [[19, 22], [43, 50]];
  // A * B^T = [[17, 23], [39, 53]]. alpha 2, beta 1 over C = 1.
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<float> c(4, 1.0f);
  plain_sgemm(false, 2, 2, 2, 2.0f, a.data(), 2, b.data(), 2, 1.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{39, 45, 87, 101}));
  std::vector<float> t(4, 123.0f);  // beta 0 ignores what C held
  plain_sgemm(true, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, t.data(), 2);
  EXPECT_EQ(t, (std::vector<float>{17, 23, 39, 53}));
}

TEST(PlainSgemmTest, EqualsOpenBlasOnTheEncodersShapes) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  struct Shape {
    bool transpose_b;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
  };
  // A linear layer (B = W, transposed, beta 1), attention scores (strided Q and K) and the
  // context (strided V, not transposed), as bert_encoder.cc calls them.
  const Shape shapes[] = {{true, 5, 12, 8, 8, 8, 12, 1.0f, 1.0f},
                          {true, 5, 5, 4, 24, 24, 5, 0.5f, 0.0f},
                          {false, 5, 4, 5, 5, 24, 8, 1.0f, 0.0f}};
  for (const Shape& s : shapes) {
    std::vector<float> a(static_cast<std::size_t>(s.m) * s.lda);
    std::vector<float> b(static_cast<std::size_t>(s.transpose_b ? s.n : s.k) * s.ldb);
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.ldc);
    for (auto* v : {&a, &b, &c}) {
      for (float& x : *v) x = value(random);
    }
    std::vector<float> blas = c, plain = c;
    sgemm(s.transpose_b, s.m, s.n, s.k, s.alpha, a.data(), s.lda, b.data(), s.ldb, s.beta, blas.data(), s.ldc);
    plain_sgemm(s.transpose_b, s.m, s.n, s.k, s.alpha, a.data(), s.lda, b.data(), s.ldb, s.beta,
                plain.data(), s.ldc);
    for (std::size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(plain[i], blas[i], 1e-5) << i;
  }
}

}  // namespace
}  // namespace ragmeter::embed

namespace ragmeter::embed {
namespace {

// On a CPU with AVX2, sgemm must not run OpenBLAS's SSE3 (Prescott) kernels, the ones
// Debian's OpenBLAS falls back to for a CPU model it does not list (about 3x slower in the
// embedder); a build without OpenBLAS says it runs plain loops.
TEST(SgemmKernelsTest, FitTheCpu) {
  const std::string kernels = sgemm_kernels();
  if (kernels == "plain loops") GTEST_SKIP() << "built without OpenBLAS";
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 on this CPU: " << kernels;
  EXPECT_EQ(kernels.find("OpenBLAS Prescott"), std::string::npos) << kernels;
  std::cout << "sgemm kernels: " << kernels << "\n";
}

}  // namespace
}  // namespace ragmeter::embed
