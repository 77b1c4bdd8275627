#include "perf/perfmodel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "model/fnv.h"

namespace ss {

namespace {
std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
} // namespace

PerfConfig PerfConfig::parse(const std::string& spec)
{
    PerfConfig c;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty())
            continue;
        if (item == "ideal") {
            c.ideal = true;
            continue;
        }
        if (item == "default")
            continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("perf setting '" + item + "': expected key=value or 'ideal'");
        const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
        double v = 0;
        try {
            size_t used = 0;
            v = std::stod(val, &used);
            if (used != val.size())
                throw std::invalid_argument("trailing");
        } catch (const std::exception&) {
            if (key == "ideal" || key == "type_speed") {
                if (val != "true" && val != "false" && val != "on" && val != "off")
                    throw std::invalid_argument("perf setting '" + key + "': expected true/false, got '" + val + "'");
                v = (val == "true" || val == "on") ? 1 : 0;
            } else {
                throw std::invalid_argument("perf setting '" + key + "': '" + val + "' is not a number");
            }
        }
        auto nonneg = [&](double& dst) {
            if (!(v >= 0) || !std::isfinite(v))
                throw std::invalid_argument("perf setting '" + key + "': must be a finite number >= 0");
            dst = v;
        };
        if (key == "ideal")
            c.ideal = v != 0;
        else if (key == "type_speed")
            c.typeSpeed = v != 0;
        else if (key == "cross_machine")
            nonneg(c.crossMachine);
        else if (key == "cross_switch")
            nonneg(c.crossSwitch);
        else if (key == "interference")
            nonneg(c.interference);
        else if (key == "machine_bias_sd")
            nonneg(c.machineBiasSd);
        else if (key == "fluctuation_sd")
            nonneg(c.fluctuationSd);
        else if (key == "preempt_overhead")
            nonneg(c.preemptOverhead);
        else
            throw std::invalid_argument("unknown perf setting '" + key
                                        + "' (known: ideal, type_speed, cross_machine, cross_switch, interference, "
                                          "machine_bias_sd, fluctuation_sd, preempt_overhead)");
    }
    return c;
}

std::string PerfConfig::toString() const
{
    if (ideal)
        return "ideal";
    std::ostringstream s;
    s << "type_speed=" << (typeSpeed ? "true" : "false") << ",cross_machine=" << crossMachine
      << ",cross_switch=" << crossSwitch << ",interference=" << interference << ",machine_bias_sd=" << machineBiasSd
      << ",fluctuation_sd=" << fluctuationSd << ",preempt_overhead=" << preemptOverhead;
    return s.str();
}

double ThroughputTable::relativeSpeed(const std::string& model, const std::string& gpuType) const
{
    auto it = m_table.find(model);
    if (it == m_table.end())
        return -1;
    auto jt = it->second.find(lower(gpuType));
    if (jt == it->second.end())
        return -1;
    return jt->second;
}

void ThroughputTable::set(const std::string& model, const std::string& gpuType, double relSpeed)
{
    m_table[model][lower(gpuType)] = relSpeed;
}

std::string ThroughputTable::fingerprint() const
{
    Fnv f;
    for (const auto& [model, types] : m_table) {
        f.str(model);
        for (const auto& [type, speed] : types) {
            f.str(type);
            f.num(speed);
        }
    }
    // raw measurements only when present, so a table of relative speeds keeps its fingerprint
    if (!m_sps.empty() || !m_pairs.empty()) {
        f.str("raw:" + m_reference);
        for (const auto& [key, types] : m_sps) {
            f.str(key.first);
            f.num(key.second);
            for (const auto& [type, v] : types) {
                f.str(type);
                f.num(v);
            }
        }
        for (const auto& [key, v] : m_pairs) {
            f.str(std::get<0>(key));
            f.str(std::get<1>(key));
            f.num(std::get<2>(key));
            f.str(std::get<3>(key));
            f.num(v.first);
            f.num(v.second);
        }
    }
    return f.hex();
}

