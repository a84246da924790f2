// xnnpack_delegate_nodes: the nodes of a program's XnnpackBackend calls, as the upstream JSON
// of the fixtures' blobs lists them, and NotFound for instructions that are not such calls.

#include "etkit/host/xnnpack_nodes.h"

#include <doctest/doctest.h>

#include "etkit/host/runner.h"
#include "test_support.h"

namespace etkit {
namespace {

TEST_CASE("xnnpack nodes: djl-xnnpack-conv lists its three nodes with their handles") {
  Result<ProgramFile> f = ProgramFile::open(testing::fixture("pte/djl-xnnpack-conv.pte"));
  REQUIRE(f.ok());
  Result<std::vector<XnnpackNodeInfo>> nodes = xnnpack_delegate_nodes(f->program(), "forward", 0, 0);
  REQUIRE_MESSAGE(nodes.ok(), nodes.error().message());
  REQUIRE(nodes->size() == 3);
  CHECK((*nodes)[0].kind == "StaticTranspose");
  CHECK((*nodes)[0].debug_handle == 65535);
  CHECK((*nodes)[1].kind == "Conv2d");
  CHECK((*nodes)[1].debug_handle == 1);
  CHECK((*nodes)[1].index == 1);
  CHECK((*nodes)[2].kind == "StaticTranspose");
  CHECK(xnnpack_delegate_nodes(f->program(), "forward", 0, 1).error().code() == ErrorCode::NotFound);
  CHECK(xnnpack_delegate_nodes(f->program(), "other", 0, 0).error().code() == ErrorCode::NotFound);
}

TEST_CASE("xnnpack nodes: np-xnnpack-quantized's convert, fully connected, convert") {
  Result<ProgramFile> f = ProgramFile::open(testing::fixture("pte/np-xnnpack-quantized.pte"));
  REQUIRE(f.ok());
  Result<std::vector<XnnpackNodeInfo>> nodes = xnnpack_delegate_nodes(f->program(), "forward", 0, 0);
  REQUIRE_MESSAGE(nodes.ok(), nodes.error().message());
  REQUIRE(nodes->size() == 3);
  CHECK((*nodes)[0].kind == "Convert");
  CHECK((*nodes)[0].debug_handle == 2);
  CHECK((*nodes)[1].kind == "FullyConnected");
  CHECK((*nodes)[1].debug_handle == 3);
  CHECK((*nodes)[2].debug_handle == 3);
}

TEST_CASE("xnnpack nodes: a program without XNNPACK calls") {
  Result<ProgramFile> f = ProgramFile::open(testing::fixture("pte/et-add.pte"));
  REQUIRE(f.ok());
  CHECK(xnnpack_delegate_nodes(f->program(), "forward", 0, 0).error().code() == ErrorCode::NotFound);
}

}  // namespace
}  // namespace etkit
