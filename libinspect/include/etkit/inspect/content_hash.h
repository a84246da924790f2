#pragma once

// The content hash that names a dump in a database (sqlite_export.h): FNV-1a 64 of the file's
// bytes, written "fnv1a64:<16 lower-case hex digits>". Not a cryptographic hash: it tells apart
// the dumps of one farm, it does not resist someone forging a collision.

#include <cstdint>
#include <span>
#include <string>

namespace etkit::inspect {

/// FNV-1a 64 of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
uint64_t fnv1a64(std::span<const uint8_t> bytes);

/// "fnv1a64:" and `fnv1a64(bytes)` as 16 hex digits.
std::string content_hash(std::span<const uint8_t> bytes);

}  // namespace etkit::inspect
