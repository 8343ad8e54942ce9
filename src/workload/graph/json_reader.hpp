#pragma once
// The first pass of the op-graph reader (reader.cpp): the JSON text streamed
// through nlohmann's SAX parser straight into the Graph's ops (no document
// tree: memory stays a small multiple of the file), every value checked as
// it comes; the dependencies kept as written, for the second pass to resolve
// once every op's name is known.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::graph {

// A JSON text and its name: turns byte offsets into "name:line:col".
class JsonText {
 public:
  JsonText(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}
  std::string_view text() const { return text_; }
  const std::string& name() const { return name_; }
  // Line and column (in characters) of a byte offset, 1-based.
  std::string location(std::size_t offset) const;
  std::size_t line(std::size_t offset) const;
  [[noreturn]] void fail(std::size_t offset, std::string key_path, std::string message) const;

 private:
  std::string_view text_;
  std::string name_;
};

// A dependency as written: a name (a JSON string), or a number's text (an
// index, unless an op has that name).
struct WrittenDep {
  std::string text;
  std::size_t at = 0;    // where its value starts
  std::uint32_t op = 0;  // ops[op].deps[slot]
  std::uint32_t slot = 0;
  bool number = false;
};

struct ParsedGraph {
  Graph graph;                                           // ops without deps, no order yet
  std::unordered_map<std::string, std::uint32_t> index;  // op name -> its index
  std::vector<WrittenDep> deps;                          // in file order
};

// Parses and checks everything but the dependencies' targets (the format:
// docs/models.md, "Op graphs and SiP-ML placement").
ParsedGraph parse_graph_json(const JsonText& text);

// The first line of `s`, control characters as '?', cut to about `max` bytes
// (at a character boundary, with "…"): what a message may quote of a file.
std::string clip(std::string_view s, std::size_t max = 60);

}  // namespace sipsim::workload::graph
