#pragma once

// The random stream of rand.out, randn.out and native_dropout.out.
//
// Generator: counter-based. Each call of a random kernel takes the next call number n (an atomic
// counter, from 0 after `set_random_seed`); element k of that call is splitmix64(seed, n, k), a
// 64-bit hash of the three. So a run is reproducible given the seed and the order of the random
// kernel calls, whatever the tensors' layouts, and no state is allocated. Uniform values are the
// top 24 bits scaled to [0, 1); normal values come from pairs of uniforms by Box-Muller. This is
// not PyTorch's generator: values match torch's distributions, not its numbers.
//
// The seed is process-wide (a runner sets it before running; default 0). Thread-safe.

#include <cstdint>

namespace etkit::kernels {

/// Sets the seed and restarts the call counter.
void set_random_seed(uint64_t seed);

/// The current seed.
uint64_t random_seed();

}  // namespace etkit::kernels
