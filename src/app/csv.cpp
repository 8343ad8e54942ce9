#include "csv.hpp"

#include "study_text.hpp"

namespace sipsim::app {

namespace {

// Whether a spreadsheet could take the cell for a formula, or reading would
// strip an apostrophe it did not add.
bool needs_apostrophe(std::string_view s) {
  if (s.empty()) return false;
  switch (s.front()) {
    case '=':
    case '@':
    case '\t':
    case '\r':
    case '\'':
      return true;
    case '+':
    case '-':
      return !plain_number(s);
    default:
      return false;
  }
}

}  // namespace

std::string csv_field(std::string_view s) {
  std::string text = needs_apostrophe(s) ? "'" + std::string(s) : std::string(s);
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_field(cells[i]);
  return out + "\n";
}

std::vector<std::string> csv_split(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> out(1);
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      if (!out.back().empty() || was_quoted) {
        throw std::invalid_argument("a quote inside an unquoted cell");
      }
      quoted = was_quoted = true;
    } else if (c == ',') {
      out.emplace_back();
      was_quoted = false;
    } else {
      if (was_quoted) throw std::invalid_argument("text after a quoted cell");
      out.back() += c;
    }
  }
  if (quoted) throw std::invalid_argument("a quoted cell is not closed on its line");
  for (std::string& cell : out) {
    if (!cell.empty() && cell.front() == '\'') cell.erase(0, 1);
  }
  return out;
}

}  // namespace sipsim::app
