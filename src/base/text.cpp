#include "sipsim/base/text.hpp"

#include <cstdio>

namespace sipsim::base {

namespace {

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(c));
  return buf;
}

// The length of the UTF-8 sequence at s[i], or 0 when it is not well formed
// (RFC 3629 §4's table).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::optional<std::size_t> control_char(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return i;
  }
  return std::nullopt;
}

std::string one_line_problem(std::string_view s) {
  if (const auto at = control_char(s)) {
    const char c = s[*at];
    const std::string what =
        c == '\n'   ? "a newline"
        : c == '\r' ? "a carriage return"
        : c == '\t' ? "a tab"
                    : "the control character 0x" + hex_byte(static_cast<unsigned char>(c));
    return "holds " + what + " (byte " + std::to_string(*at + 1) + ")";
  }
  if (!valid_utf8(s)) return "is not valid UTF-8";
  return "";
}

std::string excerpt(std::string_view s, std::size_t max) {
  std::size_t end = s.find_first_of("\r\n");
  const bool more_lines = end != std::string_view::npos;
  if (!more_lines) end = s.size();
  bool cut = more_lines && s.find_first_not_of("\r\n", end) != std::string_view::npos;
  if (end > max) {
    end = max;
    // Back to the start of a UTF-8 character.
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    cut = true;
  }
  // Control characters and bytes that are not UTF-8 are shown as \xNN, not
  // sent to a terminal or a table as they are.
  std::string shown;
  for (std::size_t i = 0; i < end;) {
    const auto u = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0 || u < 0x20 || u == 0x7F || i + n > end) {
      shown += "\\x" + hex_byte(u);
      ++i;
    } else {
      shown.append(s.substr(i, n));
      i += n;
    }
  }
  return cut ? shown + "..." : shown;
}

}  // namespace sipsim::base
