// The run file's life cycle at the library level (the CLI's is
// tests/app/output_lifecycle_test.sh): a partial file of the run's own, never
// published over a file that appeared meanwhile unless asked to, and removed
// when the run does not commit. Run on 1 and 3 ranks with h5_test.cpp.
#include "sipsim/output/run_file.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using sipsim::output::Destination;
using sipsim::output::PublishError;
using sipsim::output::RunFile;

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// An empty directory chosen by rank 0, removed with what is left in it.
class SharedDir {
 public:
  SharedDir() {
    std::string name;
    if (rank() == 0) {
      std::string pattern = (fs::temp_directory_path() / "sipsim_runfile_XXXXXX").string();
      name = mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
    }
    int length = static_cast<int>(name.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    name.resize(static_cast<std::size_t>(length));
    MPI_Bcast(name.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = name;
  }
  SharedDir(const SharedDir&) = delete;
  SharedDir& operator=(const SharedDir&) = delete;
  ~SharedDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank() == 0) {
      std::error_code ignored;
      fs::remove_all(path_, ignored);
    }
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  // The names in the directory, sorted (rank 0 looks; every rank gets them).
  std::vector<std::string> names() const {
    MPI_Barrier(MPI_COMM_WORLD);
    std::string all;
    if (rank() == 0) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(path_)) found.push_back(e.path().filename());
      std::sort(found.begin(), found.end());
      for (const auto& n : found) all += n + "\n";
    }
    int length = static_cast<int>(all.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    all.resize(static_cast<std::size_t>(length));
    MPI_Bcast(all.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (std::size_t at = 0, end; (end = all.find('\n', at)) != std::string::npos; at = end + 1) {
      out.push_back(all.substr(at, end - at));
    }
    return out;
  }

 private:
  fs::path path_;
};

void write_text(const std::string& path, const std::string& text) {
  if (rank() == 0) std::ofstream(path) << text;
  MPI_Barrier(MPI_COMM_WORLD);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RunFile, EachRunOwnsAPartialFileWithItsIdInTheName) {
  const SharedDir dir;
  const Destination d{dir / "out.h5", false, {}};
  {
    const RunFile a = RunFile::create(d, MPI_COMM_WORLD);
    const RunFile b = RunFile::create(d, MPI_COMM_WORLD);
    EXPECT_NE(a.partial_path(), b.partial_path());
    EXPECT_NE(a.run_id(), b.run_id());
    const std::regex name("out\\.h5\\.[A-Za-z0-9_-]+\\." + std::to_string(getpid()) + "\\." +
                          a.run_id() + "\\.partial");
    if (rank() == 0) {
      EXPECT_TRUE(std::regex_match(fs::path(a.partial_path()).filename().string(), name))
          << a.partial_path();
    }
    EXPECT_TRUE(std::regex_match(a.run_id(), std::regex("[0-9a-f]{16}")));
    EXPECT_EQ(dir.names().size(), 2u);
  }
  // Not committed: both are gone.
  EXPECT_TRUE(dir.names().empty());
}

TEST(RunFile, CommitPublishesUnderTheFinalName) {
  const SharedDir dir;
  {
    RunFile file = RunFile::create(Destination{dir / "out.h5", false, {}}, MPI_COMM_WORLD);
    file.commit();
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.h5"});
}

TEST(RunFile, AFileThatAppearedIsNotReplacedWithoutReplace) {
  const SharedDir dir;
  {
    RunFile file = RunFile::create(Destination{dir / "out.h5", false, {}}, MPI_COMM_WORLD);
    write_text(dir / "out.h5", "another run's");
    try {
      file.commit();
      ADD_FAILURE() << "the file that appeared was replaced";
    } catch (const PublishError& e) {
      EXPECT_NE(std::string(e.what()).find("appeared during the run"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.h5"});
  if (rank() == 0) {
    EXPECT_EQ(read_text(dir / "out.h5"), "another run's");
  }
}

TEST(RunFile, WithReplaceTheOldFileGoesFirstAndTheNewOneReplacesWhatAppeared) {
  const SharedDir dir;
  write_text(dir / "out.h5", "old");
  {
    RunFile file = RunFile::create(Destination{dir / "out.h5", true, {}}, MPI_COMM_WORLD);
    file.remove_existing();
    EXPECT_EQ(dir.names().size(), 1u);  // the partial file only
    write_text(dir / "out.h5", "another run's");
    file.commit();
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.h5"});
  if (rank() == 0) {
    EXPECT_NE(read_text(dir / "out.h5"), "another run's");
  }
}

// What may not be replaced is checked again when the old file is removed.
TEST(RunFile, RemoveExistingRefusesWhatMayNotBeReplaced) {
  const SharedDir dir;
  if (rank() == 0) fs::create_directory(dir / "out.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  RunFile file = RunFile::create(Destination{dir / "out.h5", true, {}}, MPI_COMM_WORLD);
  EXPECT_THROW(file.remove_existing(), sipsim::output::h5::Error);
}

}  // namespace
