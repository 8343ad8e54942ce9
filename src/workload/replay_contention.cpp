#include "sipsim/workload/replay_contention.hpp"

#include <hdf5.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "sipsim/base/units.hpp"
#include "sipsim/collective/algorithm.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload {

namespace {

using collective::Executor;

pdes::Time slowest(const Executor::SharedCall& c) {
  return c.together.empty() ? 0 : *std::max_element(c.together.begin(), c.together.end());
}

// Slower together than alone (priced, and the stretch applies somewhere).
bool stretched(const Executor::SharedCall& c) {
  return c.alone > 0 && slowest(c) > c.alone;
}

double ratio(const Executor::SharedCall& c) {
  return static_cast<double>(slowest(c)) / static_cast<double>(c.alone);
}

// One row of /replay_shapes.
struct Row {
  char op[16];
  char algorithm[32];
  char recorder[32];
  std::uint64_t bytes;
  std::uint32_t communicators, members, first_node;
  std::uint64_t alone_ps, together_max_ps, together_mean_ps;
};

void check(herr_t status, const char* what) {
  if (status < 0) throw output::h5::Error(std::string("writing /replay_shapes: ") + what);
}

}  // namespace

void print_replay_contention(std::ostream& out, const SharedCalls& calls,
                             const std::vector<collective::Communicator>& comms) {
  if (calls.empty()) return;
  std::size_t priced = 0, slower = 0;
  const Executor::SharedCall* worst = nullptr;
  for (const Executor::SharedCall& c : calls) {
    if (c.alone == 0) continue;
    ++priced;
    if (!stretched(c)) continue;
    ++slower;
    if (worst == nullptr || ratio(c) > ratio(*worst)) worst = &c;
  }
  out << fmt::format(
      "# replay-shapes contention: {} shared call(s), {} priced by the critical path (RAMP §7.4.1) "
      "of their communicators together against the recorder alone",
      calls.size(), priced);
  if (priced < calls.size())
    out << fmt::format(" ({} too large to estimate)", calls.size() - priced);
  if (worst == nullptr) {
    out << "; none slower together\n";
    return;
  }
  const collective::Communicator& recorder = comms[worst->comms.front()];
  out << fmt::format(
      "; {} slower, whose replayed instances take the record's time x together / alone; the "
      "most: {} ({}) of {} on {} '{}' communicators of {} (from node {}), {} alone, up to {} "
      "together (x{:.3f})\n",
      slower, collective::to_string(worst->call.op), collective::to_string(worst->call.algorithm),
      base::format_bytes(worst->call.bytes), worst->comms.size(), recorder.name, recorder.size(),
      recorder.nodes.front(), base::format_time_ps(worst->alone),
      base::format_time_ps(slowest(*worst)), ratio(*worst));
}

void write_replay_contention(output::h5::File& file, const SharedCalls& calls,
                             const std::vector<collective::Communicator>& comms) {
  std::vector<Row> rows;
  for (const Executor::SharedCall& c : calls) {
    const collective::Communicator& recorder = comms[c.comms.front()];
    Row r{};
    output::h5::copy_fixed(r.op, collective::to_string(c.call.op));
    output::h5::copy_fixed(r.algorithm, collective::to_string(c.call.algorithm));
    output::h5::copy_fixed(r.recorder, recorder.name);
    r.bytes = c.call.bytes;
    r.communicators = static_cast<std::uint32_t>(c.comms.size());
    r.members = recorder.size();
    r.first_node = recorder.nodes.front();
    r.alone_ps = c.alone;
    r.together_max_ps = slowest(c);
    __extension__ typedef unsigned __int128 Wide;  // a sum of up to 2^16 times
    Wide sum = 0;
    for (const pdes::Time t : c.together) sum += t;
    r.together_mean_ps =
        c.together.empty() ? 0 : static_cast<std::uint64_t>(sum / c.together.size());
    rows.push_back(r);
  }
  using output::h5::Handle;
  Handle t(H5Tcreate(H5T_COMPOUND, sizeof(Row)));
  const Handle op = output::h5::fixed_string_type(sizeof(Row::op)),
               algorithm = output::h5::fixed_string_type(sizeof(Row::algorithm)),
               recorder = output::h5::fixed_string_type(sizeof(Row::recorder));
  check(H5Tinsert(t.get(), "op", offsetof(Row, op), op.get()), "op");
  check(H5Tinsert(t.get(), "algorithm", offsetof(Row, algorithm), algorithm.get()), "algorithm");
  check(H5Tinsert(t.get(), "recorder", offsetof(Row, recorder), recorder.get()), "recorder");
  check(H5Tinsert(t.get(), "bytes", offsetof(Row, bytes), H5T_NATIVE_UINT64), "bytes");
  check(H5Tinsert(t.get(), "communicators", offsetof(Row, communicators), H5T_NATIVE_UINT32),
        "communicators");
  check(H5Tinsert(t.get(), "members", offsetof(Row, members), H5T_NATIVE_UINT32), "members");
  check(H5Tinsert(t.get(), "first_node", offsetof(Row, first_node), H5T_NATIVE_UINT32),
        "first_node");
  check(H5Tinsert(t.get(), "alone_ps", offsetof(Row, alone_ps), H5T_NATIVE_UINT64), "alone_ps");
  check(H5Tinsert(t.get(), "together_max_ps", offsetof(Row, together_max_ps), H5T_NATIVE_UINT64),
        "together_max_ps");
  check(H5Tinsert(t.get(), "together_mean_ps", offsetof(Row, together_mean_ps), H5T_NATIVE_UINT64),
        "together_mean_ps");
  const hsize_t n = rows.size();
  Handle d = write_rank0(file, "/replay_shapes", t.get(), 1, &n, rows.data());
  output::h5::write_attr(d.get(), "time_units", std::string_view("ps"));
}

}  // namespace sipsim::workload
