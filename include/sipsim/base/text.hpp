#pragma once
// Checks and cuts for text that came from a user's file and will reach a
// message, a script, a CSV cell or another file.
#include <optional>
#include <string>
#include <string_view>

namespace sipsim::base {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF).
bool valid_utf8(std::string_view s);

// The offset of the first control character (U+0000-U+001F or U+007F:
// newline, carriage return, tab, escape...) in `s`, if any.
std::optional<std::size_t> control_char(std::string_view s);

// What is wrong with `s` as one line of printable text: "" when nothing,
// else e.g. "holds a newline (byte 12)" or "is not valid UTF-8".
std::string one_line_problem(std::string_view s);

// `s` cut for quoting in a message: its first line only, at most `max`
// bytes (never splitting a UTF-8 character), with "..." where it was cut.
// A foreign file named by mistake must not be printed whole.
std::string excerpt(std::string_view s, std::size_t max = 60);

}  // namespace sipsim::base
