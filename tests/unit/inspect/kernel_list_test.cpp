#include "etkit/inspect/kernel_list.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit::inspect {
namespace {

void kernel(KernelContext&, std::span<EValue*>) {}

// Out of the list order on purpose: the listing orders them.
constexpr DtypeSet kSome{ScalarType::Double, ScalarType::Half, ScalarType::Bool, ScalarType::Byte};

TEST_CASE("kernel list: text aligns the dtypes, in list order, '-' when none is stated") {
  const KernelEntry entries[] = {{"aten::abs.out", kernel, kSome},
                                 {"my::custom_op.out", kernel},
                                 {"aten::x", kernel, DtypeSet{ScalarType::UInt16}}};
  CHECK(render_kernel_list(entries, KernelListFormat::Text) ==
        "aten::abs.out      bool,uint8,float16,float64\n"
        "my::custom_op.out  -\n"
        "aten::x            uint16\n");
  CHECK(render_kernel_list({}, KernelListFormat::Text).empty());
}

TEST_CASE("kernel list: JSON is an array of {name, dtypes}, null when none is stated") {
  const KernelEntry entries[] = {{"aten::abs.out", kernel, kSome}, {"my::custom_op.out", kernel}};
  CHECK(render_kernel_list(entries, KernelListFormat::Json) ==
        "[\n"
        "  {\n"
        "    \"name\": \"aten::abs.out\",\n"
        "    \"dtypes\": [\n"
        "      \"bool\",\n"
        "      \"uint8\",\n"
        "      \"float16\",\n"
        "      \"float64\"\n"
        "    ]\n"
        "  },\n"
        "  {\n"
        "    \"name\": \"my::custom_op.out\",\n"
        "    \"dtypes\": null\n"
        "  }\n"
        "]\n");
  CHECK(render_kernel_list({}, KernelListFormat::Json) == "[]\n");
}

}  // namespace
}  // namespace etkit::inspect
