#pragma once
// An observer for runs too big for RunConfig::checkInvariants (which rechecks the whole cluster state after every
// decision): it keeps each GPU's granted share as jobs start and stop, counting any grant past the whole GPU, any
// job that ends twice and any start after a job's end (tst_scale, tst_scalepolicies).
#include <algorithm>
#include <vector>

#include "model/clusterspec.h"
#include "sim/engine.h"

namespace ss {

class ShareChecker : public SimObserver {
public:
    explicit ShareChecker(const ClusterSpec& c, size_t jobs) : m_held(size_t(c.totalGpus()), 0), m_ended(jobs, 0) {}
    void onJobStarted(double, int job, const JobRuntime& rt) override
    {
        for (const GpuSlot& s : rt.slots) {
            m_held[size_t(s.gpu)] += s.milli;
            if (m_held[size_t(s.gpu)] > 1000)
                ++m_overbooked;
        }
        ++m_starts;
        if (m_ended[size_t(job)])
            ++m_startAfterEnd;
    }
    void onJobStopped(double, int job, const JobRuntime& rt, bool finished) override
    {
        for (const GpuSlot& s : rt.slots)
            m_held[size_t(s.gpu)] -= s.milli;
        if (finished)
            ++m_ended[size_t(job)];
        else
            ++m_stops;
    }
    int overbooked() const { return m_overbooked; }
    int startAfterEnd() const { return m_startAfterEnd; }
    long starts() const { return m_starts; }
    long stops() const { return m_stops; } // stops before the end (preemptions, failures)
    int endedTwice() const { return int(std::count_if(m_ended.begin(), m_ended.end(), [](int e) { return e > 1; })); }
    int ended() const { return int(std::count_if(m_ended.begin(), m_ended.end(), [](int e) { return e > 0; })); }
    bool allReleased() const { return std::all_of(m_held.begin(), m_held.end(), [](int h) { return h == 0; }); }

private:
    std::vector<int> m_held;
    std::vector<int> m_ended;
    int m_overbooked = 0, m_startAfterEnd = 0;
    long m_starts = 0, m_stops = 0;
};

} // namespace ss
