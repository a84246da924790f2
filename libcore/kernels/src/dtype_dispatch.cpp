#include "etkit/kernels/dtype_dispatch.h"

namespace etkit::kernels {

bool is_computed_dtype(ScalarType t) {
  return dispatch_dtype(t, [](auto) {});
}

}  // namespace etkit::kernels
