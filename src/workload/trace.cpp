#include "sipsim/workload/trace.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <tuple>
#include <unordered_map>

namespace sipsim::workload {

std::string_view to_string(TraceLevel level) {
  switch (level) {
    case TraceLevel::kNone:
      return "none";
    case TraceLevel::kOps:
      return "ops";
    case TraceLevel::kCollectives:
      return "collectives";
    case TraceLevel::kSteps:
      return "steps";
  }
  return "none";
}

namespace {

void check(herr_t status, const char* what) {
  if (status < 0) throw output::h5::Error(std::string("writing /trace: ") + what);
}

}  // namespace

// The program column fills what was padding: rows stay 64 bytes.
static_assert(sizeof(Trace::Row) == 64);

void Trace::record(const OpRecord& r) {
  if (level_ == TraceLevel::kNone) return;
  const Binding& b = *programs_->bindings[r.node];
  const Op& op = programs_->programs[b.program].op(r.op);
  if (op.kind == OpKind::kWait) return;
  if (level_ != TraceLevel::kOps && op.kind == OpKind::kCompute) return;
  Row row{r.node, r.iteration, r.op, -1, {}, {}, b.program, r.start, r.end};
  output::h5::copy_fixed(row.kind, to_string(op.kind));
  output::h5::copy_fixed(row.category, to_string(op.category));
  rows_.push_back(row);
}

void Trace::record_step(const OpRecord& r, std::uint32_t step) {
  if (level_ != TraceLevel::kSteps) return;
  const Binding& b = *programs_->bindings[r.node];
  const Op& op = programs_->programs[b.program].op(r.op);
  Row row{r.node,    r.iteration, r.op, static_cast<std::int32_t>(step), {}, {},
          b.program, r.start,     r.end};
  output::h5::copy_fixed(row.kind, "step");
  output::h5::copy_fixed(row.category, to_string(op.category));
  rows_.push_back(row);
}

void Trace::write(output::h5::File& file) const {
  using output::h5::Handle;
  const MPI_Comm comm = file.comm();
  // A node's rows are all on its rank: per-node counts, summed over ranks,
  // place each node's rows in the file.
  const std::uint32_t nodes = nodes_;
  std::vector<std::uint64_t> offset(std::size_t{nodes} + 1, 0);
  for (const Row& r : rows_) ++offset[r.node + 1];
  MPI_Allreduce(MPI_IN_PLACE, offset.data(), static_cast<int>(offset.size()), MPI_UINT64_T, MPI_SUM,
                comm);
  for (std::uint32_t n = 0; n < nodes; ++n) offset[n + 1] += offset[n];
  std::vector<Row> rows = rows_;
  // An op's row first (step -1), then its steps in order.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.node, a.iteration, a.op, a.step) <
           std::tie(b.node, b.iteration, b.op, b.step);
  });

  Handle kind_t = output::h5::fixed_string_type(sizeof(Row::kind));
  Handle cat_t = output::h5::fixed_string_type(sizeof(Row::category));
  Handle t(H5Tcreate(H5T_COMPOUND, sizeof(Row)));
  check(H5Tinsert(t.get(), "node", offsetof(Row, node), H5T_NATIVE_UINT32), "node");
  check(H5Tinsert(t.get(), "iteration", offsetof(Row, iteration), H5T_NATIVE_UINT32), "iteration");
  check(H5Tinsert(t.get(), "op", offsetof(Row, op), H5T_NATIVE_UINT32), "op");
  check(H5Tinsert(t.get(), "step", offsetof(Row, step), H5T_NATIVE_INT32), "step");
  check(H5Tinsert(t.get(), "kind", offsetof(Row, kind), kind_t.get()), "kind");
  check(H5Tinsert(t.get(), "category", offsetof(Row, category), cat_t.get()), "category");
  check(H5Tinsert(t.get(), "program", offsetof(Row, program), H5T_NATIVE_UINT32), "program");
  check(H5Tinsert(t.get(), "start_ps", offsetof(Row, start_ps), H5T_NATIVE_UINT64), "start_ps");
  check(H5Tinsert(t.get(), "end_ps", offsetof(Row, end_ps), H5T_NATIVE_UINT64), "end_ps");

  Handle group(H5Gcreate2(file.id(), "/trace", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  output::h5::check_collective(comm, group ? 0 : -1, "cannot create /trace");
  const hsize_t total = offset[nodes];
  Handle space(H5Screate_simple(1, &total, nullptr));
  Handle dset(H5Dcreate2(file.id(), "/trace/events", t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT));
  output::h5::check_collective(comm, dset ? 0 : -1, "cannot create /trace/events");

  // This rank's rows: one block per run of consecutive nodes it owns, in
  // file order (the order of the sorted rows).
  const hsize_t mine = rows.size();
  Handle mem(H5Screate_simple(1, &mine, nullptr));
  Handle fspace(H5Dget_space(dset.get()));
  H5Sselect_none(fspace.get());
  if (mine == 0) H5Sselect_none(mem.get());
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    std::uint32_t last = rows[i].node;
    while (j < rows.size() && (rows[j].node == last || rows[j].node == last + 1)) {
      last = rows[j].node;
      ++j;
    }
    // Rows i..j-1 cover nodes rows[i].node..last without a gap in the file.
    const hsize_t start = offset[rows[i].node], count = j - i;
    check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_OR, &start, nullptr, &count, nullptr),
          "selection");
    i = j;
  }
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  output::h5::check_collective(
      comm, H5Dwrite(dset.get(), t.get(), mem.get(), fspace.get(), dxpl.get(), rows.data()),
      "writing /trace/events");
  output::h5::write_attr(dset.get(), "level", to_string(level_));
  output::h5::write_attr(dset.get(), "time_units", std::string_view("ps"));
  write_names(file);
}

