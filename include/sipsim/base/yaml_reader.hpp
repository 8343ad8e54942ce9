#pragma once
// A small validating reader over yaml-cpp: every error names the file, line,
// column and key path, and unknown keys get the closest valid key suggested.
//
//   auto doc = Document::load_file("s.yaml", {"workload.lps=64"});
//   MapReader root = doc.root().as_map();
//   std::uint64_t seed = root.get_uint("seed", 1);
//   MapReader w = root.required("workload").as_map();
//   auto lookahead = w.required("lookahead").as_time_ps();
//   w.finish();      // rejects keys that were never asked for
//   root.finish();
//
// Errors are thrown as ScenarioError whose what() is
//   "s.yaml:12:5: workload.lookahed: unknown key; did you mean 'lookahead'?"
// (line and column 1-based). Values that came from a --set override report
// "--set workload.lps=64" instead of a file position.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sipsim::base {

// The largest scenario or study file read (docs/scenarios.md): a larger one
// is refused before it is read.
inline constexpr std::size_t kMaxScenarioBytes = std::size_t{64} << 20;

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string location, std::string key_path, std::string message);
  const std::string& location() const { return location_; }  // "file:line:col" or "--set k=v"
  const std::string& key_path() const { return key_path_; }
  const std::string& message() const { return message_; }

 private:
  std::string location_, key_path_, message_;
};

// Edit distance based suggestion: the closest candidate within a distance of
// max(2, key.size() / 3), or "" when none is close.
std::string closest_match(std::string_view key, const std::vector<std::string>& candidates);

struct Source;  // the file name, its text and the --set overrides applied

class MapReader;

// A YAML node together with its key path and origin, for error messages.
class Value {
 public:
  Value(YAML::Node node, std::string path, std::shared_ptr<const Source> source);

  const std::string& path() const { return path_; }
  const YAML::Node& yaml() const { return node_; }
  bool is_map() const { return node_.IsMap(); }
  bool is_list() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  std::string location() const;  // "file:line:col" or "--set path=value"

  [[noreturn]] void fail(std::string_view message) const;

  std::string as_string() const;
  std::int64_t as_int() const;
  std::uint64_t as_uint() const;  // rejects negative numbers
  // as_uint() within [min, max]; otherwise "must be between min and max".
  std::uint32_t as_u32(std::uint64_t min = 0, std::uint64_t max = 0xFFFFFFFFu) const;
  double as_double() const;  // finite only
  bool as_bool() const;      // true/false only
  std::uint64_t as_time_ps() const;
  std::uint64_t as_bytes() const;
  std::uint64_t as_bandwidth_bps() const;
  std::uint64_t as_positive_bandwidth_bps() const;  // > 0
  // One of `choices`; otherwise "expected one of a, b, c" plus a suggestion.
  std::string as_enum(const std::vector<std::string>& choices) const;
  MapReader as_map() const;
  std::vector<Value> as_list() const;

 private:
  friend class MapReader;  // finish() reports unknown keys at the key's own position

  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const Source> source_;
};

// Reads a mapping; remembers every key asked for so that finish() can reject
// the rest as unknown (with a suggestion among the asked keys).
class MapReader {
 public:
  explicit MapReader(Value value);

  const Value& value() const { return value_; }
  bool has(std::string_view key);  // also marks the key as known
  Value required(std::string_view key);
  std::optional<Value> optional(std::string_view key);

  std::string get_string(std::string_view key, std::string_view fallback);
  std::int64_t get_int(std::string_view key, std::int64_t fallback);
  std::uint64_t get_uint(std::string_view key, std::uint64_t fallback);
  std::uint32_t get_u32(std::string_view key, std::uint32_t fallback, std::uint64_t min = 0,
                        std::uint64_t max = 0xFFFFFFFFu);
  double get_double(std::string_view key, double fallback);
  bool get_bool(std::string_view key, bool fallback);
  std::uint64_t get_time_ps(std::string_view key, std::uint64_t fallback);
  std::uint64_t get_bytes(std::string_view key, std::uint64_t fallback);
  std::uint64_t get_bandwidth_bps(std::string_view key, std::uint64_t fallback);

  void finish() const;

 private:
  Value value_;
  std::vector<std::string> known_;
};

// A parsed scenario document. Loading rejects YAML syntax errors and duplicate
// keys (at any depth) with file:line:col.
class Document {
 public:
  // overrides: "key.path=value" strings from --set; value parsed as YAML;
  // missing intermediate maps are created; a path through a scalar is an error.
  static Document load_file(const std::string& path,
                            const std::vector<std::string>& overrides = {});
  static Document load_string(std::string_view text, std::string name = "<string>",
                              const std::vector<std::string>& overrides = {});

  Value root() const;
  const std::string& text() const;  // the file's text as read (for /meta scenario_yaml)
  const std::string& name() const;  // the file name as given

 private:
  explicit Document(std::shared_ptr<const Source> source, YAML::Node root);
  std::shared_ptr<const Source> source_;
  YAML::Node root_;
};

}  // namespace sipsim::base
