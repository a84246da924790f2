#pragma once

// How profiler device events are named in an ETDump, written once for the profiling controller
// that writes them and the readers (libinspect's trace join and counters) that recognise them:
// a delegate profiling event `prof:<device>:<event>` (e.g. `prof:sim:OPERATOR_CALL`) whose
// metadata bytes start with `etkit-prof/1` (formats/README.md). Formatting writes into a caller
// buffer and never allocates (it runs at the end of every profiled run).

#include <cstddef>
#include <cstring>
#include <span>
#include <string_view>

namespace etkit::prof {

/// Prefix of every device event's name.
inline constexpr std::string_view kDeviceEventPrefix = "prof:";
/// Longest device type kept in an event name (longer ones are cut).
inline constexpr size_t kMaxDeviceNameInEvent = 32;
/// First field of a device event's metadata bytes; `;key=value` fields follow (`device=`,
/// counters, `clipped=1`).
inline constexpr std::string_view kDeviceMetadataMagic = "etkit-prof/1";

/// Writes `prof:<device>:<event>` into `out`, NUL-terminated, `device` cut to
/// `kMaxDeviceNameInEvent` bytes and the whole cut to fit. Returns the length written, without
/// the NUL. Never allocates.
inline size_t format_device_event_name(std::string_view device, std::string_view event,
                                       std::span<char> out) {
  if (out.empty()) return 0;
  size_t n = 0;
  auto put = [&](std::string_view s) {
    const size_t room = out.size() - 1 - n;
    const size_t k = s.size() < room ? s.size() : room;
    std::memcpy(out.data() + n, s.data(), k);
    n += k;
  };
  put(kDeviceEventPrefix);
  put(device.substr(0, kMaxDeviceNameInEvent));
  put(":");
  put(event);
  out[n] = '\0';
  return n;
}

/// Whether `name` is a device event's name (starts with `prof:`).
inline bool is_device_event_name(std::string_view name) {
  return name.starts_with(kDeviceEventPrefix);
}

/// The `<device>` of a device event's name; empty for any other name.
inline std::string_view device_of_event_name(std::string_view name) {
  if (!is_device_event_name(name)) return {};
  const std::string_view rest = name.substr(kDeviceEventPrefix.size());
  return rest.substr(0, rest.find(':'));
}

}  // namespace etkit::prof
