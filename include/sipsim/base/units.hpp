#pragma once
// Exact parsing of physical quantities written in scenario files.
//
// A quantity is a decimal number (optional fraction and exponent, e.g. "1.3",
// "2.5e3") followed by a unit, with optional spaces between: "400Gbps", "1.3 us",
// "1GiB". Decimal prefixes are powers of 1000, binary prefixes (Ki, Mi, Gi, Ti,
// Pi) powers of 1024, both applied exactly (no floating point): "1.3us" is
// exactly 1'300'000 ps. "B" is a byte and "b" a bit, never interchangeable.
// A value that does not come out as a whole number of the base unit (ps, byte,
// bit/s) or does not fit in 64 bits is an error, as is a missing or unknown unit.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sipsim::base {

// Thrown with a message that names the problem but not the location; the YAML
// reader adds file:line:col and the key path.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Time in integer picoseconds. Units: ps, ns, us (also µs), ms, s.
std::uint64_t parse_time_ps(std::string_view text);

// Data size in integer bytes. Byte units: B, kB/KB, MB, GB, TB, PB, KiB, MiB,
// GiB, TiB, PiB. Bit units: b (bit), kb/Kb, Mb, Gb, Tb, Pb, Kib, Mib, Gib, Tib,
// Pib — converted to bytes, and must be a whole number of bytes.
std::uint64_t parse_bytes(std::string_view text);

// Bandwidth in integer bit/s. Bit rates: bps, kbps/Kbps, Mbps, Gbps, Tbps, Pbps
// and the same with "b/s" (e.g. "Gb/s"); byte rates: Bps, KBps... and "B/s"
// forms (e.g. "50GB/s" = 400e9 bit/s), binary prefixes allowed ("1GiB/s").
std::uint64_t parse_bandwidth_bps(std::string_view text);

// Human-readable forms for summaries and error messages, shortest exact or
// 4-significant-digit rendering: 1300000 -> "1.3us", 1073741824 -> "1GiB"
// (binary when exact, else decimal), 400000000000 -> "400Gbps" (up to Ebps).
// The one formatter of times, sizes and rates: every summary, description and
// error message renders them with these.
std::string format_time_ps(std::uint64_t ps);
// Every digit, for messages that name an exact simulated time: "1.234567us".
std::string format_time_ps_exact(std::uint64_t ps);
std::string format_bytes(std::uint64_t bytes);
std::string format_bandwidth_bps(std::uint64_t bps);
// A computed (floating-point) rate, e.g. a capacity: rounded to bit/s.
std::string format_capacity_bps(double bps);

}  // namespace sipsim::base
