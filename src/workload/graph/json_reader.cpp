// The op-graph file's streaming parse (json_reader.hpp). nlohmann's SAX
// events carry no position, so the parser reads the text through an
// iterator that records how far it has got: at each event that is just past
// the value's last character (past one more for a number), from which the
// value's start is found by scanning back.
#include "json_reader.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "sipsim/base/yaml_reader.hpp"

namespace sipsim::workload::graph {

namespace {

using Json = nlohmann::json;

// Each op's numbers stay below 2^56 so that scaling by a batch ratio and
// summing over a few thousand ops stays well inside 64 bits (setup checks
// the scaled costs again).
constexpr std::uint64_t kMaxNumber = std::uint64_t{1} << 56;
constexpr std::size_t kMaxOps = std::size_t{1} << 20;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// The text for nlohmann's parser, one character at a time; `read` follows
// the parser's progress.
class TrackedIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedIterator(const char* at, const char** read) : at_(at), read_(read) {}
  reference operator*() const { return *at_; }
  TrackedIterator& operator++() {
    *read_ = ++at_;
    return *this;
  }
  TrackedIterator operator++(int) {
    TrackedIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** read_;
};

const std::vector<std::string> kRootKeys = {"name", "description", "batch", "precision", "ops"};
enum RootKey : std::uint8_t { kGraphName, kDescription, kBatch, kPrecision, kOps };
const std::vector<std::string> kOpKeys = {"name",           "kind",         "flops",
                                          "bytes",          "output_bytes", "params_bytes",
                                          "backward_flops", "gathers",      "deps"};
enum OpKey : std::uint8_t {
  kName,
  kKind,
  kFlops,
  kBytes,
  kOutputBytes,
  kParamsBytes,
  kBackwardFlops,
  kGathers,
  kDeps
};
const std::vector<std::string> kKinds = {"matmul", "elementwise", "nonlinear"};
const std::vector<std::string> kPrecisions = {"fp32", "tf32", "fp16", "bf16", "fp8"};

std::string list_of(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool in_number(char c) {
  return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// One scalar event: its type and value.
struct Scalar {
  enum class Type : std::uint8_t { kString, kUnsigned, kNegative, kFloat, kBool, kNull };
  Type type = Type::kNull;
  const std::string* string = nullptr;  // kString
  std::uint64_t number = 0;             // kUnsigned
  bool flag = false;                    // kBool
  std::string_view raw;                 // a number as written
  std::size_t at = 0;                   // where it starts
};

// The SAX handler: a state machine over the format's fixed shape (a root
// object, its `ops` list, each op's object and its `deps` list), so any other
// nesting is refused where it opens.
class Handler {
 public:
  Handler(const JsonText& text, const char* const* read, ParsedGraph& out)
      : text_(text), read_(read), out_(out) {
    root_seen_.fill(kNone);
  }

  bool done() const { return state_ == State::kEnd; }

  bool null() { return scalar(literal(Scalar::Type::kNull)); }
  bool boolean(bool value) {
    Scalar v = literal(Scalar::Type::kBool);
    v.flag = value;
    return scalar(v);
  }
  bool number_integer(Json::number_integer_t) {  // only negative integers come here
    return number(Scalar::Type::kNegative, 0);
  }
  bool number_unsigned(Json::number_unsigned_t value) {
    return number(Scalar::Type::kUnsigned, value);
  }
  bool number_float(Json::number_float_t, const std::string&) {
    return number(Scalar::Type::kFloat, 0);
  }
  bool string(std::string& value) {
    Scalar v;
    v.type = Scalar::Type::kString;
    v.string = &value;
    v.at = string_start(read() - 1);
    return scalar(v);
  }
  bool binary(Json::binary_t&) { return true; }  // not in JSON text

  bool start_object(std::size_t);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool key(std::string& key);
  bool parse_error(std::size_t position, const std::string& last_token,
                   const Json::exception& e) const;

 private:
  enum class State : std::uint8_t {
    kStart,
    kRootKey,
    kRootValue,
    kOps,
    kOpKey,
    kOpValue,
    kDeps,
    kEnd
  };

  std::size_t read() const { return static_cast<std::size_t>(*read_ - text_.text().data()); }
  // Where the string whose closing quote is at `closing_quote` starts.
  std::size_t string_start(std::size_t closing_quote) const;
  // true, false or null: the parser has read just up to its end.
  Scalar literal(Scalar::Type type) const {
    Scalar v;
    v.type = type;
    v.at = read();
    while (v.at > 0 && text_.text()[v.at - 1] >= 'a' && text_.text()[v.at - 1] <= 'z') --v.at;
    return v;
  }
  bool number(Scalar::Type type, std::uint64_t value) {
    // The parser has read one character past the number (a number ends in a digit).
    const std::string_view t = text_.text();
    Scalar v;
    v.type = type;
    v.number = value;
    std::size_t end = read();
    if (end > 0 && !is_digit(t[end - 1])) --end;
    v.at = end;
    while (v.at > 0 && in_number(t[v.at - 1])) --v.at;
    v.raw = t.substr(v.at, end - v.at);
    return scalar(v);
  }

  bool scalar(const Scalar& v);
  void root_value(const Scalar& v);
  void op_value(const Scalar& v);
  void dep(const Scalar& v);
  void end_op();

  // "ops[i]" of the current op; the key path of the current value.
  std::string op_path() const { return fmt::format("ops[{}]", out_.graph.ops.size() - 1); }
  std::string path() const;
  // What the current value must be, for "expected ..., got ..."
  std::string expected() const;
  [[noreturn]] void fail(std::size_t at, std::string_view message) const {
    text_.fail(at, path(), std::string(message));
  }
  [[noreturn]] void wrong_type(std::size_t at, std::string_view got) const {
    fail(at, expected() + ", got " + std::string(got));
  }
  std::string describe(const Scalar& v) const;
  std::string as_string(const Scalar& v) const {
    if (v.type != Scalar::Type::kString) wrong_type(v.at, describe(v));
    return *v.string;
  }
  std::uint64_t as_number(const Scalar& v, std::uint64_t max) const;
  std::size_t as_enum(const Scalar& v, const std::vector<std::string>& choices) const;

  const JsonText& text_;
  const char* const* read_;
  ParsedGraph& out_;
  State state_ = State::kStart;
  std::uint8_t key_ = 0;                    // the key whose value comes next
  std::size_t root_at_ = 0;                 // where the root object starts
  std::size_t ops_at_ = 0;                  // where the ops list starts
  std::size_t op_at_ = 0;                   // where the current op starts
  std::uint32_t slot_ = 0;                  // the current op's next dependency
  std::array<std::size_t, 5> root_seen_{};  // where each key was given, or kNone
  std::array<std::size_t, 9> op_seen_{};
};

std::size_t Handler::string_start(std::size_t closing_quote) const {
  // Back from the closing quote to the first quote not escaped by an odd
  // number of backslashes.
  const std::string_view t = text_.text();
  for (std::size_t at = closing_quote; at-- > 0;) {
    if (t[at] != '"') continue;
    std::size_t slashes = 0;
    while (slashes < at && t[at - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return at;
  }
  return 0;
}

std::string Handler::path() const {
  switch (state_) {
    case State::kRootKey:
    case State::kStart:
    case State::kEnd:
      return "";
    case State::kRootValue:
      return kRootKeys[key_];
    case State::kOps:
      return fmt::format("ops[{}]", out_.graph.ops.size());
    case State::kOpKey:
      return op_path();
    case State::kOpValue:
      return op_path() + "." + kOpKeys[key_];
    case State::kDeps:
      return fmt::format("{}.deps[{}]", op_path(), slot_);
  }
  return "";
}

std::string Handler::expected() const {
  if (state_ == State::kOps) return "expected an op (an object)";
  if (state_ == State::kDeps) return "expected an op name or index";
  if (state_ == State::kRootValue) {
    switch (key_) {
      case kBatch:
        return "expected an integer";
      case kPrecision:
        return "expected one of " + list_of(kPrecisions);
      case kOps:
        return "must be a list of ops";
      default:
        return "expected a string";
    }
  }
  switch (key_) {
    case kName:
      return "expected a string";
    case kKind:
      return "expected one of " + list_of(kKinds);
    case kGathers:
      return "expected true or false";
    case kDeps:
      return "must be a list of op names or indices";
    default:
      return "expected an integer";
  }
}

std::string Handler::describe(const Scalar& v) const {
  switch (v.type) {
    case Scalar::Type::kString:
      return "\"" + clip(*v.string) + "\"";
    case Scalar::Type::kBool:
      return v.flag ? "true" : "false";
    case Scalar::Type::kNull:
      return "null";
    default:
      return clip(v.raw);
  }
}

std::uint64_t Handler::as_number(const Scalar& v, std::uint64_t max) const {
  std::uint64_t x = 0;
  if (v.type == Scalar::Type::kUnsigned) {
    x = v.number;
  } else if (v.type == Scalar::Type::kNegative ||
             (v.type == Scalar::Type::kFloat && v.raw.front() == '-' &&
              v.raw.find_first_not_of("0123456789", 1) == std::string_view::npos)) {
    fail(v.at, "must not be negative");
  } else if (v.type == Scalar::Type::kFloat &&
             v.raw.find_first_not_of("0123456789") == std::string_view::npos) {
    x = std::numeric_limits<std::uint64_t>::max();  // an integer past 64 bits
  } else {
    fail(v.at, "expected an integer, got " + describe(v));
  }
  if (x > max) {
    fail(v.at, max == kMaxNumber ? fmt::format("must be at most 2^56 ({})", kMaxNumber)
                                 : fmt::format("must be between 1 and {}", max));
  }
  return x;
}

std::size_t Handler::as_enum(const Scalar& v, const std::vector<std::string>& choices) const {
  if (v.type != Scalar::Type::kString) wrong_type(v.at, describe(v));
  const auto it = std::find(choices.begin(), choices.end(), *v.string);
  if (it != choices.end()) return static_cast<std::size_t>(it - choices.begin());
  std::string message =
      "unknown value '" + clip(*v.string) + "'; expected one of " + list_of(choices);
  if (std::string guess = base::closest_match(*v.string, choices); !guess.empty()) {
    message += "; did you mean '" + guess + "'?";
  }
  fail(v.at, message);
}

bool Handler::scalar(const Scalar& v) {
  switch (state_) {
    case State::kRootValue:
      root_value(v);
      state_ = State::kRootKey;
      break;
    case State::kOpValue:
      op_value(v);
      state_ = State::kOpKey;
      break;
    case State::kDeps:
      dep(v);
      break;
    default:  // kOps; the root is an object (checked before parsing)
      wrong_type(v.at, describe(v));
  }
  return true;
}

void Handler::root_value(const Scalar& v) {
  Graph& g = out_.graph;
  switch (key_) {
    case kGraphName:
      g.name = as_string(v);
      break;
    case kDescription:
      as_string(v);
      break;
    case kBatch:
      g.batch = static_cast<std::uint32_t>(as_number(v, 1u << 20));
      if (g.batch == 0) fail(v.at, fmt::format("must be between 1 and {}", 1u << 20));
      break;
    case kPrecision:
      g.precision = static_cast<compute::Precision>(as_enum(v, kPrecisions));
      break;
    default:  // ops
      wrong_type(v.at, describe(v));
  }
}

void Handler::op_value(const Scalar& v) {
  GraphOp& op = out_.graph.ops.back();
  switch (key_) {
    case kName: {
      op.name = as_string(v);
      if (op.name.empty()) fail(v.at, "must not be empty");
      const auto i = static_cast<std::uint32_t>(out_.graph.ops.size() - 1);
      const auto [it, added] = out_.index.emplace(op.name, i);
      if (!added) {
        fail(v.at,
             fmt::format("duplicate op name '{}' (ops[{}] has it)", clip(op.name), it->second));
      }
      break;
    }
    case kKind:
      op.kind = std::array{compute::OpKind::kMatmul, compute::OpKind::kElementwise,
                           compute::OpKind::kNonlinear}[as_enum(v, kKinds)];
      break;
    case kFlops:
      op.flops = as_number(v, kMaxNumber);
      break;
    case kBytes:
      op.bytes = as_number(v, kMaxNumber);
      break;
    case kOutputBytes:
      op.output_bytes = as_number(v, kMaxNumber);
      break;
    case kParamsBytes:
      op.params_bytes = as_number(v, kMaxNumber);
      break;
    case kBackwardFlops:
      op.backward_flops = as_number(v, kMaxNumber);
      break;
    case kGathers:
      if (v.type != Scalar::Type::kBool) wrong_type(v.at, describe(v));
      op.gathers = v.flag;
      break;
    default:  // deps
      wrong_type(v.at, describe(v));
  }
}

void Handler::dep(const Scalar& v) {
  WrittenDep d;
  if (v.type == Scalar::Type::kString) {
    d.text = *v.string;
  } else if (v.type == Scalar::Type::kUnsigned || v.type == Scalar::Type::kNegative ||
             v.type == Scalar::Type::kFloat) {
    d.text = v.raw;
    d.number = true;
  } else {
    wrong_type(v.at, describe(v));
  }
  d.at = v.at;
  d.op = static_cast<std::uint32_t>(out_.graph.ops.size() - 1);
  d.slot = slot_++;
  out_.deps.push_back(std::move(d));
}

bool Handler::start_object(std::size_t) {
  const std::size_t at = read() - 1;
  if (state_ == State::kStart) {
    root_at_ = at;
    state_ = State::kRootKey;
  } else if (state_ == State::kOps) {
    if (out_.graph.ops.size() == kMaxOps) text_.fail(ops_at_, "ops", "at most 2^20 ops");
    out_.graph.ops.emplace_back();
    op_at_ = at;
    op_seen_.fill(kNone);
    slot_ = 0;
    state_ = State::kOpKey;
  } else {
    wrong_type(at, "an object");
  }
  return true;
}

bool Handler::start_array(std::size_t) {
  const std::size_t at = read() - 1;
  if (state_ == State::kRootValue && key_ == kOps) {
    ops_at_ = at;
    state_ = State::kOps;
  } else if (state_ == State::kOpValue && key_ == kDeps) {
    state_ = State::kDeps;
  } else {
    wrong_type(at, "a list");
  }
  return true;
}

bool Handler::end_array() {
  if (state_ == State::kOps) {
    if (out_.graph.ops.empty()) text_.fail(ops_at_, "ops", "must list at least one op");
    state_ = State::kRootKey;
  } else {
    state_ = State::kOpKey;  // the end of deps: nothing else opens a list
  }
  return true;
}

bool Handler::key(std::string& key) {
  const bool root = state_ == State::kRootKey;
  const std::vector<std::string>& keys = root ? kRootKeys : kOpKeys;
  const std::size_t at = string_start(read() - 1);
  const auto it = std::find(keys.begin(), keys.end(), key);
  const std::string prefix = root ? "" : op_path() + ".";
  if (it == keys.end()) {
    std::string message = "unknown key";
    if (std::string guess = base::closest_match(key, keys); !guess.empty()) {
      message += "; did you mean '" + guess + "'?";
    }
    text_.fail(at, prefix + clip(key), message);
  }
  key_ = static_cast<std::uint8_t>(it - keys.begin());
  std::size_t& seen = root ? root_seen_[key_] : op_seen_[key_];
  if (seen != kNone) {
    text_.fail(at, prefix + key,
               fmt::format("duplicate key '{}' (first at line {})", key, text_.line(seen)));
  }
  seen = at;
  state_ = root ? State::kRootValue : State::kOpValue;
  return true;
}

bool Handler::end_object() {
  if (state_ == State::kOpKey) {
    end_op();
    state_ = State::kOps;
  } else {  // the root
    if (root_seen_[kOps] == kNone) text_.fail(root_at_, "ops", "missing required key");
    state_ = State::kEnd;
  }
  return true;
}

void Handler::end_op() {
  for (const OpKey k : {kName, kFlops, kBytes, kOutputBytes}) {
    if (op_seen_[k] == kNone)
      text_.fail(op_at_, op_path() + "." + kOpKeys[k], "missing required key");
  }
  GraphOp& op = out_.graph.ops.back();
  if (op_seen_[kBackwardFlops] == kNone) op.backward_flops = 2 * op.flops;
  if (op_seen_[kGathers] == kNone) op.gathers = op.params_bytes > 0;
}

// nlohmann's message without its prefix nor what it quotes of the text (the
// location shows where): "unexpected '}'; expected string literal (while
// parsing an object key)".
bool Handler::parse_error(std::size_t position, const std::string& last_token,
                          const Json::exception& e) const {
  std::string what = e.what();
  std::string context;
  if (const std::size_t s = what.find("syntax error "); s != std::string::npos) {
    what.erase(0, s + 13);
    if (what.rfind("while parsing ", 0) == 0) {
      const std::size_t dash = what.find(" - ");
      context = what.substr(14, dash - 14);
      what.erase(0, dash == std::string::npos ? what.size() : dash + 3);
    } else if (what.rfind("- ", 0) == 0) {
      what.erase(0, 2);
    }
  } else if (const std::size_t b = what.find("] "); b != std::string::npos) {
    what.erase(0, b + 2);  // e.g. a number too large for a double
  }
  const std::string quoted = "; last read: '" + last_token + "'";
  if (const std::size_t q = what.find(quoted); q != std::string::npos) what.erase(q, quoted.size());
  if (!context.empty()) {
    what += " (while parsing " + (context == "value" ? "a value" : "an " + context) + ")";
  }
  // `position` is just past the last character read; a string or number the
  // parser did not expect is shown from its start.
  const std::string_view t = text_.text();
  std::size_t at = position > t.size() ? t.size() : position - (position > 0 ? 1 : 0);
  if (what.rfind("unexpected string literal", 0) == 0 && at < t.size() && t[at] == '"') {
    at = string_start(at);
  } else if (what.rfind("unexpected number literal", 0) == 0) {
    while (at > 0 && in_number(t[at - 1])) --at;
  }
  text_.fail(at, path(), "not JSON: " + clip(what, 160));
}

}  // namespace

std::string clip(std::string_view s, std::size_t max) {
  s = s.substr(0, s.find_first_of("\r\n"));
  std::string out;
  std::size_t i = 0;
  while (i < s.size() && out.size() < max) {
    const auto c = static_cast<unsigned char>(s[i]);
    // A whole UTF-8 character as it is; a control character (C0 or C1) or a
    // byte that is not UTF-8 (a binary file) as '?'.
    const std::size_t n = c < 0x80                 ? 1
                          : c >= 0xC2 && c <= 0xDF ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    bool whole = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; whole && k < n; ++k) {
      whole = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    }
    const bool control = c < 0x20 || c == 0x7F ||
                         (whole && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0);
    if (!whole || control) {
      out += '?';
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (i < s.size()) out += "…";
  return out;
}

std::size_t JsonText::line(std::size_t offset) const {
  const std::string_view before = text_.substr(0, offset);
  return 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
}

std::string JsonText::location(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  std::size_t start = text_.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = (start == std::string_view::npos || start >= offset) ? 0 : start + 1;
  if (start == 0 && text_.substr(0, 3) == "\xEF\xBB\xBF") start = std::min<std::size_t>(3, offset);
  std::size_t column = 1;
  for (std::size_t i = start; i < offset; ++i) {
    column += (static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80 ? 1 : 0;
  }
  return fmt::format("{}:{}:{}", name_, line(offset), column);
}

void JsonText::fail(std::size_t offset, std::string key_path, std::string message) const {
  throw base::ScenarioError(location(offset), std::move(key_path), std::move(message));
}

ParsedGraph parse_graph_json(const JsonText& text) {
  const std::string_view t = text.text();
  std::size_t first = t.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  first = std::min(t.find_first_not_of(" \t\r\n", first), t.size());
  if (first == t.size()) {
    text.fail(first, "", "the graph file is empty; it needs a JSON object with a list of ops");
  }
  if (t[first] != '{') {
    text.fail(first, "",
              "not JSON: expected '{' at the start (got '" + clip(t.substr(first)) + "')");
  }
  ParsedGraph out;
  out.graph.name = std::filesystem::path(text.name()).stem().string();
  const char* read = t.data();
  Handler handler(text, &read, out);
  Json::sax_parse(TrackedIterator(t.data(), &read), TrackedIterator(t.data() + t.size(), &read),
                  &handler);
  if (!handler.done()) text.fail(t.size(), "", "not JSON: the text ends early");
  return out;
}

}  // namespace sipsim::workload::graph
