// A study's `slurm:` section (docs/studies.md, "On Slurm"): site options
// that become #SBATCH lines of submit.sh, the srun MPI plugin, shell lines
// run before the runs, and how runs are packed into job arrays. Every value
// that reaches an #SBATCH line is one word that sbatch reads back as written.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "sipsim/base/text.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "study_text.hpp"
#include "sweep.hpp"

namespace sipsim::app {

namespace {

constexpr std::size_t kMaxWord = 1000;

// Why `s` cannot be one argument of an #SBATCH line, or "". sbatch reads
// those lines itself: it splits them at white space, takes an unquoted '#'
// for the start of a comment and strips quotes and backslashes; and
// Slurm's burst buffer plugins take a line holding "hetjob" (or the older
// "packjob") anywhere for the separator of a heterogeneous job's parts.
std::string sbatch_word_problem(std::string_view s) {
  if (s.empty()) return "is empty";
  if (s.size() > kMaxWord) return fmt::format("is longer than {} characters", kMaxWord);
  if (std::string p = base::one_line_problem(s); !p.empty()) return p;
  if (s.find(' ') != std::string_view::npos) {
    return "holds a space (sbatch splits an #SBATCH line at spaces)";
  }
  if (s.find('#') != std::string_view::npos) {
    return "holds '#' (sbatch reads the rest of an #SBATCH line as a comment)";
  }
  if (s.find_first_of("'\"\\") != std::string_view::npos) {
    return "holds a quote or a backslash (sbatch strips them from an #SBATCH line)";
  }
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"hetjob", "packjob"}) {
    if (lower.find(word) != std::string::npos) {
      return fmt::format(
          "holds '{}' (Slurm may take an #SBATCH line holding it for the separator of a "
          "heterogeneous job's parts)",
          word);
    }
  }
  return "";
}

std::string word(const base::Value& v) {
  const std::string s = v.as_string();
  if (const std::string p = sbatch_word_problem(s); !p.empty()) {
    v.fail("'" + base::excerpt(s, 60) + "' " + p + "; give one word as sbatch takes it");
  }
  return s;
}

// Slurm memory (sbatch --mem): a whole number of megabytes, or with a unit
// K, M, G or T (either case); 0 asks for all of a node's memory.
bool slurm_memory(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0 || n > 12) return false;
  if (n == s.size()) return true;
  return n + 1 == s.size() && std::string_view("KMGTkmgt").find(s[n]) != std::string_view::npos;
}

// An srun MPI plugin name (srun --mpi=NAME), written unquoted in submit.sh.
bool plugin_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

// sbatch options submit.sh sets itself, from the study's keys: an `extra`
// option naming one of them (or a prefix that getopt_long would take for
// it) would silently replace the key's value.
struct Reserved {
  const char* name;
  char short_name;
  const char* instead;
};
constexpr std::array<Reserved, 12> kReserved = {{
    {"array", 'a', "submit.sh makes the arrays (see slurm.max_array_size, slurm.runs_per_task)"},
    {"ntasks", 'n', "use ranks"},
    {"time", 't', "use time_limit"},
    {"job-name", 'J', "use name"},
    {"output", 'o', "submit.sh writes Slurm's log to logs/slurm-<job>_<task>.out"},
    {"partition", 'p', "use slurm.partition"},
    {"account", 'A', "use slurm.account"},
    {"qos", 'q', "use slurm.qos"},
    {"mem", '\0', "use slurm.mem"},
    {"cpus-per-task", 'c', "use slurm.cpus_per_task"},
    {"gres", '\0', "use slurm.gres"},
    {"constraint", 'C', "use slurm.constraint"},
}};

std::string extra_option(const base::Value& v) {
  const std::string s = word(v);
  if (s.size() < 2 || s[0] != '-' || s == "--") {
    v.fail("'" + base::excerpt(s, 60) +
           "' is not an sbatch option: give one option as it would follow #SBATCH, e.g. "
           "--exclusive or --reservation=maint");
  }
  for (const Reserved& r : kReserved) {
    bool same = false;
    if (s.starts_with("--")) {
      const std::string_view name = std::string_view(s).substr(2, s.find('=') - 2);
      same = !name.empty() && std::string_view(r.name).starts_with(name);
    } else {
      same = r.short_name != '\0' && s[1] == r.short_name;
    }
    if (same) {
      v.fail(fmt::format("'{}' would set --{}: {}", base::excerpt(s, 60), r.name, r.instead));
    }
  }
  return s;
}

