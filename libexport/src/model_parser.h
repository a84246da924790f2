#pragma once

// Private to libexport: reading a whole model description (formats/model.md) into a checked
// `Model`: the top level (format, version), delegate groups, constants, and each method's
// inputs, buffers (buffer_table.h), operations (op_parser.h) and outputs. Operations get their
// debug handles here: 1, 2, 3 ... per program, in description order (DESIGN.md section 9).

#include <string>
#include <string_view>

#include "buffer_table.h"
#include "description_json.h"
#include "etkit/export/model.h"
#include "method_scope.h"

namespace etkit::exporter::detail {

// Reads one description; a parser is used once.
class ModelParser {
 public:
  ModelParser(std::string_view source, std::string base_dir)
      : d_(std::string(source)), base_dir_(std::move(base_dir)) {}

  // Parses `text`. Errors: those of `parse_model` (etkit/export/model.h).
  Result<Model> parse(std::string_view text);

 private:
  Error parse_delegates(const json& j);
  Error parse_constants(const json& j);
  Error parse_method(const json& j, const std::string& index_path);
  Error parse_inputs(MethodScope& scope, const json* inputs, const std::string& path);
  Error parse_buffers(MethodScope& scope, const json* buffers, const std::string& path);
  Error parse_ops(MethodScope& scope, const json* ops, const std::string& path);
  Error parse_outputs(MethodScope& scope, const json* outputs, const std::string& path);

  DescriptionJson d_;
  std::string base_dir_;
  Model model_;
  ConstantIndex constants_;
  BufferTable buffers_;
  uint32_t next_handle_ = 1;
};

}  // namespace etkit::exporter::detail
