#include "sipsim/base/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>

#include "sipsim/base/text.hpp"

namespace sipsim::base {
namespace {

// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
__extension__ typedef unsigned __int128 u128;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

enum class Dimension { kTime, kBytes, kBandwidth };

// Every unit factor is 2^two * 5^five (negative powers for bits in bytes), so
// a value M * 10^e * factor is an integer exactly when, after moving the
// factors 2 and 5 out of M, both exponents are non-negative.
struct Unit {
  std::string_view name;
  int two;
  int five;
};

constexpr Unit kTimeUnits[] = {
    {"ps", 0, 0},        {"ns", 3, 3}, {"us", 6, 6},  {"\xC2\xB5s", 6, 6},
    {"\xCE\xBCs", 6, 6}, {"ms", 9, 9}, {"s", 12, 12},
};

constexpr Unit kByteUnits[] = {
    {"B", 0, 0},    {"kB", 3, 3},   {"KB", 3, 3},   {"MB", 6, 6},   {"GB", 9, 9},   {"TB", 12, 12},
    {"PB", 15, 15}, {"KiB", 10, 0}, {"MiB", 20, 0}, {"GiB", 30, 0}, {"TiB", 40, 0}, {"PiB", 50, 0},
    {"b", -3, 0},   {"kb", 0, 3},   {"Kb", 0, 3},   {"Mb", 3, 6},   {"Gb", 6, 9},   {"Tb", 9, 12},
    {"Pb", 12, 15}, {"Kib", 7, 0},  {"Mib", 17, 0}, {"Gib", 27, 0}, {"Tib", 37, 0}, {"Pib", 47, 0},
};

constexpr Unit kBandwidthUnits[] = {
    {"bps", 0, 0},    {"kbps", 3, 3},   {"Kbps", 3, 3},   {"Mbps", 6, 6},   {"Gbps", 9, 9},
    {"Tbps", 12, 12}, {"Pbps", 15, 15}, {"b/s", 0, 0},    {"kb/s", 3, 3},   {"Kb/s", 3, 3},
    {"Mb/s", 6, 6},   {"Gb/s", 9, 9},   {"Tb/s", 12, 12}, {"Pb/s", 15, 15}, {"Kibps", 10, 0},
    {"Mibps", 20, 0}, {"Gibps", 30, 0}, {"Tibps", 40, 0}, {"Kib/s", 10, 0}, {"Mib/s", 20, 0},
    {"Gib/s", 30, 0}, {"Tib/s", 40, 0}, {"Bps", 3, 0},    {"kBps", 6, 3},   {"KBps", 6, 3},
    {"MBps", 9, 6},   {"GBps", 12, 9},  {"TBps", 15, 12}, {"PBps", 18, 15}, {"B/s", 3, 0},
    {"kB/s", 6, 3},   {"KB/s", 6, 3},   {"MB/s", 9, 6},   {"GB/s", 12, 9},  {"TB/s", 15, 12},
    {"PB/s", 18, 15}, {"KiBps", 13, 0}, {"MiBps", 23, 0}, {"GiBps", 33, 0}, {"TiBps", 43, 0},
    {"KiB/s", 13, 0}, {"MiB/s", 23, 0}, {"GiB/s", 33, 0}, {"TiB/s", 43, 0}, {"Pibps", 50, 0},
    {"Pib/s", 50, 0}, {"PiBps", 53, 0}, {"PiB/s", 53, 0},
};

struct DimensionInfo {
  std::span<const Unit> units;
  std::string_view noun;       // "a time"
  std::string_view example;    // "1.3us"
  std::string_view hint_unit;  // appended to a bare number: "400" -> "400Gbps"
  std::string_view base;       // "picoseconds"
  std::string_view largest;    // 2^64 - 1 of the base unit, roughly: "about 213 days"
};

const DimensionInfo& info(Dimension d) {
  static const DimensionInfo kInfo[] = {
      {kTimeUnits, "a time", "1.3us", "us", "picoseconds", "about 213 days"},
      {kByteUnits, "a data size", "1GiB", "B", "bytes", "about 16EiB"},
      {kBandwidthUnits, "a bandwidth", "400Gbps", "Gbps", "bits per second", "about 18.4Ebps"},
  };
  return kInfo[static_cast<int>(d)];
}

const Unit* find_unit(Dimension d, std::string_view name) {
  for (const Unit& u : info(d).units) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// Decimal digit string (no leading zeros) divided by a small divisor.
std::string divide(const std::string& digits, int divisor) {
  std::string out;
  int rem = 0;
  for (char c : digits) {
    int cur = rem * 10 + (c - '0');
    int q = cur / divisor;
    rem = cur % divisor;
    if (!out.empty() || q != 0) out.push_back(static_cast<char>('0' + q));
  }
  return out;
}

// Multiplies by 2^two * 5^five; nullopt on overflow. Both exponents >= 0.
std::optional<std::uint64_t> scale(std::uint64_t v, int two, int five) {
  u128 r = v;
  for (int i = 0; i < two; ++i) {
    r *= 2;
    if (r > kMax) return std::nullopt;
  }
  for (int i = 0; i < five; ++i) {
    r *= 5;
    if (r > kMax) return std::nullopt;
  }
  return static_cast<std::uint64_t>(r);
}

std::optional<std::uint64_t> to_uint64(const std::string& digits) {
  if (digits.size() > 20) return std::nullopt;
  u128 v = 0;
  for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  if (v > kMax) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

// Caps work on absurd inputs; a whole 64-bit value never needs this many.
constexpr std::size_t kMaxDigits = 200;
constexpr int kMaxExponent = 100000;

std::uint64_t parse(std::string_view text, Dimension dim) {
  const DimensionInfo& di = info(dim);
  std::string_view s = text;
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  const std::string shown = excerpt(s);  // for messages only
  if (s.empty()) {
    throw UnitError("empty value; expected " + std::string(di.noun) + " such as " +
                    std::string(di.example));
  }
  if (s.front() == '-') {
    throw UnitError("negative " + std::string(di.noun.substr(di.noun.find(' ') + 1)) + " " +
                    quoted(shown) + " is not allowed");
  }

  // Number: [+] digits [. digits] [e [+-] digits]
  std::size_t i = 0;
  if (s[i] == '+') ++i;
  std::string digits;  // integer and fraction digits together
  int exponent = 0;
  bool any_digit = false;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    digits.push_back(s[i]);
    any_digit = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      digits.push_back(s[i]);
      --exponent;
      any_digit = true;
    }
  }
  if (!any_digit) {
    throw UnitError(quoted(shown) + " is not a number with a unit; expected " +
                    std::string(di.noun) + " such as " + std::string(di.example));
  }
  // An 'e' only starts an exponent when digits follow; no unit begins with e.
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    bool negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
    if (j < s.size() && is_digit(s[j])) {
      int e = 0;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (e < kMaxExponent) e = e * 10 + (s[j] - '0');
      }
      exponent += negative ? -e : e;
      i = j;
    }
  }
  const std::string_view number = s.substr(0, i);
  std::string_view unit_name = s.substr(i);
  while (!unit_name.empty() && (unit_name.front() == ' ' || unit_name.front() == '\t')) {
    unit_name.remove_prefix(1);
  }

