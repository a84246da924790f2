#pragma once

// The content hash that names a dump in a database (sqlite_export.h): FNV-1a 64 of the dump's
// bytes followed by those of its debug buffer (the logged values' payloads live there, so two
// runs that differ only in their values still differ), written "fnv1a64:<16 lower-case hex
// digits>". Not a cryptographic hash: it tells apart the dumps of one farm, it does not resist
// someone forging a collision.

#include <cstdint>
#include <span>
#include <string>

namespace etkit::inspect {

/// The FNV-1a 64 offset basis: the hash of no bytes.
inline constexpr uint64_t kFnv1a64Basis = 0xcbf29ce484222325ull;

/// FNV-1a 64 of `bytes` (prime 0x100000001b3), continuing from `h` (the hash of the bytes
/// before them).
uint64_t fnv1a64(std::span<const uint8_t> bytes, uint64_t h = kFnv1a64Basis);

/// "fnv1a64:" and the FNV-1a 64 of `dump` then `debug_buffer` (empty when there is none), as 16
/// hex digits.
std::string content_hash(std::span<const uint8_t> dump,
                         std::span<const uint8_t> debug_buffer = {});

}  // namespace etkit::inspect
