#pragma once
// What the hand-computed training tests share: a device whose costs are easy
// to add up, a tiny transformer, and one way to run a job on the process's
// MPI world.
#include <boost/mpi/communicator.hpp>
#include <memory>
#include <string>

#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/time.hpp"
#include "sipsim/workload/training_results.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::testing {

// An op costs (FLOPs + bytes) nanoseconds; collectives' local operations are
// free (as AMPeD's eq. 6 and 11, which have no reduction term).
class LinearDevice final : public compute::Device {
 public:
  pdes::Time reduce_ps(std::uint32_t, std::uint64_t) const override { return 0; }
  pdes::Time copy_ps(std::uint64_t) const override { return 0; }
  pdes::Time op_ps(const compute::OpCost& op) const override {
    return (op.flops + op.bytes) * pdes::kNanosecond;
  }
};

// h 8, 2 heads, ffn 32, seq 4, vocab 16, b 1, fp16: activations are 64 B;
// 2 micro-batches per pipeline.
inline workload::transformer::Config tiny_transformer(std::uint32_t tp, std::uint32_t pp,
                                                      std::uint32_t dp,
                                                      workload::transformer::Schedule schedule) {
  workload::transformer::Config c;
  c.model = {2, 8, 2, 32, 4, 16, 2 * dp, 1, compute::Precision::kFp16};
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.schedule = schedule;
  return c;
}

// Runs the job (no progress lines), then collects its results over the ranks;
// returns what the run left unfinished ("" when nothing).
// `events`, if given, receives the committed event count.
inline std::string run_training(workload::TrainingResults& results,
                                std::uint64_t* events = nullptr) {
  const boost::mpi::communicator world;
  std::unique_ptr<workload::Interpreter> model = results.take_model();
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  const pdes::RunResult run = pdes::run(*model, model->partition(world.size()), world, o);
  if (events != nullptr) *events = run.committed_events;
  std::string unfinished = results.unfinished(world);
  results.collect(world);
  return unfinished;
}

}  // namespace sipsim::testing
