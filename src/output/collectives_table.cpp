#include "sipsim/output/collectives_table.hpp"

#include <cstddef>

namespace sipsim::output {

namespace {

void check(herr_t status, const char* what) {
  if (status < 0) throw h5::Error(std::string("writing /collectives: ") + what);
}

}  // namespace

void write_collectives(h5::File& file, const std::vector<CollectiveRow>& rows) {
  h5::Handle op_t = h5::fixed_string_type(sizeof(CollectiveRow::op));
  h5::Handle algo_t = h5::fixed_string_type(sizeof(CollectiveRow::algorithm));
  // The same layout in memory and in the file (little-endian explicit types),
  // so h5py and pandas read it as a plain structured array.
  h5::Handle t(H5Tcreate(H5T_COMPOUND, sizeof(CollectiveRow)));
  const hid_t id = t.get();
  check(H5Tinsert(id, "id", offsetof(CollectiveRow, id), H5T_NATIVE_UINT64), "id");
  check(H5Tinsert(id, "op", offsetof(CollectiveRow, op), op_t.get()), "op");
  check(H5Tinsert(id, "algorithm", offsetof(CollectiveRow, algorithm), algo_t.get()), "algorithm");
  check(H5Tinsert(id, "group_size", offsetof(CollectiveRow, group_size), H5T_NATIVE_UINT32), "g");
  check(H5Tinsert(id, "bytes", offsetof(CollectiveRow, bytes), H5T_NATIVE_UINT64), "bytes");
  check(H5Tinsert(id, "iteration", offsetof(CollectiveRow, iteration), H5T_NATIVE_UINT32), "it");
  check(H5Tinsert(id, "warmup", offsetof(CollectiveRow, warmup), H5T_NATIVE_UINT8), "warmup");
  check(H5Tinsert(id, "start_ps", offsetof(CollectiveRow, start_ps), H5T_NATIVE_UINT64), "start");
  check(H5Tinsert(id, "end_ps", offsetof(CollectiveRow, end_ps), H5T_NATIVE_UINT64), "end");
  check(H5Tinsert(id, "h2h_ps", offsetof(CollectiveRow, h2h_ps), H5T_NATIVE_UINT64), "h2h");
  check(H5Tinsert(id, "h2t_ps", offsetof(CollectiveRow, h2t_ps), H5T_NATIVE_UINT64), "h2t");
  check(H5Tinsert(id, "compute_ps", offsetof(CollectiveRow, compute_ps), H5T_NATIVE_UINT64), "c");
  check(H5Tinsert(id, "algbw_GBps", offsetof(CollectiveRow, algbw_GBps), H5T_NATIVE_DOUBLE), "a");
  check(H5Tinsert(id, "busbw_GBps", offsetof(CollectiveRow, busbw_GBps), H5T_NATIVE_DOUBLE), "b");

  const h5::Handle dset = h5::write_rank0_rows(file, "/collectives", id, rows.size(), rows.data());
  h5::write_attr(dset.get(), "time_units", std::string_view("ps"));
  h5::write_attr(dset.get(), "bandwidth_units", std::string_view("GB/s (1e9 bytes/s)"));
}

}  // namespace sipsim::output
