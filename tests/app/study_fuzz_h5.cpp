// Hostile run files for the study fuzz test, made with the HDF5 C API: the
// schema of docs/output.md bent every way a crafted or damaged file can bend
// it (links out of the file, shapes and declared sizes past the file, wrong
// types, odd attributes), plus truncated and byte-flipped copies of the
// committed seed run files and what else may sit at a run file's path.
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include "sipsim/output/h5.hpp"
#include "sipsim/output/run_file.hpp"
#include "study_fuzz.hpp"

namespace sipsim::app::fuzz {

namespace {

using output::h5::Handle;

hid_t ok(hid_t id, const char* what) {
  if (id < 0) throw std::runtime_error(std::string("study fuzz: HDF5: cannot ") + what);
  return id;
}

Handle create_file(const fs::path& path) {
  return Handle(ok(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create"));
}

Handle string_type(std::size_t size) {
  Handle t(ok(H5Tcopy(H5T_C_S1), "copy a string type"));
  H5Tset_size(t.get(), size);
  H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
  return t;
}

// A scalar attribute of `type` holding `data`.
void attr(hid_t obj, const char* name, hid_t type, const void* data, hsize_t n = 0) {
  Handle space(n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr));
  Handle a(ok(H5Acreate2(obj, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), name));
  ok(H5Awrite(a.get(), type, data), name);
}

void attr_string(hid_t obj, const char* name, const std::string& value) {
  Handle t = string_type(std::max<std::size_t>(1, value.size()));
  std::string padded = value;
  padded.resize(std::max<std::size_t>(1, value.size()), '\0');
  attr(obj, name, t.get(), padded.data());
}

void attr_u64(hid_t obj, const char* name, std::uint64_t v) {
  attr(obj, name, H5T_STD_U64LE, &v);
}

// /@format and a /meta of a finished run whose scenario is `scenario`;
// `skip` names an attribute to leave out.
void finished(hid_t file, const std::string& scenario, const std::string& skip = "") {
  if (skip != "format") attr_string(file, "format", "sipsim");
  if (skip != "format_version") attr_u64(file, "format_version", output::kFormatVersion);
  Handle meta(ok(H5Gcreate2(file, "/meta", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/meta"));
  if (skip != "run_id") attr_string(meta.get(), "run_id", "0123456789abcdef");
  if (skip != "end_time_ps") attr_u64(meta.get(), "end_time_ps", 68030436);
  if (skip != "committed_events") attr_u64(meta.get(), "committed_events", 1584);
  if (skip != "scenario_yaml") attr_string(meta.get(), "scenario_yaml", scenario);
  attr_string(meta.get(), "scenario_name", "fuzz");
}

// A table's columns: name and file type, packed in order.
struct Column {
  const char* name;
  hid_t type;
};

Handle compound(const std::vector<Column>& columns) {
  std::size_t size = 0;
  for (const Column& c : columns) size += H5Tget_size(c.type);
  Handle t(ok(H5Tcreate(H5T_COMPOUND, std::max<std::size_t>(size, 1)), "compound"));
  std::size_t at = 0;
  for (const Column& c : columns) {
    ok(H5Tinsert(t.get(), c.name, at, c.type), c.name);
    at += H5Tget_size(c.type);
  }
  return t;
}

// The schema's tables (docs/output.md), with one column's type replaced
// when `swap` names it.
std::vector<Column> collective_columns(hid_t s16, hid_t s24, const char* swap = "",
                                       hid_t with = H5T_IEEE_F64LE) {
  std::vector<Column> c = {{"id", H5T_STD_U64LE},
                           {"op", s16},
                           {"algorithm", s24},
                           {"group_size", H5T_STD_U32LE},
                           {"bytes", H5T_STD_U64LE},
                           {"iteration", H5T_STD_U32LE},
                           {"warmup", H5T_STD_U8LE},
                           {"start_ps", H5T_STD_U64LE},
                           {"end_ps", H5T_STD_U64LE},
                           {"h2h_ps", H5T_STD_U64LE},
                           {"h2t_ps", H5T_STD_U64LE},
                           {"compute_ps", H5T_STD_U64LE},
                           {"algbw_GBps", H5T_IEEE_F64LE},
                           {"busbw_GBps", H5T_IEEE_F64LE}};
  for (Column& col : c) {
    if (std::strcmp(col.name, swap) == 0) col.type = with;
  }
  return c;
}

std::vector<Column> iteration_columns(const char* swap = "", hid_t with = H5T_IEEE_F64LE) {
  std::vector<Column> c = {{"iteration", H5T_STD_U32LE},
                           {"start_ps", H5T_STD_U64LE},
                           {"end_ps", H5T_STD_U64LE},
                           {"period_ps", H5T_STD_U64LE},
                           {"hardware_tflops_per_gpu", H5T_IEEE_F64LE},
                           {"model_tflops_per_gpu", H5T_IEEE_F64LE}};
  for (Column& col : c) {
    if (std::strcmp(col.name, swap) == 0) col.type = with;
  }
  return c;
}

std::vector<Column> trace_columns(hid_t s12, hid_t s16) {
  return {{"node", H5T_STD_U32LE},
          {"iteration", H5T_STD_U32LE},
          {"op", H5T_STD_U32LE},
          {"step", H5T_STD_I32LE},
          {"kind", s12},
          {"category", s16},
          {"start_ps", H5T_STD_U64LE},
          {"end_ps", H5T_STD_U64LE}};
}

// Sets a member of one packed row by name, as its file type holds it.
class RowBytes {
 public:
  RowBytes(hid_t type, char* row) : type_(type), row_(row) {}
  void set(const char* member, double v) const {
    const int i = H5Tget_member_index(type_, member);
    if (i < 0) return;
    Handle mt(H5Tget_member_type(type_, static_cast<unsigned>(i)));
    char* at = row_ + H5Tget_member_offset(type_, static_cast<unsigned>(i));
    const std::size_t size = H5Tget_size(mt.get());
    if (H5Tget_class(mt.get()) == H5T_FLOAT) {
      if (size == 8) std::memcpy(at, &v, 8);
      if (size == 4) {
        const auto f = static_cast<float>(v);
        std::memcpy(at, &f, 4);
      }
    } else if (H5Tget_class(mt.get()) == H5T_INTEGER) {
      const auto u = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      std::memcpy(at, &u, std::min<std::size_t>(size, 8));  // little-endian
    }
  }
  void set(const char* member, const std::string& s) const {
    const int i = H5Tget_member_index(type_, member);
    if (i < 0) return;
    Handle mt(H5Tget_member_type(type_, static_cast<unsigned>(i)));
    if (H5Tget_class(mt.get()) != H5T_STRING) return;
    std::memcpy(row_ + H5Tget_member_offset(type_, static_cast<unsigned>(i)), s.data(),
                std::min(s.size(), H5Tget_size(mt.get())));
  }

 private:
  hid_t type_;
  char* row_;
};

// Link creation that makes the groups on the way (/trace of /trace/events).
Handle with_parents() {
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  return lcpl;
}

// A 1-D dataset of `type` at `name`; `rows` of it written by `fill`.
void table(hid_t file, const char* name, hid_t type, std::size_t rows,
           const std::function<void(std::size_t, const RowBytes&)>& fill) {
  const hsize_t n = rows;
  Handle space(H5Screate_simple(1, &n, nullptr));
  Handle d(
      ok(H5Dcreate2(file, name, type, space.get(), with_parents().get(), H5P_DEFAULT, H5P_DEFAULT),
         name));
  if (rows == 0) return;
  const std::size_t size = H5Tget_size(type);
  std::vector<char> bytes(rows * size, '\0');
  for (std::size_t r = 0; r < rows; ++r) fill(r, RowBytes(type, bytes.data() + r * size));
  ok(H5Dwrite(d.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), name);
}

void collectives(hid_t file, std::size_t rows, std::uint64_t end_ps = 2000) {
  Handle s16 = string_type(16), s24 = string_type(24);
  Handle t = compound(collective_columns(s16.get(), s24.get()));
  table(file, "/collectives", t.get(), rows, [&](std::size_t r, const RowBytes& b) {
    b.set("id", static_cast<double>(r));
    b.set("op", std::string("all-reduce"));
    b.set("algorithm", std::string("ring"));
    b.set("group_size", 8);
    b.set("bytes", 1024);
    b.set("start_ps", 1000);
    b.set("end_ps", static_cast<double>(end_ps));
    b.set("busbw_GBps", 1.5);
  });
}

void iterations(hid_t file, std::size_t rows) {
  Handle t = compound(iteration_columns());
  table(file, "/iterations", t.get(), rows, [](std::size_t r, const RowBytes& b) {
    b.set("iteration", static_cast<double>(r));
    b.set("start_ps", static_cast<double>(r * 1000));
    b.set("end_ps", static_cast<double>(r * 1000 + 900));
    b.set("period_ps", r == 0 ? 900.0 : 1000.0);
    b.set("hardware_tflops_per_gpu", 3.5);
    b.set("model_tflops_per_gpu", 2.5);
  });
}

// /trace/events rows (node, start, end) with the schema's columns.
void trace(hid_t file, const std::vector<std::array<std::uint64_t, 3>>& rows) {
  Handle s12 = string_type(12), s16 = string_type(16);
  Handle t = compound(trace_columns(s12.get(), s16.get()));
  table(file, "/trace/events", t.get(), rows.size(), [&](std::size_t r, const RowBytes& b) {
    b.set("node", static_cast<double>(rows[r][0]));
    b.set("step", -1);
    b.set("kind", std::string("compute"));
    b.set("category", std::string("forward"));
    b.set("start_ps", static_cast<double>(rows[r][1]));
    b.set("end_ps", static_cast<double>(rows[r][2]));
  });
}

// A dataset of `type` and shape `dims`, chunked with a fill value, so that
// its declared size costs the file nothing.
void sparse(hid_t file, const char* name, hid_t type, std::vector<hsize_t> dims,
            bool unlimited = false) {
  std::vector<hsize_t> chunk(dims.size(), 1), max = dims;
  if (unlimited) max.assign(dims.size(), H5S_UNLIMITED);
  Handle space(
      ok(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max.data()), "a dataspace"));
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
  ok(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), "chunk");
  std::vector<char> fill(H5Tget_size(type), '\0');
  H5Pset_fill_value(dcpl.get(), type, fill.data());
  H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
  Handle d(
      ok(H5Dcreate2(file, name, type, space.get(), with_parents().get(), dcpl.get(), H5P_DEFAULT),
         name));
}

// /breakdown: a float64 array of `dims` (zeros), with `categories` as given.
void breakdown(hid_t file, std::vector<hsize_t> dims, const std::string& categories) {
  sparse(file, "/breakdown", H5T_IEEE_F64LE, dims);
  Handle d(H5Dopen2(file, "/breakdown", H5P_DEFAULT));
  attr_string(d.get(), "categories", categories);
}

const std::string kCategories =
    "forward,backward,weight-gradient,optimizer,compute,tp-comm,pp-comm,dp-comm,ep-comm,"
    "collective,bubble,idle";

// Replaces, in the file at `path`, the 4- or 8-byte little-endian `marker`
// that follows `prefix` (a datatype's or dataspace's encoding) by `value`:
// how a declared size no HDF5 writer would write gets into a small file.
void patch(const fs::path& path, const std::string& prefix, std::uint64_t marker, std::size_t width,
           std::uint64_t value, int repeat = 1) {
  std::string bytes = read_file(path);
  std::string pattern = prefix;
  for (int r = 0; r < repeat; ++r) pattern.append(reinterpret_cast<const char*>(&marker), width);
  const std::size_t at = bytes.find(pattern);
  if (at == std::string::npos || bytes.find(pattern, at + 1) != std::string::npos) {
    std::string near;
    const std::string m(reinterpret_cast<const char*>(&marker), width);
    for (std::size_t a = bytes.find(m); a != std::string::npos; a = bytes.find(m, a + 1)) {
      near += " [" + shown(bytes.substr(a >= 8 ? a - 8 : 0, 16)) + "]";
    }
    throw std::runtime_error("study fuzz: no single marker to patch in " + path.string() + ":" +
                             near);
  }
  for (int r = 0; r < repeat; ++r) {
    std::memcpy(&bytes[at + prefix.size() + static_cast<std::size_t>(r) * width], &value, width);
  }
  write_file(path, bytes);
}

constexpr std::uint64_t kMarker = 0x1337;  // a string size / element count to find again

// A minimal finished run file whose /@format (or /meta@`which`) string is
// declared `size` bytes long: written at the marker's size, then patched.
void absurd_string_size(const fs::path& at, const std::string& scenario, const std::string& which,
                        std::uint64_t size) {
  {
    Handle f = create_file(at);
    finished(f.get(), scenario, which);
    const std::string text = which == "format" ? "sipsim" : scenario;
    std::string padded = text;
    padded.resize(kMarker, '\0');
    Handle t = string_type(kMarker);
    if (which == "format") {
      attr(f.get(), "format", t.get(), padded.data());
    } else {
      Handle meta(H5Gopen2(f.get(), "/meta", H5P_DEFAULT));
      attr(meta.get(), which.c_str(), t.get(), padded.data());
    }
  }
  // A version-1 datatype message of class string, null-padded ASCII.
  patch(at, std::string("\x13\x01\x00\x00", 4), kMarker, 4, size);
}

// The same with `count` elements declared of a one-element-per-byte string.
void absurd_string_count(const fs::path& at, const std::string& scenario, std::uint64_t count) {
  {
    Handle f = create_file(at);
    finished(f.get(), scenario, "format");
    std::string data(kMarker, 's');
    Handle t = string_type(1);
    attr(f.get(), "format", t.get(), data.data(), kMarker);
  }
  // A version-1 dataspace message: version 1, rank 1, flags 1 (maximum
  // dimensions follow), reserved; the size, then the same as its maximum.
  patch(at, std::string("\x01\x01\x01\x00\x00\x00\x00\x00", 8), kMarker, 8, count, 2);
}

void fifo(const fs::path& at) {
  std::error_code ec;
  fs::remove(at, ec);
  if (::mkfifo(at.c_str(), 0644) != 0) throw std::runtime_error("mkfifo " + at.string());
}

}  // namespace

void patched_seed(const fs::path& seed, const std::string& scenario_text, const fs::path& at) {
  std::error_code ec;
  fs::remove(at, ec);
  fs::copy_file(seed, at);
  Handle f(ok(H5Fopen(at.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "open a seed"));
  Handle meta(ok(H5Gopen2(f.get(), "/meta", H5P_DEFAULT), "open /meta"));
  ok(H5Adelete(meta.get(), "scenario_yaml"), "delete scenario_yaml");
  attr_string(meta.get(), "scenario_yaml", scenario_text);
}

// The cases on the schema: each a minimal finished run file (or more) with
// one thing bent.
std::vector<RunFileCase> crafted_run_files(const RunFileSources& src);

std::vector<RunFileCase> hostile_run_files(const RunFileSources& src, Rng& rng, int scale) {
  std::vector<RunFileCase> cases = crafted_run_files(src);
  const fs::path coll = src.work / "seed-coll.h5", training = src.work / "seed-training.h5";
  patched_seed(src.coll_seed, src.scenario_text, coll);
  patched_seed(src.training_seed, src.scenario_text, training);
  for (const fs::path& seed : {coll, training}) {
    const std::string bytes = read_file(seed);
    const std::string tag = seed.stem().string();
    // Truncated: every k-th prefix, and the first bytes one by one in steps.
    const std::size_t steps = 40 * static_cast<std::size_t>(scale);
    for (std::size_t k = 0; k < steps; ++k) {
      const std::size_t n = bytes.size() * k / steps;
      cases.push_back({tag + "-prefix-" + std::to_string(n), true,
                       [bytes, n](const fs::path& at) { write_file(at, bytes.substr(0, n)); },
                       ExportWant::kRefused});
    }
    for (std::size_t n : {1, 8, 100, 512, 1024, 2048, 4096}) {
      cases.push_back({tag + "-prefix-" + std::to_string(n), true,
                       [bytes, n](const fs::path& at) { write_file(at, bytes.substr(0, n)); },
                       ExportWant::kRefused});
    }
    // Byte-flipped: a few bytes each, at random; the whole may still be valid.
    const int flips = 120 * scale;
    for (int k = 0; k < flips; ++k) {
      std::string copy = bytes;
      std::string what;
      const std::size_t n = 1 + rng.below(rng.chance(70) ? 1 : 8);
      for (std::size_t i = 0; i < n; ++i) {
        // Half in the first 4 KiB, where the superblock and root group are.
        const std::size_t at = rng.chance(50) ? rng.below(std::min<std::size_t>(4096, copy.size()))
                                              : rng.below(copy.size());
        const auto x = static_cast<char>(1 + rng.below(255));
        copy[at] = static_cast<char>(copy[at] ^ x);
        what += "@" + std::to_string(at) + "^" + std::to_string(static_cast<unsigned char>(x));
      }
      cases.push_back(
          {tag + "-flip" + what, false, [copy](const fs::path& at) { write_file(at, copy); }});
    }
  }
  return cases;
}

std::vector<RunFileCase> crafted_run_files(const RunFileSources& src) {
  const std::string& s = src.scenario_text;
  const fs::path pipe = src.work / "fifo";
  fifo(pipe);
  // A finished run file of its own, for links out of the file to point at.
  const fs::path other = src.work / "other.h5";
  {
    Handle f = create_file(other);
    finished(f.get(), s);
    collectives(f.get(), 3);
  }
  std::vector<RunFileCase> c;
  // `make` on a fresh minimal finished run file.
  const auto on_minimal = [&c, s](std::string name, bool must_fail,
                                  std::function<void(hid_t)> bend) {
    c.push_back({std::move(name), must_fail, [s, bend](const fs::path& at) {
                   Handle f = create_file(at);
                   finished(f.get(), s);
                   bend(f.get());
                 }});
  };
  const auto on_bare = [&c, s](std::string name, const std::string& skip,
                               std::function<void(hid_t)> bend, bool must_fail = true) {
    c.push_back({std::move(name), must_fail, [s, skip, bend](const fs::path& at) {
                   Handle f = create_file(at);
                   if (skip == "meta") {
                     attr_string(f.get(), "format", "sipsim");
                   } else {
                     finished(f.get(), s, skip);
                   }
                   bend(f.get());
                 }});
  };
  const auto nothing = [](hid_t) {};

  // Links out of the file, and objects that map other files' data.
  on_bare("meta-external-fifo", "meta",
          [pipe](hid_t f) { H5Lcreate_external(pipe.c_str(), "/meta", f, "/meta", 0, 0); });
  on_bare("meta-external-file", "meta",
          [other](hid_t f) { H5Lcreate_external(other.c_str(), "/meta", f, "/meta", 0, 0); });
  on_minimal("collectives-external-fifo", true, [pipe](hid_t f) {
    H5Lcreate_external(pipe.c_str(), "/collectives", f, "/collectives", 0, 0);
  });
  on_minimal("collectives-external-file", true, [other](hid_t f) {
    H5Lcreate_external(other.c_str(), "/collectives", f, "/collectives", 0, 0);
  });
  on_bare("meta-soft-link", "meta", [s](hid_t f) {
    Handle g(H5Gcreate2(f, "/real", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    attr_string(g.get(), "run_id", "0123456789abcdef");
    attr_u64(g.get(), "end_time_ps", 1);
    attr_u64(g.get(), "committed_events", 1);
    attr_string(g.get(), "scenario_yaml", s);
    H5Lcreate_soft("/real", f, "/meta", 0, 0);
  });
  on_minimal("soft-link-loop", true, [](hid_t f) {
    H5Lcreate_soft("/b", f, "/a", 0, 0);
    H5Lcreate_soft("/a", f, "/b", 0, 0);
  });
  on_minimal("collectives-soft-dangling", true,
             [](hid_t f) { H5Lcreate_soft("/nowhere", f, "/collectives", 0, 0); });
  on_minimal("collectives-virtual", true, [other](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    Handle t = compound(collective_columns(s16.get(), s24.get()));
    const hsize_t n = 3;
    Handle space(H5Screate_simple(1, &n, nullptr));
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_virtual(dcpl.get(), space.get(), other.c_str(), "/collectives", space.get());
    Handle d(
        H5Dcreate2(f, "/collectives", t.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  });
  // Raw data kept in another file (H5Pset_external): a FIFO, or a file
  // outside the study.
  for (const auto& [tag, target] : std::vector<std::pair<std::string, fs::path>>{
           {"fifo", pipe}, {"etc-hostname", "/etc/hostname"}, {"other-file", other}}) {
    on_minimal("collectives-external-raw-" + tag, true, [target](hid_t f) {
      Handle s16 = string_type(16), s24 = string_type(24);
      Handle t = compound(collective_columns(s16.get(), s24.get()));
      const hsize_t n = 1;
      Handle space(H5Screate_simple(1, &n, nullptr));
      Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
      H5Pset_external(dcpl.get(), target.c_str(), 0, H5F_UNLIMITED);
      Handle d(H5Dcreate2(f, "/collectives", t.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                          H5P_DEFAULT));
    });
  }
  on_minimal("group-hard-link-cycle", false, [](hid_t f) {
    Handle g(H5Gcreate2(f, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Lcreate_hard(f, "/g", f, "/g/self", 0, 0);
    H5Lcreate_hard(f, "/", f, "/g/root", 0, 0);
  });
  on_minimal("groups-nested-300", false, [](hid_t f) {
    std::string path;
    for (int i = 0; i < 300; ++i) {
      path += "/n";
      Handle g(H5Gcreate2(f, path.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    }
  });
  on_minimal("links-20000", false, [](hid_t f) {
    Handle g(H5Gcreate2(f, "/lots", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (int i = 0; i < 20000; ++i) {
      H5Lcreate_soft("/meta", g.get(), ("l" + std::to_string(i)).c_str(), 0, 0);
    }
  });
  on_minimal("collectives-is-a-group", true, [](hid_t f) {
    Handle g(H5Gcreate2(f, "/collectives", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  });
  on_minimal("collectives-is-a-named-type", true, [](hid_t f) {
    Handle t(H5Tcopy(H5T_STD_U64LE));
    H5Tcommit2(f, "/collectives", t.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  });

  // Shapes past the file, overflowing or degenerate (chunked, filled: small).
  const hsize_t k32 = hsize_t{1} << 32, k40 = hsize_t{1} << 40;
  on_minimal("breakdown-2^32x2^32x1", true, [k32](hid_t f) {
    breakdown(f, {k32, k32, 1}, "forward");
  });
  on_minimal("breakdown-2^40x0x12", true, [k40](hid_t f) {
    iterations(f, 1);
    breakdown(f, {k40, 0, 12}, kCategories);
  });
  on_minimal("breakdown-1x2^20x12", true, [](hid_t f) {
    breakdown(f, {1, hsize_t{1} << 20, 12}, kCategories);
  });
  on_minimal("breakdown-2^62x2^62x12", true, [](hid_t f) {
    breakdown(f, {hsize_t{1} << 62, hsize_t{1} << 62, 12}, kCategories);
  });
  on_minimal("breakdown-rank-2", true, [](hid_t f) {
    sparse(f, "/breakdown", H5T_IEEE_F64LE, {2, 12});
    Handle d(H5Dopen2(f, "/breakdown", H5P_DEFAULT));
    attr_string(d.get(), "categories", kCategories);
  });
  on_minimal("breakdown-rank-4", true, [](hid_t f) {
    sparse(f, "/breakdown", H5T_IEEE_F64LE, {1, 2, 12, 1});
    Handle d(H5Dopen2(f, "/breakdown", H5P_DEFAULT));
    attr_string(d.get(), "categories", kCategories);
  });
  on_minimal("breakdown-integers", true, [](hid_t f) {
    sparse(f, "/breakdown", H5T_STD_I64LE, {1, 2, 12});
    Handle d(H5Dopen2(f, "/breakdown", H5P_DEFAULT));
    attr_string(d.get(), "categories", kCategories);
  });
  on_minimal("breakdown-strings", true, [](hid_t f) {
    Handle t = string_type(8);
    sparse(f, "/breakdown", t.get(), {1, 2, 12});
    Handle d(H5Dopen2(f, "/breakdown", H5P_DEFAULT));
    attr_string(d.get(), "categories", kCategories);
  });
  on_minimal("collectives-2^40-rows", true, [k40](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    Handle t = compound(collective_columns(s16.get(), s24.get()));
    sparse(f, "/collectives", t.get(), {k40});
  });
  on_minimal("collectives-0-rows-unlimited", false, [](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    Handle t = compound(collective_columns(s16.get(), s24.get()));
    sparse(f, "/collectives", t.get(), {0}, true);
  });
  on_minimal("collectives-2-d", true, [](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    Handle t = compound(collective_columns(s16.get(), s24.get()));
    sparse(f, "/collectives", t.get(), {2, 2});
  });
  on_minimal("iterations-2^40-rows", true, [k40](hid_t f) {
    Handle t = compound(iteration_columns());
    sparse(f, "/iterations", t.get(), {k40});
  });
  on_minimal("trace-2^40-rows", false, [k40](hid_t f) {
    Handle s12 = string_type(12), s16 = string_type(16);
    Handle t = compound(trace_columns(s12.get(), s16.get()));
    sparse(f, "/trace/events", t.get(), {k40});
  });

  // Wrong types where the schema has others.
  on_minimal("collectives-id-float", true, [](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    Handle t = compound(collective_columns(s16.get(), s24.get(), "id", H5T_IEEE_F64LE));
    table(f, "/collectives", t.get(), 2, [](std::size_t, const RowBytes& b) { b.set("id", 1.5); });
  });
  on_minimal("collectives-op-integer", true, [](hid_t f) {
    Handle s24 = string_type(24);
    Handle t = compound(collective_columns(H5T_STD_U64LE, s24.get()));
    table(f, "/collectives", t.get(), 2, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("collectives-string-table", true, [](hid_t f) {
    Handle t = string_type(120);
    table(f, "/collectives", t.get(), 3, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("collectives-not-compound", true, [](hid_t f) {
    table(f, "/collectives", H5T_STD_U64LE, 3, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("collectives-lacks-busbw", true, [](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    std::vector<Column> cols = collective_columns(s16.get(), s24.get());
    cols.pop_back();
    Handle t = compound(cols);
    table(f, "/collectives", t.get(), 2, [](std::size_t, const RowBytes&) {});
  });
  // Files of earlier versions named the rates (GB/s all along) algbw_gbps and
  // busbw_gbps: still read.
  on_minimal("collectives-former-names", false, [](hid_t f) {
    Handle s16 = string_type(16), s24 = string_type(24);
    std::vector<Column> cols = collective_columns(s16.get(), s24.get());
    cols[cols.size() - 2].name = "algbw_gbps";
    cols.back().name = "busbw_gbps";
    Handle t = compound(cols);
    table(f, "/collectives", t.get(), 2, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("collectives-tiny-columns", false, [](hid_t f) {
    // Every column present with its class, each one byte: rows of 14 bytes
    // that read as 120.
    std::vector<Column> cols = collective_columns(H5T_STD_U8LE, H5T_STD_U8LE);
    Handle s1 = string_type(1);
    Handle f16(H5Tcopy(H5T_IEEE_F32LE));
    for (Column& col : cols) {
      const H5T_class_t cls = H5Tget_class(col.type);
      col.type = cls == H5T_FLOAT ? f16.get() : cls == H5T_STRING ? s1.get() : H5T_STD_U8LE;
    }
    cols[1].type = s1.get();
    cols[2].type = s1.get();
    Handle t = compound(cols);
    table(f, "/collectives", t.get(), 500, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("collectives-end-before-start", false,
             [](hid_t f) { collectives(f, 4, /*end_ps=*/10); });
  on_minimal("iterations-float-iteration", true, [](hid_t f) {
    Handle t = compound(iteration_columns("iteration", H5T_IEEE_F64LE));
    table(f, "/iterations", t.get(), 2, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("iterations-not-compound", true, [](hid_t f) {
    table(f, "/iterations", H5T_IEEE_F64LE, 4, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("trace-not-compound", false, [](hid_t f) {
    table(f, "/trace/events", H5T_STD_U32LE, 4, [](std::size_t, const RowBytes&) {});
  });
  on_minimal("trace-unsorted-nodes", false, [](hid_t f) {
    trace(f, {{3, 0, 10}, {1, 0, 10}, {2, 5, 6}});
  });
  on_minimal("trace-end-before-start", false, [](hid_t f) { trace(f, {{0, 50, 10}}); });
  on_minimal("trace-node-int-max", false, [](hid_t f) {
    trace(f, {{0, 0, 10}, {2147483646, 0, 10}, {2147483647, 0, 10}, {2147483647, 5, 20}});
    collectives(f, 2);
  });
  on_minimal("trace-node-u32-max", false, [](hid_t f) {
    trace(f, {{4294967294, 0, 10}, {4294967295, 0, 10}, {4294967295, 5, 20}});
    collectives(f, 2);
  });
  on_minimal("trace-staircase-2000", false, [](hid_t f) {
    // Each slice overlaps the last without nesting: a lane each.
    std::vector<std::array<std::uint64_t, 3>> rows;
    for (std::uint64_t i = 0; i < 2000; ++i) rows.push_back({0, i, i + 2000});
    trace(f, rows);
  });

  // /breakdown@categories against its shape, and as names of columns.
  const std::vector<std::pair<std::string, std::string>> bad_categories = {
      {"short", "forward"},
      {"long", kCategories + ",extra"},
      {"slash",
       "a/b,backward,weight-gradient,optimizer,compute,tp-comm,pp-comm,dp-comm,"
       "ep-comm,collective,bubble,idle"},
      {"control", std::string("\x01\x1b[31m,b,c,d,e,f,g,h,i,j,k,l")},
      {"newline", "a\nb,b,c,d,e,f,g,h,i,j,k,l"},
      {"empty-names", ",,,,,,,,,,,"},
      {"long-name", std::string(100, 'x') + ",b,c,d,e,f,g,h,i,j,k,l"},
      {"non-utf8", "\xff\xfe,b,c,d,e,f,g,h,i,j,k,l"},
      {"60000-names", std::string(60000, ',')}};
  for (const auto& [tag, cats] : bad_categories) {
    on_minimal("categories-" + tag, true, [cats](hid_t f) {
      iterations(f, 1);
      breakdown(f, {1, 2, 12}, cats);
    });
  }
  on_minimal("categories-integer", true, [](hid_t f) {
    iterations(f, 1);
    sparse(f, "/breakdown", H5T_IEEE_F64LE, {1, 2, 12});
    Handle d(H5Dopen2(f, "/breakdown", H5P_DEFAULT));
    attr_u64(d.get(), "categories", 12);
  });
  on_minimal("categories-array", true, [](hid_t f) {
    iterations(f, 1);
    sparse(f, "/breakdown", H5T_IEEE_F64LE, {1, 2, 12});
    Handle d(H5Dopen2(f, "/breakdown", H5P_DEFAULT));
    Handle t = string_type(4);
    attr(d.get(), "categories", t.get(), "abcdefgh", 2);
  });

  // Strings of absurd declared size or element count; odd /@format and /meta.
  const std::uint64_t huge = std::numeric_limits<std::uint32_t>::max() - 15;
  c.push_back({"format-absurd-size", true,
               [s, huge](const fs::path& at) { absurd_string_size(at, s, "format", huge); }});
  c.push_back({"scenario_yaml-absurd-size", true, [s, huge](const fs::path& at) {
                 absurd_string_size(at, s, "scenario_yaml", huge);
               }});
  c.push_back({"format-2^40-elements", true,
               [s](const fs::path& at) { absurd_string_count(at, s, hsize_t{1} << 40); }});
  on_bare("format-60000-elements", "format", [](hid_t f) {
    std::string data(60000, 's');
    Handle t = string_type(1);
    attr(f, "format", t.get(), data.data(), 60000);
  });
  on_bare("format-integer", "format", [](hid_t f) { attr_u64(f, "format", 7); });
  on_bare("format-upper-case", "format", [](hid_t f) { attr_string(f, "format", "SIPSIM"); });
  on_minimal("format-variable-length", false, [](hid_t f) {
    H5Adelete(f, "format");
    Handle t(H5Tcopy(H5T_C_S1));
    H5Tset_size(t.get(), H5T_VARIABLE);
    const char* v = "sipsim";
    attr(f, "format", t.get(), &v);
  });
  on_bare("no-meta", "meta", nothing);
  on_bare("meta-lacks-run_id", "run_id", nothing);
  on_bare("meta-lacks-scenario", "scenario_yaml", nothing);
  on_minimal("run-with-overrides", true, [](hid_t f) {
    Handle meta(H5Gopen2(f, "/meta", H5P_DEFAULT));
    attr_string(meta.get(), "overrides", "fabric.bandwidth=1Gbps");
  });
  on_minimal("meta-scenario_name-1000-elements", false, [](hid_t f) {
    Handle meta(H5Gopen2(f, "/meta", H5P_DEFAULT));
    H5Adelete(meta.get(), "scenario_name");
    std::string data(1000, 'n');
    Handle t = string_type(1);
    attr(meta.get(), "scenario_name", t.get(), data.data(), 1000);
    collectives(f, 1);
  });
  // A /meta that is a dataset, not a group, still holds what a run writes.
  on_bare(
      "meta-is-a-dataset", "meta",
      [s](hid_t f) {
        table(f, "/meta", H5T_STD_U8LE, 1, [](std::size_t, const RowBytes&) {});
        Handle d(H5Dopen2(f, "/meta", H5P_DEFAULT));
        attr_string(d.get(), "run_id", "0123456789abcdef");
        attr_u64(d.get(), "end_time_ps", 1);
        attr_u64(d.get(), "committed_events", 1);
        attr_string(d.get(), "scenario_yaml", s);
      },
      false);
  on_minimal("meta-numbers-as-strings", false, [](hid_t f) {
    Handle meta(H5Gopen2(f, "/meta", H5P_DEFAULT));
    attr_string(meta.get(), "wall_seconds", "1e999");
    attr_string(meta.get(), "ranks", "-1");
  });

  // What else may sit at a run file's path.
  const fs::path good = src.work / "good.h5";
  {
    Handle f = create_file(good);
    finished(f.get(), s);
    collectives(f.get(), 2);
  }
  c.push_back({"empty-file", true, [](const fs::path& at) { write_file(at, ""); }});
  c.push_back({"text-file", true, [](const fs::path& at) { write_file(at, "not hdf5\n"); }});
  c.push_back({"directory", true, [](const fs::path& at) { fs::create_directory(at); }});
  c.push_back({"fifo", true, [](const fs::path& at) { fifo(at); }});
  c.push_back(
      {"symlink-to-run-file", true, [good](const fs::path& at) { fs::create_symlink(good, at); }});
  c.push_back(
      {"symlink-to-fifo", true, [pipe](const fs::path& at) { fs::create_symlink(pipe, at); }});
  c.push_back({"symlink-dangling", true,
               [](const fs::path& at) { fs::create_symlink(at.parent_path() / "nowhere", at); }});
  c.push_back({"symlink-loop", true, [](const fs::path& at) { fs::create_symlink(at, at); }});
  c.push_back({"symlink-to-dev-zero", true,
               [](const fs::path& at) { fs::create_symlink("/dev/zero", at); }});
  c.push_back({"userblock-512", false, [s](const fs::path& at) {
                 Handle fcpl(H5Pcreate(H5P_FILE_CREATE));
                 H5Pset_userblock(fcpl.get(), 512);
                 Handle f(ok(H5Fcreate(at.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), "ub"));
                 finished(f.get(), s);
               }});

  // Export reads the links, /@format, /collectives and /trace/events: what
  // it must refuse, and the good file it must export through a link.
  static const std::set<std::string> kRefused = {"meta-external-fifo",
                                                 "meta-external-file",
                                                 "collectives-external-fifo",
                                                 "collectives-external-file",
                                                 "meta-soft-link",
                                                 "soft-link-loop",
                                                 "collectives-soft-dangling",
                                                 "collectives-virtual",
                                                 "collectives-external-raw-fifo",
                                                 "collectives-external-raw-etc-hostname",
                                                 "collectives-external-raw-other-file",
                                                 "collectives-is-a-group",
                                                 "collectives-is-a-named-type",
                                                 "collectives-2^40-rows",
                                                 "collectives-2-d",
                                                 "trace-2^40-rows",
                                                 "collectives-id-float",
                                                 "collectives-op-integer",
                                                 "collectives-string-table",
                                                 "collectives-not-compound",
                                                 "collectives-lacks-busbw",
                                                 "collectives-end-before-start",
                                                 "trace-not-compound",
                                                 "trace-unsorted-nodes",
                                                 "trace-end-before-start",
                                                 "format-absurd-size",
                                                 "format-2^40-elements",
                                                 "format-60000-elements",
                                                 "format-integer",
                                                 "format-upper-case",
                                                 "empty-file",
                                                 "text-file",
                                                 "directory",
                                                 "fifo",
                                                 "symlink-to-fifo",
                                                 "symlink-dangling",
                                                 "symlink-loop",
                                                 "symlink-to-dev-zero"};
  for (RunFileCase& k : c) {
    if (kRefused.contains(k.name)) k.export_want = ExportWant::kRefused;
    if (k.name == "symlink-to-run-file") k.export_want = ExportWant::kOk;
  }
  return c;
}

}  // namespace sipsim::app::fuzz
