// Random kernels: rand.out (uniform [0, 1)), randn.out (standard normal) and native_dropout.out.
// The generator is documented in etkit/kernels/random.h.
//
// native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, Tensor(b!) out1):
// when training (train None or true), each element is kept with probability 1 - p and scaled by
// 1 / (1 - p) (p = 1 zeroes everything); out1 is the bool keep mask. Not training: out0 = input,
// the mask all true. Floating dtypes.

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/random.h"

#include <atomic>
#include <cmath>
#include <cstdint>

#include "dim_util.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

std::atomic<uint64_t> g_seed{0};
std::atomic<uint64_t> g_calls{0};

inline uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The stream of one kernel call.
struct Stream {
  uint64_t key;
  Stream() : key(mix(g_seed.load() ^ mix(g_calls.fetch_add(1)))) {}
  uint64_t bits(int64_t k) const { return mix(key + static_cast<uint64_t>(k)); }
  /// Uniform in [0, 1): 24 bits, exact in float.
  double uniform(int64_t k) const {
    return static_cast<double>(bits(k) >> 40) * (1.0 / 16777216.0);
  }
  double normal(int64_t k) const {
    // Box-Muller on the pair (2 * (k / 2), 2 * (k / 2) + 1): the even element takes the cosine,
    // the odd one the sine. u1 in (0, 1] so the log is finite.
    const int64_t pair = k / 2;
    const double u1 = 1.0 - uniform(2 * pair);
    const double u2 = uniform(2 * pair + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * M_PI * u2;
    return k % 2 == 0 ? r * std::cos(angle) : r * std::sin(angle);
  }
};

// rand.out / randn.out(SymInt[] size, *, Tensor(a!) out): element k of out's logical order gets
// value k of the stream.
template <bool kNormal>
void random_fill(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 0, "size", false, &present, &size)) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr || !nn::check_float_dtype(ctx, *out, "out")) return;
  Shape shape;
  if (!size_list_to_shape(ctx, size, "size", &shape) || !resize_out(ctx, *out, shape.span())) {
    return;
  }
  const Stream stream;
  const bool contiguous = out->is_contiguous();
  nn::dispatch_float(out->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out->data_as<T>();
    for (int64_t k = 0; k < out->numel(); ++k) {
      const double v = kNormal ? stream.normal(k) : stream.uniform(k);
      o[nn::memory_index(*out, contiguous, k)] = static_cast<T>(v);
    }
  });
}

void native_dropout_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 5, 2)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  double p = 0.0;
  if (!nn::double_arg(ctx, args, 1, "p", &p)) return;
  bool train = true;
  if (!args[2]->is_none() && !bool_arg(ctx, args, 2, "train", &train)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out0");
  if (out == nullptr) return;
  Tensor* mask = tensor_arg(ctx, args, 4, "out1");
  if (mask == nullptr) return;
  if (!nn::check_float_dtype(ctx, *input, "input") ||
      !check_dtype_is(ctx, *out, "out0", input->dtype()) ||
      !check_dtype_is(ctx, *mask, "out1", ScalarType::Bool)) {
    return;
  }
  if (!(p >= 0.0 && p <= 1.0)) {
    ctx.fail(ErrorCode::InvalidArgument, "p is %g, expected a probability in [0, 1]", p);
    return;
  }
  if (!resize_out(ctx, *out, input->sizes()) || !resize_out(ctx, *mask, input->sizes())) return;
  const Stream stream;
  const bool ic = input->is_contiguous();
  const bool oc = out->is_contiguous();
  const bool mc = mask->is_contiguous();
  const double scale = p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = input->data_as<const T>();
    T* o = out->data_as<T>();
    uint8_t* m = mask->data_as<uint8_t>();
    for (int64_t k = 0; k < input->numel(); ++k) {
      const bool keep = !train || (p < 1.0 && stream.uniform(k) >= p);
      const T v = x[nn::memory_index(*input, ic, k)];
      o[nn::memory_index(*out, oc, k)] =
          !train ? v : keep ? static_cast<T>(static_cast<double>(v) * scale) : T(0);
      m[nn::memory_index(*mask, mc, k)] = keep ? 1 : 0;
    }
  });
}

}  // namespace

void set_random_seed(uint64_t seed) {
  g_seed.store(seed);
  g_calls.store(0);
}

uint64_t random_seed() { return g_seed.load(); }

std::span<const KernelEntry> random_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::native_dropout.out", via_float32<native_dropout_out>, kFloatingDtypes},
      {"aten::rand.out", via_float32<random_fill<false>>, kFloatingDtypes},
      {"aten::randn.out", via_float32<random_fill<true>>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
