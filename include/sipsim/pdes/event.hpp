#pragma once
// The event: a 64-byte POD that crosses ranks as raw bytes (docs/architecture.md).
// (Aligning it to a cache line was tried: PHOLD 5-20% slower, RAMP no faster.)
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sipsim/pdes/time.hpp"

namespace sipsim::pdes {

using LpId = std::uint32_t;

struct Event {
  Time time;                          // when it is processed, ps
  LpId dst;                           // destination LP
  LpId src;                           // sending LP
  std::uint64_t seq;                  // the sender's send counter: unique per src
  std::uint32_t kind;                 // model-defined event type
  std::uint32_t aux;                  // model-defined small field
  std::array<std::uint64_t, 4> data;  // model-defined payload

  // Typed payload access for models; the type must fit and be trivially copyable.
  template <class T>
  void set_payload(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(data));
    std::memcpy(data.data(), &value, sizeof(T));
  }
  template <class T>
  T payload() const {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(data));
    T value;
    std::memcpy(&value, data.data(), sizeof(T));
    return value;
  }
};
static_assert(sizeof(Event) == 64, "events are one cache line");
static_assert(std::is_trivially_copyable_v<Event>);

// The total order of docs/architecture.md: (time, destination, source, source sequence).
// Every LP sees its events in the same order at any rank count because the key
// does not depend on where an event was created or how it travelled.
inline bool event_before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  const std::uint64_t la = (std::uint64_t{a.dst} << 32) | a.src;
  const std::uint64_t lb = (std::uint64_t{b.dst} << 32) | b.src;
  if (la != lb) return la < lb;
  return a.seq < b.seq;
}

}  // namespace sipsim::pdes
