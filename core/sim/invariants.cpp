#include "sim/invariants.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ss {

bool InvariantChecker::enabledByEnvironment()
{
    static const bool on = [] {
        const char* v = std::getenv("SCHEDSTUDIO_CHECK_INVARIANTS");
        return v && std::strcmp(v, "0") != 0 && *v != '\0';
    }();
    return on;
}

void InvariantChecker::fail(double t, int job, const std::string& what) const
{
    std::string msg = "invariant violated at t=" + std::to_string(t);
    if (job >= 0)
        msg += ", job " + std::to_string(job) + " (id " + std::to_string(m_trace->jobs[size_t(job)].id) + ")";
    throw std::logic_error(msg + ": " + what);
}

void InvariantChecker::expectJob(double t, int job) const
{
    if (job < 0 || size_t(job) >= m_state.size())
        fail(t, -1, "event for job index " + std::to_string(job) + " outside the trace");
}

void InvariantChecker::tick(double t, int job)
{
    expectJob(t, job);
    if (m_ended)
        fail(t, job, "event after the end of the run");
    if (!(t >= m_last - 1e-9))
        fail(t, job, "the clock ran backwards from t=" + std::to_string(m_last));
    m_last = std::max(m_last, t);
}

void InvariantChecker::onRunStart(const SimSetup& setup)
{
    m_cluster = &setup.cluster;
    m_trace = &setup.trace;
    const size_t n = setup.trace.jobs.size();
    m_state.assign(n, S::Future);
    m_used.assign(size_t(setup.cluster.totalGpus()), 0);
    m_segStart.assign(n, 0.0);
    m_held.assign(n, {});
    m_fee.assign(n, 0.0);
    m_last = 0;
    m_finished = m_rejected = 0;
    m_ended = false;
}

void InvariantChecker::onJobArrived(double t, int job)
{
    tick(t, job);
    if (m_state[size_t(job)] != S::Future)
        fail(t, job, "arrived twice");
    if (t + 1e-9 < m_trace->jobs[size_t(job)].submit)
        fail(t, job, "arrived before its submit time " + std::to_string(m_trace->jobs[size_t(job)].submit));
    m_state[size_t(job)] = S::Waiting;
}

void InvariantChecker::onJobRejected(double t, int job, std::string_view)
{
    tick(t, job);
    if (m_state[size_t(job)] != S::Waiting)
        fail(t, job, "rejected while not waiting (already ended, running or not arrived)");
    m_state[size_t(job)] = S::Rejected;
    ++m_rejected;
}

void InvariantChecker::onJobStarted(double t, int job, const JobRuntime& rt)
{
    tick(t, job);
    if (m_state[size_t(job)] != S::Waiting)
        fail(t, job, "started while not waiting");
    if (rt.slots.empty())
        fail(t, job, "started on no GPU");
    const Job& jb = m_trace->jobs[size_t(job)];
    if (int(rt.slots.size()) != jb.wholeGpus())
        fail(t, job, "holds " + std::to_string(rt.slots.size()) + " GPUs for a demand of " + std::to_string(jb.wholeGpus()));
    for (const GpuSlot& s : rt.slots) {
        if (s.gpu < 0 || size_t(s.gpu) >= m_used.size())
            fail(t, job, "GPU " + std::to_string(s.gpu) + " does not exist");
        if (s.milli <= 0 || s.milli > 1000)
            fail(t, job, "share " + std::to_string(s.milli) + " on GPU " + std::to_string(s.gpu));
        m_used[size_t(s.gpu)] += s.milli;
        if (m_used[size_t(s.gpu)] > 1000)
            fail(t, job, "GPU " + std::to_string(s.gpu) + " double-booked (" + std::to_string(m_used[size_t(s.gpu)])
                              + " milli-GPU)");
    }
    m_held[size_t(job)] = rt.slots;
    m_segStart[size_t(job)] = t;
    m_state[size_t(job)] = S::Running;
}

void InvariantChecker::onJobStopped(double t, int job, const JobRuntime& rt, bool finished)
{
    tick(t, job);
    if (m_state[size_t(job)] != S::Running)
        fail(t, job, finished ? "finished while not running" : "preempted while not running");
    if (rt.slots != m_held[size_t(job)])
        fail(t, job, "released other GPUs than it was started on");
    const double held = t - m_segStart[size_t(job)];
    for (const GpuSlot& s : rt.slots) {
        m_used[size_t(s.gpu)] -= s.milli;
        if (m_used[size_t(s.gpu)] < 0)
            fail(t, job, "GPU " + std::to_string(s.gpu) + " released more than was booked");
        const int m = m_cluster->machineOfGpu(s.gpu);
        m_fee[size_t(job)] += s.milli / 1000.0 * m_cluster->pricePerHourOfMachine(m) * held / 3600.0;
    }
    m_held[size_t(job)].clear();
    if (finished) {
        m_state[size_t(job)] = S::Finished;
        ++m_finished;
    } else {
        m_state[size_t(job)] = S::Waiting;
    }
}

void InvariantChecker::onRunEnd(double t)
{
    if (m_ended)
        fail(t, -1, "the run ended twice");
    for (size_t j = 0; j < m_state.size(); ++j)
        if (m_state[j] == S::Running)
            fail(t, int(j), "still running after the end of the run");
    for (size_t g = 0; g < m_used.size(); ++g)
        if (m_used[g] != 0)
            fail(t, -1, "GPU " + std::to_string(g) + " still booked after the end of the run");
    m_ended = true;
}

std::string InvariantChecker::compareFees(const std::vector<double>& jobFees, double totalFee) const
{
    if (jobFees.size() != m_fee.size())
        return "metrics report " + std::to_string(jobFees.size()) + " jobs, the run had " + std::to_string(m_fee.size());
    auto close = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); };
    double sum = 0;
    for (size_t j = 0; j < m_fee.size(); ++j) {
        if (!close(jobFees[j], m_fee[j]))
            return "job " + std::to_string(m_trace->jobs[j].id) + ": metrics fee " + std::to_string(jobFees[j]) + " $ but its GPU time costs "
                + std::to_string(m_fee[j]) + " $";
        sum += m_fee[j];
    }
    if (!close(totalFee, sum))
        return "total fee " + std::to_string(totalFee) + " $ is not the sum of the jobs' fees " + std::to_string(sum) + " $";
    return {};
}

} // namespace ss
