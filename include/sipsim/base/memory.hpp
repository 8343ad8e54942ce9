#pragma once
// How much memory this host can still give, to refuse a run that cannot fit
// before allocating it rather than dying of std::bad_alloc or the OOM killer
// halfway through.
#include <cstdint>
#include <optional>

namespace sipsim::base {

// /proc/meminfo's MemAvailable (what the kernel can hand out without
// swapping; else sysinfo()'s free and buffer RAM), or less when a cgroup v2
// memory limit (a batch job's allocation) leaves less; nullopt when none of
// them can be read.
std::optional<std::uint64_t> available_memory();

}  // namespace sipsim::base
