#include "etrecord_zip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace etkit::inspect::zip {

namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndRecord = 0x06054b50;
constexpr uint32_t kEnd64Locator = 0x07064b50;
constexpr uint32_t kEnd64Record = 0x06064b50;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kEnd64LocatorSize = 20;
constexpr size_t kEnd64RecordSize = 56;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;
// JSON and pickled graphs deflate by 5-50x; deflate's own limit is about 1032x, which only
// runs of one byte reach. Entries above a megabyte may not claim more than this.
constexpr uint64_t kMaxCompressionRatio = 200;
constexpr uint64_t kRatioCheckBytes = uint64_t{1} << 20;
constexpr uint16_t kZip64Extra = 0x0001;

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t u64(const uint8_t* p) { return u32(p) | (static_cast<uint64_t>(u32(p + 4)) << 32); }

// True if [offset, offset + size) lies inside a file of `file_size` bytes.
bool inside(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

}  // namespace

Result<Archive> Archive::open(std::span<const uint8_t> bytes) {
  const uint64_t n = bytes.size();
  if (n < kEndRecordSize) {
    return Error(ErrorCode::InvalidData,
                 "not a zip archive (%llu bytes, shorter than an end of central directory record)",
                 static_cast<unsigned long long>(n));
  }
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes; search backwards
  // for one whose comment ends the file. (A looser match would find the end record of a zip
  // stored inside the archive, as torch.save's entries are, when the file is truncated.)
  const uint8_t* data = bytes.data();
  uint64_t end = n;  // n means "not found"
  const uint64_t lowest = n - kEndRecordSize > 65535 ? n - kEndRecordSize - 65535 : 0;
  for (uint64_t pos = n - kEndRecordSize + 1; pos-- > lowest;) {
    if (u32(data + pos) == kEndRecord && pos + kEndRecordSize + u16(data + pos + 20) == n) {
      end = pos;
      break;
    }
  }
  if (end == n) {
    return Error(ErrorCode::InvalidData,
                 "not a zip archive (no end of central directory record; truncated?)");
  }
  const uint8_t* e = data + end;
  uint64_t disk = u16(e + 4), cd_disk = u16(e + 6);
  uint64_t count = u16(e + 10);
  uint64_t cd_size = u32(e + 12), cd_offset = u32(e + 16);
  // ZIP64: a locator just before the end record points at the 64-bit end record.
  if (end >= kEnd64LocatorSize && u32(e - kEnd64LocatorSize) == kEnd64Locator) {
    const uint64_t rec = u64(e - kEnd64LocatorSize + 8);
    if (!inside(rec, kEnd64RecordSize, end) || u32(data + rec) != kEnd64Record) {
      return Error(ErrorCode::InvalidData, "zip64 end record at offset %llu is damaged",
                   static_cast<unsigned long long>(rec));
    }
    const uint8_t* r = data + rec;
    disk = u32(r + 16);
    cd_disk = u32(r + 20);
    count = u64(r + 32);
    cd_size = u64(r + 40);
    cd_offset = u64(r + 48);
  }
  if (disk != 0 || cd_disk != 0) {
    return Error(ErrorCode::NotSupported, "multi-disk zip archives are not supported");
  }
  if (!inside(cd_offset, cd_size, n)) {
    return Error(ErrorCode::InvalidData,
                 "central directory (offset %llu, %llu bytes) extends past the end of the file "
                 "(%llu bytes; truncated?)",
                 static_cast<unsigned long long>(cd_offset), static_cast<unsigned long long>(cd_size),
                 static_cast<unsigned long long>(n));
  }
  // Each entry takes at least 46 bytes: a count beyond that is corrupt (and must not reserve).
  if (count > cd_size / kCentralHeaderSize) {
    return Error(ErrorCode::InvalidData,
                 "central directory of %llu bytes cannot hold %llu entries",
                 static_cast<unsigned long long>(cd_size), static_cast<unsigned long long>(count));
  }
  Archive archive;
  archive.bytes_ = bytes;
  archive.entries_.reserve(static_cast<size_t>(count));
  uint64_t pos = cd_offset;
  const uint64_t cd_end = cd_offset + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (!inside(pos, kCentralHeaderSize, cd_end) || u32(data + pos) != kCentralHeader) {
      return Error(ErrorCode::InvalidData,
                   "central directory entry %llu at offset %llu is damaged",
                   static_cast<unsigned long long>(i), static_cast<unsigned long long>(pos));
    }
    const uint8_t* c = data + pos;
    const uint64_t name_len = u16(c + 28), extra_len = u16(c + 30), comment_len = u16(c + 32);
    const uint64_t total = kCentralHeaderSize + name_len + extra_len + comment_len;
    if (!inside(pos, total, cd_end)) {
      return Error(ErrorCode::InvalidData,
                   "central directory entry %llu at offset %llu runs past the directory",
                   static_cast<unsigned long long>(i), static_cast<unsigned long long>(pos));
    }
    Entry entry;
    entry.name.assign(reinterpret_cast<const char*>(c + kCentralHeaderSize),
                      static_cast<size_t>(name_len));
    entry.flags = u16(c + 8);
    entry.method = u16(c + 10);
    entry.crc32 = u32(c + 16);
    entry.compressed_size = u32(c + 20);
    entry.size = u32(c + 24);
    entry.local_header_offset = u32(c + 42);
    // ZIP64 extra field: 64-bit values for the 32-bit fields that hold 0xFFFFFFFF, in order.
    const uint8_t* x = c + kCentralHeaderSize + name_len;
    const uint8_t* x_end = x + extra_len;
    while (x_end - x >= 4) {
      const uint16_t id = u16(x), len = u16(x + 2);
      if (len > x_end - x - 4) break;
      if (id == kZip64Extra) {
        const uint8_t* v = x + 4;
        const uint8_t* v_end = v + len;
        for (uint64_t* field : {&entry.size, &entry.compressed_size, &entry.local_header_offset}) {
          if (*field != 0xFFFFFFFFu) continue;
          if (v_end - v < 8) {
            return Error(ErrorCode::InvalidData, "entry '%s': zip64 extra field is too short",
                         entry.name.c_str());
          }
          *field = u64(v);
          v += 8;
        }
      }
      x += 4 + len;
    }
    archive.entries_.push_back(std::move(entry));
    pos += total;
  }
  return archive;
}