  if (unit_name.empty()) {
    throw UnitError(quoted(shown) + " needs a unit, e.g. " + std::string(number) +
                    std::string(di.hint_unit));
  }
  const Unit* unit = find_unit(dim, unit_name);
  if (unit == nullptr) {
    for (Dimension other : {Dimension::kTime, Dimension::kBytes, Dimension::kBandwidth}) {
      if (other != dim && find_unit(other, unit_name) != nullptr) {
        throw UnitError(quoted(shown) + " is " + std::string(info(other).noun) + ", expected " +
                        std::string(di.noun) + " such as " + std::string(di.example));
      }
    }
    std::string list;
    for (const Unit& u : di.units) {
      if (!list.empty()) list += ", ";
      list += u.name;
    }
    throw UnitError("unknown unit " + quoted(unit_name) + " in " + quoted(shown) +
                    "; expected one of " + list);
  }

  // Exact value = digits * 10^exponent * 2^two * 5^five.
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  digits.erase(0, first);
  int two = unit->two + exponent;
  int five = unit->five + exponent;
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++two;
    ++five;
  }
  if (digits.size() > kMaxDigits) {
    throw UnitError(quoted(shown) + " has too many digits (at most " + std::to_string(kMaxDigits) +
                    " significant digits)");
  }
  // Move factors 2 and 5 out of the digits so the rest is coprime to 10.
  for (;;) {
    const char last = digits.back();
    if (last == '0') {
      digits.pop_back();
      ++two;
      ++five;
    } else if ((last - '0') % 2 == 0) {
      digits = divide(digits, 2);
      ++two;
    } else if (last == '5') {
      digits = divide(digits, 5);
      ++five;
    } else {
      break;
    }
  }

  if (two < 0 || five < 0) {
    std::string msg = quoted(shown) + " is not a whole number of " + std::string(di.base);
    // Bit units: say how many bits that is when it is a whole number.
    const bool bit_unit = dim == Dimension::kBytes && unit_name.back() == 'b';
    if (bit_unit && two + 3 >= 0 && five >= 0) {
      if (auto m = to_uint64(digits)) {
        if (auto bits = scale(*m, two + 3, five)) {
          msg += " (" + std::to_string(*bits) + " bits)";
        }
      }
    }
    throw UnitError(msg);
  }
  std::optional<std::uint64_t> value;
  if (auto m = to_uint64(digits)) value = scale(*m, two, five);
  if (!value) {
    throw UnitError(quoted(shown) + " is too large for a 64-bit count of " + std::string(di.base) +
                    ": at most 18446744073709551615 (" + std::string(di.largest) + ")");
  }
  return *value;
}

