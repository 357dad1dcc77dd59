// The library side of mxc/log.h: reports to the process-wide sink.
#pragma once

#include <cstdint>
#include <string_view>

namespace mxc {

// Whether a report of `level` would reach a sink (cheap: one atomic load), so callers can skip
// formatting the message.
bool LogEnabled(int32_t level) noexcept;
// Sends one report through the sink (see mxc_log_fn); never throws, ignores the sink's status.
void Log(int32_t level, std::string_view source, std::string_view message, int64_t done = -1,
         int64_t total = -1) noexcept;

}  // namespace mxc