const Entry* Archive::find(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Result<std::string> Archive::read(const Entry& entry, uint64_t max_size) const {
  const uint64_t n = bytes_.size();
  const char* name = entry.name.c_str();
  if (entry.flags & 1u) {
    return Error(ErrorCode::NotSupported, "entry '%s' is encrypted", name);
  }
  if (entry.method != 0 && entry.method != 8) {
    return Error(ErrorCode::NotSupported,
                 "entry '%s': compression method %u is not supported (stored and deflate are)",
                 name, static_cast<unsigned>(entry.method));
  }
  if (!inside(entry.local_header_offset, kLocalHeaderSize, n) ||
      u32(bytes_.data() + entry.local_header_offset) != kLocalHeader) {
    return Error(ErrorCode::InvalidData, "entry '%s': local header at offset %llu is damaged",
                 name, static_cast<unsigned long long>(entry.local_header_offset));
  }
  const uint8_t* h = bytes_.data() + entry.local_header_offset;
  const uint64_t data_offset =
      entry.local_header_offset + kLocalHeaderSize + u16(h + 26) + u16(h + 28);
  if (!inside(data_offset, entry.compressed_size, n)) {
    return Error(ErrorCode::InvalidData,
                 "entry '%s': data (offset %llu, %llu bytes) extends past the end of the file "
                 "(%llu bytes; truncated?)",
                 name, static_cast<unsigned long long>(data_offset),
                 static_cast<unsigned long long>(entry.compressed_size),
                 static_cast<unsigned long long>(n));
  }
  if (entry.size > max_size) {
    return Error(ErrorCode::OutOfMemory, "entry '%s' is %llu bytes, above the limit of %llu",
                 name, static_cast<unsigned long long>(entry.size),
                 static_cast<unsigned long long>(max_size));
  }
  // Declared sizes bound what is inflated (more data is an error below); a declared size far
  // beyond what deflate makes of real text is refused before anything is allocated.
  if (entry.method != 0 && entry.size > kRatioCheckBytes &&
      entry.size / std::max<uint64_t>(entry.compressed_size, 1) > kMaxCompressionRatio) {
    return Error(ErrorCode::InvalidData,
                 "entry '%s' inflates %llu bytes from %llu, a ratio above %llu:1 (a zip bomb?)",
                 name, static_cast<unsigned long long>(entry.size),
                 static_cast<unsigned long long>(entry.compressed_size),
                 static_cast<unsigned long long>(kMaxCompressionRatio));
  }
  const uint8_t* in = bytes_.data() + data_offset;
  std::string out;
  if (entry.method == 0) {
    if (entry.compressed_size != entry.size) {
      return Error(ErrorCode::InvalidData,
                   "entry '%s': stored entry with %llu bytes of data but size %llu", name,
                   static_cast<unsigned long long>(entry.compressed_size),
                   static_cast<unsigned long long>(entry.size));
    }
    out.assign(reinterpret_cast<const char*>(in), static_cast<size_t>(entry.size));
  } else {
    out.resize(static_cast<size_t>(entry.size));
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
      return Error(ErrorCode::OutOfMemory, "entry '%s': cannot initialise zlib", name);
    }
    uint64_t in_left = entry.compressed_size, out_left = entry.size;
    z.next_in = const_cast<Bytef*>(in);
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    int rc = Z_OK;
    // zlib counts in 32 bits; feed both sides in chunks.
    constexpr uint64_t kChunk = std::numeric_limits<uInt>::max();
    while (rc == Z_OK) {
      const uInt give_in = static_cast<uInt>(std::min(in_left, kChunk));
      const uInt give_out = static_cast<uInt>(std::min(out_left, kChunk));
      z.avail_in = give_in;
      z.avail_out = give_out;
      rc = inflate(&z, Z_NO_FLUSH);
      in_left -= give_in - z.avail_in;
      out_left -= give_out - z.avail_out;
      if (rc == Z_BUF_ERROR && (in_left == 0 || out_left == 0)) break;
      if (rc == Z_OK && give_in == z.avail_in && give_out == z.avail_out) break;  // no progress
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
      return Error(ErrorCode::InvalidData,
                   "entry '%s': corrupt deflate data (%s)", name,
                   out_left == 0 ? "more data than its size" : "ends early or is damaged");
    }
    if (out_left != 0) {
      return Error(ErrorCode::InvalidData, "entry '%s': %llu bytes short of its size %llu", name,
                   static_cast<unsigned long long>(out_left),
                   static_cast<unsigned long long>(entry.size));
    }
  }
  const uLong crc = ::crc32_z(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(out.data()),
                              out.size());
  if (crc != entry.crc32) {
    return Error(ErrorCode::InvalidData, "entry '%s': CRC mismatch (stored %08x, computed %08lx)",
                 name, entry.crc32, crc);
  }
  return out;
}

}  // namespace etkit::inspect::zip
