// Shape kernels that copy data into a new shape: permute_copy, expand_copy, view_copy,
// alias_copy. They move elements of any dtype (1, 2, 4 or 8 bytes) without converting them.

#include <cstring>
#include <limits>

#include "kernels/elementwise.h"
#include "kernels/kernel_util.h"
#include "kernels/kernels.h"

namespace etkit::kernels {
namespace {

bool check_same_dtype(KernelContext& ctx, const Tensor& self, const Tensor& out) {
  if (!check_dtype_is(ctx, out, "out", self.dtype())) return false;
  if (self.element_size() == 0 || self.element_size() > 8) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype %s, which cannot be copied",
             scalar_type_name(self.dtype()));
    return false;
  }
  return true;
}

// Checks a requested size list: at most kMaxRank entries, each -1 or a size that fits int32.
bool check_size_list(KernelContext& ctx, std::span<const int64_t> size, const char* name) {
  if (size.size() > static_cast<size_t>(kMaxRank)) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has %zu entries, more than the maximum rank %d",
             name, size.size(), kMaxRank);
    return false;
  }
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < -1 || size[i] > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "%s[%zu] is %lld, expected a size or -1", name, i,
               static_cast<long long>(size[i]));
      return false;
    }
  }
  return true;
}

// Copies src into dst element by element in logical (row-major) order; shapes may differ but
// numel and dtype agree.
template <typename U>
void copy_logical(const Tensor& src, Tensor& dst) {
  const U* s = src.data_as<const U>();
  U* d = dst.data_as<U>();
  int64_t si[kMaxRank] = {};
  int64_t di[kMaxRank] = {};
  int64_t soff = 0;
  int64_t doff = 0;
  const int sr = src.dim();
  const int dr = dst.dim();
  for (int64_t n = dst.numel(); n > 0; --n) {
    d[doff] = s[soff];
    for (int k = sr - 1; k >= 0; --k) {
      if (++si[k] < src.size(k)) {
        soff += src.stride(k);
        break;
      }
      soff -= src.stride(k) * (si[k] - 1);
      si[k] = 0;
    }
    for (int k = dr - 1; k >= 0; --k) {
      if (++di[k] < dst.size(k)) {
        doff += dst.stride(k);
        break;
      }
      doff -= dst.stride(k) * (di[k] - 1);
      di[k] = 0;
    }
  }
}

void copy_in_logical_order(const Tensor& src, Tensor& dst) {
  if (dst.numel() == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    std::memcpy(dst.data(), src.data(), dst.nbytes());
    return;
  }
  switch (dst.element_size()) {
    case 1: copy_logical<uint8_t>(src, dst); break;
    case 2: copy_logical<uint16_t>(src, dst); break;
    case 4: copy_logical<uint32_t>(src, dst); break;
    default: copy_logical<uint64_t>(src, dst); break;
  }
}

}  // namespace

void permute_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dims", false, &present, &dims)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_same_dtype(ctx, *self, *out)) return;
  const int rank = self->dim();
  if (dims.size() != static_cast<size_t>(rank)) {
    ctx.fail(ErrorCode::InvalidArgument, "dims has %zu entries, expected %d (the rank of self)",
             dims.size(), rank);
    return;
  }
  Shape shape;
  shape.rank = rank;
  Operand in;
  in.data = self->data();
  in.dtype = self->dtype();
  bool seen[kMaxRank] = {};
  for (int i = 0; i < rank; ++i) {
    int d;
    if (!normalize_dim(ctx, dims[static_cast<size_t>(i)], rank, "dim", &d)) return;
    if (seen[d]) {
      ctx.fail(ErrorCode::InvalidArgument, "dims repeats dimension %d", d);
      return;
    }
    seen[d] = true;
    shape.sizes[i] = self->sizes()[static_cast<size_t>(d)];
    in.strides[i] = self->stride(d);
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  copy_elements(*out, in);
}

void expand_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 1, "size", false, &present, &size)) return;
  bool implicit;  // Only affects autograd tracing in PyTorch; the result is the same.
  if (!bool_arg(ctx, args, 2, "implicit", &implicit)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!check_same_dtype(ctx, *self, *out) || !check_size_list(ctx, size, "size")) return;
  const int rank = static_cast<int>(size.size());
  if (rank < self->dim()) {
    ctx.fail(ErrorCode::InvalidArgument,
             "size has %d entries, expected at least %d (the rank of self)", rank, self->dim());
    return;
  }
  Shape shape;
  shape.rank = rank;
  const int lead = rank - self->dim();
  for (int i = 0; i < rank; ++i) {
    const int64_t want = size[static_cast<size_t>(i)];
    if (i < lead) {
      if (want < 0) {
        ctx.fail(ErrorCode::InvalidArgument,
                 "size[%d] is %lld, which is not allowed in a new leading dimension", i,
                 static_cast<long long>(want));
        return;
      }
      shape.sizes[i] = static_cast<int32_t>(want);
      continue;
    }
    const int32_t have = self->sizes()[static_cast<size_t>(i - lead)];
    if (want == -1) {
      shape.sizes[i] = have;
    } else if (have != 1 && want != have) {
      ctx.fail(ErrorCode::InvalidArgument,
               "size[%d] is %lld, but self has size %d there (only size-1 dimensions expand)", i,
               static_cast<long long>(want), have);
      return;
    } else {
      shape.sizes[i] = static_cast<int32_t>(want);
    }
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  copy_elements(*out, broadcast_operand(*self, out->sizes()));
}

void view_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 1, "size", false, &present, &size)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_same_dtype(ctx, *self, *out) || !check_size_list(ctx, size, "size")) return;
  Shape shape;
  shape.rank = static_cast<int>(size.size());
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < shape.rank; ++i) {
    const int64_t s = size[static_cast<size_t>(i)];
    if (s == -1) {
      if (infer >= 0) {
        ctx.fail(ErrorCode::InvalidArgument, "size has more than one -1 (dimensions %d and %d)",
                 infer, i);
        return;
      }
      infer = i;
      continue;
    }
    // Each size fits int32 and there are at most 16, but the product could still overflow.
    if (s != 0 && known > std::numeric_limits<int64_t>::max() / s) known = -1;
    if (known >= 0) known *= s;
    shape.sizes[i] = static_cast<int32_t>(s);
  }
  const int64_t numel = self->numel();
  if (infer >= 0) {
    if (known == 0 || known < 0 || numel % known != 0 ||
        numel / known > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument,
               "size cannot be inferred: self has %lld elements and the other sizes multiply to "
               "%lld",
               static_cast<long long>(numel), static_cast<long long>(known));
      return;
    }
    shape.sizes[infer] = static_cast<int32_t>(numel / known);
  } else if (known != numel) {
    ctx.fail(ErrorCode::InvalidArgument,
             "size %s has %lld elements, but self has sizes %s (%lld elements)",
             SizesText(shape.span()).text, static_cast<long long>(known),
             SizesText(self->sizes()).text, static_cast<long long>(numel));
    return;
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  copy_in_logical_order(*self, *out);
}

void alias_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  if (!check_same_dtype(ctx, *self, *out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_elements(*out, broadcast_operand(*self, out->sizes()));
}

std::span<const KernelEntry> shape_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::alias_copy.out", alias_copy_out},
      {"aten::expand_copy.out", expand_copy_out},
      {"aten::permute_copy.out", permute_copy_out},
      {"aten::view_copy.out", view_copy_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
