#pragma once
// What a simulation model gives the kernel, and what the kernel gives a model
// while it handles an event. pdes/ knows nothing about networks or training.
#include <array>
#include <cstdint>

#include "sipsim/pdes/event.hpp"
#include "sipsim/pdes/partition.hpp"
#include "sipsim/pdes/partitioners/blocks.hpp"
#include "sipsim/pdes/random.hpp"

namespace sipsim::pdes {

namespace detail {
class Scheduler;
struct LpRecord;
}  // namespace detail

using Payload = std::array<std::uint64_t, 4>;

// Handed to Model::init and Model::handle; valid only during that call.
class Context {
 public:
  Time now() const { return now_; }
  LpId self() const { return self_; }
  // Index of self() among this rank's LPs (Partition::local_index).
  std::uint32_t self_index() const { return self_index_; }
  // The LP's own random stream, keyed by (seed, self()).
  RandomStream& rng();

  // Schedules an event at now() + delay on `dst`. A remote `dst` needs
  // delay >= the lookahead the model promised; the engine stops the run with
  // an error naming both LPs and times otherwise.
  void send(LpId dst, Time delay, std::uint32_t kind, const Payload& data = {},
            std::uint32_t aux = 0);
  template <class T>
  void send_payload(LpId dst, Time delay, std::uint32_t kind, const T& value,
                    std::uint32_t aux = 0) {
    Event tmp{};
    tmp.set_payload(value);
    send(dst, delay, kind, tmp.data, aux);
  }

 private:
  friend class detail::Scheduler;
  explicit Context(detail::Scheduler& scheduler) : scheduler_(&scheduler) {}
  detail::Scheduler* scheduler_;
  detail::LpRecord* record_ = nullptr;
  Time now_ = 0;
  LpId self_ = 0;
  std::uint32_t self_index_ = 0;
};

class Model {
 public:
  virtual ~Model() = default;

  virtual std::uint32_t lp_count() const = 0;
  // Which rank runs which LP; models that know their locality override this so
  // that the links the partition cuts are the slow ones.
  virtual Partition partition(int ranks) const { return partitioners::blocks(lp_count(), ranks); }
  // The smallest latency of any link between LPs that `partition` places on
  // different ranks: the width of the conservative window.
  virtual Time lookahead(const Partition& partition) const = 0;
  // Once per rank before init(): allocate the state of this rank's LPs.
  virtual void setup(const Partition& /*partition*/, int /*rank*/) {}
  // Once per local LP (ctx.self()) at time 0: schedule its first events.
  virtual void init(Context& ctx) = 0;
  virtual void handle(const Event& event, Context& ctx) = 0;
};

}  // namespace sipsim::pdes
