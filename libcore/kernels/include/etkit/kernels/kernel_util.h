#pragma once

// Everything the portable kernels share, in one include: scalars and defined arithmetic
// (scalar.h), dtype dispatch (dtype_dispatch.h), argument access and checks (kernel_args.h),
// shapes and broadcasting (broadcast.h) and PyTorch's result type (result_type.h). Each concept
// has its own header; kernels include this one.
//
// Nothing here allocates: shapes live in fixed `kMaxRank` arrays on the stack.

#include "etkit/kernels/broadcast.h"
#include "etkit/kernels/dtype_dispatch.h"
#include "etkit/kernels/kernel_args.h"
#include "etkit/kernels/result_type.h"
#include "etkit/kernels/scalar.h"