double ThroughputTable::stepsPerSecond(const std::string& model, int scale, const std::string& gpuType) const
{
    const auto it = m_sps.find({model, scale});
    if (it == m_sps.end())
        return -1;
    const auto jt = it->second.find(lower(gpuType));
    return jt == it->second.end() ? -1 : jt->second;
}

void ThroughputTable::setStepsPerSecond(const std::string& model, int scale, const std::string& gpuType, double sps)
{
    m_sps[{model, scale}][lower(gpuType)] = sps;
}

bool ThroughputTable::pairStepsPerSecond(const std::string& a, const std::string& b, int scale, const std::string& gpuType,
                                         double& ta, double& tb) const
{
    const bool swap = b < a;
    const auto it = m_pairs.find({swap ? b : a, swap ? a : b, scale, lower(gpuType)});
    if (it == m_pairs.end())
        return false;
    ta = swap ? it->second.second : it->second.first;
    tb = swap ? it->second.first : it->second.second;
    return true;
}

void ThroughputTable::setPairStepsPerSecond(const std::string& a, const std::string& b, int scale,
                                            const std::string& gpuType, double ta, double tb)
{
    const bool swap = b < a;
    m_pairs[{swap ? b : a, swap ? a : b, scale, lower(gpuType)}] = swap ? std::make_pair(tb, ta) : std::make_pair(ta, tb);
}

void ThroughputTable::setReferenceType(const std::string& t) { m_reference = lower(t); }

bool ThroughputTable::measuresType(const std::string& gpuType) const
{
    const std::string t = lower(gpuType);
    for (const auto& [key, types] : m_sps)
        if (types.count(t))
            return true;
    return false;
}

PerfModel::PerfModel(const ClusterSpec& cluster, const Trace& trace, PerfConfig cfg, uint64_t seed,
                     const ThroughputTable* table)
    : m_cluster(cluster), m_trace(trace), m_cfg(cfg), m_table(table), m_rng(seed ^ 0x5deece66dULL)
{
    m_bias.assign(size_t(cluster.machineCount()), 1.0);
    if (!m_cfg.ideal && m_cfg.machineBiasSd > 0)
        for (double& b : m_bias)
            b = std::clamp(1.0 + m_rng.normal(0.0, m_cfg.machineBiasSd), 0.2, 3.0);
    const size_t models = std::max<size_t>(1, trace.models.size() + 1);
    m_speedCache.assign(models * cluster.types.size(), -1.0);
}

double PerfModel::typeSpeed(int model, int type) const
{
    if (!m_cfg.typeSpeed)
        return 1.0;
    const size_t idx = size_t(model + 1) * m_cluster.types.size() + size_t(type);
    double& cached = m_speedCache[idx];
    if (cached > 0)
        return cached;
    double s = m_cluster.types[size_t(type)].speed;
    if (m_table && model >= 0) {
        const double r = m_table->relativeSpeed(m_trace.models[size_t(model)], m_cluster.types[size_t(type)].name);
        if (r > 0)
            s = r;
    }
    cached = s;
    return s;
}

// With Gavel's raw measurements, a job runs at T(model, scale, type) / T(model, scale, reference): its trace
// duration is its time on the reference type at its own scale factor (io's Gavel reader), so it finishes after
// steps / T(model, scale, type) on any type, as in Gavel's simulator. Rows missing from the table are
// estimated exactly as the Gavel policies estimate them (throughputRow), so both see the same speeds.
double PerfModel::scaledSpeed(const Job& job, int type) const
{
    const int scale = std::max(1, job.wholeGpus());
    auto it = m_scaledCache.find({job.model, scale});
    if (it == m_scaledCache.end()) {
        std::vector<std::string> names;
        for (const GpuType& t : m_cluster.types)
            names.push_back(t.name);
        names.push_back(m_table->referenceType());
        const ThroughputRow row = throughputRow(*m_table, m_trace.models[size_t(job.model)], scale, names);
        std::vector<double> speeds(m_cluster.types.size(), -1.0);
        const double ref = row.error.empty() ? row.sps.back() : -1;
        if (ref > 0)
            for (size_t t = 0; t < speeds.size(); ++t)
                speeds[t] = row.sps[t] > 0 ? row.sps[t] / ref : -1;
        it = m_scaledCache.emplace(std::make_pair(job.model, scale), std::move(speeds)).first;
    }
    return it->second[size_t(type)];
}

