#pragma once
// A running job's work left at time t, from what it had at its last update: flat until `from` (no progress before
// max(lastUpdate, resumeAt)), then falling at `rate`, floored at 0. The one expression the engine
// (JobRuntime::remainingAt, Simulator::bringUpToDate) and SRTF's cached lines (SrtfLine::at) evaluate, so that a
// line read from a job's runtime gives the engine's value bit for bit (srtfindex.h).
#include <algorithm>

namespace ss {

inline double workLeftAt(double rem, double from, double rate, double t)
{
    return std::max(0.0, rem - std::max(0.0, t - from) * rate);
}

} // namespace ss
