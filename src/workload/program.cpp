#include "sipsim/workload/program.hpp"

#include <array>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace sipsim::workload {

namespace {
constexpr std::array<std::string_view, kCategories> kCategoryNames = {
    "forward", "backward", "weight-gradient", "optimizer", "compute",
    "tp-comm", "pp-comm",  "dp-comm",         "ep-comm",   "collective"};
constexpr std::array<std::string_view, 5> kKindNames = {"compute", "collective", "send", "recv",
                                                        "wait"};
}  // namespace

std::string_view to_string(Category c) {
  return kCategoryNames[static_cast<std::size_t>(c)];
}
std::string_view breakdown_column(std::size_t column) {
  if (column < kCategories) return kCategoryNames[column];
  return column == kBubbleColumn ? std::string_view("bubble") : std::string_view("idle");
}
bool is_communication(Category c) {
  return c >= Category::kTpComm;
}
std::string_view to_string(OpKind k) {
  return kKindNames[static_cast<std::size_t>(k)];
}

pdes::Time Program::compute_time() const {
  pdes::Time total = 0;
  for (const Op& op : ops_) total += op.duration;
  return total;
}

std::uint32_t Program::add(Op op, std::span<const std::uint32_t> deps) {
  const auto index = static_cast<std::uint32_t>(ops_.size());
  for (std::uint32_t d : deps) {
    if (d >= index) {
      throw std::invalid_argument("program '" + name_ + "': op " + std::to_string(index) +
                                  " depends on op " + std::to_string(d) +
                                  ", which is not an earlier op");
    }
  }
  op.deps_begin = static_cast<std::uint32_t>(deps_.size());
  op.deps_count = static_cast<std::uint32_t>(deps.size());
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  if (op.kind == OpKind::kCollective) comm_slots_ = std::max(comm_slots_, op.slot + 1);
  if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
    peer_slots_ = std::max(peer_slots_, op.slot + 1);
  }
  ops_.push_back(op);
  users_begin_.clear();  // finish() again
  return index;
}

std::uint32_t Program::compute(Category category, pdes::Time duration,
                               std::initializer_list<std::uint32_t> deps) {
  Op op;
  op.kind = OpKind::kCompute;
  op.category = category;
  op.duration = duration;
  return add(op, deps);
}

std::uint32_t Program::collective(Category category, std::uint32_t comm_slot,
                                  const collective::CollectiveCall& call,
                                  std::initializer_list<std::uint32_t> deps) {
  Op op;
  op.kind = OpKind::kCollective;
  op.category = category;
  op.slot = comm_slot;
  op.call = static_cast<std::uint32_t>(calls_.size());
  calls_.push_back(call);
  return add(op, deps);
}

std::uint32_t Program::send(Category category, std::uint32_t peer_slot, std::uint64_t bytes,
                            std::initializer_list<std::uint32_t> deps) {
  Op op;
  op.kind = OpKind::kSend;
  op.category = category;
  op.slot = peer_slot;
  op.bytes = bytes;
  return add(op, deps);
}

std::uint32_t Program::recv(Category category, std::uint32_t peer_slot, std::uint64_t bytes,
                            std::initializer_list<std::uint32_t> deps) {
  Op op;
  op.kind = OpKind::kRecv;
  op.category = category;
  op.slot = peer_slot;
  op.bytes = bytes;
  return add(op, deps);
}

std::uint32_t Program::wait(std::initializer_list<std::uint32_t> deps) {
  Op op;
  op.kind = OpKind::kWait;
  op.category = Category::kCompute;
  return add(op, deps);
}

std::span<const std::uint32_t> Program::deps(std::uint32_t i) const {
  const Op& op = ops_[i];
  return {deps_.data() + op.deps_begin, op.deps_count};
}

std::span<const std::uint32_t> Program::users(std::uint32_t i) const {
  return {users_.data() + users_begin_[i], users_begin_[i + 1] - users_begin_[i]};
}

void Program::finish() {
  users_begin_.assign(ops_.size() + 1, 0);
  for (std::uint32_t d : deps_) ++users_begin_[d + 1];
  for (std::size_t i = 0; i < ops_.size(); ++i) users_begin_[i + 1] += users_begin_[i];
  users_.assign(deps_.size(), 0);
  std::vector<std::uint32_t> fill(users_begin_.begin(), users_begin_.end() - 1);
  for (std::uint32_t i = 0; i < ops_.size(); ++i) {
    for (std::uint32_t d : deps(i)) users_[fill[d]++] = i;  // ascending: ops in index order
  }
  roots_.clear();
  for (std::uint32_t i = 0; i < ops_.size(); ++i) {
    if (ops_[i].deps_count == 0) roots_.push_back(i);
  }
}

bool Program::computes_longer_than(std::uint32_t iterations, pdes::Time limit) const {
  __extension__ typedef unsigned __int128 U128;
  U128 busy = 0;
  for (const Op& op : ops_) busy += op.duration;
  return busy * iterations > limit;
}

void Program::set_name_table(std::shared_ptr<const std::vector<std::string>> names) {
  names_ = std::move(names);
  op_names_.clear();
}

void Program::name_op(std::uint32_t i, std::uint32_t name) {
  if (!names_ || name >= names_->size() || i >= ops_.size()) {
    throw std::invalid_argument("program '" + name_ + "': op " + std::to_string(i) +
                                " named by entry " + std::to_string(name) +
                                ", not in its name table");
  }
  if (op_names_.size() <= i) op_names_.resize(std::size_t{i} + 1, 0);
  op_names_[i] = name;
}

std::string_view Program::op_name(std::uint32_t i) const {
  if (i >= op_names_.size() || op_names_[i] == 0) return {};
  return (*names_)[op_names_[i]];
}

std::string Program::describe(std::uint32_t i) const {
  const Op& op = ops_[i];
  std::ostringstream o;
  o << "op " << i << " (" << to_string(op.kind) << ", " << to_string(op.category);
  switch (op.kind) {
    case OpKind::kCompute:
      o << ", " << op.duration << " ps";
      break;
    case OpKind::kCollective: {
      const collective::CollectiveCall& c = calls_[op.call];
      o << ", " << collective::to_string(c.op) << " of " << c.bytes << " B with "
        << collective::to_string(c.algorithm) << " on communicator slot " << op.slot;
      break;
    }
    case OpKind::kSend:
      o << ", " << op.bytes << " B to peer slot " << op.slot;
      break;
    case OpKind::kRecv:
      o << ", " << op.bytes << " B from peer slot " << op.slot;
      break;
    case OpKind::kWait:
      break;
  }
  o << ")";
  return o.str();
}

}  // namespace sipsim::workload