double PerfModel::nominalSpeed(const Job& job, int m) const
{
    if (m_cfg.ideal)
        return 1.0;
    const int type = m_cluster.machines[size_t(m)].type;
    if (m_cfg.typeSpeed && m_table && m_table->hasMeasurements() && job.model >= 0) {
        const double s = scaledSpeed(job, type);
        if (s > 0)
            return s * m_bias[size_t(m)];
    }
    return typeSpeed(job.model, type) * m_bias[size_t(m)];
}

double PerfModel::expectedRate(const Job& job, const std::vector<int>& machines, int switchCount, int coRunners) const
{
    if (m_cfg.ideal || machines.empty())
        return 1.0;
    double slowest = kHuge;
    for (int m : machines)
        slowest = std::min(slowest, nominalSpeed(job, m));
    const double comm = (1.0 + m_cfg.crossMachine * double(machines.size() - 1))
        * (1.0 + m_cfg.crossSwitch * double(std::max(0, switchCount - 1)));
    const double interf = 1.0 + m_cfg.interference * double(coRunners);
    return slowest / (comm * interf);
}

double PerfModel::placementRate(const Job& job, const std::vector<int>& machines, const std::vector<int>& switches,
                                int coRunners)
{
    m_lastNoise.assign(machines.size(), 0.0);
    if (m_cfg.ideal || machines.empty())
        return 1.0;
    double slowest = kHuge;
    for (size_t i = 0; i < machines.size(); ++i) {
        double eps = 0;
        if (m_cfg.fluctuationSd > 0)
            eps = std::clamp(m_rng.normal(0.0, m_cfg.fluctuationSd), -0.8, 2.0);
        m_lastNoise[i] = eps;
        slowest = std::min(slowest, nominalSpeed(job, machines[i]) * (1.0 + eps));
    }
    const double comm = (1.0 + m_cfg.crossMachine * double(machines.size() - 1))
        * (1.0 + m_cfg.crossSwitch * double(std::max<size_t>(1, switches.size()) - 1));
    const double interf = 1.0 + m_cfg.interference * double(coRunners);
    return slowest / (comm * interf);
}

std::string PerfModel::pairFactors(const Job& a, const Job& b, int type, double& fa, double& fb) const
{
    if (!m_table || !m_table->hasPairs())
        return "the run has no throughput table with co-located pairs (--throughputs)";
    if (a.model < 0 || b.model < 0)
        return "a job without a model name cannot be paired";
    const std::string& ma = m_trace.models[size_t(a.model)];
    const std::string& mb = m_trace.models[size_t(b.model)];
    const std::string& tn = m_cluster.types[size_t(type)].name;
    const int scale = std::max(1, a.wholeGpus());
    double ta = 0, tb = 0;
    if (!m_table->pairStepsPerSecond(ma, mb, scale, tn, ta, tb))
        return "pair (" + ma + ", " + mb + ") at scale " + std::to_string(scale) + " is not measured on " + tn;
    const double sa = m_table->stepsPerSecond(ma, scale, tn), sb = m_table->stepsPerSecond(mb, scale, tn);
    if (!(sa > 0) || !(sb > 0))
        return "the pair's models are not measured alone on " + tn;
    fa = std::max(0.0, ta) / sa;
    fb = std::max(0.0, tb) / sb;
    if (!(fa > 0) || !(fb > 0))
        return "pair (" + ma + ", " + mb + ") makes no progress on " + tn;
    return {};
}

} // namespace ss
