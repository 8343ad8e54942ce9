// The keys every routed fabric's section shares (docs/scenarios.md).
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::fabric {

RoutedSpec read_routed(base::MapReader& f) {
  RoutedSpec r;
  r.chunk_bytes = f.get_bytes("chunk", r.chunk_bytes);
  if (r.chunk_bytes == 0) f.required("chunk").fail("must be greater than 0");
  // RAMP §7.5: "the minimum in-out latency per node" (100 ns there), per message.
  r.io_latency = f.get_time_ps("io_latency", 0);
  if (f.has("forwarding") &&
      f.required("forwarding").as_enum({"store-and-forward", "cut-through"}) == "cut-through") {
    r.forwarding = Forwarding::kCutThrough;
  }
  return r;
}

}  // namespace sipsim::fabric
