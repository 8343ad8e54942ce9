#include "sipsim/base/units.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace sipsim::base {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// The UnitError message for `text`, or "" when it parses.
template <typename Parse>
std::string error_of(Parse parse, std::string_view text) {
  try {
    parse(text);
  } catch (const UnitError& e) {
    return e.what();
  }
  return "";
}

TEST(UnitsTime, ExactDecimalValues) {
  EXPECT_EQ(parse_time_ps("1.3us"), 1'300'000u);
  EXPECT_EQ(parse_time_ps("0.1ns"), 100u);
  EXPECT_EQ(parse_time_ps("1e-6s"), 1'000'000u);
  EXPECT_EQ(parse_time_ps("2.5e3ns"), 2'500'000u);
  EXPECT_EQ(parse_time_ps("1E+2ps"), 100u);
  EXPECT_EQ(parse_time_ps("0.000001s"), 1'000'000u);
  EXPECT_EQ(parse_time_ps("1.000ms"), 1'000'000'000u);
  EXPECT_EQ(parse_time_ps("7ps"), 7u);
  EXPECT_EQ(parse_time_ps("3s"), 3'000'000'000'000u);
  EXPECT_EQ(parse_time_ps("+5ns"), 5'000u);
  EXPECT_EQ(parse_time_ps(".5ns"), 500u);
  EXPECT_EQ(parse_time_ps("5.ns"), 5'000u);
  EXPECT_EQ(parse_time_ps("0s"), 0u);
  EXPECT_EQ(parse_time_ps("0.0e99999999999ps"), 0u);
}

TEST(UnitsTime, MicroSignsAndWhitespace) {
  EXPECT_EQ(parse_time_ps("1.3\xC2\xB5s"), 1'300'000u);  // U+00B5 MICRO SIGN
  EXPECT_EQ(parse_time_ps("1.3\xCE\xBCs"), 1'300'000u);  // U+03BC GREEK SMALL LETTER MU
  EXPECT_EQ(parse_time_ps("1.3 us"), 1'300'000u);
  EXPECT_EQ(parse_time_ps("  1.3\tus \n"), 1'300'000u);
}

TEST(UnitsTime, NotWhole) {
  EXPECT_EQ(error_of(parse_time_ps, "1.5ps"), "'1.5ps' is not a whole number of picoseconds");
  EXPECT_EQ(error_of(parse_time_ps, "0.0001ns"), "'0.0001ns' is not a whole number of picoseconds");
  EXPECT_EQ(error_of(parse_time_ps, "1e-13s"), "'1e-13s' is not a whole number of picoseconds");
  // Many digits are still handled exactly, not rounded.
  EXPECT_EQ(error_of(parse_time_ps, "1.0000000000000000000000000001s"),
            "'1.0000000000000000000000000001s' is not a whole number of picoseconds");
  EXPECT_EQ(parse_time_ps("1.000000000000000000000000000000s"), 1'000'000'000'000u);
}

TEST(UnitsTime, Overflow) {
  EXPECT_EQ(parse_time_ps("18446744073709551615ps"), kMax);
  EXPECT_EQ(error_of(parse_time_ps, "18446744073709551616ps"),
            "'18446744073709551616ps' is too large for a 64-bit count of picoseconds: at most "
            "18446744073709551615 (about 213 days)");
  EXPECT_EQ(error_of(parse_time_ps, "20000000s"),
            "'20000000s' is too large for a 64-bit count of picoseconds: at most "
            "18446744073709551615 (about 213 days)");
  EXPECT_EQ(error_of(parse_time_ps, "1e30s"),
            "'1e30s' is too large for a 64-bit count of picoseconds: at most "
            "18446744073709551615 (about 213 days)");
  EXPECT_EQ(error_of(parse_time_ps, "1e999999999999s"),
            "'1e999999999999s' is too large for a 64-bit count of picoseconds: at most "
            "18446744073709551615 (about 213 days)");
}

TEST(UnitsTime, MalformedInput) {
  EXPECT_EQ(error_of(parse_time_ps, "-1us"), "negative time '-1us' is not allowed");
  EXPECT_EQ(error_of(parse_time_ps, "1.3"), "'1.3' needs a unit, e.g. 1.3us");
  EXPECT_EQ(error_of(parse_time_ps, ""), "empty value; expected a time such as 1.3us");
  EXPECT_EQ(error_of(parse_time_ps, "us"),
            "'us' is not a number with a unit; expected a time such as 1.3us");
  EXPECT_EQ(error_of(parse_time_ps, "5 minutes"),
            "unknown unit 'minutes' in '5 minutes'; expected one of ps, ns, us, \xC2\xB5s, "
            "\xCE\xBCs, ms, s");
  EXPECT_EQ(error_of(parse_time_ps, "5US"),
            "unknown unit 'US' in '5US'; expected one of ps, ns, us, \xC2\xB5s, \xCE\xBCs, ms, s");
  EXPECT_EQ(error_of(parse_time_ps, "1GiB"),
            "'1GiB' is a data size, expected a time such as 1.3us");
  EXPECT_EQ(error_of(parse_time_ps, "1Gbps"),
            "'1Gbps' is a bandwidth, expected a time such as 1.3us");
  EXPECT_NE(error_of(parse_time_ps, "1.2.3us"), "");
  EXPECT_NE(error_of(parse_time_ps, "1e"), "");
}

TEST(UnitsBytes, ByteAndBitUnits) {
  EXPECT_EQ(parse_bytes("1KB"), 1000u);
  EXPECT_EQ(parse_bytes("1kB"), 1000u);
  EXPECT_EQ(parse_bytes("1KiB"), 1024u);
  EXPECT_EQ(parse_bytes("1GiB"), 1'073'741'824u);
  EXPECT_EQ(parse_bytes("1.5KiB"), 1536u);
  EXPECT_EQ(parse_bytes("0.5MiB"), 524'288u);
  EXPECT_EQ(parse_bytes("2PiB"), 2ull << 50);
  EXPECT_EQ(parse_bytes("3PB"), 3'000'000'000'000'000u);
  EXPECT_EQ(parse_bytes("64 B"), 64u);
  EXPECT_EQ(parse_bytes("8Gb"), 1'000'000'000u);
  EXPECT_EQ(parse_bytes("8b"), 1u);
  EXPECT_EQ(parse_bytes("1Kib"), 128u);
  EXPECT_EQ(parse_bytes("16Kb"), 2000u);
  EXPECT_EQ(parse_bytes("1Pib"), 1ull << 47);
}

TEST(UnitsBytes, Errors) {
  EXPECT_EQ(error_of(parse_bytes, "12b"), "'12b' is not a whole number of bytes (12 bits)");
  EXPECT_EQ(error_of(parse_bytes, "1.5b"), "'1.5b' is not a whole number of bytes");
  EXPECT_EQ(error_of(parse_bytes, "0.5B"), "'0.5B' is not a whole number of bytes");
  EXPECT_EQ(error_of(parse_bytes, "0.1KiB"), "'0.1KiB' is not a whole number of bytes");
  EXPECT_EQ(error_of(parse_bytes, "64"), "'64' needs a unit, e.g. 64B");
  EXPECT_EQ(error_of(parse_bytes, "-1B"), "negative data size '-1B' is not allowed");
  EXPECT_EQ(error_of(parse_bytes, "16384PiB"),
            "'16384PiB' is too large for a 64-bit count of bytes: at most "
            "18446744073709551615 (about 16EiB)");
  EXPECT_EQ(parse_bytes("16383.9999999999990905052982270717620849609375PiB"), kMax - 1023);
  EXPECT_EQ(error_of(parse_bytes, "1us"), "'1us' is a time, expected a data size such as 1GiB");
  EXPECT_EQ(error_of(parse_bytes, "50GB/s"),
            "'50GB/s' is a bandwidth, expected a data size such as 1GiB");
  EXPECT_EQ(error_of(parse_bytes, "1mb"),
            "unknown unit 'mb' in '1mb'; expected one of B, kB, KB, MB, GB, TB, PB, KiB, MiB, "
            "GiB, TiB, PiB, b, kb, Kb, Mb, Gb, Tb, Pb, Kib, Mib, Gib, Tib, Pib");
}

TEST(UnitsBandwidth, BitAndByteRates) {
  EXPECT_EQ(parse_bandwidth_bps("400Gbps"), 400'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("400 Gb/s"), 400'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("50GB/s"), 400'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("50GBps"), 400'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("12.8Tbps"), 12'800'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("1kbps"), 1000u);
  EXPECT_EQ(parse_bandwidth_bps("1Kb/s"), 1000u);
  EXPECT_EQ(parse_bandwidth_bps("1B/s"), 8u);
  EXPECT_EQ(parse_bandwidth_bps("1KiB/s"), 8192u);
  EXPECT_EQ(parse_bandwidth_bps("1GiB/s"), 8ull << 30);
  EXPECT_EQ(parse_bandwidth_bps("1Gibps"), 1ull << 30);
  EXPECT_EQ(parse_bandwidth_bps("1PiB/s"), 8ull << 50);
  EXPECT_EQ(parse_bandwidth_bps("1.5kbps"), 1500u);
}

TEST(UnitsBandwidth, Errors) {
  EXPECT_EQ(error_of(parse_bandwidth_bps, "400"), "'400' needs a unit, e.g. 400Gbps");
  EXPECT_EQ(error_of(parse_bandwidth_bps, "0.5bps"),
            "'0.5bps' is not a whole number of bits per second");
  EXPECT_EQ(error_of(parse_bandwidth_bps, "400GB"),
            "'400GB' is a data size, expected a bandwidth such as 400Gbps");
  EXPECT_EQ(error_of(parse_bandwidth_bps, "1ns"),
            "'1ns' is a time, expected a bandwidth such as 400Gbps");
  EXPECT_EQ(error_of(parse_bandwidth_bps, "3000PB/s"),
            "'3000PB/s' is too large for a 64-bit count of bits per second: at most "
            "18446744073709551615 (about 18.4Ebps)");
  // Case matters: "gbps" is not a unit.
  EXPECT_EQ(error_of(parse_bandwidth_bps, "1gbps").rfind("unknown unit 'gbps' in '1gbps'", 0), 0u);
  EXPECT_EQ(error_of(parse_bandwidth_bps, "-400Gbps"),
            "negative bandwidth '-400Gbps' is not allowed");
}

TEST(UnitsFormat, Time) {
  EXPECT_EQ(format_time_ps(0), "0ps");
  EXPECT_EQ(format_time_ps(999), "999ps");
  EXPECT_EQ(format_time_ps(1500), "1.5ns");
  EXPECT_EQ(format_time_ps(1'300'000), "1.3us");
  EXPECT_EQ(format_time_ps(1'000'000'000), "1ms");
  EXPECT_EQ(format_time_ps(2'000'000'000'000), "2s");
  EXPECT_EQ(format_time_ps(1'234'567), "1.235us");  // 4 significant digits, rounded
  EXPECT_EQ(format_time_ps(1'234'449), "1.234us");
  EXPECT_EQ(format_time_ps(999'960), "1us");  // rounding carries into the next unit
  EXPECT_EQ(format_time_ps(12'345'678), "12.35us");
  EXPECT_EQ(format_time_ps(3'600'000'000'000'000), "3600s");
  EXPECT_EQ(format_time_ps(kMax), "18446744s");
}

TEST(UnitsFormat, Bytes) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(1000), "1kB");
  EXPECT_EQ(format_bytes(1023), "1.023kB");
  EXPECT_EQ(format_bytes(1024), "1KiB");
  EXPECT_EQ(format_bytes(1536), "1.5KiB");
  EXPECT_EQ(format_bytes(1'073'741'824), "1GiB");
  EXPECT_EQ(format_bytes(1'000'000), "1MB");
  EXPECT_EQ(format_bytes(2'048'000), "2.048MB");
  EXPECT_EQ(format_bytes(1'234'567), "1.235MB");
  EXPECT_EQ(format_bytes(1ull << 50), "1PiB");
}

TEST(UnitsFormat, Bandwidth) {
  EXPECT_EQ(format_bandwidth_bps(0), "0bps");
  EXPECT_EQ(format_bandwidth_bps(400'000'000'000), "400Gbps");
  EXPECT_EQ(format_bandwidth_bps(12'800'000'000'000), "12.8Tbps");
  EXPECT_EQ(format_bandwidth_bps(100'000'000), "100Mbps");
  EXPECT_EQ(format_bandwidth_bps(1'600'000'000'000'000), "1.6Pbps");
}

TEST(UnitsFormat, ExactValuesRoundTrip) {
  for (std::uint64_t ps : {0ull, 1ull, 999ull, 1500ull, 1'300'000ull, 250'000'000ull,
                           42'000'000'000'000ull, 1'234'000ull}) {
    EXPECT_EQ(parse_time_ps(format_time_ps(ps)), ps) << format_time_ps(ps);
  }
  for (std::uint64_t b : {0ull, 1ull, 1000ull, 1024ull, 1536ull, 1'000'000ull, 1'073'741'824ull,
                          3ull << 40, 5'000'000'000'000'000ull, 1'048'576ull * 1023}) {
    EXPECT_EQ(parse_bytes(format_bytes(b)), b) << format_bytes(b);
  }
  for (std::uint64_t bps :
       {0ull, 8ull, 400'000'000'000ull, 12'800'000'000'000ull, 25'000'000'000ull, 1'000ull}) {
    EXPECT_EQ(parse_bandwidth_bps(format_bandwidth_bps(bps)), bps) << format_bandwidth_bps(bps);
  }
}

TEST(Format, ExactTimesAndCapacities) {
  EXPECT_EQ(format_time_ps_exact(1'234'567), "1.234567us");
  EXPECT_EQ(format_time_ps_exact(1'300'000), "1.3us");
  EXPECT_EQ(format_time_ps_exact(18'446'744'073'709'551'615ull), "18446744.073709551615s");
  EXPECT_EQ(format_time_ps(1'234'567), "1.235us");
  EXPECT_EQ(format_capacity_bps(12.8e12), "12.8Tbps");
  EXPECT_EQ(format_capacity_bps(838.8608e15), "838.9Pbps");
  EXPECT_EQ(format_capacity_bps(1.5e18), "1.5Ebps");
  EXPECT_EQ(format_capacity_bps(2.749e19), "27.49Ebps");
}

}  // namespace
}  // namespace sipsim::base