struct Scale {
  std::string_view name;
  std::uint64_t factor;
};

constexpr Scale kTimeScales[] = {
    {"ps", 1}, {"ns", 1'000}, {"us", 1'000'000}, {"ms", 1'000'000'000}, {"s", 1'000'000'000'000}};
constexpr Scale kDecimalByteScales[] = {{"B", 1},
                                        {"kB", 1'000},
                                        {"MB", 1'000'000},
                                        {"GB", 1'000'000'000},
                                        {"TB", 1'000'000'000'000},
                                        {"PB", 1'000'000'000'000'000}};
constexpr Scale kBinaryByteScales[] = {{"B", 1},
                                       {"KiB", 1ULL << 10},
                                       {"MiB", 1ULL << 20},
                                       {"GiB", 1ULL << 30},
                                       {"TiB", 1ULL << 40},
                                       {"PiB", 1ULL << 50}};
constexpr Scale kBandwidthScales[] = {{"bps", 1},
                                      {"kbps", 1'000},
                                      {"Mbps", 1'000'000},
                                      {"Gbps", 1'000'000'000},
                                      {"Tbps", 1'000'000'000'000},
                                      {"Pbps", 1'000'000'000'000'000},
                                      {"Ebps", 1'000'000'000'000'000'000}};

constexpr int kSignificant = 4;

int digit_count(std::uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

std::uint64_t pow10(int n) {
  std::uint64_t r = 1;
  for (int k = 0; k < n; ++k) r *= 10;
  return r;
}

struct Rendering {
  std::string text;
  bool exact;
};

// Renders value in the largest scale it reaches, with the integer part in full
// and at most enough fraction digits for kSignificant significant digits.
Rendering render(std::uint64_t value, std::span<const Scale> scales,
                 int significant = kSignificant) {
  std::size_t idx = 0;
  for (std::size_t k = 0; k < scales.size(); ++k) {
    if (value >= scales[k].factor) idx = k;
  }
  const std::uint64_t factor = scales[idx].factor;
  std::uint64_t whole = value / factor;
  std::uint64_t rem = value % factor;
  const int frac_digits = std::max(0, significant - digit_count(whole));
  // fraction = floor(rem / factor * 10^frac_digits), computed exactly
  std::uint64_t frac = 0;
  u128 r = rem;
  for (int k = 0; k < frac_digits; ++k) {
    r *= 10;
    frac = frac * 10 + static_cast<std::uint64_t>(r / factor);
    r %= factor;
  }
  const bool exact = r == 0;
  if (!exact && 2 * r >= factor) {  // round half up, carrying into the integer part
    if (++frac == pow10(frac_digits)) {
      frac = 0;
      ++whole;
    }
  }
  // 999.96us rounds to 1000us; say 1ms instead.
  if (!exact && frac == 0 && idx + 1 < scales.size() && whole * factor == scales[idx + 1].factor) {
    return {"1" + std::string(scales[idx + 1].name), false};
  }
  std::string text = std::to_string(whole);
  if (frac != 0) {
    std::string f = std::to_string(frac);
    f.insert(0, static_cast<std::size_t>(frac_digits) - f.size(), '0');
    while (f.back() == '0') f.pop_back();
    text += "." + f;
  }
  return {text + std::string(scales[idx].name), exact};
}

}  // namespace

std::uint64_t parse_time_ps(std::string_view text) {
  return parse(text, Dimension::kTime);
}

std::uint64_t parse_bytes(std::string_view text) {
  return parse(text, Dimension::kBytes);
}

std::uint64_t parse_bandwidth_bps(std::string_view text) {
  return parse(text, Dimension::kBandwidth);
}

std::string format_time_ps(std::uint64_t ps) {
  return render(ps, kTimeScales).text;
}

std::string format_time_ps_exact(std::uint64_t ps) {
  return render(ps, kTimeScales, 20).text;  // 20 digits: every uint64 exactly
}

std::string format_bytes(std::uint64_t bytes) {
  // Binary units read better for powers of two (1GiB, 1.5KiB) but only when exact.
  if (bytes >= 1024) {
    Rendering binary = render(bytes, kBinaryByteScales);
    if (binary.exact) return binary.text;
  }
  return render(bytes, kDecimalByteScales).text;
}

std::string format_bandwidth_bps(std::uint64_t bps) {
  return render(bps, kBandwidthScales).text;
}

std::string format_capacity_bps(double bps) {
  if (!(bps >= 0)) return "0bps";
  if (bps < 1.8e19) return format_bandwidth_bps(static_cast<std::uint64_t>(std::llround(bps)));
  char buf[32];  // beyond 64 bits: 4 significant digits of exabits per second
  std::snprintf(buf, sizeof buf, "%.4gEbps", bps / 1e18);
  return buf;
}

}  // namespace sipsim::base
