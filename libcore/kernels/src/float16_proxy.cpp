#include "float16_proxy.h"

#include <cstdint>
#include <cstring>

#include "etkit/kernels/float16.h"
#include "etkit/kernels/kernel_args.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/tensor.h"

namespace etkit::kernels {
namespace {

// Bounds of one proxied call, all on the stack: every operator that goes through here has at
// most a handful of tensors (native_layer_norm: input, weight, bias and three outs).
constexpr size_t kMaxProxies = 8;
constexpr size_t kMaxArgs = 32;
constexpr size_t kMaxListOuts = 8;

bool is_float16_tensor(const Tensor* t) { return t != nullptr && is_float16_type(t->dtype()); }

// A float32 stand-in for a 16-bit tensor: same sizes and dim order, memory from temp.
struct Proxy {
  Tensor* original = nullptr;
  Tensor copy;
  int32_t sizes[kMaxRank];
  uint8_t dim_order[kMaxRank];
  int32_t strides[kMaxRank];
  EValue value;
  bool is_out = false;
};

struct Proxies {
  Proxy items[kMaxProxies];
  size_t count = 0;

  Proxy* find(const Tensor* t) {
    for (size_t i = 0; i < count; ++i) {
      if (items[i].original == t) return &items[i];
    }
    return nullptr;
  }
};

bool is_out_of(const EValue& ret, const Tensor* t) {
  if (ret.is_tensor()) return ret.tensor_ptr() == t;
  if (ret.is_tensor_list()) {
    const TensorListRef& list = ret.to_tensor_list();
    for (size_t i = 0; i < list.size(); ++i) {
      if (list.at(i) == t) return true;
    }
  }
  return false;
}

// Adds the proxy of `t` (once per tensor: an argument aliasing an out shares its copy).
Proxy* add_proxy(KernelContext& ctx, Proxies& proxies, Tensor* t, const EValue& ret,
                 size_t arg_index) {
  if (Proxy* p = proxies.find(t)) return p;
  // The copy starts as the tensor's value, so its elements are read before the kernel's own
  // checks run on the copy (a crafted program's tensor may have elements and no memory).
  if (t->numel() > 0 && t->data() == nullptr) {
    ctx.fail(ErrorCode::InvalidState, "argument %zu (%s) has %lld elements but no data",
             arg_index, scalar_type_name(t->dtype()), static_cast<long long>(t->numel()));
    return nullptr;
  }
  if (proxies.count == kMaxProxies) {
    ctx.fail(ErrorCode::NotSupported, "more than %zu float16/bfloat16 tensors in one call",
             kMaxProxies);
    return nullptr;
  }
  MemoryAllocator* temp = ctx.temp_allocator();
  // Room for the most elements the tensor's memory holds (a dynamic out may grow to it).
  const size_t capacity_elems = t->capacity_bytes() / 2;
  const size_t floats = capacity_elems > static_cast<size_t>(t->numel())
                            ? capacity_elems
                            : static_cast<size_t>(t->numel());
  float* data = nullptr;
  if (floats > 0) {
    data = temp == nullptr ? nullptr : temp->allocate_array<float>(floats);
    if (data == nullptr) {
      ctx.fail(ErrorCode::OutOfMemory,
               "argument %zu (%s, %lld elements) needs %zu bytes of temp memory for its float32 "
               "copy",
               arg_index, scalar_type_name(t->dtype()), static_cast<long long>(t->numel()),
               floats * sizeof(float));
      return nullptr;
    }
  }
  Proxy& p = proxies.items[proxies.count++];
  p.original = t;
  const int rank = t->dim();
  for (int d = 0; d < rank; ++d) {
    p.sizes[d] = t->sizes()[static_cast<size_t>(d)];
    p.dim_order[d] = t->dim_order()[static_cast<size_t>(d)];
  }
  const size_t r = static_cast<size_t>(rank);
  p.copy = Tensor(ScalarType::Float, {p.sizes, r}, {p.dim_order, r}, {p.strides, r}, data,
                  t->dynamism());
  p.copy.set_capacity_bytes(floats * sizeof(float));
  p.value = EValue::from_tensor(&p.copy);
  p.is_out = is_out_of(ret, t);
  return &p;
}

// The first floating tensor argument of another dtype than `want`, if any.
bool find_mixed_dtype(std::span<EValue* const> args, ScalarType want, ScalarType* other) {
  for (const EValue* v : args) {
    if (!v->is_tensor() || v->tensor_ptr() == nullptr) continue;
    const ScalarType t = v->tensor_ptr()->dtype();
    if (is_floating_type(t) && t != want) {
      *other = t;
      return true;
    }
  }
  return false;
}

}  // namespace

bool has_float16_tensor(std::span<EValue* const> args) {
  for (const EValue* v : args) {
    if (v->is_tensor() && is_float16_tensor(v->tensor_ptr())) return true;
    if (v->is_tensor_list() || v->is_optional_tensor_list()) {
      const TensorListRef& list = v->to_tensor_list();
      for (size_t i = 0; i < list.size(); ++i) {
        if (is_float16_tensor(list.at(i))) return true;
      }
    }
  }
  return false;
}

void run_through_float32(KernelContext& ctx, std::span<EValue*> args, KernelFn kernel,
                         int dtype_arg) {
  if (args.empty() || args.size() > kMaxArgs) {
    ctx.fail(ErrorCode::NotSupported, "%zu arguments with float16/bfloat16 tensors (at most %zu)",
             args.size(), kMaxArgs);
    return;
  }
  const EValue& ret = *args.back();
  // The 16-bit dtype of the call, and no other floating dtype beside it (a 16-bit tensor only
  // inside a list is refused below).
  for (const EValue* v : args) {
    if (!v->is_tensor() || !is_float16_tensor(v->tensor_ptr())) continue;
    const ScalarType want = v->tensor_ptr()->dtype();
    ScalarType other = want;
    if (!find_mixed_dtype(args, want, &other)) break;
    ctx.fail(ErrorCode::InvalidType,
             "tensors of dtype %s and %s in one call; this operator takes one floating dtype",
             scalar_type_name(want), scalar_type_name(other));
    return;
  }

  Proxies proxies;
  EValue values[kMaxArgs];
  EValue* pointers[kMaxArgs];
  // The return slot's list, when it is one, rebuilt over the proxies.
  EValue list_values[kMaxListOuts];
  EValue* list_pointers[kMaxListOuts];
  for (size_t i = 0; i < args.size(); ++i) {
    const EValue& v = *args[i];
    values[i] = v;
    if (v.is_tensor() && is_float16_tensor(v.tensor_ptr())) {
      Proxy* p = add_proxy(ctx, proxies, v.tensor_ptr(), ret, i);
      if (p == nullptr) return;
      values[i] = p->value;
    } else if (v.is_tensor_list() || v.is_optional_tensor_list()) {
      const TensorListRef& list = v.to_tensor_list();
      const bool is_return = i + 1 == args.size();
      for (size_t k = 0; k < list.size(); ++k) {
        if (!is_float16_tensor(list.at(k))) continue;
        if (!is_return || !v.is_tensor_list() || list.size() > kMaxListOuts) {
          ctx.fail(ErrorCode::NotSupported,
                   "argument %zu is a list holding a %s tensor, which this operator does not "
                   "take",
                   i, scalar_type_name(list.at(k)->dtype()));
          return;
        }
      }
      if (is_return && v.is_tensor_list() && list.size() <= kMaxListOuts) {
        for (size_t k = 0; k < list.size(); ++k) {
          Tensor* t = list.at(k);
          if (is_float16_tensor(t)) {
            Proxy* p = add_proxy(ctx, proxies, t, ret, i);
            if (p == nullptr) return;
            list_values[k] = p->value;
          } else {
            list_values[k] = EValue::from_tensor(t);
          }
          list_pointers[k] = &list_values[k];
        }
        values[i] = EValue::from_tensor_list(TensorListRef(list_pointers, list.size()));
      }
    }
    pointers[i] = &values[i];
  }
  if (dtype_arg >= 0 && static_cast<size_t>(dtype_arg) < args.size()) {
    EValue& dtype = values[static_cast<size_t>(dtype_arg)];
    if (dtype.is_int() && (dtype.to_int() == static_cast<int64_t>(ScalarType::Half) ||
                           dtype.to_int() == static_cast<int64_t>(ScalarType::BFloat16))) {
      dtype = EValue::from_int(static_cast<int64_t>(ScalarType::Float));
    }
  }

  // Every copy starts as its tensor's value, outs included: a few kernels read their out (the
  // in-place forms), and the widening costs little beside the operators that come here.
  for (size_t i = 0; i < proxies.count; ++i) {
    Proxy& p = proxies.items[i];
    if (p.original->numel() > 0) {
      widen_float16(static_cast<const uint16_t*>(p.original->data()), p.original->dtype(),
                    p.copy.data_as<float>(), p.original->numel());
    }
  }

  kernel(ctx, {pointers, args.size()});
  if (ctx.failed()) return;

  for (size_t i = 0; i < proxies.count; ++i) {
    Proxy& p = proxies.items[i];
    if (!p.is_out) continue;
    if (!resize_out(ctx, *p.original, p.copy.sizes())) return;
    if (p.copy.numel() > 0) {
      narrow_float16(p.copy.data_as<const float>(), p.original->dtype(),
                     static_cast<uint16_t*>(p.original->data()), p.copy.numel());
    }
  }
}

}  // namespace etkit::kernels
