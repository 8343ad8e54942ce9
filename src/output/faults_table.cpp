#include "sipsim/output/faults_table.hpp"

#include <cstddef>
#include <string>

namespace sipsim::output {

namespace {

void check(herr_t status, const char* what) {
  if (status < 0) throw h5::Error(std::string("writing /faults: ") + what);
}

}  // namespace

void write_faults(h5::File& file, const std::vector<FaultRow>& rows) {
  h5::Handle kind_t = h5::fixed_string_type(sizeof(FaultRow::kind));
  h5::Handle target_t = h5::fixed_string_type(sizeof(FaultRow::target));
  h5::Handle removed_t = h5::fixed_string_type(sizeof(FaultRow::removed));
  h5::Handle t(H5Tcreate(H5T_COMPOUND, sizeof(FaultRow)));
  const hid_t id = t.get();
  check(H5Tinsert(id, "id", offsetof(FaultRow, id), H5T_NATIVE_UINT32), "id");
  check(H5Tinsert(id, "kind", offsetof(FaultRow, kind), kind_t.get()), "kind");
  check(H5Tinsert(id, "target", offsetof(FaultRow, target), target_t.get()), "target");
  check(H5Tinsert(id, "at_ps", offsetof(FaultRow, at_ps), H5T_NATIVE_UINT64), "at_ps");
  check(H5Tinsert(id, "until_ps", offsetof(FaultRow, until_ps), H5T_NATIVE_UINT64), "until_ps");
  check(H5Tinsert(id, "happened", offsetof(FaultRow, happened), H5T_NATIVE_UINT8), "happened");
  check(H5Tinsert(id, "factor", offsetof(FaultRow, factor), H5T_NATIVE_DOUBLE), "factor");
  check(H5Tinsert(id, "removed", offsetof(FaultRow, removed), removed_t.get()), "removed");
  check(H5Tinsert(id, "removed_bps", offsetof(FaultRow, removed_bps), H5T_NATIVE_DOUBLE),
        "removed_bps");
  const h5::Handle dset = h5::write_rank0_rows(file, "/faults", id, rows.size(), rows.data());
  h5::write_attr(dset.get(), "time_units", std::string_view("ps"));
}

}  // namespace sipsim::output
