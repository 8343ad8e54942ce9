#pragma once
// An algorithm family's own parameters inside the generic CollectiveSpec and
// AlgorithmParams (schedule.hpp), which name no family and no fabric. The
// family defines the value type (copyable, with ==), fills it and reads it
// back (RAMP-x: collective/ramp_x.hpp); the generic code only copies and
// compares the payload, and the comparison is the family's own ==.
//
// The value is immutable and shared: copying a spec or a communicator's
// parameters (a schedule holds several copies of its spec) copies a
// reference, never the value.
#include <memory>
#include <utility>

namespace sipsim::collective {

class AlgorithmPayload {
 public:
  // None: every family's defaults.
  AlgorithmPayload() = default;

  // `value` of the family's type T. A value equal to T{} is stored as none,
  // so that a payload of defaults equals no payload, whichever family made it.
  template <class T>
  static AlgorithmPayload of(T value) {
    AlgorithmPayload out;
    if (!(value == T{})) {
      out.value_ = std::make_shared<const T>(std::move(value));
      out.type_ = &kType<T>;
    }
    return out;
  }

  // The T it holds, or nullptr (none, or another family's value): one
  // pointer comparison, so families may read it on every step.
  template <class T>
  const T* get() const {
    return type_ == &kType<T> ? static_cast<const T*>(value_.get()) : nullptr;
  }

  bool empty() const { return value_ == nullptr; }

  // The same family's type and equal by that family's ==.
  friend bool operator==(const AlgorithmPayload& a, const AlgorithmPayload& b) {
    return a.type_ == b.type_ &&
           (a.value_ == b.value_ || a.type_->equal(a.value_.get(), b.value_.get()));
  }

 private:
  // One per value type: its address names the type (a variable, not a
  // function, so that no identical-code folding can merge two types).
  struct Type {
    bool (*equal)(const void*, const void*);
  };
  template <class T>
  static bool equal(const void* a, const void* b) {
    return *static_cast<const T*>(a) == *static_cast<const T*>(b);
  }
  template <class T>
  static constexpr Type kType{&equal<T>};

  std::shared_ptr<const void> value_;
  const Type* type_ = nullptr;
};

}  // namespace sipsim::collective
