#include <doctest/doctest.h>

#include <string>

#include "etkit/host/default_registries.h"
#include "etkit/kernels/portable_kernels.h"
#include "etkit/runtime/kernel.h"

namespace etkit {
namespace {

void kernel_a(KernelContext&, std::span<EValue*>) {}
void kernel_b(KernelContext& ctx, std::span<EValue*>) {
  ctx.fail(ErrorCode::InvalidArgument, "first %d", 1);
  ctx.fail(ErrorCode::InvalidType, "second");
}

TEST_CASE("kernel registry: lookup by full name, sorted entries, duplicates refused") {
  KernelRegistry r;
  const KernelEntry entries[] = {{"ns::zeta.out", kernel_a}, {"ns::alpha.out", kernel_b}};
  REQUIRE(r.add(entries).ok());
  CHECK((r.find("ns::zeta.out") == kernel_a));
  CHECK((r.find("ns::alpha.out") == kernel_b));
  CHECK((r.find("ns::alpha") == nullptr));
  REQUIRE(r.entries().size() == 2);
  CHECK(r.entries()[0].name == "ns::alpha.out");
  const KernelEntry dup[] = {{"ns::zeta.out", kernel_b}};
  Error e = r.add(dup);
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.message()) == "kernel 'ns::zeta.out' is already registered");
  CHECK((r.find("ns::zeta.out") == kernel_a));
}

TEST_CASE("kernel registry: an entry keeps its dtypes; one written as {name, fn} states none") {
  KernelRegistry r;
  const DtypeSet floats{ScalarType::Float, ScalarType::Double};
  const KernelEntry entries[] = {{"ns::f.out", kernel_a, floats}, {"ns::custom.out", kernel_b}};
  REQUIRE(r.add(entries).ok());
  REQUIRE(r.entries().size() == 2);
  CHECK(r.entries()[0].name == "ns::custom.out");
  CHECK(r.entries()[0].dtypes.empty());
  CHECK(r.entries()[1].dtypes == floats);
}

TEST_CASE("kernel registry: names registered from temporary strings stay valid") {
  KernelRegistry r;
  for (int i = 0; i < 100; ++i) {
    std::string name = "ns::op" + std::to_string(i) + ".out";
    const KernelEntry e[] = {{name, kernel_a}};
    REQUIRE(r.add(e).ok());
  }
  CHECK((r.find("ns::op42.out") == kernel_a));
  CHECK(r.entries().size() == 100);
}

TEST_CASE("kernel context: the first failure wins") {
  KernelContext ctx;
  CHECK_FALSE(ctx.failed());
  kernel_b(ctx, {});
  CHECK(ctx.failed());
  CHECK(ctx.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(ctx.error().message()) == "first 1");
}

TEST_CASE("kernel registry: the default registry holds the portable kernels") {
  const KernelRegistry& r = default_kernel_registry();
  CHECK(r.entries().size() == portable_kernels().size());
  CHECK((r.find("aten::add.out") != nullptr));
}

}  // namespace
}  // namespace etkit
