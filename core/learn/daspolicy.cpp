// The DAS policy the run layer sees (ALGORITHMS §2.4): resolves the checkpoint at reset (the shipped one for the
// run's cluster, or the file given), refuses one of another policy, cluster or critic kind, and forwards to the
// scheduler over the agent (das.cpp); and the checkpoint summary the host reads (learn.h CheckpointInfo).
#include <cstdio>
#include <mutex>
#include <set>
#include <stdexcept>

#include "learn/learn.h"
#include "learn/nets.h"
#include "learn/policies.h"
#include "run/runspec.h"

namespace ss::learn {

CheckpointInfo torchReadCheckpointInfo(const std::string& path)
{
    CheckpointMeta m;
    loadCheckpoint(path, &m);
    CheckpointInfo i;
    i.policy = m.agent.variant;
    i.clusterName = m.clusterName;
    i.clusterFingerprint = m.clusterFingerprint;
    i.trainTrace = m.trainTrace;
    i.command = m.command;
    i.rwgpKernel = m.agent.rwgpKernel;
    i.critic = m.agent.critic;
    i.formatVersion = int(kCheckpointVersion);
    i.iterations = m.iterations;
    i.dModel = m.agent.dModel;
    i.heads = m.agent.heads;
    i.layers = m.agent.layers;
    i.tau = m.agent.tau;
    i.envSteps = m.envSteps;
    i.seed = m.seed;
    return i;
}

namespace {

// Tells the user which trained policy decides (on stderr, once per file and process: sweeps reset many runs).
void announceCheckpoint(const std::string& path, const CheckpointMeta& meta)
{
    static std::mutex mu;
    static std::set<std::string> told;
    std::lock_guard<std::mutex> lock(mu);
    if (!told.insert(path).second)
        return;
    std::fprintf(stderr, "%s: checkpoint %s (trained on %s, seed %llu, %d iterations, %lld decisions%s)\n",
                 meta.agent.variant.c_str(), path.c_str(), meta.clusterName.c_str(),
                 static_cast<unsigned long long>(meta.seed), meta.iterations, static_cast<long long>(meta.envSteps),
                 meta.agent.qCritic() ? ", Q-critic" : "");
}

WideJobs wideJobsParam(const std::string& v)
{
    if (v == "wait")
        return WideJobs::Wait;
    if (v == "fast")
        return WideJobs::Fast;
    if (v == "degrade")
        return WideJobs::DelayOrDegrade;
    throw std::invalid_argument("das.wide must be wait, fast or degrade, not '" + v + "'");
}

// Resolves the checkpoint at reset (the cluster is known only then) and forwards to DasScheduler.
class DasPolicy : public Scheduler {
public:
    DasPolicy(std::string variant, PolicyOptions opts) : m_variant(std::move(variant)), m_opts(std::move(opts)) {}
    std::string name() const override { return m_variant; }
    void reset(const SimSetup& setup) override
    {
        torch::set_num_threads(1);
        m_refused = false;
        std::string path = m_opts.checkpoint;
        const bool explicitPath = !path.empty();
        const bool untrained = m_opts.param("das.untrained", "0") == "1";
        // das.critic=v|q: the critic the run demands ("" = the checkpoint's); a checkpoint of the other kind is refused.
        const std::string critic = m_opts.param("das.critic", "");
        if (!critic.empty() && critic != "v" && critic != "q")
            throw std::invalid_argument("das.critic must be v or q, not '" + critic + "'");
        if (!explicitPath && !untrained)
            path = shippedCheckpoint(m_variant, setup.cluster.name);
        std::shared_ptr<DasAgent> agent;
        if (!path.empty()) {
            CheckpointMeta meta;
            agent = loadCheckpoint(path, &meta);
            if (meta.agent.variant != m_variant)
                throw std::runtime_error(path + ": checkpoint is for policy '" + meta.agent.variant + "', not '"
                                         + m_variant + "'");
            if (!critic.empty() && meta.agent.critic != critic)
                throw std::runtime_error(path + ": checkpoint has a " + meta.agent.critic + "-critic, the run demands "
                                         + "das.critic=" + critic);
            const std::string fp = setup.cluster.fingerprint();
            if (meta.clusterFingerprint != fp && m_opts.param("das.allow_other_cluster", "0") != "1") {
                if (explicitPath)
                    throw std::runtime_error(path + ": checkpoint was trained for cluster '" + meta.clusterName
                                             + "' (fingerprint " + meta.clusterFingerprint + "), the run uses '"
                                             + setup.cluster.name + "' (" + fp
                                             + "); pass das.allow_other_cluster=1 to use it anyway");
                std::fprintf(stderr, "warning: shipped %s checkpoint %s does not match cluster '%s'; using an "
                             "untrained policy\n", m_variant.c_str(), path.c_str(), setup.cluster.name.c_str());
                agent.reset();
                m_refused = true;
            } else {
                announceCheckpoint(path, meta);
            }
        } else if (!untrained) {
            std::fprintf(stderr, "warning: no trained %s checkpoint for cluster '%s'; using a deterministic "
                         "untrained policy (train one with `schedstudio-cli train`)\n", m_variant.c_str(),
                         setup.cluster.name.c_str());
        }
        m_trained = agent != nullptr;
        if (!agent) {
            AgentConfig c;
            c.variant = m_variant;
            c.tau = int(m_opts.paramD("das.tau", c.tau));
            c.heads = int(m_opts.paramD("das.heads", c.heads));
            if (!critic.empty())
                c.critic = critic;
            agent = std::make_shared<DasAgent>(c, 1);
        }
        agent->order->eval();
        m_inner = makeDasScheduler(agent, nullptr, m_opts.param("das.sample_order", "0") == "1",
                                   m_opts.param("das.sample_place", "0") == "1", m_opts.backfill,
                                   m_opts.param("das.compact", "1") != "0", wideJobsParam(m_opts.param("das.wide", "degrade")),
                                   m_opts.param("das.rwgp", ""), m_opts.paramD("das.rwgp_lambda", 0.5));
        m_inner->reset(setup);
    }
    void schedule(SchedContext& ctx) override { m_inner->schedule(ctx); }
    std::unique_ptr<Scheduler> clone() const override
    {
        auto c = std::make_unique<DasPolicy>(m_variant, m_opts);
        c->m_trained = m_trained;
        c->m_refused = m_refused;
        if (m_inner && !(c->m_inner = m_inner->clone()))
            return nullptr;
        return c;
    }
    void rebind(const SimSetup& setup) override
    {
        if (m_inner)
            m_inner->rebind(setup);
    }
    /// Whether a trained checkpoint ran (checkpoint = 1) or the untrained policy did (0), and whether a
    /// shipped checkpoint was refused for being trained on another cluster (checkpoint_refused = 1): the
    /// studio marks such runs and says why, and the store keeps it with the run.
    std::vector<std::pair<std::string, double>> runStats() const override
    {
        std::vector<std::pair<std::string, double>> s{{"checkpoint", m_trained ? 1.0 : 0.0}};
        if (m_refused)
            s.push_back({"checkpoint_refused", 1.0});
        if (m_inner)
            for (auto& kv : m_inner->runStats())
                s.push_back(std::move(kv));
        return s;
    }

private:
    std::string m_variant;
    PolicyOptions m_opts;
    bool m_trained = false, m_refused = false;
    std::unique_ptr<Scheduler> m_inner;
};

} // namespace

std::unique_ptr<Scheduler> makeDasPolicy(const std::string& variant, const PolicyOptions& opts)
{
    return std::make_unique<DasPolicy>(variant, opts);
}

} // namespace ss::learn
