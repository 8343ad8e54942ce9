// Tests for the parallel HDF5 layer. Run on 1 and 3 ranks: every rank writes,
// then rank 0 reopens the file serially and checks what actually landed on
// disk, independently of the writing code (only Handle is reused).
#include "sipsim/output/h5.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace {

namespace h5 = sipsim::output::h5;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// A file name chosen by rank 0 and shared by all ranks (their pids differ);
// rank 0 removes it once every rank is done with it.
class SharedTempPath {
 public:
  SharedTempPath() {
    static int counter = 0;
    std::string name;
    if (world_rank() == 0) {
      name = (std::filesystem::temp_directory_path() /
              ("sipsim_h5test_" + std::to_string(getpid()) + "_" + std::to_string(counter) + ".h5"))
                 .string();
    }
    ++counter;
    int length = static_cast<int>(name.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    name.resize(static_cast<std::size_t>(length));
    MPI_Bcast(name.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = std::move(name);
  }
  SharedTempPath(const SharedTempPath&) = delete;
  SharedTempPath& operator=(const SharedTempPath&) = delete;
  ~SharedTempPath() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      std::error_code ignored;
      std::filesystem::remove(path_, ignored);
    }
  }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// --- Serial read-back helpers (rank 0) -------------------------------------

struct StringAttr {
  bool found = false;
  std::string raw;  // every stored byte, padding included
  std::size_t size = 0;
  H5T_str_t pad = H5T_STR_ERROR;
  H5T_cset_t cset = H5T_CSET_ERROR;
  H5S_class_t space = H5S_NO_CLASS;
};

StringAttr read_string_attr(hid_t object, const char* name) {
  StringAttr out;
  const h5::Handle attr(H5Aopen(object, name, H5P_DEFAULT));
  if (!attr) return out;
  const h5::Handle type(H5Aget_type(attr.get()));
  const h5::Handle space(H5Aget_space(attr.get()));
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0) return out;
  out.size = H5Tget_size(type.get());
  out.pad = H5Tget_strpad(type.get());
  out.cset = H5Tget_cset(type.get());
  out.space = H5Sget_simple_extent_type(space.get());
  out.raw.assign(out.size, '\x7f');
  if (H5Aread(attr.get(), type.get(), out.raw.data()) < 0) return out;
  out.found = true;
  return out;
}

// What h5py/numpy hand back for a fixed-length string: the bytes before the
// trailing NUL padding.
std::string as_h5py_reads(const std::string& raw) {
  const std::size_t end = raw.find_last_not_of('\0');
  return end == std::string::npos ? std::string() : raw.substr(0, end + 1);
}

// Checks a string attribute holds exactly `expected`, stored the agreed way.
void expect_string_attr(hid_t object, const char* name, const std::string& expected) {
  SCOPED_TRACE(name);
  const StringAttr attr = read_string_attr(object, name);
  ASSERT_TRUE(attr.found);
  EXPECT_EQ(attr.space, H5S_SCALAR);
  EXPECT_EQ(attr.pad, H5T_STR_NULLPAD);
  EXPECT_EQ(attr.cset, H5T_CSET_UTF8);
  EXPECT_EQ(attr.size, std::max<std::size_t>(expected.size(), 1));
  EXPECT_EQ(as_h5py_reads(attr.raw), expected);
  if (!expected.empty()) {
    EXPECT_EQ(attr.raw, expected);  // no byte lost to a terminator
  }
}

template <typename T>
void expect_scalar_attr(hid_t object, const char* name, hid_t file_type, hid_t mem_type,
                        T expected) {
  SCOPED_TRACE(name);
  const h5::Handle attr(H5Aopen(object, name, H5P_DEFAULT));
  ASSERT_TRUE(attr);
  const h5::Handle type(H5Aget_type(attr.get()));
  const h5::Handle space(H5Aget_space(attr.get()));
  EXPECT_GT(H5Tequal(type.get(), file_type), 0);
  EXPECT_EQ(H5Sget_simple_extent_type(space.get()), H5S_SCALAR);
  T value{};
  ASSERT_GE(H5Aread(attr.get(), mem_type, &value), 0);
  EXPECT_EQ(value, expected);
}

