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
  check(H5Tinsert(id, "algbw_gbps", offsetof(CollectiveRow, algbw_gbps), H5T_NATIVE_DOUBLE), "a");
  check(H5Tinsert(id, "busbw_gbps", offsetof(CollectiveRow, busbw_gbps), H5T_NATIVE_DOUBLE), "b");

  const hsize_t n = rows.size();
  h5::Handle space(H5Screate_simple(1, &n, nullptr));
  h5::Handle dset(H5Dcreate2(file.id(), "/collectives", id, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT));
  h5::check_collective(file.comm(), dset ? 0 : -1, "cannot create /collectives");
  int rank = 0;
  MPI_Comm_rank(file.comm(), &rank);
  h5::Handle mem(H5Screate_simple(1, &n, nullptr));
  h5::Handle fspace(H5Dget_space(dset.get()));
  if (rank != 0 || n == 0) {
    H5Sselect_none(mem.get());
    H5Sselect_none(fspace.get());
  }
  h5::Handle dxpl(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  // Rank 0 writes: every rank must learn if that fails (a full disk).
  h5::check_collective(file.comm(),
                       H5Dwrite(dset.get(), id, mem.get(), fspace.get(), dxpl.get(), rows.data()),
                       "writing /collectives: rows");
  h5::write_attr(dset.get(), "time_units", std::string_view("ps"));
  h5::write_attr(dset.get(), "bandwidth_units", std::string_view("GB/s (1e9 bytes/s)"));
}

}  // namespace sipsim::output
