#pragma once
// An allocator for the estimators' per-resource arrays (a 65,536-node RAMP
// fabric has 4M transceiver groups: 32 MiB of loads per array, read at random
// once per message and resource). With 4 KiB pages nearly every such read is
// a TLB miss; arrays of 2 MiB or more are 2 MiB-aligned and advised to use
// transparent huge pages (Linux; advice only, the contents are the same).
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace sipsim::analytical {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return std::allocator<T>{}.allocate(n);
    const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (p == nullptr) throw std::bad_alloc();
#ifdef __linux__
    madvise(p, rounded, MADV_HUGEPAGE);  // fails harmlessly where THP is off
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHuge) {
      std::allocator<T>{}.deallocate(p, n);
    } else {
      std::free(p);
    }
  }
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) {
    return true;
  }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace sipsim::analytical
