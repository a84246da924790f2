#pragma once

// libinspect's names for the debug-map model. The model, its JSON reader and writer and
// `DelegateMappingBuilder` are the debugmap library (etkit/debugmap/debug_map.h,
// etkit/debugmap/debug_map_json.h), below libinspect so that libexport can write debug maps
// without depending on libinspect. libinspect joins dumps to programs through it everywhere,
// so these using-declarations let its code and its callers keep the short `inspect::` names;
// they declare nothing new. ETRecord reading (etrecord.h) and building a map from several
// sources (debug_map_build.h) stay in libinspect: they read programs through the generated
// FlatBuffers headers and ETRecord zips, which the debugmap library does not need.

#include "etkit/debugmap/debug_map.h"
#include "etkit/debugmap/debug_map_json.h"

namespace etkit::inspect {

using debugmap::ArgInfo;
using debugmap::ArgKind;
using debugmap::DebugMap;
using debugmap::DelegateEntry;
using debugmap::DelegateIdentifier;
using debugmap::IdentifierKind;
using debugmap::InstructionEntry;
using debugmap::InstructionKind;
using debugmap::MethodDebugMap;
using debugmap::NodeInfo;

using debugmap::arg_kind_name;
using debugmap::check_identifier;
using debugmap::identifier_kind_name;
using debugmap::identifier_text;
using debugmap::instruction_kind_name;
using debugmap::parse_canonical_int;
using debugmap::parse_debug_map;
using debugmap::read_debug_map_file;
using debugmap::validate_debug_map;
using debugmap::write_debug_map;

}  // namespace etkit::inspect
