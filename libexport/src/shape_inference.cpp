#include "shape_inference.h"

#include <algorithm>
#include <string>

namespace etkit::exporter::detail {
namespace {

Error arg_error(size_t i, const std::string& what) {
  return Error(ErrorCode::InvalidArgument, "args[%zu]: %s", i, what.c_str());
}

const TensorType& tensor_type(const std::vector<Arg>& args, const std::vector<Value>& values,
                              size_t i) {
  return values[static_cast<size_t>(args[i].tensor)].type;
}

// Wraps a possibly negative dim into [0, rank). Returns -1 when out of range.
int64_t wrap_dim(int64_t dim, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (r == 0 && (dim == 0 || dim == -1)) return 0;
  if (dim < -r || dim >= r) return -1;
  return dim < 0 ? dim + r : dim;
}

Error dim_error(size_t i, int64_t dim, size_t rank) {
  return arg_error(i, "dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                          std::to_string(rank));
}

Result<std::vector<int32_t>> broadcast(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                       size_t arg_b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int32_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int32_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int32_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) {
      return arg_error(arg_b, "shape " + shape_text(b) + " does not broadcast with " +
                                  shape_text(a));
    }
    out[k] = x == 1 ? y : x;
  }
  return out;
}

Error same_dtype(const TensorType& a, const TensorType& b, size_t arg_b, const char* a_name) {
  if (a.dtype == b.dtype) return Error();
  return arg_error(arg_b, std::string("dtype ") + scalar_type_name(b.dtype) + " does not match " +
                              a_name + "'s " + scalar_type_name(a.dtype));
}

Result<std::vector<int32_t>> reduce_shape(const std::vector<int32_t>& shape,
                                          const std::vector<int64_t>& dims, bool all, bool keepdim,
                                          size_t dim_arg) {
  std::vector<bool> reduced(shape.size(), all);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, shape.size());
    if (w < 0) return dim_error(dim_arg, d, shape.size());
    if (shape.empty()) continue;
    if (reduced[static_cast<size_t>(w)] && !all) {
      return arg_error(dim_arg, "dim " + std::to_string(d) + " is given twice");
    }
    reduced[static_cast<size_t>(w)] = true;
  }
  std::vector<int32_t> out;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (!reduced[k]) {
      out.push_back(shape[k]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

}  // namespace

Result<TensorType> infer_output_type(const OperatorSchema& schema, const std::vector<Arg>& args,
                                     const std::vector<Value>& values,
                                     const ScalarType* declared_dtype) {
  auto T = [&](size_t i) -> const TensorType& { return tensor_type(args, values, i); };
  switch (schema.rule) {
    case ShapeRule::Broadcast: {
      ETKIT_TRY(same_dtype(T(0), T(1), 1, "self"));
      ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast(T(0).shape, T(1).shape, 1));
      return TensorType{T(0).dtype, shape};
    }
    case ShapeRule::Compare: {
      if (args[1].kind != Arg::Kind::Tensor) return TensorType{ScalarType::Bool, T(0).shape};
      ETKIT_TRY(same_dtype(T(0), T(1), 1, "self"));
      ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast(T(0).shape, T(1).shape, 1));
      return TensorType{ScalarType::Bool, shape};
    }
    case ShapeRule::SameAsSelf: {
      if (schema.name == "aten::masked_fill.Scalar_out") {
        if (T(1).dtype != ScalarType::Bool) {
          return arg_error(1, std::string("mask has dtype ") + scalar_type_name(T(1).dtype) +
                                  ", expected bool");
        }
        ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast(T(0).shape, T(1).shape, 1));
        if (shape != T(0).shape) {
          return arg_error(1, "mask shape " + shape_text(T(1).shape) + " does not broadcast to " +
                                  shape_text(T(0).shape));
        }
      }
      return T(0);
    }
    case ShapeRule::Where: {
      if (T(0).dtype != ScalarType::Bool) {
        return arg_error(0, std::string("condition has dtype ") + scalar_type_name(T(0).dtype) +
                                ", expected bool");
      }
      ETKIT_TRY(same_dtype(T(1), T(2), 2, "self"));
      ETKIT_ASSIGN_OR_RETURN(auto s1, broadcast(T(0).shape, T(1).shape, 1));
      ETKIT_ASSIGN_OR_RETURN(auto s2, broadcast(s1, T(2).shape, 2));
      return TensorType{T(1).dtype, s2};
    }
    case ShapeRule::Mm:
    case ShapeRule::Addmm: {
      const size_t a = schema.rule == ShapeRule::Addmm ? 1 : 0;
      const TensorType& m1 = T(a);
      const TensorType& m2 = T(a + 1);
      if (m1.shape.size() != 2) return arg_error(a, "expected a matrix, got shape " + shape_text(m1.shape));
      if (m2.shape.size() != 2) return arg_error(a + 1, "expected a matrix, got shape " + shape_text(m2.shape));
      ETKIT_TRY(same_dtype(m1, m2, a + 1, "the first matrix"));
      if (m1.shape[1] != m2.shape[0]) {
        return arg_error(a + 1, "shape " + shape_text(m2.shape) + " cannot multiply " +
                                    shape_text(m1.shape));
      }
      std::vector<int32_t> shape{m1.shape[0], m2.shape[1]};
      if (a == 1) {
        ETKIT_TRY(same_dtype(m1, T(0), 0, "the first matrix"));
        ETKIT_ASSIGN_OR_RETURN(auto b, broadcast(shape, T(0).shape, 0));
        if (b != shape) {
          return arg_error(0, "shape " + shape_text(T(0).shape) + " does not broadcast to " +
                                  shape_text(shape));
        }
      }
      return TensorType{m1.dtype, shape};
    }
    case ShapeRule::Bmm: {
      const TensorType& m1 = T(0);
      const TensorType& m2 = T(1);
      if (m1.shape.size() != 3) return arg_error(0, "expected rank 3, got shape " + shape_text(m1.shape));
      if (m2.shape.size() != 3) return arg_error(1, "expected rank 3, got shape " + shape_text(m2.shape));
      ETKIT_TRY(same_dtype(m1, m2, 1, "self"));
      if (m1.shape[0] != m2.shape[0] || m1.shape[2] != m2.shape[1]) {
        return arg_error(1, "shape " + shape_text(m2.shape) + " cannot batch-multiply " +
                                shape_text(m1.shape));
      }
      return TensorType{m1.dtype, {m1.shape[0], m1.shape[1], m2.shape[2]}};
    }
    case ShapeRule::Softmax: {
      if (wrap_dim(args[1].i, T(0).shape.size()) < 0) return dim_error(1, args[1].i, T(0).shape.size());
      if (args[2].b) return arg_error(2, "half_to_float is not supported");
      return T(0);
    }
    case ShapeRule::View: {
      std::vector<int32_t> shape;
      int infer = -1;
      int64_t known = 1;
      for (size_t k = 0; k < args[1].ints.size(); ++k) {
        const int64_t v = args[1].ints[k];
        if (v == -1 && infer < 0) {
          infer = static_cast<int>(k);
          shape.push_back(1);
          continue;
        }
        if (v < 0 || v > INT32_MAX) return arg_error(1, "size " + std::to_string(v) + " is invalid");
        known *= v;
        shape.push_back(static_cast<int32_t>(v));
      }
      const int64_t numel = T(0).numel();
      if (infer >= 0) {
        if (known == 0 || numel % known != 0) {
          return arg_error(1, "cannot view " + shape_text(T(0).shape) + " with a -1 size here");
        }
        shape[static_cast<size_t>(infer)] = static_cast<int32_t>(numel / known);
        known = numel;
      }
      if (known != numel) {
        return arg_error(1, "size " + shape_text(shape) + " has " + std::to_string(known) +
                                " elements, self has " + std::to_string(numel));
      }
      return TensorType{T(0).dtype, shape};
    }
    case ShapeRule::Permute: {
      const auto& shape = T(0).shape;
      const auto& dims = args[1].ints;
      if (dims.size() != shape.size()) {
        return arg_error(1, "has " + std::to_string(dims.size()) + " dims, self has rank " +
                                std::to_string(shape.size()));
      }
      std::vector<bool> seen(shape.size(), false);
      std::vector<int32_t> out;
      for (int64_t d : dims) {
        const int64_t w = wrap_dim(d, shape.size());
        if (w < 0) return dim_error(1, d, shape.size());
        if (seen[static_cast<size_t>(w)]) return arg_error(1, "is not a permutation");
        seen[static_cast<size_t>(w)] = true;
        out.push_back(shape[static_cast<size_t>(w)]);
      }
      return TensorType{T(0).dtype, out};
    }
    case ShapeRule::Unsqueeze: {
      auto shape = T(0).shape;
      const int64_t w = wrap_dim(args[1].i, shape.size() + 1);
      if (w < 0) return dim_error(1, args[1].i, shape.size() + 1);
      shape.insert(shape.begin() + w, 1);
      return TensorType{T(0).dtype, shape};
    }
    case ShapeRule::SqueezeDims: {
      const auto& shape = T(0).shape;
      std::vector<bool> drop(shape.size(), false);
      for (int64_t d : args[1].ints) {
        const int64_t w = wrap_dim(d, shape.size());
        if (w < 0) return dim_error(1, d, shape.size());
        if (!shape.empty() && shape[static_cast<size_t>(w)] == 1) drop[static_cast<size_t>(w)] = true;
      }
      std::vector<int32_t> out;
      for (size_t k = 0; k < shape.size(); ++k) {
        if (!drop[k]) out.push_back(shape[k]);
      }
      return TensorType{T(0).dtype, out};
    }
    case ShapeRule::Expand: {
      const auto& shape = T(0).shape;
      const auto& size = args[1].ints;
      if (size.size() < shape.size()) {
        return arg_error(1, "has rank " + std::to_string(size.size()) + ", below self's rank " +
                                std::to_string(shape.size()));
      }
      std::vector<int32_t> out(size.size());
      const size_t lead = size.size() - shape.size();
      for (size_t k = 0; k < size.size(); ++k) {
        const int64_t want = size[k];
        const int32_t have = k < lead ? 1 : shape[k - lead];
        if (want == -1 && k >= lead) {
          out[k] = have;
        } else if (want < 0 || want > INT32_MAX || (have != 1 && have != want)) {
          return arg_error(1, "cannot expand " + shape_text(shape) + " to this size");
        } else {
          out[k] = static_cast<int32_t>(want);
        }
      }
      return TensorType{T(0).dtype, out};
    }
    case ShapeRule::Cat: {
      const auto& list = args[0].tensors;
      if (list.empty()) return arg_error(0, "is empty");
      const TensorType& first = values[static_cast<size_t>(list[0])].type;
      const int64_t dim = wrap_dim(args[1].i, first.shape.size());
      if (dim < 0 || first.shape.empty()) return dim_error(1, args[1].i, first.shape.size());
      TensorType out = first;
      for (size_t k = 1; k < list.size(); ++k) {
        const TensorType& t = values[static_cast<size_t>(list[k])].type;
        if (t.dtype != first.dtype) {
          return arg_error(0, "tensor " + std::to_string(k) + " has dtype " +
                                  scalar_type_name(t.dtype) + ", tensor 0 has " +
                                  scalar_type_name(first.dtype));
        }
        bool ok = t.shape.size() == first.shape.size();
        for (size_t d = 0; ok && d < t.shape.size(); ++d) {
          ok = static_cast<int64_t>(d) == dim || t.shape[d] == first.shape[d];
        }
        if (!ok) {
          return arg_error(0, "tensor " + std::to_string(k) + " has shape " + shape_text(t.shape) +
                                  ", which does not join " + shape_text(first.shape) +
                                  " along dim " + std::to_string(dim));
        }
        out.shape[static_cast<size_t>(dim)] += t.shape[static_cast<size_t>(dim)];
      }
      return out;
    }
    case ShapeRule::Slice:
    case ShapeRule::SliceScatter: {
      const size_t o = schema.rule == ShapeRule::SliceScatter ? 1 : 0;
      const auto& shape = T(0).shape;
      const int64_t dim = wrap_dim(args[1 + o].i, shape.size());
      if (dim < 0 || shape.empty()) return dim_error(1 + o, args[1 + o].i, shape.size());
      const int64_t n = shape[static_cast<size_t>(dim)];
      const int64_t step = args[4 + o].i;
      if (step <= 0) return arg_error(4 + o, "step must be positive");
      int64_t start = args[2 + o].kind == Arg::Kind::None ? 0 : args[2 + o].i;
      int64_t end = args[3 + o].kind == Arg::Kind::None ? n : args[3 + o].i;
      if (start < 0) start += n;
      if (end < 0) end += n;
      start = clamp(start, 0, n);
      end = clamp(end, start, n);
      TensorType out = T(0);
      out.shape[static_cast<size_t>(dim)] = static_cast<int32_t>((end - start + step - 1) / step);
      if (o == 0) return out;
      ETKIT_TRY(same_dtype(T(0), T(1), 1, "self"));
      if (T(1).shape != out.shape) {
        return arg_error(1, "shape " + shape_text(T(1).shape) + " is not the slice's shape " +
                                shape_text(out.shape));
      }
      return T(0);
    }
    case ShapeRule::Select: {
      const auto& shape = T(0).shape;
      const int64_t dim = wrap_dim(args[1].i, shape.size());
      if (dim < 0 || shape.empty()) return dim_error(1, args[1].i, shape.size());
      const int64_t n = shape[static_cast<size_t>(dim)];
      if (args[2].i < -n || args[2].i >= n) {
        return arg_error(2, "index " + std::to_string(args[2].i) + " is out of range for size " +
                                std::to_string(n));
      }
      TensorType out = T(0);
      out.shape.erase(out.shape.begin() + dim);
      return out;
    }
    case ShapeRule::Copy: {
      ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast(T(0).shape, T(1).shape, 1));
      if (shape != T(0).shape) {
        return arg_error(1, "shape " + shape_text(T(1).shape) + " does not broadcast to " +
                                shape_text(T(0).shape));
      }
      return T(0);
    }
    case ShapeRule::Reduce:
    case ShapeRule::Amax: {
      const bool all = args[1].kind == Arg::Kind::None ||
                       (schema.rule == ShapeRule::Amax && args[1].ints.empty()) ||
                       (schema.rule == ShapeRule::Reduce && args[1].ints.empty());
      ETKIT_ASSIGN_OR_RETURN(auto shape,
                             reduce_shape(T(0).shape, args[1].ints, all, args[2].b, 1));
      ScalarType dtype = T(0).dtype;
      if (schema.rule == ShapeRule::Reduce && args[3].kind == Arg::Kind::Int) {
        dtype = static_cast<ScalarType>(args[3].i);
      }
      return TensorType{dtype, shape};
    }
    case ShapeRule::Argmax: {
      const bool all = args[1].kind == Arg::Kind::None;
      std::vector<int64_t> dims;
      if (!all) dims.push_back(args[1].i);
      ETKIT_ASSIGN_OR_RETURN(auto shape, reduce_shape(T(0).shape, dims, all, args[2].b && !all, 1));
      return TensorType{ScalarType::Long, shape};
    }
    case ShapeRule::IndexPut: {
      ETKIT_TRY(same_dtype(T(0), T(2), 2, "self"));
      for (int32_t idx : args[1].tensors) {
        if (idx < 0) continue;
        const ScalarType dt = values[static_cast<size_t>(idx)].type.dtype;
        if (dt != ScalarType::Long && dt != ScalarType::Int && dt != ScalarType::Bool) {
          return arg_error(1, std::string("index tensors must be int64, int32 or bool, got ") +
                                  scalar_type_name(dt));
        }
      }
      return T(0);
    }
    case ShapeRule::Embedding: {
      if (T(0).shape.size() != 2) return arg_error(0, "expected a matrix, got shape " + shape_text(T(0).shape));
      if (T(1).dtype != ScalarType::Long && T(1).dtype != ScalarType::Int) {
        return arg_error(1, std::string("indices must be int64 or int32, got ") +
                                scalar_type_name(T(1).dtype));
      }
      TensorType out{T(0).dtype, T(1).shape};
      out.shape.push_back(T(0).shape[1]);
      return out;
    }
    case ShapeRule::Full: {
      std::vector<int32_t> shape;
      for (int64_t v : args[0].ints) {
        if (v < 0 || v > INT32_MAX) return arg_error(0, "size " + std::to_string(v) + " is invalid");
        shape.push_back(static_cast<int32_t>(v));
      }
      ScalarType dtype = args[1].kind == Arg::Kind::Double ? ScalarType::Float
                         : args[1].kind == Arg::Kind::Bool ? ScalarType::Bool
                                                           : ScalarType::Long;
      if (declared_dtype != nullptr) dtype = *declared_dtype;
      return TensorType{dtype, shape};
    }
  }
  return Error(ErrorCode::Internal, "no shape rule for %.*s", static_cast<int>(schema.name.size()),
               schema.name.data());
}

}  // namespace etkit::exporter::detail
