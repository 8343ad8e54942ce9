// `fabric: elect-flat` (fabric/plugin.hpp): the ideal switch, no facts.
#include "sipsim/fabric/flat/plugin.hpp"

#include "sipsim/fabric/flat/elect_flat.hpp"

namespace sipsim::fabric {

namespace {

class ElectFlatPlugin final : public Plugin {
 public:
  explicit ElectFlatPlugin(base::MapReader& f) : spec_(read_elect_flat(f)) {}
  std::string_view type() const override { return "elect-flat"; }
  std::uint32_t nodes() const override { return spec_.nodes; }
  std::uint64_t slowest_rate_bps() const override { return spec_.bandwidth_bps; }
  std::unique_ptr<Network> build() const override {
    return make_elect_flat(spec_.nodes, spec_.bandwidth_bps, spec_.latency);
  }

 private:
  ElectFlatSpec spec_;
};

}  // namespace

std::unique_ptr<Plugin> elect_flat_plugin(base::MapReader& section) {
  return std::make_unique<ElectFlatPlugin>(section);
}

}  // namespace sipsim::fabric
