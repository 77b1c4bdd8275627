#pragma once
#include <memory>

#include "policy/relmas/heuristics.h"

namespace ss::accel {
std::unique_ptr<AccelScheduler> makeSearch(int iterations, int candidates, const GreedyParams& g);
}
