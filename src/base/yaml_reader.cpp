#include "sipsim/base/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "sipsim/base/files.hpp"
#include "sipsim/base/text.hpp"
#include "sipsim/base/units.hpp"

namespace sipsim::base {

// Where the values of a document came from: needed to turn a node's mark (or
// its key path, for --set values whose marks are meaningless) into a location.
struct Source {
  struct Override {
    std::string path;  // "a.b.c", as Value::path() spells it
    std::string raw;   // "a.b.c=value", as given on the command line
  };
  std::string name;
  std::string text;
  std::vector<Override> overrides;  // in the order applied
};

namespace {

// The deepest nesting of maps and lists a scenario may have (docs/scenarios.md);
// the scenario format needs 4.
constexpr std::size_t kMaxDepth = 32;

std::string join(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return path + "." + std::string(key);
}

// True when `path` names `prefix` itself or something inside it.
bool at_or_under(std::string_view path, std::string_view prefix) {
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  if (path.size() == prefix.size()) return true;
  const char next = path[prefix.size()];
  return next == '.' || next == '[';
}

std::string mark_location(const std::string& name, const YAML::Mark& mark) {
  if (mark.is_null()) return name;
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string location_of(const Source& src, const std::string& path, const YAML::Mark& mark) {
  if (path.empty()) return src.name + ":1:1";
  // The last override of a path is the one in effect.
  for (auto it = src.overrides.rbegin(); it != src.overrides.rend(); ++it) {
    if (at_or_under(path, it->path)) return "--set " + it->raw;
  }
  if (!mark.is_null()) return mark_location(src.name, mark);
  // A map that an override created on the way to its key has no mark.
  for (const Source::Override& o : src.overrides) {
    if (at_or_under(o.path, path)) return "--set " + o.raw;
  }
  return src.name;
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "'" + excerpt(node.Scalar()) + "'";
    default:
      return "an empty value";
  }
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

// yaml-cpp 0.7 keeps both pairs of a repeated key, so look for them ourselves.
void check_keys(const YAML::Node& node, const std::string& path, const Source& src) {
  if (node.IsMap()) {
    std::unordered_map<std::string, int> first_line;
    for (const auto& kv : node) {
      const YAML::Node& key = kv.first;
      if (!key.IsScalar()) {
        throw ScenarioError(mark_location(src.name, key.Mark()), path,
                            "mapping keys must be plain names, got " + describe(key));
      }
      const std::string child = join(path, key.Scalar());
      auto [it, inserted] = first_line.emplace(key.Scalar(), key.Mark().line + 1);
      if (!inserted) {
        throw ScenarioError(mark_location(src.name, key.Mark()), child,
                            "duplicate key '" + excerpt(key.Scalar()) + "' (first at line " +
                                std::to_string(it->second) + ")");
      }
      check_keys(kv.second, child, src);
    }
  } else if (node.IsSequence()) {
    std::size_t i = 0;
    for (const auto& element : node) {
      check_keys(element, path + "[" + std::to_string(i++) + "]", src);
    }
  }
}

constexpr const char* kNoAliases =
    "YAML aliases are not supported in scenario files (an alias '*name' repeats the node "
    "anchored '&name'); write the value out in full";

// The structure of a YAML text, checked from yaml-cpp's event parser before
// any node is built: one document, no aliases (yaml-cpp builds them as shared
// nodes, so nested ones expand exponentially when walked), at most
// kMaxDepth levels. Tracks the key path of the current node for the errors.
class Screen final : public YAML::EventHandler {
 public:
  // `locate` turns a mark into a location; `base` is the path of the root.
  Screen(std::function<std::string(const YAML::Mark&)> locate, std::string base)
      : locate_(std::move(locate)), base_(std::move(base)) {}

  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw ScenarioError(locate_(mark), "",
                          "a second YAML document starts here; a scenario file holds one "
                          "document (remove the '---' or '...' line and what follows it)");
    }
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { node(nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw ScenarioError(locate_(mark), node(nullptr), kNoAliases);
  }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    node(&value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    open(mark, false);
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    open(mark, true);
  }
  void OnMapEnd() override { stack_.pop_back(); }

 private:
  struct Frame {
    bool map = false;
    std::string path;
    bool want_key = true;
    std::string key;
    std::size_t index = 0;
  };

  // The path of the node that starts now; `scalar`: its value, if a scalar.
  std::string node(const std::string* scalar) {
    if (stack_.empty()) return base_;
    Frame& top = stack_.back();
    if (!top.map) return top.path + "[" + std::to_string(top.index++) + "]";
    if (top.want_key) {
      top.want_key = false;
      top.key = scalar != nullptr ? *scalar : "?";
      return join(top.path, top.key);
    }
    top.want_key = true;
    return join(top.path, top.key);
  }

  void open(const YAML::Mark& mark, bool map) {
    std::string path = node(nullptr);
    if (stack_.size() >= kMaxDepth) {
      throw ScenarioError(locate_(mark), path,
                          "nesting is deeper than " + std::to_string(kMaxDepth) +
                              " levels, the most a scenario file may have");
    }
    Frame frame;
    frame.map = map;
    frame.path = std::move(path);
    stack_.push_back(std::move(frame));
  }

  std::function<std::string(const YAML::Mark&)> locate_;
  std::string base_;
  std::vector<Frame> stack_;
  int documents_ = 0;
};

// The first line with a tab in its indentation, as a location, or "".
std::string tab_in_indentation(std::string_view text, const std::string& name) {
  std::size_t line = 1;
  for (std::size_t start = 0; start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(start, end - start);
    const std::size_t content = l.find_first_not_of(" \t\r");
    const std::size_t tab = l.find('\t');
    if (content != std::string_view::npos && tab < content) {
      return name + ":" + std::to_string(line) + ":" + std::to_string(tab + 1);
    }
    start = end + 1;
  }
  return "";
}

// Parses one YAML document after screening it (see Screen); yaml-cpp's errors
// become ScenarioErrors at their mark, their message after `syntax_prefix`.
// nullopt for a text without a document (empty, or only comments).
std::optional<YAML::Node> parse_checked(const std::string& text,
                                        const std::function<std::string(const YAML::Mark&)>& locate,
                                        const std::string& base, std::string_view syntax_prefix) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    Screen screen(locate, base);
    while (parser.HandleNextDocument(screen)) {
    }
    if (screen.documents() == 0) return std::nullopt;
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp refuses an alias to an unknown anchor before the handler sees it.
    if (e.msg == YAML::ErrorMsg::UNKNOWN_ANCHOR)
      throw ScenarioError(locate(e.mark), base, kNoAliases);
    throw ScenarioError(locate(e.mark), base, std::string(syntax_prefix) + e.msg);
  }
}

// Looks a key up without yaml-cpp's operator[], which inserts on non-const nodes.
std::optional<YAML::Node> find_child(const YAML::Node& map, std::string_view key) {
  for (const auto& kv : map) {
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return YAML::Node(kv.second);
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Applies "a.b.c=value". Writes into existing nodes in place (the file has no
// aliases, so no node is shared).
void apply_override(YAML::Node root, Source& src, const std::string& raw) {
  const std::string where = "--set " + raw;
  const std::size_t eq = raw.find('=');
  if (eq == std::string::npos) throw ScenarioError(where, "", "expected key.path=value");
  const std::string key_text(trim(std::string_view(raw).substr(0, eq)));
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = key_text.find('.', start);
    parts.push_back(key_text.substr(start, dot - start));
    if (parts.back().empty()) {
      throw ScenarioError(where, "", "empty key in path '" + key_text + "'");
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const std::string text = raw.substr(eq + 1);
  if (!tab_in_indentation(text, "").empty()) {
    throw ScenarioError(where, key_text, "tabs are not allowed in YAML indentation");
  }
  const YAML::Node value =
      parse_checked(
          text, [&](const YAML::Mark&) { return where; }, key_text, "invalid YAML value: ")
          .value_or(YAML::Node());

  YAML::Node cur = root;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    path = join(path, parts[i]);
    if (std::optional<YAML::Node> child = find_child(cur, parts[i])) {
      if (!child->IsMap()) {
        throw ScenarioError(
            where, path,
            "is " + describe(*child) + ", not a mapping, so '" + key_text + "' cannot be set");
      }
      cur.reset(*child);  // rebind the handle; assignment would overwrite the node
    } else {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      cur.reset(*find_child(cur, parts[i]));
    }
  }
  if (std::optional<YAML::Node> leaf = find_child(cur, parts.back())) {
    *leaf = value;  // keeps the key (and its order) in place
  } else {
    cur[parts.back()] = value;
  }
  src.overrides.push_back({key_text, raw});
}

bool parse_int(std::string_view s, std::int64_t& out, bool& out_of_range) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ptr != s.data() + s.size()) return false;
  out_of_range = ec == std::errc::result_out_of_range;
  return ec == std::errc() || out_of_range;
}

std::uint64_t with_units(const Value& v, std::uint64_t (*parse)(std::string_view),
                         std::string_view expected) {
  if (!v.is_scalar()) v.fail("expected " + std::string(expected) + ", got " + describe(v.yaml()));
  try {
    return parse(v.yaml().Scalar());
  } catch (const UnitError& e) {
    v.fail(e.what());
  }
}

}  // namespace

ScenarioError::ScenarioError(std::string location, std::string key_path, std::string message)
    : std::runtime_error(location + ": " + (key_path.empty() ? "" : key_path + ": ") + message),
      location_(std::move(location)),
      key_path_(std::move(key_path)),
      message_(std::move(message)) {}

std::string closest_match(std::string_view key, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  std::vector<std::size_t> prev, cur;
  for (const std::string& cand : candidates) {
    // Levenshtein distance, two rows.
    prev.resize(cand.size() + 1);
    cur.resize(cand.size() + 1);
    for (std::size_t j = 0; j <= cand.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= key.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= cand.size(); ++j) {
        const std::size_t substitute = prev[j - 1] + (key[i - 1] == cand[j - 1] ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
      }
      std::swap(prev, cur);
    }
    if (prev[cand.size()] < best_distance) {  // strict: ties keep the earlier candidate
      best_distance = prev[cand.size()];
      best = cand;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------
// Value

Value::Value(YAML::Node node, std::string path, std::shared_ptr<const Source> source)
    : node_(std::move(node)), path_(std::move(path)), source_(std::move(source)) {}

std::string Value::location() const {
  if (!source_) return mark_location("<unknown>", node_.Mark());  // built by hand, not loaded
  return location_of(*source_, path_, node_.Mark());
}

void Value::fail(std::string_view message) const {
  throw ScenarioError(location(), path_, std::string(message));
}

std::string Value::as_string() const {
  if (!is_scalar()) fail("expected a string, got " + describe(node_));
  return node_.Scalar();
}

std::int64_t Value::as_int() const {
  if (!is_scalar()) fail("expected an integer, got " + describe(node_));
  std::int64_t v = 0;
  bool out_of_range = false;
  if (!parse_int(node_.Scalar(), v, out_of_range)) {
    fail("expected an integer, got " + describe(node_));
  }
  if (out_of_range) {
    fail("integer " + excerpt(node_.Scalar()) + " is out of range: between " +
         std::to_string(std::numeric_limits<std::int64_t>::min()) + " and " +
         std::to_string(std::numeric_limits<std::int64_t>::max()));
  }
  return v;
}

std::uint64_t Value::as_uint() const {
  if (!is_scalar()) fail("expected an integer, got " + describe(node_));
  std::string_view s = node_.Scalar();
  std::int64_t ignored = 0;
  bool out_of_range = false;
  if (!s.empty() && s.front() == '-' && parse_int(s, ignored, out_of_range)) {
    fail("must not be negative");
  }
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s.front() == '+' || ptr != s.data() + s.size()) {
    fail("expected an integer, got " + describe(node_));
  }
  if (ec == std::errc::result_out_of_range) {
    fail("integer " + excerpt(node_.Scalar()) + " is out of range: at most " +
         std::to_string(std::numeric_limits<std::uint64_t>::max()));
  }
  return v;
}

std::uint32_t Value::as_u32(std::uint64_t min, std::uint64_t max) const {
  const std::uint64_t x = as_uint();
  if (x < min || x > max) {
    fail("must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return static_cast<std::uint32_t>(x);
}

double Value::as_double() const {
  if (!is_scalar()) fail("expected a number, got " + describe(node_));
  std::string_view s = node_.Scalar();
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const bool complete = !s.empty() && s.front() != '+' && ptr == s.data() + s.size();
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool special =
      lower.find("inf") != std::string::npos || lower.find("nan") != std::string::npos;
  if (special) fail("expected a finite number, got " + describe(node_));
  if (!complete) fail("expected a number, got " + describe(node_));
  if (ec == std::errc::result_out_of_range || !std::isfinite(v)) {
    fail("number " + excerpt(node_.Scalar()) +
         " is out of range: its magnitude must be 0 or between 2.2e-308 and 1.8e308");
  }
  return v;
}

bool Value::as_bool() const {
  if (is_scalar()) {
    if (node_.Scalar() == "true") return true;
    if (node_.Scalar() == "false") return false;
  }
  fail("expected true or false, got " + describe(node_));
}

std::uint64_t Value::as_time_ps() const {
  return with_units(*this, parse_time_ps, "a time such as 1.3us");
}

std::uint64_t Value::as_bytes() const {
  return with_units(*this, parse_bytes, "a data size such as 1GiB");
}

std::uint64_t Value::as_bandwidth_bps() const {
  return with_units(*this, parse_bandwidth_bps, "a bandwidth such as 400Gbps");
}

std::uint64_t Value::as_positive_bandwidth_bps() const {
  const std::uint64_t r = as_bandwidth_bps();
  if (r == 0) fail("must be greater than 0");
  return r;
}

std::string Value::as_enum(const std::vector<std::string>& choices) const {
  const std::string expected = "expected one of " + quoted_list(choices);
  if (!is_scalar()) fail(expected + ", got " + describe(node_));
  const std::string& s = node_.Scalar();
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  std::string message = "unknown value '" + excerpt(s) + "'; " + expected;
  if (std::string guess = closest_match(s, choices); !guess.empty()) {
    message += "; did you mean '" + guess + "'?";
  }
  fail(message);
}

MapReader Value::as_map() const {
  return MapReader(*this);
}

std::vector<Value> Value::as_list() const {
  if (!is_list()) fail("expected a list");
  std::vector<Value> out;
  out.reserve(node_.size());
  for (const auto& element : node_) {
    out.emplace_back(YAML::Node(element), path_ + "[" + std::to_string(out.size()) + "]", source_);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// MapReader

MapReader::MapReader(Value value) : value_(std::move(value)) {
  if (!value_.is_map()) value_.fail("expected a mapping");
}

bool MapReader::has(std::string_view key) {
  return optional(key).has_value();
}

Value MapReader::required(std::string_view key) {
  if (std::optional<Value> v = optional(key)) return *std::move(v);
  // A misspelt required key is better reported where the typo is.
  for (const auto& kv : value_.yaml()) {
    const std::string& present = kv.first.Scalar();
    if (std::find(known_.begin(), known_.end(), present) != known_.end()) continue;
    // Very short keys are all "close" to each other: no guessing there.
    if (present.size() < 4 || closest_match(present, {std::string(key)}).empty()) continue;
    const std::string path = join(value_.path(), present);
    throw ScenarioError(location_of(*value_.source_, path, kv.first.Mark()), path,
                        "unknown key; did you mean '" + std::string(key) + "'?");
  }
  throw ScenarioError(value_.location(), join(value_.path(), key), "missing required key");
}

std::optional<Value> MapReader::optional(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  if (std::optional<YAML::Node> child = find_child(value_.yaml(), key)) {
    return Value(*child, join(value_.path(), key), value_.source_);
  }
  return std::nullopt;
}

std::string MapReader::get_string(std::string_view key, std::string_view fallback) {
  auto v = optional(key);
  return v ? v->as_string() : std::string(fallback);
}

std::int64_t MapReader::get_int(std::string_view key, std::int64_t fallback) {
  auto v = optional(key);
  return v ? v->as_int() : fallback;
}

std::uint64_t MapReader::get_uint(std::string_view key, std::uint64_t fallback) {
  auto v = optional(key);
  return v ? v->as_uint() : fallback;
}

std::uint32_t MapReader::get_u32(std::string_view key, std::uint32_t fallback, std::uint64_t min,
                                 std::uint64_t max) {
  auto v = optional(key);
  return v ? v->as_u32(min, max) : fallback;
}

double MapReader::get_double(std::string_view key, double fallback) {
  auto v = optional(key);
  return v ? v->as_double() : fallback;
}

bool MapReader::get_bool(std::string_view key, bool fallback) {
  auto v = optional(key);
  return v ? v->as_bool() : fallback;
}

std::uint64_t MapReader::get_time_ps(std::string_view key, std::uint64_t fallback) {
  auto v = optional(key);
  return v ? v->as_time_ps() : fallback;
}

std::uint64_t MapReader::get_bytes(std::string_view key, std::uint64_t fallback) {
  auto v = optional(key);
  return v ? v->as_bytes() : fallback;
}

std::uint64_t MapReader::get_bandwidth_bps(std::string_view key, std::uint64_t fallback) {
  auto v = optional(key);
  return v ? v->as_bandwidth_bps() : fallback;
}

void MapReader::finish() const {
  for (const auto& kv : value_.yaml()) {
    const std::string& key = kv.first.Scalar();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    const std::string path = join(value_.path(), key);
    std::string message = "unknown key";
    if (std::string guess = closest_match(key, known_); !guess.empty()) {
      message += "; did you mean '" + guess + "'?";
    }
    throw ScenarioError(location_of(*value_.source_, path, kv.first.Mark()), path, message);
  }
}

// ---------------------------------------------------------------------------------------
// Document

Document::Document(std::shared_ptr<const Source> source, YAML::Node root)
    : source_(std::move(source)), root_(std::move(root)) {}

Document Document::load_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError(path, "", "is a directory, not a scenario file");
  }
  std::string text;
  try {
    // A FIFO or a device would block the read or never end: refused.
    text = read_regular_file(path, kMaxScenarioBytes);
  } catch (const FileError& e) {
    const std::string what = e.what();
    throw ScenarioError(path, "", what.substr(std::min(what.size(), path.size() + 2)));
  }
  return load_string(text, path, overrides);
}

Document Document::load_string(std::string_view text, std::string name,
                               const std::vector<std::string>& overrides) {
  auto src = std::make_shared<Source>();
  src->name = std::move(name);
  src->text = std::string(text);
  const std::string start = src->name + ":1:1";
  if (src->text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ScenarioError(start, "",
                        "the scenario file is empty; it needs at least a workload section "
                        "(docs/scenarios.md)");
  }
  if (std::string tab = tab_in_indentation(src->text, src->name); !tab.empty()) {
    throw ScenarioError(tab, "", "tabs are not allowed in YAML indentation; indent with spaces");
  }
  const std::optional<YAML::Node> parsed = parse_checked(
      src->text, [&](const YAML::Mark& mark) { return mark_location(src->name, mark); }, "", "");
  if (!parsed) {
    throw ScenarioError(start, "",
                        "the scenario file has only comments; it needs at least a workload "
                        "section (docs/scenarios.md)");
  }
  const YAML::Node& root = *parsed;
  if (!root.IsMap()) {
    throw ScenarioError(mark_location(src->name, root.Mark()), "",
                        "expected a mapping of keys at the top level, got " + describe(root));
  }
  check_keys(root, "", *src);
  for (const std::string& raw : overrides) apply_override(root, *src, raw);
  return Document(std::move(src), root);
}

Value Document::root() const {
  return Value(root_, "", source_);
}
const std::string& Document::text() const {
  return source_->text;
}
const std::string& Document::name() const {
  return source_->name;
}

}  // namespace sipsim::base
