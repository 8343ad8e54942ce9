#pragma once
// A small open-addressing hash map (linear probing, backward-shift erase) for
// the simulator's per-rank bookkeeping: one flat array instead of a node per
// entry (std::unordered_map), so a table that is mostly empty costs a few
// bytes per slot and a lookup touches one or two cache lines. Keys are
// integers, or equality-comparable types with a Hash giving 64 bits; values
// are default-constructible and movable. Iteration order is unspecified:
// callers that print or compare must sort.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sipsim::base {

struct IntegerHash {
  template <class K>
  std::uint64_t operator()(K key) const {
    return static_cast<std::uint64_t>(key);
  }
};

template <class K, class V, class Hash = IntegerHash>
class FlatMap {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  V* find(const K& key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(key);; i = next(i)) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  const V* find(const K& key) const { return const_cast<FlatMap*>(this)->find(key); }

  // The value of `key`, default-constructed if it was absent.
  V& operator[](const K& key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();  // load factor <= 3/4
    std::size_t i = home(key);
    for (; slots_[i].used; i = next(i)) {
      if (slots_[i].key == key) return slots_[i].value;
    }
    slots_[i].used = true;
    slots_[i].key = key;
    slots_[i].value = V{};
    ++size_;
    return slots_[i].value;
  }

  // Removes `key`; false if it was absent. Later entries of the probe chain
  // move back, so lookups never need tombstones.
  bool erase(const K& key) {
    if (size_ == 0) return false;
    std::size_t i = home(key);
    for (;; i = next(i)) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
    }
    for (std::size_t j = next(i);; j = next(j)) {
      Slot& s = slots_[j];
      if (!s.used) break;
      // s may fill the hole at i if its home is not in (i, j] (cyclically).
      const std::size_t h = home(s.key);
      if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
        slots_[i].key = s.key;
        slots_[i].value = std::move(s.value);
        i = j;
      }
    }
    slots_[i].used = false;
    slots_[i].value = V{};  // release what the value holds
    --size_;
    return true;
  }

  void clear() {
    slots_.clear();
    size_ = 0;
  }

  // f(key, value) for every entry, in unspecified order.
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }

 private:
  struct Slot {
    K key{};
    bool used = false;
    V value{};
  };

  std::size_t home(const K& key) const {
    // Fibonacci hashing: the high bits of key * 2^64/phi.
    const std::uint64_t h = Hash{}(key)*0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> shift_);
  }
  std::size_t next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }

  void grow() {
    const std::size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(capacity));
    shift_ = 64 - std::countr_zero(capacity);
    size_ = 0;
    for (Slot& s : old) {
      if (s.used) (*this)[s.key] = std::move(s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace sipsim::base