template <typename T>
void expect_dataset(hid_t file, const char* path, hid_t file_type, hid_t mem_type,
                    const std::vector<T>& expected) {
  SCOPED_TRACE(path);
  const h5::Handle dataset(H5Dopen2(file, path, H5P_DEFAULT));
  ASSERT_TRUE(dataset);
  const h5::Handle type(H5Dget_type(dataset.get()));
  const h5::Handle space(H5Dget_space(dataset.get()));
  EXPECT_GT(H5Tequal(type.get(), file_type), 0);
  ASSERT_EQ(H5Sget_simple_extent_ndims(space.get()), 1);
  hsize_t dims = 0;
  H5Sget_simple_extent_dims(space.get(), &dims, nullptr);
  ASSERT_EQ(dims, expected.size());
  if (dims == 0) return;
  // Sentinel fill so an unread buffer cannot pass by accident.
  std::vector<T> values(dims, T{42});
  ASSERT_GE(H5Dread(dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  EXPECT_EQ(values, expected);
}

h5::Handle open_for_reading(const std::string& path) {
  return h5::Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
}

// --- Shared test data --------------------------------------------------------

// Large enough (> 64 KiB) to need dense attribute storage, like a big scenario.
std::string big_text(std::size_t size) {
  std::string text;
  text.reserve(size);
  for (std::size_t i = 0; text.size() < size; ++i) {
    text += (i % 80 == 79) ? '\n' : static_cast<char>('a' + i % 26);
  }
  return text;
}

// The (indices, values) a rank owns under `owner`, value(i) for each.
template <typename T, typename Owner, typename Value>
std::pair<std::vector<std::uint64_t>, std::vector<T>> owned(std::uint64_t n, Owner owner,
                                                            Value value) {
  std::pair<std::vector<std::uint64_t>, std::vector<T>> out;
  const int rank = world_rank();
  for (std::uint64_t i = 0; i < n; ++i) {
    if (owner(i) == rank) {
      out.first.push_back(i);
      out.second.push_back(value(i));
    }
  }
  return out;
}

template <typename T, typename Value>
std::vector<T> all_values(std::uint64_t n, Value value) {
  std::vector<T> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(value(i));
  return out;
}

// MurmurHash3's 64-bit finalizer: a deterministic, patternless scramble.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdu;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53u;
  x ^= x >> 33;
  return x;
}

std::uint64_t square_plus_7(std::uint64_t i) {
  return i * i + 7;
}
double half_minus_one(std::uint64_t i) {
  return static_cast<double>(i) * 0.5 - 1.0;
}

// --- Handle ---------------------------------------------------------------

TEST(H5Handle, DefaultAndNegativeIdsAreEmpty) {
  const h5::Handle empty;
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.get(), -1);
  const h5::Handle failed(H5I_INVALID_HID);
  EXPECT_FALSE(failed);
}

TEST(H5Handle, MoveTransfersOwnershipAndAssignmentClosesTheOldId) {
  h5::Handle a(H5Pcreate(H5P_FILE_ACCESS));
  ASSERT_TRUE(a);
  const hid_t plist = a.get();
  h5::Handle b(std::move(a));
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(b.get(), plist);
  EXPECT_GT(H5Iis_valid(plist), 0);

  h5::Handle c(H5Screate(H5S_SCALAR));
  const hid_t space = c.get();
  c = std::move(b);
  EXPECT_EQ(H5Iis_valid(space), 0);
  EXPECT_EQ(c.get(), plist);
  EXPECT_GT(H5Iis_valid(plist), 0);
  c.reset();
  EXPECT_FALSE(c);
  EXPECT_EQ(H5Iis_valid(plist), 0);
  c.reset();  // idempotent
}

