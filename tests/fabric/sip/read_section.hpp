#pragma once
// One `fabric:` section read by a fabric's reader, as the scenario loader
// would (file s.yaml, line 1), for the readers' tests: the spec, or the
// located error it raised.
#include <string>

#include "sipsim/base/yaml_reader.hpp"

namespace sipsim::fabric::testing {

template <class Reader>
auto read_section(const std::string& section, Reader read) {
  const base::Document d = base::Document::load_string("fabric: " + section + "\n", "s.yaml");
  base::MapReader root = d.root().as_map();
  base::MapReader f = root.required("fabric").as_map();
  auto spec = read(f);
  f.finish();
  return spec;
}

// The error's text, or `none` when the section was accepted.
template <class Reader>
std::string section_error(const std::string& section, Reader read, const std::string& none) {
  try {
    read_section(section, read);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return none;
}

// "s.yaml:1:<column of key's value>: fabric.<key>:" for a one-line section.
inline std::string located_at(const std::string& section, const std::string& key) {
  const std::size_t value = section.find(key + ": ") + key.size() + 2;
  return "s.yaml:1:" + std::to_string(8 + value + 1) + ": fabric." + key + ":";
}

}  // namespace sipsim::fabric::testing
