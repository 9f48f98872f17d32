// Shared constants of the model.
#pragma once

#include <cstdint>

namespace muster {

inline constexpr int64_t kUnlimited = -1;  // a limit that is not set (Slurm's UNLIMITED/INFINITE)

}  // namespace muster