// Each kind of id goes through its own H5*close; leaked ids would stay valid.
TEST(H5Handle, ClosesEveryKindOfId) {
  // Serial and per rank: a rank-private file through the default driver.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sipsim_h5handle_" + std::to_string(getpid()) + ".h5"))
                               .string();
  std::vector<hid_t> ids;
  {
    const h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(file);
    const h5::Handle group(H5Gcreate2(file.get(), "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const h5::Handle space(H5Screate(H5S_SCALAR));
    const h5::Handle type(H5Tcopy(H5T_STD_I32LE));
    const h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE));
    const h5::Handle dataset(H5Dcreate2(group.get(), "d", type.get(), space.get(), H5P_DEFAULT,
                                        plist.get(), H5P_DEFAULT));
    const h5::Handle attr(
        H5Acreate2(dataset.get(), "a", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    for (const h5::Handle* h : {&file, &group, &space, &type, &plist, &dataset, &attr}) {
      ASSERT_TRUE(*h);
      ids.push_back(h->get());
    }
  }
  for (const hid_t id : ids) EXPECT_EQ(H5Iis_valid(id), 0) << "id " << id << " left open";
  std::filesystem::remove(path);
}

// --- File, attributes, distributed datasets ---------------------------------

void verify_round_trip(const std::string& path, const std::string& big) {
  const h5::Handle file = open_for_reading(path);
  ASSERT_TRUE(file);
  expect_string_attr(file.get(), "title", "sipsim run");
  expect_string_attr(file.get(), "empty", "");
  expect_string_attr(file.get(), "utf8", "latency: 5 \xc2\xb5s");

  const h5::Handle meta(H5Gopen2(file.get(), "/meta", H5P_DEFAULT));
  ASSERT_TRUE(meta);
  expect_string_attr(meta.get(), "scenario_yaml", big);
  expect_string_attr(meta.get(), "second_big", std::string(70000, 'x'));
  expect_string_attr(meta.get(), "empty", "");
  expect_string_attr(meta.get(), "replaced", "now a string");
  expect_scalar_attr(meta.get(), "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                     std::numeric_limits<std::uint64_t>::max());
  expect_scalar_attr(meta.get(), "zero", H5T_STD_U64LE, H5T_NATIVE_UINT64, std::uint64_t{0});
  expect_scalar_attr(meta.get(), "lowest", H5T_STD_I64LE, H5T_NATIVE_INT64,
                     std::numeric_limits<std::int64_t>::min());
  expect_scalar_attr(meta.get(), "negative", H5T_STD_I64LE, H5T_NATIVE_INT64, std::int64_t{-42});
  expect_scalar_attr(meta.get(), "end_time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1.25e-3);
  expect_scalar_attr(meta.get(), "after_dense", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, -0.1);

  const h5::Handle lp(H5Gopen2(file.get(), "/lp", H5P_DEFAULT));
  ASSERT_TRUE(lp);
  expect_dataset(file.get(), "/lp/u", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                 all_values<std::uint64_t>(10, square_plus_7));
  expect_dataset(file.get(), "/lp/d", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                 all_values<double>(10, half_minus_one));
  expect_dataset(file.get(), "/lp/empty", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                 std::vector<std::uint64_t>{});
  expect_dataset(file.get(), "/lp/empty_d", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                 std::vector<double>{});
  const h5::Handle u(H5Dopen2(file.get(), "/lp/u", H5P_DEFAULT));
  ASSERT_TRUE(u);
  expect_string_attr(u.get(), "units", "count");
}

// A 2-rank run that committed no events writes histograms of no buckets.
TEST(H5File, EmptyArrayAttributesAreWrittenWithNoElements) {
  const SharedTempPath path;
  {
    h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
    h5::write_attr(file.id(), "no_counts", std::span<const std::uint64_t>{});
    h5::write_attr(file.id(), "no_seconds", std::span<const double>{});
    const std::array<std::uint64_t, 2> shape{2, 0};
    h5::write_attr(file.id(), "no_rows", std::span<const std::uint64_t>{}, shape);
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle f(H5Fopen(path.str().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  ASSERT_TRUE(f);
  for (const char* name : {"no_counts", "no_seconds", "no_rows"}) {
    const h5::Handle a(H5Aopen(f.get(), name, H5P_DEFAULT));
    ASSERT_TRUE(a) << name;
    const h5::Handle space(H5Aget_space(a.get()));
    EXPECT_EQ(H5Sget_simple_extent_npoints(space.get()), 0) << name;
  }
}

TEST(H5File, RoundTripsGroupsAttributesAndDatasets) {
  const SharedTempPath path;
  const std::string big = big_text(100 * 1024);
  {
    h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
    ASSERT_GE(file.id(), 0);
    h5::write_attr(file.id(), "title", "sipsim run");
    h5::write_attr(file.id(), "empty", "");
    h5::write_attr(file.id(), "utf8", "latency: 5 \xc2\xb5s");

    const h5::Handle meta = file.create_group("/meta");
    const h5::Handle lp = file.create_group("/lp");
    ASSERT_TRUE(meta);
    ASSERT_TRUE(lp);
    h5::write_attr(meta.get(), "scenario_yaml", big);
    h5::write_attr(meta.get(), "second_big", std::string(70000, 'x'));
    h5::write_attr(meta.get(), "empty", "");
    // Overwriting must also change the type.
    h5::write_attr(meta.get(), "replaced", std::uint64_t{7});
    h5::write_attr(meta.get(), "replaced", "now a string");
    h5::write_attr(meta.get(), "seed", std::numeric_limits<std::uint64_t>::max());
    h5::write_attr(meta.get(), "zero", std::uint64_t{0});
    h5::write_attr(meta.get(), "lowest", std::numeric_limits<std::int64_t>::min());
    h5::write_attr(meta.get(), "negative", std::int64_t{-42});
    h5::write_attr(meta.get(), "end_time", 1.0);
    h5::write_attr(meta.get(), "end_time", 1.25e-3);
    // Small attributes keep working once the object has gone dense.
    h5::write_attr(meta.get(), "after_dense", -0.1);

    // Round-robin ownership: rank r holds i with i % size == r.
    const int size = world_size();
    const auto [u_idx, u_val] = owned<std::uint64_t>(
        10, [size](std::uint64_t i) { return static_cast<int>(i % size); }, square_plus_7);
    const h5::Handle u = h5::write_distributed(file, "/lp/u", 10, u_idx, u_val);
    ASSERT_TRUE(u);
    h5::write_attr(u.get(), "units", "count");

    // Rank 0 owns everything; the others join with nothing.
    const auto [d_idx, d_val] = owned<double>(
        10, [](std::uint64_t) { return 0; }, half_minus_one);
    EXPECT_TRUE(h5::write_distributed(file, "/lp/d", 10, d_idx, d_val));

    EXPECT_TRUE(h5::write_distributed(file, "/lp/empty", 0, {}, std::span<const std::uint64_t>{}));
    EXPECT_TRUE(h5::write_distributed(file, "/lp/empty_d", 0, {}, std::span<const double>{}));
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) verify_round_trip(path.str(), big);
}

// What a dataset must read back as: value(i) where some rank owns i, and the
// 0 fill value where none does.
template <typename T, typename Owner, typename Value>
std::vector<T> expected_values(std::uint64_t n, Owner owner, Value value) {
  std::vector<T> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(owner(i) >= 0 ? value(i) : T{});
  return out;
}

// Ownership patterns that exercise run coalescing, strided-hyperslab grouping
// and merging of selection batches: each element must land once, at its own
// index, whatever the number of ranks. Values are never 0, the fill value, so
// a missed element shows. Owner -1 means no rank writes the element.
TEST(H5File, WritesAnyOwnershipPattern) {
  const SharedTempPath path;
  const int size = world_size();
  struct Pattern {
    const char* name;
    std::uint64_t n;
    int (*owner)(std::uint64_t, int);
  };
  const Pattern patterns[] = {
      {"/block_cyclic_2", 20, [](std::uint64_t i, int p) { return static_cast<int>(i / 2 % p); }},
      {"/contiguous_blocks", 31,
       [](std::uint64_t i, int p) { return static_cast<int>(i * p / 31); }},
      {"/irregular", 10007,
       [](std::uint64_t i, int p) { return static_cast<int>((i * i + 3 * i) / 4 % p); }},
      {"/mixed_runs", 64,
       [](std::uint64_t i, int p) { return static_cast<int>((i % 7 < 3 ? 0 : i % 5) % p); }},
      {"/last_rank_only_tail", 9, [](std::uint64_t i, int p) { return i == 8 ? p - 1 : 0; }},
      // Holes at a fixed stride: one strided hyperslab even on one rank.
      {"/strided_holes", 100,
       [](std::uint64_t i, int p) { return i % 3 == 1 ? static_cast<int>(i / 3 % p) : -1; }},
      // Pseudo-random holes and owners: irregular runs, many selection
      // batches to merge, even on one rank.
      {"/sparse", 20011,
       [](std::uint64_t i, int p) {
         const std::uint64_t h = mix(i);
         return h % 4 == 0 ? -1 : static_cast<int>(h / 4 % p);
       }},
  };
  {
    h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
    for (const Pattern& pattern : patterns) {
      const auto owner = [&](std::uint64_t i) { return pattern.owner(i, size); };
      const auto [idx, val] = owned<std::uint64_t>(pattern.n, owner, square_plus_7);
      h5::write_distributed(file, pattern.name, pattern.n, idx, val);
      const auto [didx, dval] = owned<double>(pattern.n, owner, half_minus_one);
      h5::write_distributed(file, std::string(pattern.name) + "_d", pattern.n, didx, dval);
    }
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle file = open_for_reading(path.str());
  ASSERT_TRUE(file);
  for (const Pattern& pattern : patterns) {
    const auto owner = [&](std::uint64_t i) { return pattern.owner(i, size); };
    expect_dataset(file.get(), pattern.name, H5T_STD_U64LE, H5T_NATIVE_UINT64,
                   expected_values<std::uint64_t>(pattern.n, owner, square_plus_7));
    expect_dataset(file.get(), (std::string(pattern.name) + "_d").c_str(), H5T_IEEE_F64LE,
                   H5T_NATIVE_DOUBLE, expected_values<double>(pattern.n, owner, half_minus_one));
  }
}

TEST(H5File, CreateFailureNamesThePath) {
  // Same on every rank: file creation is collective.
  const std::string path = "/nonexistent-sipsim-dir/sub/run.h5";
  try {
    h5::File::create(path, MPI_COMM_WORLD);
    ADD_FAILURE() << "creating " << path << " did not throw";
  } catch (const h5::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << e.what();
  }
}

// A run never writes into a file it did not create: an existing one is left
// as it is.
TEST(H5File, CreateRefusesAnExistingFile) {
  const SharedTempPath path;
  if (world_rank() == 0) {
    std::FILE* f = std::fopen(path.str().c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("not hdf5", f);
    std::fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_THROW(h5::File::create(path.str(), MPI_COMM_WORLD), h5::Error);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  std::FILE* f = std::fopen(path.str().c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[16] = {};
  EXPECT_EQ(std::fread(buf, 1, sizeof buf, f), 8u);
  std::fclose(f);
  EXPECT_STREQ(buf, "not hdf5");
}

// Invalid calls throw on every rank before anything collective happens, so
// the file stays consistent and usable.
TEST(H5File, RejectsInvalidCalls) {
  const SharedTempPath path;
  {
    h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
    const std::vector<std::uint64_t> values = {1, 2};
    const std::vector<std::uint64_t> repeated = {1, 1};
    const std::vector<std::uint64_t> decreasing = {2, 1};
    const std::vector<std::uint64_t> out_of_range = {0, 4};
    const std::vector<std::uint64_t> one = {0};
    EXPECT_THROW(h5::write_distributed(file, "/bad", 4, repeated, values), h5::Error);
    EXPECT_THROW(h5::write_distributed(file, "/bad", 4, decreasing, values), h5::Error);
    EXPECT_THROW(h5::write_distributed(file, "/bad", 4, out_of_range, values), h5::Error);
    EXPECT_THROW(h5::write_distributed(file, "/bad", 4, one, values), h5::Error);
    const std::vector<double> dvalues = {1.0, 2.0};
    EXPECT_THROW(h5::write_distributed(file, "/bad", 0, one, std::span<const double>{}), h5::Error);
    EXPECT_THROW(h5::write_distributed(file, "/bad", 1, out_of_range, dvalues), h5::Error);

    EXPECT_TRUE(file.create_group("/g"));
    try {
      file.create_group("/g");
      ADD_FAILURE() << "creating /g twice did not throw";
    } catch (const h5::Error& e) {
      EXPECT_NE(std::string(e.what()).find("/g"), std::string::npos) << e.what();
    }
    EXPECT_THROW(file.create_group("/missing/parent"), h5::Error);
    EXPECT_THROW(h5::write_attr(H5I_INVALID_HID, "x", std::uint64_t{1}), h5::Error);
    EXPECT_THROW(h5::write_attr(H5I_INVALID_HID, "x", "text"), h5::Error);

    // Existing name: the dataset is not silently replaced. Rank 0 writes
    // element 0; element 1 belongs to nobody and reads back as 0.
    const std::vector<std::uint64_t> mine = world_rank() == 0 ? one : std::vector<std::uint64_t>{};
    const std::vector<std::uint64_t> five(mine.size(), 5);
    const std::vector<std::uint64_t> six(mine.size(), 6);
    h5::write_distributed(file, "/ok", 2, mine, five);
    EXPECT_THROW(h5::write_distributed(file, "/ok", 2, mine, six), h5::Error);
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle file = open_for_reading(path.str());
  ASSERT_TRUE(file);
  EXPECT_EQ(H5Lexists(file.get(), "/bad", H5P_DEFAULT), 0);
  EXPECT_GT(H5Lexists(file.get(), "/g", H5P_DEFAULT), 0);
  expect_dataset(file.get(), "/ok", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                 std::vector<std::uint64_t>{5, 0});
}

// A mistake on one rank alone must make every rank throw, not leave the
// others blocked in the collective create/write; the file stays usable.
TEST(H5File, InvalidInputOnOneRankThrowsOnEveryRank) {
  const SharedTempPath path;
  const bool last = world_rank() == world_size() - 1;
  {
    h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
    const std::vector<std::uint64_t> idx = {last ? 9u : 0u};
    const std::vector<std::uint64_t> val = {1};
    try {
      h5::write_distributed(file, "/bad", 4, idx, val);
      ADD_FAILURE() << "no rank rejected index 9 of 4";
    } catch (const h5::Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("/bad"), std::string::npos) << message;
      if (last) {
        EXPECT_NE(message.find("out of range"), std::string::npos) << message;
      }
    }
    const std::vector<std::uint64_t> mine = {static_cast<std::uint64_t>(world_rank())};
    h5::write_distributed(file, "/good", static_cast<std::uint64_t>(world_size()), mine, mine);
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle file = open_for_reading(path.str());
  ASSERT_TRUE(file);
  EXPECT_EQ(H5Lexists(file.get(), "/bad", H5P_DEFAULT), 0);
  std::vector<std::uint64_t> expected;
  for (int r = 0; r < world_size(); ++r) expected.push_back(static_cast<std::uint64_t>(r));
  expect_dataset(file.get(), "/good", H5T_STD_U64LE, H5T_NATIVE_UINT64, expected);
}

// Ranks claiming more elements than the dataset holds must overlap; every
// rank finds out from the same count, so all throw together.
TEST(H5File, OverlappingOwnershipThrowsOnEveryRank) {
  const SharedTempPath path;
  h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
  const std::vector<std::uint64_t> zero = {0};
  const std::vector<double> value = {1.5};
  if (world_size() > 1) {
    EXPECT_THROW(h5::write_distributed(file, "/overlap", 1, zero, value), h5::Error);
  } else {
    EXPECT_NO_THROW(h5::write_distributed(file, "/overlap", 1, zero, value));
  }
  EXPECT_NO_THROW(file.close());
}

TEST(H5File, CloseIsIdempotentAndClosesHandlesStillOpen) {
  const SharedTempPath path;
  h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
  const h5::Handle group = file.create_group("/kept_open");
  const std::vector<std::uint64_t> mine = {static_cast<std::uint64_t>(world_rank())};
  const std::vector<double> value = {static_cast<double>(world_rank()) + 0.5};
  const h5::Handle dataset = h5::write_distributed(
      file, "/kept_open/d", static_cast<std::uint64_t>(world_size()), mine, value);
  ASSERT_TRUE(group);
  ASSERT_TRUE(dataset);
  EXPECT_NO_THROW(file.close());
  EXPECT_LT(file.id(), 0);
  EXPECT_EQ(H5Iis_valid(group.get()), 0);
  EXPECT_EQ(H5Iis_valid(dataset.get()), 0);
  EXPECT_NO_THROW(file.close());
  EXPECT_THROW(file.create_group("/after_close"), h5::Error);

  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle reread = open_for_reading(path.str());
  ASSERT_TRUE(reread);
  std::vector<double> expected;
  for (int r = 0; r < world_size(); ++r) expected.push_back(r + 0.5);
  expect_dataset(reread.get(), "/kept_open/d", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, expected);
}

TEST(H5File, DestructorAndMoveCloseTheFile) {
  const SharedTempPath path;
  {
    h5::File created = h5::File::create(path.str(), MPI_COMM_WORLD);
    h5::File file = std::move(created);
    h5::write_attr(file.id(), "answer", std::int64_t{42});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle file = open_for_reading(path.str());
  ASSERT_TRUE(file);
  expect_scalar_attr(file.get(), "answer", H5T_STD_I64LE, H5T_NATIVE_INT64, std::int64_t{42});
}

// A failure that only some ranks see (a write that fills the disk fails on
// the ranks that write) is thrown on every rank, so none is left waiting in
// the next collective call.
TEST(H5Agree, AFailureOnOneRankThrowsOnEveryRank) {
  const bool last = world_rank() == world_size() - 1;
  try {
    h5::check_collective(MPI_COMM_WORLD, last ? -1 : 0, "cannot write /x");
    ADD_FAILURE() << "no rank threw";
  } catch (const h5::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write /x", 0), 0u) << e.what();
  }
  EXPECT_NO_THROW(h5::check_collective(MPI_COMM_WORLD, 0, "cannot write /y"));
  EXPECT_NO_THROW(h5::agree(MPI_COMM_WORLD, nullptr));
}

// Of several failing ranks, one that knows the system's reason (ENOSPC) is
// the one reported, with its errno, even when a lower rank failed too.
TEST(H5Agree, TheSystemReasonWinsOverALowerRank) {
  const bool last = world_rank() == world_size() - 1;
  std::optional<h5::Error> local;
  if (world_rank() == 0) local.emplace("rank 0: file write failed");
  if (last) local.emplace("last rank: No space left on device", ENOSPC);
  try {
    h5::agree(MPI_COMM_WORLD, local ? &*local : nullptr);
    ADD_FAILURE() << "no rank threw";
  } catch (const h5::Error& e) {
    EXPECT_STREQ(e.what(), "last rank: No space left on device");
    EXPECT_EQ(e.system_error(), ENOSPC);
  }
}

TEST(H5File, FlushWritesTheMetadataAndKeepsTheFileUsable) {
  const SharedTempPath path;
  {
    h5::File file = h5::File::create(path.str(), MPI_COMM_WORLD);
    h5::write_attr(file.id(), "before", std::uint64_t{1});
    EXPECT_GT(file.cached_metadata_bytes(), 0u);
    EXPECT_NO_THROW(file.flush());
    h5::write_attr(file.id(), "after", std::uint64_t{2});
    EXPECT_NO_THROW(file.close());
    EXPECT_EQ(file.cached_metadata_bytes(), 0u);
  }
  EXPECT_FALSE(h5::library_unusable());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const h5::Handle file = open_for_reading(path.str());
  ASSERT_TRUE(file);
  expect_scalar_attr(file.get(), "before", H5T_STD_U64LE, H5T_NATIVE_UINT64, std::uint64_t{1});
  expect_scalar_attr(file.get(), "after", H5T_STD_U64LE, H5T_NATIVE_UINT64, std::uint64_t{2});
}

// Other ranks print nothing but their own failures, so a failure seen only
// off rank 0 is still diagnosable.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_,
                 result.file_name() != nullptr ? result.file_name() : "?", result.line_number(),
                 result.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = world_rank();
  if (rank != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_failed != 0 && local_failed == 0) {
    std::fprintf(stderr, "tests failed on another rank (see [rank N] lines above)\n");
  }
  MPI_Finalize();
  return any_failed;
}
