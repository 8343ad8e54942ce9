#include "sipsim/pdes/models/phold_config.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sipsim::pdes::models {
namespace {

PholdConfig read(const std::string& yaml) {
  const auto doc = base::Document::load_string(yaml, "p.yaml");
  base::MapReader w = doc.root().as_map();
  PholdConfig c = read_phold(w);
  w.finish();
  return c;
}

std::string error_of(const std::string& yaml) {
  try {
    read(yaml);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReadPhold, DefaultsAndKeys) {
  const PholdConfig d = read("lps: 8\nlookahead: 2us\n");
  EXPECT_EQ(d.lps, 8u);
  EXPECT_EQ(d.lookahead, 2 * kMicrosecond);
  EXPECT_EQ(d.start_events_per_lp, PholdConfig{}.start_events_per_lp);
  EXPECT_EQ(d.remote_fraction, PholdConfig{}.remote_fraction);
  EXPECT_EQ(d.mean_increment, PholdConfig{}.mean_increment);
  EXPECT_EQ(d.epoch, 0u);  // no epochs
  const PholdConfig c = read(
      "lps: 1001\nstart_events_per_lp: 3\nremote_fraction: 0.6\nlookahead: 700ns\n"
      "mean_increment: 1500ns\n");
  EXPECT_EQ(c.start_events_per_lp, 3u);
  EXPECT_EQ(c.remote_fraction, 0.6);
  EXPECT_EQ(c.mean_increment, 1500 * kNanosecond);
  EXPECT_EQ(read("lps: 8\nlookahead: 2us\nepoch: 50us\n").epoch, 50 * kMicrosecond);
}

TEST(ReadPhold, ErrorsNameTheKey) {
  EXPECT_EQ(error_of("lps: 0\nlookahead: 1us\n"),
            "p.yaml:1:6: lps: must be between 1 and 4294967295");
  EXPECT_EQ(error_of("lps: 4\nlookahead: 1us\nstart_events_per_lp: 0\n"),
            "p.yaml:3:22: start_events_per_lp: must be between 1 and 1000000");
  EXPECT_EQ(error_of("lps: 4\nlookahead: 1us\nremote_fraction: 1.5\n"),
            "p.yaml:3:18: remote_fraction: must be between 0 and 1");
  EXPECT_EQ(error_of("lps: 4\nlookahead: 0us\n"), "p.yaml:2:12: lookahead: must be greater than 0");
  EXPECT_EQ(error_of("lps: 4\nlookahead: 1us\nepoch: 0ns\n"),
            "p.yaml:3:8: epoch: must be greater than 0");
  EXPECT_EQ(error_of("lps: 4\nlookahead: 1us\nepoch: 4KiB\n"),
            "p.yaml:3:8: epoch: '4KiB' is a data size, expected a time such as 1.3us");
  EXPECT_EQ(error_of("lps: 4\n"), "p.yaml:1:1: lookahead: missing required key");
}

}  // namespace
}  // namespace sipsim::pdes::models
