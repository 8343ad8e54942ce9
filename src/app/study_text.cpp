#include "study_text.hpp"

namespace sipsim::app {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

// The digits at the front of s (advancing it); how many.
std::size_t take_digits(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && is_digit(s[n])) ++n;
  s.remove_prefix(n);
  return n;
}

// ":" then 1-2 digits, up to `most` times.
bool colon_fields(std::string_view s, int most) {
  for (int i = 0; i < most && !s.empty(); ++i) {
    if (s.front() != ':') return false;
    s.remove_prefix(1);
    const std::size_t n = take_digits(s);
    if (n < 1 || n > 2) return false;
  }
  return s.empty();
}

}  // namespace

bool key_path(std::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  bool after_dot = true;
  for (const char c : s) {
    if (c == '.') {
      if (after_dot) return false;
      after_dot = true;
    } else if (name_char(c)) {
      after_dot = false;
    } else {
      return false;
    }
  }
  return !after_dot;
}

bool name_token(std::string_view s, std::size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (const char c : s) {
    if (!name_char(c)) return false;
  }
  return true;
}

bool digits(std::string_view s, std::size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (const char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}

bool plain_number(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  const std::size_t whole = take_digits(s);
  std::size_t fraction = 0;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    fraction = take_digits(s);
  }
  if (whole == 0 && fraction == 0) return false;
  if (!s.empty() && (s.front() == 'e' || s.front() == 'E')) {
    s.remove_prefix(1);
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
    if (take_digits(s) == 0) return false;
  }
  return s.empty();
}

bool slurm_time(std::string_view s) {
  const std::size_t first = take_digits(s);
  if (first < 1 || first > 9) return false;
  if (!s.empty() && s.front() == '-') {  // days-hours[:minutes[:seconds]]
    s.remove_prefix(1);
    const std::size_t hours = take_digits(s);
    if (hours < 1 || hours > 2) return false;
    return colon_fields(s, 2);
  }
  return colon_fields(s, 2);
}

}  // namespace sipsim::app