// A line of the user's shell code: any text but a line break or a NUL (or
// another control character but a tab), since each item is one line.
std::string prelude_line(const base::Value& v) {
  const std::string s = v.as_string();
  std::string untabbed = s;
  std::replace(untabbed.begin(), untabbed.end(), '\t', ' ');
  if (const std::string p = base::one_line_problem(untabbed); !p.empty()) {
    v.fail("the line " + p + "; give each shell line as its own item of the list");
  }
  return s;
}

std::vector<std::string> list_of(const base::Value& v, std::string (*item)(const base::Value&),
                                 const char* what) {
  if (!v.is_list()) v.fail(std::string("expected a list of ") + what + ", one per item");
  std::vector<std::string> out;
  for (const base::Value& i : v.as_list()) out.push_back(item(i));
  if (out.size() > 1000) v.fail(std::string("more than 1000 ") + what);
  return out;
}

// time_limit and max_parallel are read at the top level (as studies always
// had them) or in slurm:, not both.
std::optional<base::Value> once(base::MapReader& root, base::MapReader& slurm, const char* key) {
  auto top = root.optional(key);
  auto inner = slurm.optional(key);
  if (top && inner) {
    inner->fail(fmt::format("given twice: here and at {} (keep one)", top->location()));
  }
  return inner ? inner : top;
}

void read_time_limit(const base::Value& t, Study& study) {
  study.time_limit = t.as_string();
  if (!slurm_time(study.time_limit)) {
    t.fail("expected a Slurm time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS");
  }
}

}  // namespace

void read_slurm(base::MapReader& root, Study& study) {
  const auto section = root.optional("slurm");
  // An absent section reads as an empty one: the keys above may be at the top.
  base::MapReader slurm =
      section ? section->as_map() : base::Document::load_string("{}").root().as_map();
  if (auto t = once(root, slurm, "time_limit")) read_time_limit(*t, study);
  if (auto m = once(root, slurm, "max_parallel")) study.max_parallel = m->as_u32(0, 1u << 20);
  SlurmOptions& o = study.slurm;
  const std::array<std::pair<const char*, std::string*>, 5> words = {
      {{"partition", &o.partition},
       {"account", &o.account},
       {"qos", &o.qos},
       {"gres", &o.gres},
       {"constraint", &o.constraint}}};
  for (const auto& [key, field] : words) {
    if (auto v = slurm.optional(key)) *field = word(*v);
  }
  if (auto v = slurm.optional("mem")) {
    o.mem = v->as_string();
    if (!slurm_memory(o.mem)) {
      v->fail(
          "expected Slurm memory per node: megabytes, or a number with K, M, G or T "
          "(e.g. 500M, 4G)");
    }
  }
  o.cpus_per_task = slurm.get_u32("cpus_per_task", 0, 1, 1u << 16);
  if (auto v = slurm.optional("mpi")) {
    o.mpi = v->as_string();
    if (!plugin_name(o.mpi)) {
      v->fail(
          "expected an srun MPI plugin name of letters, digits, '_', '-' and '.' (pmix, pmi2, "
          "pmix_v4; none: srun without --mpi)");
    }
  }
  if (auto v = slurm.optional("prelude")) o.prelude = list_of(*v, prelude_line, "shell lines");
  if (auto v = slurm.optional("extra")) o.extra = list_of(*v, extra_option, "sbatch options");
  o.max_array_size = slurm.get_u32("max_array_size", o.max_array_size, 1, 4'000'001);
  o.runs_per_task = slurm.get_u32("runs_per_task", 1, 1, 100'000);
  slurm.finish();
}

std::size_t array_tasks(const Study& study) {
  const std::size_t k = study.slurm.runs_per_task;
  return (study.runs.size() + k - 1) / k;
}

std::size_t array_chunks(const Study& study) {
  const std::size_t m = study.slurm.max_array_size;
  return (array_tasks(study) + m - 1) / m;
}

}  // namespace sipsim::app
