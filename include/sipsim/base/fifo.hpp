#pragma once
// A FIFO queue for the per-node and per-message bookkeeping of the simulator:
// unlike std::deque (which allocates 512 bytes in libstdc++ as soon as it
// exists) it costs nothing until used, and most queues hold one element or
// none. Storage is reused once the queue drains.
#include <cstddef>
#include <vector>

namespace sipsim::base {

template <class T>
class Fifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  const T& front() const { return items_[head_]; }
  void push_back(const T& v) { items_.push_back(v); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace sipsim::base
