#include "etkit/kernels/scalar.h"

#include <cstdio>

namespace etkit::kernels {

ScalarText::ScalarText(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool: std::snprintf(text, sizeof(text), "%s", s.b ? "True" : "False"); break;
    case Scalar::Kind::Int: std::snprintf(text, sizeof(text), "%lld", static_cast<long long>(s.i)); break;
    case Scalar::Kind::Double: std::snprintf(text, sizeof(text), "%g", s.d); break;
  }
}

}  // namespace etkit::kernels
