// The bytes a node's tensors hold, from the text PyTorch's execution-trace
// observer records in Chakra's IOInfo (docs/models.md, "Chakra traces"):
// `shapes` a nested list of integers, `types` a list of quoted type names,
// one per argument, e.g. shapes "[[64], [64], []]" with types
// "['Tensor(float)', 'Tensor(float)', 'Bool']" (two 64-element float
// tensors and a scalar). A tensor list, 'GenericList[Tensor(float),...]',
// has a list of shapes. Arguments that are not tensors, and tensors of a
// type not listed, hold nothing.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sipsim/workload/chakra/trace.hpp"

namespace sipsim::workload::chakra {

namespace {

// PyTorch's C++ scalar type names as the observer prints them.
constexpr std::pair<std::string_view, std::uint64_t> kElementBytes[] = {
    {"float", 4},
    {"double", 8},
    {"c10::Half", 2},
    {"c10::BFloat16", 2},
    {"long int", 8},
    {"int", 4},
    {"short int", 2},
    {"signed char", 1},
    {"unsigned char", 1},
    {"bool", 1},
    {"c10::complex<float>", 8},
    {"c10::complex<double>", 16},
    {"c10::Float8_e4m3fn", 1},
    {"c10::Float8_e5m2", 1},
};

std::uint64_t element_bytes(std::string_view scalar) {
  for (const auto& [name, bytes] : kElementBytes) {
    if (name == scalar) return bytes;
  }
  return 0;
}

// A shape tree: a leaf holds one tensor's dimensions; an inner node holds the
// shapes of a tensor list.
struct Shape {
  std::vector<std::int64_t> dims;
  std::vector<Shape> items;
  bool list_of_lists = false;
};

class ShapeParser {
 public:
  explicit ShapeParser(std::string_view s) : s_(s) {}
  // The top-level list, or nullopt where the text is not a nested list.
  std::optional<Shape> parse() {
    Shape top;
    if (!list(top, 0)) return std::nullopt;
    skip();
    if (i_ != s_.size()) return std::nullopt;
    return top;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool list(Shape& out, int depth) {
    skip();
    if (depth > 8 || i_ >= s_.size() || s_[i_] != '[') return false;
    ++i_;
    for (bool first = true;; first = false) {
      skip();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      if (!first) {
        if (i_ >= s_.size() || s_[i_] != ',') return false;
        ++i_;
        skip();
      }
      if (i_ < s_.size() && s_[i_] == '[') {
        out.list_of_lists = true;
        out.items.emplace_back();
        if (!list(out.items.back(), depth + 1)) return false;
      } else {
        std::int64_t v = 0;
        const std::size_t start = i_;
        const bool negative = i_ < s_.size() && s_[i_] == '-';
        if (negative) ++i_;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9' && v < (std::int64_t{1} << 50)) {
          v = v * 10 + (s_[i_++] - '0');
        }
        if (i_ == start + (negative ? 1 : 0)) return false;
        out.dims.push_back(negative ? -v : v);
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// The quoted names of "['a', 'b[c,d]', ...]" at the top level.
std::optional<std::vector<std::string_view>> type_names(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size() && s[i] != '[') ++i;
  if (i == s.size()) return std::nullopt;
  for (++i; i < s.size();) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      const std::size_t end = s.find(c, i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      out.push_back(s.substr(i + 1, end - i - 1));
      i = end + 1;
    } else if (c == ']') {
      return out;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::uint64_t tensor_bytes(std::string_view type, const Shape& shape) {
  constexpr std::string_view kTensor = "Tensor(", kList = "GenericList[";
  if (type.starts_with(kTensor) && type.ends_with(")") && !shape.list_of_lists) {
    const std::uint64_t element =
        element_bytes(type.substr(kTensor.size(), type.size() - kTensor.size() - 1));
    std::uint64_t n = element;
    for (const std::int64_t d : shape.dims) {
      if (d < 0 || (d > 0 && n > kMaxCommBytes / static_cast<std::uint64_t>(d))) return 0;
      n *= static_cast<std::uint64_t>(d);
    }
    return n;
  }
  if (type.starts_with(kList) && type.ends_with("]")) {
    // GenericList[Tensor(float),Tensor(float)]: element k of the list.
    std::string_view rest = type.substr(kList.size(), type.size() - kList.size() - 1);
    std::uint64_t total = 0;
    for (const Shape& item : shape.items) {
      const std::size_t comma = rest.find(',');
      const std::string_view t = rest.substr(0, comma);
      total += tensor_bytes(t, item);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    return total;
  }
  return 0;
}

}  // namespace

std::optional<std::uint64_t> io_tensor_bytes(std::string_view shapes, std::string_view types) {
  if (shapes.empty() && types.empty()) return std::uint64_t{0};
  const std::optional<Shape> top = ShapeParser(shapes).parse();
  const auto names = type_names(types);
  if (!top || !names) return std::nullopt;
  // The observer writes one list per argument: bare integers at the top
  // level are not its format.
  if (!top->dims.empty()) return std::nullopt;
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < names->size() && k < top->items.size(); ++k) {
    total += tensor_bytes((*names)[k], top->items[k]);
    if (total > kMaxCommBytes) return std::nullopt;
  }
  return total;
}

}  // namespace sipsim::workload::chakra
