// sgemm by OpenBLAS (gemm.h), with its kernels chosen by the CPU's features when OpenBLAS's
// own table of CPU models does not know the CPU.
#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>

#include "embed/gemm.h"

namespace ragmeter::embed {
namespace {

// The kernel set a CPU's features call for, as newer OpenBLAS releases choose it for a
// CPU they do not know by model (AVX-512 BF16, AVX-512 BW, AVX2, AVX); null below AVX.
const char* core_for_features() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bf16")) return "Cooperlake";
  if (__builtin_cpu_supports("avx512bw")) return "SkylakeX";
  if (__builtin_cpu_supports("avx2")) return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
  return nullptr;
}

// What the process's OpenBLAS was doing before (empty when nothing was changed).
std::string& replaced_core() {
  static std::string core;
  return core;
}

// Debian 12's OpenBLAS (0.3.21, DYNAMIC_ARCH) knows x86 CPUs by model number and falls
// back to its Prescott (SSE3) kernels for a model it does not list, such as Intel's
// family 6 model 207: the local embedder then runs about 3x slower (docs/design.md,
// "OpenBLAS's kernels by the CPU's features"). When OpenBLAS sits on Prescott while the
// CPU has AVX or better, and the user has not chosen with OPENBLAS_CORETYPE, OpenBLAS is
// initialised again with the kernel set the features call for, through its own
// OPENBLAS_CORETYPE switch (gotoblas_dynamic_quit / gotoblas_dynamic_init, which a
// DYNAMIC_ARCH build exports; looked up in the library itself, so a build without them
// is left as it is).
void choose_kernels_for_this_cpu() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const std::string before = openblas_get_corename();
  if (before != "Prescott") return;
  const char* wanted = core_for_features();
  if (wanted == nullptr) return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&openblas_get_corename), &info) == 0 ||
      info.dli_fname == nullptr) {
    return;
  }
  void* library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (library == nullptr) return;
  auto quit = reinterpret_cast<void (*)()>(dlsym(library, "gotoblas_dynamic_quit"));
  auto init = reinterpret_cast<void (*)()>(dlsym(library, "gotoblas_dynamic_init"));
  if (quit != nullptr && init != nullptr) {
    setenv("OPENBLAS_CORETYPE", wanted, 0);
    quit();
    init();
    unsetenv("OPENBLAS_CORETYPE");
    if (std::string_view(openblas_get_corename()) != before) replaced_core() = before;
  }
  dlclose(library);
}

std::once_flag kernels_chosen;

// At load, before the process has threads of its own: setenv must not race getenv.
const bool kKernelsChosenAtLoad = [] {
  std::call_once(kernels_chosen, choose_kernels_for_this_cpu);
  return true;
}();

}  // namespace

void sgemm_on_calling_thread_only() {
  static std::once_flag single_threaded;
  std::call_once(single_threaded, [] { openblas_set_num_threads(1); });
}

std::string sgemm_kernels() {
  std::call_once(kernels_chosen, choose_kernels_for_this_cpu);
  std::string out = std::string("OpenBLAS ") + openblas_get_corename();
  if (!replaced_core().empty()) out += " (by the CPU's features; OpenBLAS chose " + replaced_core() + ")";
  return out;
}

void sgemm(bool transpose_b, int m, int n, int k, float alpha, const float* a, int lda,
           const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha,
              a, lda, b, ldb, beta, c, ldc);
}

}  // namespace ragmeter::embed
