#include "sim/accel/accelmetrics.h"

#include <algorithm>
#include <cmath>

namespace ss::accel {

AccelMetrics computeMetrics(const Workload& w, const SimResult& r)
{
    AccelMetrics m;
    m.requests = int(w.requests.size());
    std::vector<int> tn(w.tenants.size(), 0), tm(w.tenants.size(), 0);
    std::vector<double> lat;
    lat.reserve(w.requests.size());
    for (size_t i = 0; i < w.requests.size(); ++i) {
        const Request& q = w.requests[i];
        const RequestOutcome& o = r.requests.at(i);
        ++tn[size_t(q.tenant)];
        if (o.finish >= 0) {
            ++m.completed;
            lat.push_back(o.finish - q.arrival);
        }
        if (o.met) {
            ++m.met;
            ++tm[size_t(q.tenant)];
        }
    }
    m.slaRate = m.requests ? double(m.met) / m.requests : 1.0;
    double sum = 0, sq = 0;
    for (size_t t = 0; t < tn.size(); ++t) {
        const double x = tn[t] ? double(tm[t]) / tn[t] : 1.0;
        m.tenantRate.push_back(x);
        sum += x;
        sq += x * x;
    }
    m.fairness = sq > 0 ? sum * sum / (double(tn.size()) * sq) : 1.0;
    if (!lat.empty()) {
        std::sort(lat.begin(), lat.end());
        auto pct = [&](double p) { return lat[std::min(lat.size() - 1, size_t(std::ceil(p * double(lat.size())) - 1))]; };
        m.p50LatencyUs = pct(0.5);
        m.p99LatencyUs = pct(0.99);
        double s = 0;
        for (double x : lat)
            s += x;
        m.meanLatencyUs = s / double(lat.size());
    }
    m.energyUj = r.energyPj * 1e-6;
    m.makespanUs = r.makespan;
    for (double b : r.subBusy)
        m.utilization.push_back(r.makespan > 0 ? b / r.makespan : 0.0);
    m.saturatedUs = r.saturatedUs;
    m.saturatedFraction = r.makespan > 0 ? r.saturatedUs / r.makespan : 0.0;
    m.decisions = double(r.decisions);
    m.decideMeanUs = r.decisions ? r.decideWallUs / double(r.decisions) : 0.0;
    m.decideMaxUs = r.decideWallMaxUs;
    return m;
}

} // namespace ss::accel
