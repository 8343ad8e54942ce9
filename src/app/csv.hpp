#pragma once
// CSV as `sipsim sweep` and `collect` write it (docs/studies.md, "CSV"):
// RFC 4180 quoting, and a cell that a spreadsheet would run as a formula
// (its text begins with =, +, -, @, a tab or a carriage return) written with
// a leading apostrophe, as OWASP advises; so is a cell that begins with an
// apostrophe, so that reading strips exactly one. Plain numbers (-5, +1.5e3)
// are written as they are.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sipsim::app {

// One cell, encoded.
std::string csv_field(std::string_view s);
// Cells encoded and joined by commas, with a newline.
std::string csv_row(const std::vector<std::string>& cells);
// One record split into decoded cells. Throws std::invalid_argument on a
// quote left open or a quote in the middle of an unquoted cell.
std::vector<std::string> csv_split(std::string_view line);

}  // namespace sipsim::app
