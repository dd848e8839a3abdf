// What a hand-written CPU kernel in bertpt needs: at::parallel_for that really runs in parallel,
// and a loop compiled for the vector units the machine has.
#pragma once

#include <ATen/Parallel.h>

// at::parallel_for is a header template: with LibTorch's OpenMP backend it runs in parallel only in
// a translation unit compiled with OpenMP, and silently on one thread otherwise. bertpt_torch is
// compiled with OpenMP (CMakeLists.txt); this stops a kernel from losing it unnoticed.
#if AT_PARALLEL_OPENMP && !defined(_OPENMP)
#error "bertpt's CPU kernels must be compiled with -fopenmp, or at::parallel_for runs on one thread"
#endif

// The binary targets baseline x86-64 (SSE2); a kernel marked BERTPT_VECTOR_CLONES is also compiled
// for AVX2 and AVX-512, and the loader picks the best one for the CPU (GCC function multiversioning).
// Kernels written as plain loops over local values and __restrict pointers vectorize in each clone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define BERTPT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define BERTPT_VECTOR_CLONES
#endif
