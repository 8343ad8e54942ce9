// The GEMM model by hand: a full wave at the achievable fraction of the
// peak, wave and tile quantisation, the kernel's choice of tile, the memory
// roofline of small GEMMs, the sustained share, and the reader's keys.
#include "sipsim/compute/gemm.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/accelerator.hpp"

namespace sipsim::compute {
namespace {

__extension__ typedef unsigned __int128 U128;

// The A100 40 GB with one tile shape, no launch overhead or minimum.
Accelerator a100_tiles(std::vector<GemmTile> tiles) {
  Accelerator a = preset("a100");
  a.model = Model::kGemm;
  a.gemm.tiles = std::move(tiles);
  a.gemm.sustained_ppm = kPpm;
  a.launch_overhead_ps = 0;
  a.min_op_ps = 0;
  return a;
}

// ceil(flops * 1e12 * 1e6 / (312e12 * 869000)) ps: FLOPs at 86.9% of the fp16 peak.
pdes::Time at_achievable(U128 flops) {
  const U128 den = U128{312'000'000'000'000} * 869'000;
  return static_cast<pdes::Time>((flops * 1'000'000'000'000 * kPpm + den - 1) / den);
}

TEST(Gemm, OneFullWaveRunsAtTheAchievableRate) {
  const GemmDevice d(a100_tiles({{256, 128}}));
  // 9 x 12 = 108 tiles of 256 x 128: one wave on 108 SMs, no quantisation.
  const Gemm g{9 * 256, 12 * 128, 4096, 1};
  EXPECT_EQ(d.gemm_ps(g, Precision::kFp16), at_achievable(g.flops()));
  // The memory side (19.3 M elements, 38.5 MB at 1555 GB/s: 24.8 us) is below
  // the compute side (29.0 GFLOP at 271 TFLOP/s: 107 us).
  EXPECT_GT(d.gemm_ps(g, Precision::kFp16), 100 * pdes::kMicrosecond);
}

TEST(Gemm, WaveQuantisation) {
  const GemmDevice d(a100_tiles({{256, 128}}));
  // One more row makes 10 x 12 = 120 tiles: two waves, twice the time.
  const Gemm full{9 * 256, 12 * 128, 4096, 1};
  const Gemm over{9 * 256 + 1, 12 * 128, 4096, 1};
  EXPECT_EQ(d.gemm_ps(over, Precision::kFp16), at_achievable(2 * full.flops()));
  // A batch of 2 of the full GEMM: 216 tiles, two full waves.
  EXPECT_EQ(d.gemm_ps({9 * 256, 12 * 128, 4096, 2}, Precision::kFp16),
            at_achievable(2 * full.flops()));
}

TEST(Gemm, TheKernelPicksTheTileThatFinishesFirst) {
  // m = 384: 2 x 36 tiles of 256 x 128, the second row half empty, take a
  // wave of 256-row tiles; 3 x 36 = 108 tiles of 128 x 128 take a wave of
  // half the work, the GEMM's own FLOPs.
  const Gemm g{384, 36 * 128, 8192, 1};
  const GemmDevice big(a100_tiles({{256, 128}}));
  const GemmDevice both(a100_tiles({{256, 128}, {128, 128}}));
  EXPECT_EQ(big.gemm_ps(g, Precision::kFp16), at_achievable(U128{108} * 256 * 128 * 2 * 8192));
  EXPECT_EQ(both.gemm_ps(g, Precision::kFp16), at_achievable(g.flops()));
}

TEST(Gemm, SmallGemmsAreMemoryBound) {
  const GemmDevice d(a100_tiles({{128, 128}}));
  // 4096 x 4096 x 16: 1024 tiles of 128 x 128, 10 waves of 16-deep tiles
  // (1.9 us), against 16.9 M elements read and written (21.7 us).
  const Gemm g{4096, 4096, 16, 1};
  const std::uint64_t bytes = (4096 * 16 + 16 * 4096 + 4096 * 4096) * 2;
  const pdes::Time memory = static_cast<pdes::Time>(
      (U128{bytes} * 1'000'000'000'000 + 1'555'000'000'000 - 1) / 1'555'000'000'000);
  const pdes::Time compute = at_achievable(U128{10} * 108 * 128 * 128 * 2 * 16);
  ASSERT_GT(memory, compute);
  EXPECT_EQ(d.gemm_ps(g, Precision::kFp16), memory);
}

TEST(Gemm, OpsSumTheirShapesAtTheSustainedShare) {
  Accelerator a = a100_tiles({{256, 128}});
  const Gemm shapes[] = {{9 * 256, 12 * 128, 4096, 1}, {9 * 256, 12 * 128, 2048, 1}};
  OpCost op;
  op.flops = shapes[0].flops() + shapes[1].flops();
  op.gemms = shapes;
  const pdes::Time body = at_achievable(shapes[0].flops()) + at_achievable(shapes[1].flops());
  EXPECT_EQ(GemmDevice(a).op_ps(op), body);
  a.gemm.sustained_ppm = 500'000;
  a.launch_overhead_ps = 7;
  EXPECT_EQ(GemmDevice(a).op_ps(op), 7 + 2 * body);
  // Shapes that do not add up to the FLOPs are a programming error.
  op.flops += 1;
  EXPECT_THROW((void)GemmDevice(a).op_ps(op), std::logic_error);
  // No shape: the FLOPs at the achievable rate; element-wise: the roofline.
  a.gemm.sustained_ppm = kPpm;
  a.launch_overhead_ps = 0;
  OpCost flat;
  flat.flops = shapes[0].flops();
  EXPECT_EQ(GemmDevice(a).op_ps(flat), at_achievable(flat.flops));
  OpCost ew;
  ew.kind = OpKind::kElementwise;
  ew.bytes = 1'555'000;
  EXPECT_EQ(GemmDevice(a).op_ps(ew), pdes::kMicrosecond);
}

TEST(Gemm, PresetsAndChecks) {
  EXPECT_EQ(preset("a100-80gb").gemm.sms, 108u);
  EXPECT_EQ(preset("h100").gemm.sms, 132u);
  EXPECT_EQ(preset("h100").gemm.efficiency_ppm, 803'000u);
  EXPECT_EQ(preset("v100").gemm.sms, 80u);
  Accelerator a = a100_tiles({});
  EXPECT_THROW(GemmDevice{a}, std::invalid_argument);
  a = a100_tiles({{0, 128}});
  EXPECT_THROW(GemmDevice{a}, std::invalid_argument);
  a = a100_tiles({{128, 128}});
  a.gemm.sustained_ppm = 0;
  EXPECT_THROW(GemmDevice{a}, std::invalid_argument);
  a.model = Model::kGemm;
  a.gemm.sustained_ppm = kPpm;
  EXPECT_NE(dynamic_cast<GemmDevice*>(make_device(a).get()), nullptr);
}

Accelerator read(const std::string& yaml) {
  const base::Document doc = base::Document::load_string(yaml, "test.yaml");
  base::MapReader root = doc.root().as_map();
  return read_accelerator(root.optional("compute"));
}

std::string error_of(const std::string& yaml) {
  try {
    (void)read(yaml);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(Gemm, ReaderKeys) {
  const Accelerator a = read(
      "compute:\n  preset: h100\n  model: gemm\n  gemm: {sms: 100, tiles: [[128, 64]], "
      "efficiency: 0.5, sustained: 0.8}\n");
  EXPECT_EQ(a.model, Model::kGemm);
  EXPECT_EQ(a.gemm.sms, 100u);
  ASSERT_EQ(a.gemm.tiles.size(), 1u);
  EXPECT_EQ(a.gemm.tiles[0].m, 128u);
  EXPECT_EQ(a.gemm.tiles[0].n, 64u);
  EXPECT_EQ(a.gemm.efficiency_ppm, 500'000u);
  EXPECT_EQ(a.gemm.sustained_ppm, 800'000u);
  EXPECT_NE(error_of("compute:\n  gemm: {tiles: [[128]]}\n").find("test.yaml:2:"),
            std::string::npos);
  EXPECT_NE(error_of("compute:\n  gemm: {tiles: []}\n").find("1 to 8 tile shapes"),
            std::string::npos);
  EXPECT_NE(error_of("compute:\n  gemm: {sustained: 0}\n").find("sustained"), std::string::npos);
  EXPECT_NE(error_of("compute:\n  gemm: {sm: 3}\n").find("sm"), std::string::npos);
}

}  // namespace
}  // namespace sipsim::compute
