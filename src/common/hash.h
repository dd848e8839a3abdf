// Fast, stable 64-bit hashing for content dedup, shuffling and data splits. The values are part of
// our file formats' behaviour (same seed -> same order), so the function must never change.
#pragma once

#include <cstdint>
#include <string_view>

namespace bertpt {

// 64-bit hash of `data` mixed with `seed` (wyhash-style multiply-fold; deterministic on every
// platform we build for: it reads bytes little-endian explicitly).
uint64_t hash64(std::string_view data, uint64_t seed = 0);

// Mixes one 64-bit value into a well-distributed one (splitmix64 finalizer).
uint64_t mix64(uint64_t x);

}  // namespace bertpt
