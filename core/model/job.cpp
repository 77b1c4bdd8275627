#include "model/job.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ss {

void Trace::sortBySubmit()
{
    std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
        if (a.submit != b.submit)
            return a.submit < b.submit;
        return a.id < b.id;
    });
}

double Trace::priorityWeight(const Job& j) const
{
    if (j.qos < 0 || size_t(j.qos) >= qosClasses.size())
        return 1;
    const std::string& q = qosClasses[size_t(j.qos)];
    if (q.size() < 2 || q[0] != 'w')
        return 1;
    char* end = nullptr;
    const double w = std::strtod(q.c_str() + 1, &end);
    return end && *end == '\0' && std::isfinite(w) && w > 0 ? w : 1;
}

std::string Trace::validate() const
{
    for (size_t i = 0; i < jobs.size(); ++i) {
        const Job& j = jobs[i];
        auto where = [&] { return "job " + std::to_string(j.id) + " (row " + std::to_string(i + 1) + "): "; };
        if (!std::isfinite(j.submit) || j.submit < 0)
            return where() + "submit time must be a finite number >= 0";
        if (!(j.gpus > 0) || !std::isfinite(j.gpus))
            return where() + "GPU demand must be > 0";
        if (j.gpus >= 1.0 && std::fabs(j.gpus - std::round(j.gpus)) > 1e-9)
            return where() + "GPU demand >= 1 must be a whole number";
        if (!(j.duration > 0) || !std::isfinite(j.duration))
            return where() + "duration must be > 0";
        if (i > 0 && jobs[i - 1].submit > j.submit)
            return where() + "jobs are not sorted by submit time";
        auto idx = [](int32_t v, size_t n) { return v >= -1 && v < int32_t(n); };
        if (!idx(j.model, models.size()) || !idx(j.user, users.size()) || !idx(j.vc, vcs.size())
            || !idx(j.qos, qosClasses.size()) || !idx(j.gpuSpec, gpuSpecs.size())
            || !idx(j.machines, machineSets.size()))
            return where() + "string index out of range";
    }
    return {};
}

double Trace::span() const
{
    if (jobs.empty())
        return 0;
    return jobs.back().submit - jobs.front().submit;
}

double Trace::gpuSeconds() const
{
    double sum = 0;
    for (const Job& j : jobs)
        sum += j.gpus * j.duration;
    return sum;
}

std::vector<std::string> Trace::machinesOf(const Job& j) const
{
    std::vector<std::string> out;
    if (j.machines < 0 || size_t(j.machines) >= machineSets.size())
        return out;
    const std::string& s = machineSets[size_t(j.machines)];
    size_t p = 0;
    while (p <= s.size()) {
        size_t q = s.find(';', p);
        if (q == std::string::npos)
            q = s.size();
        size_t a = p, b = q;
        while (a < b && (s[a] == ' ' || s[a] == '\t'))
            ++a;
        while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
            --b;
        if (b > a)
            out.emplace_back(s, a, b - a);
        p = q + 1;
    }
    return out;
}

bool Trace::hasStartTimes() const
{
    return std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.hasStarted(); });
}

const std::string& Trace::modelName(const Job& j) const
{
    static const std::string unknown = "unknown";
    if (j.model < 0 || size_t(j.model) >= models.size())
        return unknown;
    return models[size_t(j.model)];
}

StringInterner::StringInterner(std::vector<std::string>& table) : m_table(table)
{
    for (size_t i = 0; i < table.size(); ++i)
        m_index.emplace(table[i], int32_t(i));
}

int32_t StringInterner::operator()(std::string_view s)
{
    auto it = m_index.find(s);
    if (it != m_index.end())
        return it->second;
    const int32_t id = int32_t(m_table.size());
    m_table.emplace_back(s);
    m_index.emplace(std::string(s), id);
    return id;
}

} // namespace ss
