#pragma once

// `EValue`: one entry of a method's value table (an argument, constant, intermediate or output).
//
// Mirrors ExecuTorch's EValue tags. Lists refer to other values: an IntList is boxed (its items
// are Int values that may change at run time) and is unboxed into caller-provided scratch on
// each read; TensorList and OptionalTensorList hold value pointers. An `EValue` owns nothing.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/tensor.h"

namespace etkit {

/// The kind of an `EValue`. Values are the `.pte` KernelTypes tags minus one (None = Null).
enum class Tag : uint8_t {
  None,
  Int,
  Bool,
  Double,
  Tensor,
  String,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

/// Lower-case name of a tag: "none", "int", "tensor", "int list", ...
const char* tag_name(Tag tag);

class EValue;

/// A boxed list of Int values; `get()` unboxes into the scratch array it was built with.
class BoxedIntList {
 public:
  BoxedIntList() = default;
  BoxedIntList(EValue* const* items, int64_t* scratch, size_t size)
      : items_(items), scratch_(scratch), size_(size) {}
  size_t size() const { return size_; }
  /// The current integers. Valid until the next `get()` on this list.
  std::span<const int64_t> get() const;

 private:
  EValue* const* items_ = nullptr;
  int64_t* scratch_ = nullptr;
  size_t size_ = 0;
};

/// A list of Tensor values (or of optional tensors, where an item may be null = None).
class TensorListRef {
 public:
  TensorListRef() = default;
  TensorListRef(EValue* const* items, size_t size) : items_(items), size_(size) {}
  size_t size() const { return size_; }
  /// Item `i`; null for a None in an optional list.
  Tensor* at(size_t i) const;

 private:
  EValue* const* items_ = nullptr;
  size_t size_ = 0;
};

/// A tagged value. Trivially copyable; copying a Tensor value copies the pointer (aliasing),
/// which is what MoveCall means.
class EValue {
 public:
  EValue() : tag_(Tag::None), i_(0) {}
  static EValue from_int(int64_t v) { EValue e; e.tag_ = Tag::Int; e.i_ = v; return e; }
  static EValue from_bool(bool v) { EValue e; e.tag_ = Tag::Bool; e.b_ = v; return e; }
  static EValue from_double(double v) { EValue e; e.tag_ = Tag::Double; e.d_ = v; return e; }
  static EValue from_tensor(Tensor* t) { EValue e; e.tag_ = Tag::Tensor; e.t_ = t; return e; }
  static EValue from_string(std::string_view s) {
    EValue e; e.tag_ = Tag::String; e.s_ = {s.data(), s.size()}; return e;
  }
  static EValue from_int_list(BoxedIntList l) { EValue e; e.tag_ = Tag::IntList; e.il_ = l; return e; }
  static EValue from_double_list(std::span<const double> l) {
    EValue e; e.tag_ = Tag::DoubleList; e.dl_ = {l.data(), l.size()}; return e;
  }
  static EValue from_bool_list(std::span<const bool> l) {
    EValue e; e.tag_ = Tag::BoolList; e.bl_ = {l.data(), l.size()}; return e;
  }
  static EValue from_tensor_list(TensorListRef l) { EValue e; e.tag_ = Tag::TensorList; e.tl_ = l; return e; }
  static EValue from_optional_tensor_list(TensorListRef l) {
    EValue e; e.tag_ = Tag::OptionalTensorList; e.tl_ = l; return e;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_int_list() const { return tag_ == Tag::IntList; }
  bool is_double_list() const { return tag_ == Tag::DoubleList; }
  bool is_bool_list() const { return tag_ == Tag::BoolList; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  bool is_optional_tensor_list() const { return tag_ == Tag::OptionalTensorList; }

  // Accessors: the caller checks the tag first (kernels validate their arguments).
  int64_t to_int() const { return i_; }
  bool to_bool() const { return b_; }
  double to_double() const { return d_; }
  Tensor& to_tensor() const { return *t_; }
  Tensor* tensor_ptr() const { return t_; }
  std::string_view to_string() const { return {s_.data, s_.size}; }
  std::span<const int64_t> to_int_list() const { return il_.get(); }
  const BoxedIntList& int_list() const { return il_; }
  std::span<const double> to_double_list() const { return {dl_.data, dl_.size}; }
  std::span<const bool> to_bool_list() const { return {bl_.data, bl_.size}; }
  const TensorListRef& to_tensor_list() const { return tl_; }

  /// Overwrites an Int/Bool/Double payload in place (kernels writing sym outputs).
  void set_int(int64_t v) { i_ = v; }
  void set_double(double v) { d_ = v; }
  void set_bool(bool v) { b_ = v; }

 private:
  template <typename T>
  struct RawSpan {
    const T* data;
    size_t size;
  };
  Tag tag_;
  union {
    int64_t i_;
    bool b_;
    double d_;
    Tensor* t_;
    RawSpan<char> s_;
    BoxedIntList il_;
    RawSpan<double> dl_;
    RawSpan<bool> bl_;
    TensorListRef tl_;
  };
};

}  // namespace etkit
