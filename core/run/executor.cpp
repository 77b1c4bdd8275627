#include "run/executor.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace ss {

namespace {

struct Result {
    RunOutput out;
    std::string error;
    bool cancelled = false;
};

/// Counts arrivals and ends as the engine reports them (LiveRun).
class LiveCounter : public SimObserver {
public:
    explicit LiveCounter(LiveRun& live) : m_live(live) {}
    void onJobArrived(double t, int) override
    {
        ++m_live.arrived;
        m_live.simTime = t;
    }
    void onJobRejected(double t, int, std::string_view) override
    {
        ++m_live.ended;
        m_live.simTime = t;
    }
    void onJobStopped(double t, int, const JobRuntime&, bool finished) override
    {
        m_live.ended += finished ? 1 : 0;
        m_live.simTime = t;
    }
private:
    LiveRun& m_live;
};

Result runOne(const ExperimentPlan& plan, const PlannedRun& r, const std::function<bool(double)>& progress,
              SimObserver* extra = nullptr)
{
    Result res;
    try {
        const RunInputs& in = plan.inputs[r.inputs];
        std::vector<SimObserver*> extras;
        if (extra)
            extras.push_back(extra);
        res.out = runSimulation(*in.cluster, *in.trace, r.spec, progress, in.table.get(), extras);
        res.out.spec.traceSource = r.spec.traceSource;
        res.out.spec.clusterSource = r.spec.clusterSource;
        res.cancelled = res.out.cancelled;
    } catch (const std::exception& e) {
        res.error = e.what();
    }
    return res;
}

} // namespace

ExecReport executePlan(const ExperimentPlan& plan, const ExecOptions& opts)
{
    ExecReport rep;
    rep.planned = plan.runs.size();
    std::vector<size_t> todo;
    for (size_t i = 0; i < plan.runs.size(); ++i) {
        if (opts.skip && opts.skip(plan.runs[i]))
            ++rep.skipped;
        else
            todo.push_back(i);
    }
    auto cancelled = [&] { return opts.cancel && opts.cancel->load(); };
    size_t done = rep.skipped;
    auto deliver = [&](size_t idx, Result& res) {
        if (!res.error.empty()) {
            ++rep.failed;
            if (opts.onError)
                opts.onError(idx, res.error);
        } else {
            ++rep.ran;
            if (opts.onResult)
                opts.onResult(idx, res.out);
        }
        ++done;
    };
    if (opts.progress && !opts.progress(done, rep.planned, 0)) {
        rep.cancelled = true;
        return rep;
    }

    if (opts.threads <= 1 || todo.size() <= 1) {
        for (size_t idx : todo) {
            if (cancelled()) {
                rep.cancelled = true;
                break;
            }
            bool stop = false;
            LiveRun live;
            std::unique_ptr<LiveCounter> counter;
            if (opts.live && opts.progress) {
                const PlannedRun& pr = plan.runs[idx];
                live.index = idx;
                live.policy = pr.spec.policy;
                live.seed = pr.spec.config.seed;
                live.jobs = int(plan.inputs[pr.inputs].trace->jobs.size());
                counter = std::make_unique<LiveCounter>(live);
            }
            auto progress = [&](double f) {
                if (counter) {
                    opts.live(live);
                    f = live.fraction();
                }
                if (cancelled() || (opts.progress && !opts.progress(done, rep.planned, f)))
                    stop = true;
                return !stop;
            };
            Result res = runOne(plan, plan.runs[idx], progress, counter.get());
            if (res.cancelled || stop) {
                rep.cancelled = true;
                break;
            }
            deliver(idx, res);
            if (!res.error.empty() && opts.stopOnError)
                break;
            if (opts.progress && !opts.progress(done, rep.planned, 0)) {
                rep.cancelled = true;
                break;
            }
        }
        return rep;
    }

    // Worker threads take runs in plan order; results are delivered in plan order on this thread, so
    // whatever thread ran a run, the callbacks (and a store's run ids) follow the plan.
    std::mutex mu;
    std::condition_variable cvDone, cvRoom;
    std::map<size_t, Result> results; // by position in todo
    size_t deliverNext = 0;
    size_t next = 0;
    std::atomic<bool> stop{false};
    const size_t maxQueued = size_t(opts.threads) * 2; // bounds memory when delivery falls behind
    auto worker = [&] {
        for (;;) {
            size_t k;
            {
                std::lock_guard lock(mu);
                if (stop || next >= todo.size())
                    return;
                k = next++;
            }
            auto progress = [&](double) { return !cancelled() && !stop; };
            Result res = runOne(plan, plan.runs[todo[k]], progress);
            std::unique_lock lock(mu);
            // The result delivery waits for always gets in, so a slow run cannot deadlock the pool.
            cvRoom.wait(lock, [&] { return results.size() < maxQueued || k == deliverNext || stop; });
            results.emplace(k, std::move(res));
            cvDone.notify_one();
        }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < std::min<int>(opts.threads, int(todo.size())); ++i)
        pool.emplace_back(worker);

    std::exception_ptr fatal;
    for (size_t k = 0; k < todo.size(); ++k) {
        Result res;
        {
            std::unique_lock lock(mu);
            cvDone.wait(lock, [&] { return results.count(k) > 0; });
            auto node = results.extract(k);
            res = std::move(node.mapped());
            deliverNext = k + 1;
            cvRoom.notify_all();
        }
        if (res.cancelled || cancelled()) {
            rep.cancelled = true;
            break;
        }
        try {
            deliver(todo[k], res);
        } catch (...) {
            fatal = std::current_exception();
            break;
        }
        if (!res.error.empty() && opts.stopOnError)
            break;
        if (opts.progress && !opts.progress(done, rep.planned, 0)) {
            rep.cancelled = true;
            break;
        }
    }
    {
        std::lock_guard lock(mu);
        stop = true;
    }
    cvRoom.notify_all();
    for (std::thread& t : pool)
        t.join();
    if (fatal)
        std::rethrow_exception(fatal);
    return rep;
}

} // namespace ss