void Trace::write_names(output::h5::File& file) const {
  // Each distinct name once (a trace repeats a kernel's long name for many
  // ops), numbered in order of first use: the same on every rank.
  struct OpRow {
    std::uint32_t program, op, name;
  };
  std::vector<OpRow> ops;
  std::vector<std::string_view> names;
  std::unordered_map<std::string_view, std::uint32_t> ids;
  std::size_t width = 1;
  const std::vector<Program>& programs = programs_->programs;
  for (std::uint32_t p = 0; p < programs.size(); ++p) {
    for (std::uint32_t i = 0; i < programs[p].size(); ++i) {
      const std::string_view name = programs[p].op_name(i);
      if (name.empty()) continue;
      const auto [it, added] = ids.try_emplace(name, static_cast<std::uint32_t>(names.size()));
      if (added) {
        names.push_back(name);
        width = std::max(width, name.size());
      }
      ops.push_back({p, i, it->second});
    }
  }
  using output::h5::Handle;
  // Fixed-length strings as wide as the longest name (parallel HDF5 writes
  // no variable-length ones).
  Handle str_t = output::h5::fixed_string_type(width);
  Handle names_t(H5Tcreate(H5T_COMPOUND, width));
  check(H5Tinsert(names_t.get(), "name", 0, str_t.get()), "name");
  std::vector<char> text(names.size() * width, '\0');
  for (std::size_t i = 0; i < names.size(); ++i)
    std::memcpy(text.data() + i * width, names[i].data(), names[i].size());
  output::h5::write_rank0_rows(file, "/trace/names", names_t.get(), names.size(), text.data());

  Handle ops_t(H5Tcreate(H5T_COMPOUND, sizeof(OpRow)));
  check(H5Tinsert(ops_t.get(), "program", offsetof(OpRow, program), H5T_NATIVE_UINT32), "program");
  check(H5Tinsert(ops_t.get(), "op", offsetof(OpRow, op), H5T_NATIVE_UINT32), "op");
  check(H5Tinsert(ops_t.get(), "name", offsetof(OpRow, name), H5T_NATIVE_UINT32), "name");
  output::h5::write_rank0_rows(file, "/trace/ops", ops_t.get(), ops.size(), ops.data());
}

}  // namespace sipsim::workload
