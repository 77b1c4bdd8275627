#include "policy/srtftree.h"

#include <algorithm>
#include <cstring>

namespace ss {

void SrtfTree::reset(size_t jobs, size_t types)
{
    m_types = types;
    m_count = 0;
    ++m_version;
    m_slotU.clear();
    m_slotJob.clear();
    m_slotLine.clear();
    m_slotUse.clear();
    m_slotSole.clear();
    m_freeSlots.clear();
    m_node.assign(jobs, -1);
    m_leaf.clear();
    m_pre.clear();
    m_freeLeaves.clear();
    m_order.clear();
    m_lastU.clear();
    m_lastJob.clear();
    m_group.clear();
}

namespace {
/// How many of positions [0, n) are below, where those that are come first (`below(i)`): branch-free halving.
template <class Below> size_t countBelow(size_t n, Below below)
{
    if (n == 0)
        return 0;
    size_t base = 0;
    while (n > 1) {
        const size_t half = n / 2;
        base = below(base + half - 1) ? base + half : base;
        n -= half;
    }
    return base + (below(base) ? 1 : 0);
}
} // namespace

size_t SrtfTree::placeAtLeast(double x, size_t from) const
{
    // the first place whose last u is >= x
    const double* v = m_lastU.data() + from;
    return from + countBelow(m_lastU.size() - from, [&](size_t i) { return v[i] < x; });
}

void SrtfTree::seek(double x, size_t& place, int& index) const
{
    Cursor& c = m_cursor;
    if (c.version == m_version && x >= c.x) {
        // on from the last answer: a few places on, or searched beyond them
        size_t p = c.place;
        const size_t places = m_order.size();
        size_t k = 0;
        while (p < places && m_lastU[p] < x && k < 4) {
            ++p;
            ++k;
        }
        if (p < places && m_lastU[p] < x)
            p = placeAtLeast(x, p);
        place = p;
        index = p >= places ? 0 : indexAtLeast(m_leaf[size_t(m_order[p])], p == c.place ? c.index : 0, x);
    } else {
        place = placeAtLeast(x);
        index = place >= m_order.size() ? 0 : indexAtLeast(m_leaf[size_t(m_order[place])], 0, x);
    }
    c = {m_version, x, place, index};
}

size_t SrtfTree::placeOf(double u, int job) const
{
    const size_t lo = countBelow(m_order.size(), [&](size_t i) {
        return m_lastU[i] < u || (m_lastU[i] == u && m_lastJob[i] < job);
    });
    return std::min(lo, m_order.size() - 1);
}

int SrtfTree::indexBefore(const Leaf& f, double u, int job)
{
    return int(countBelow(size_t(f.n), [&](size_t i) { return f.u[i] < u || (f.u[i] == u && f.job[i] < job); }));
}

int SrtfTree::indexAtLeast(const Leaf& f, int from, double x)
{
    // the entries are sorted: from + how many of [from, n) are below x
    if (f.n <= from)
        return from;
    const double* v = f.u + from;
    return from + int(countBelow(size_t(f.n - from), [&](size_t i) { return v[i] < x; }));
}

bool SrtfTree::takeSpan(int leaf, int lo, int hi, int64_t* bud) const
{
    const int64_t* a = preOf(leaf, lo);
    const int64_t* b = preOf(leaf, hi);
    for (size_t t = 0; t < m_types; ++t)
        if (b[t] - a[t] > bud[t])
            return false;
    for (size_t t = 0; t < m_types; ++t)
        bud[t] -= b[t] - a[t];
    return true;
}

int SrtfTree::newLeaf()
{
    int id;
    if (!m_freeLeaves.empty()) {
        id = m_freeLeaves.back();
        m_freeLeaves.pop_back();
    } else {
        id = int(m_leaf.size());
        m_leaf.emplace_back();
        m_pre.resize(m_pre.size() + size_t(kLeaf + 1) * m_types, 0);
    }
    m_leaf[size_t(id)].n = 0;
    return id;
}

void SrtfTree::remakePrefix(int leaf, int from)
{
    const Leaf& f = m_leaf[size_t(leaf)];
    if (from == 0)
        std::fill(preOf(leaf, 0), preOf(leaf, 0) + m_types, 0);
    for (int k = from; k < f.n; ++k) {
        const int64_t* p = preOf(leaf, k);
        const int64_t* u = useAt(f.slot[k]);
        int64_t* q = preOf(leaf, k + 1);
        for (size_t t = 0; t < m_types; ++t)
            q[t] = p[t] + u[t];
    }
}

void SrtfTree::remakeGroups()
{
    const size_t places = m_order.size();
    m_group.assign((places + kGroup - 1) / kGroup * m_types, 0);
    for (size_t p = 0; p < places; ++p) {
        const int id = m_order[p];
        const int64_t* s = preOf(id, m_leaf[size_t(id)].n);
        int64_t* g = &m_group[p / kGroup * m_types];
        for (size_t t = 0; t < m_types; ++t)
            g[t] += s[t];
    }
}

void SrtfTree::splitAt(size_t place)
{
    const int id = m_order[place];
    const int nid = newLeaf(); // may move m_leaf: references taken after
    Leaf& f = m_leaf[size_t(id)];
    Leaf& g = m_leaf[size_t(nid)];
    const int keep = f.n / 2;
    g.n = f.n - keep;
    std::copy(f.u + keep, f.u + f.n, g.u);
    std::copy(f.job + keep, f.job + f.n, g.job);
    std::copy(f.slot + keep, f.slot + f.n, g.slot);
    f.n = keep; // its prefix rows 0..keep stay right
    remakePrefix(nid, 0);
    m_order.insert(m_order.begin() + std::ptrdiff_t(place + 1), nid);
    m_lastU.insert(m_lastU.begin() + std::ptrdiff_t(place + 1), g.u[g.n - 1]);
    m_lastJob.insert(m_lastJob.begin() + std::ptrdiff_t(place + 1), g.job[g.n - 1]);
    m_lastU[place] = f.u[keep - 1];
    m_lastJob[place] = f.job[keep - 1];
    remakeGroups();
}

void SrtfTree::dropAt(size_t place)
{
    m_freeLeaves.push_back(m_order[place]);
    m_order.erase(m_order.begin() + std::ptrdiff_t(place));
    m_lastU.erase(m_lastU.begin() + std::ptrdiff_t(place));
    m_lastJob.erase(m_lastJob.begin() + std::ptrdiff_t(place));
    remakeGroups();
}

void SrtfTree::addToRows(int64_t* rows, int from, int to, const Sole& sole, const int64_t* use, int64_t sign) const
{
    const size_t T = m_types;
    if (sole.type >= 0) {
        const int64_t v = sign * sole.amount;
        for (int r = from; r < to; ++r)
            rows[size_t(r) * T + size_t(sole.type)] += v;
        return;
    }
    for (int r = from; r < to; ++r)
        for (size_t t = 0; t < T; ++t)
            rows[size_t(r) * T + t] += sign * use[t];
}

void SrtfTree::insert(int job, double u, const int64_t* use, const SrtfLine& line)
{
    if (m_node[size_t(job)] >= 0)
        erase(job);
    ++m_version;
    int s;
    if (!m_freeSlots.empty()) {
        s = m_freeSlots.back();
        m_freeSlots.pop_back();
    } else {
        s = int(m_slotU.size());
        m_slotU.push_back(0);
        m_slotJob.push_back(-1);
        m_slotLine.push_back({});
        m_slotUse.resize(m_slotUse.size() + m_types);
        m_slotSole.emplace_back();
    }
    m_slotU[size_t(s)] = u;
    m_slotJob[size_t(s)] = job;
    m_slotLine[size_t(s)] = line;
    std::copy(use, use + m_types, &m_slotUse[size_t(s) * m_types]);
    Sole sole {0, 0};
    int types = 0;
    for (size_t t = 0; t < m_types; ++t)
        if (use[t] != 0) {
            ++types;
            sole = {use[t], int(t)};
        }
    m_slotSole[size_t(s)] = types > 1 || sole.amount < 0 ? Sole {0, -1} : sole;
    m_node[size_t(job)] = s;
    ++m_count;
    if (m_order.empty()) {
        m_order.push_back(newLeaf());
        m_lastU.push_back(u);
        m_lastJob.push_back(job);
        m_group.assign(m_types, 0);
    }
    size_t p = placeOf(u, job);
    if (m_leaf[size_t(m_order[p])].n == kLeaf) {
        splitAt(p);
        if (m_lastU[p] < u || (m_lastU[p] == u && m_lastJob[p] < job))
            ++p;
    }
    const int id = m_order[p];
    Leaf& f = m_leaf[size_t(id)];
    const int idx = indexBefore(f, u, job);
    for (int i = f.n; i > idx; --i) {
        f.u[i] = f.u[i - 1];
        f.job[i] = f.job[i - 1];
        f.slot[i] = f.slot[i - 1];
    }
    f.u[idx] = u;
    f.job[idx] = job;
    f.slot[idx] = s;
    // prefix rows after the new entry: the old ones a row on, each with the new holding added (to its one type's
    // column when it is in one)
    const size_t T = m_types;
    int64_t* rows = preOf(id, 0);
    std::memmove(rows + size_t(idx + 1) * T, rows + size_t(idx) * T, size_t(f.n - idx + 1) * T * sizeof(int64_t));
    addToRows(rows, idx + 1, f.n + 2, m_slotSole[size_t(s)], use, +1);
    ++f.n;
    if (idx == f.n - 1) {
        m_lastU[p] = u;
        m_lastJob[p] = job;
    }
    int64_t* g = &m_group[p / kGroup * m_types];
    for (size_t t = 0; t < m_types; ++t)
        g[t] += use[t];
}

void SrtfTree::erase(int job)
{
    const int s = m_node[size_t(job)];
    if (s < 0)
        return;
    ++m_version;
    const double u = m_slotU[size_t(s)];
    const int64_t* use = useAt(s);
    const size_t p = placeOf(u, job);
    const int id = m_order[p];
    Leaf& f = m_leaf[size_t(id)];
    const int idx = indexBefore(f, u, job);
    int64_t* g = &m_group[p / kGroup * m_types];
    for (size_t t = 0; t < m_types; ++t)
        g[t] -= use[t];
    for (int i = idx; i + 1 < f.n; ++i) {
        f.u[i] = f.u[i + 1];
        f.job[i] = f.job[i + 1];
        f.slot[i] = f.slot[i + 1];
    }
    // prefix rows after the entry: the old ones a row back, each less its holding
    const size_t T = m_types;
    int64_t* rows = preOf(id, 0);
    if (idx + 1 < f.n)
        std::memmove(rows + size_t(idx + 1) * T, rows + size_t(idx + 2) * T, size_t(f.n - idx - 1) * T * sizeof(int64_t));
    addToRows(rows, idx + 1, f.n, m_slotSole[size_t(s)], use, -1);
    --f.n;
    if (f.n == 0) {
        dropAt(p);
    } else if (idx == f.n) {
        m_lastU[p] = f.u[f.n - 1];
        m_lastJob[p] = f.job[f.n - 1];
    }
    m_node[size_t(job)] = -1;
    m_slotJob[size_t(s)] = -1;
    m_freeSlots.push_back(s);
    --m_count;
}

int SrtfTree::maxNode() const
{
    const Leaf& f = m_leaf[size_t(m_order.back())];
    return f.slot[f.n - 1];
}

void SrtfTree::sum(double lo, double hi, int64_t* out) const
{
    if (!(lo < hi))
        return;
    size_t p;
    int i;
    seek(lo, p, i);
    const size_t places = m_order.size();
    if (p >= places)
        return;
    auto add = [&](const int64_t* a, const int64_t* b) {
        for (size_t t = 0; t < m_types; ++t)
            out[t] += b[t] - a[t];
    };
    while (p < places) {
        const int id = m_order[p];
        const Leaf& f = m_leaf[size_t(id)];
        if (i == 0 && p % kGroup == 0) {
            const size_t e = std::min(p + kGroup, places);
            if (m_lastU[e - 1] < hi) {
                const int64_t* gs = groupOf(p / kGroup);
                for (size_t t = 0; t < m_types; ++t)
                    out[t] += gs[t];
                p = e;
                continue;
            }
        }
        const int k = indexAtLeast(f, i, hi);
        add(preOf(id, i), preOf(id, k));
        if (k < f.n)
            return;
        ++p;
        i = 0;
    }
}

void SrtfTree::collect(double lo, double hi, std::vector<int>& out) const
{
    if (!(lo < hi))
        return;
    size_t p;
    int i;
    seek(lo, p, i);
    if (p >= m_order.size())
        return;
    for (; p < m_order.size(); ++p, i = 0) {
        const Leaf& f = m_leaf[size_t(m_order[p])];
        for (; i < f.n; ++i) {
            if (!(f.u[i] < hi))
                return;
            out.push_back(f.slot[i]);
        }
    }
}

void SrtfTree::nodes(std::vector<int>& out) const
{
    out.clear();
    for (int id : m_order) {
        const Leaf& f = m_leaf[size_t(id)];
        out.insert(out.end(), f.slot, f.slot + f.n);
    }
}

void SrtfTree::sortEntries(std::vector<Entry>& v, std::vector<Entry>& tmp, std::vector<size_t>& counts)
{
    // by (u, job). The estimates are never negative, so their bits order as unsigned integers, and over a
    // renewal's range of them the bits above a point are a logarithmic scale: one counting pass spreads the
    // entries by the bits of (bits - smallest) from the highest that differs down into at most B buckets (B the
    // least power of two at or above n, 256 to 65,536; a bucket is a fraction of a percent of its values wide
    // where they span octaves), and each bucket is then put in order (most hold zero to two entries). A radix
    // sort by bytes took four passes for the same.
    const size_t n = v.size();
    uint64_t least = ~uint64_t(0), most = 0;
    for (const Entry& e : v) {
        uint64_t k;
        std::memcpy(&k, &e.u, sizeof k);
        least = std::min(least, k);
        most = std::max(most, k);
    }
    if (n < 64 || most > 0x7FF0000000000000ULL) { // (a negative u or a NaN: not expected)
        std::sort(v.begin(), v.end());
        return;
    }
    int logB = 8;
    while (logB < 16 && (size_t(1) << logB) < n)
        ++logB;
    const uint64_t span = most - least;
    int width = 0;
    while (width < 64 && (span >> width) != 0)
        ++width;
    const int shift = std::max(0, width - logB);
    const size_t buckets = size_t(span >> shift) + 1; // at most 2^logB
    counts.assign(buckets + 1, 0);
    tmp.resize(n);
    auto bucketOf = [&](const Entry& e) {
        uint64_t k;
        std::memcpy(&k, &e.u, sizeof k);
        return size_t((k - least) >> shift);
    };
    size_t crowd = 0; // the most entries one bucket holds
    for (const Entry& e : v)
        crowd = std::max(crowd, ++counts[bucketOf(e) + 1]);
    for (size_t b = 1; b <= buckets; ++b)
        counts[b] += counts[b - 1];
    // (counts[b] is now where bucket b starts; the scatter moves it to where b + 1 starts)
    for (const Entry& e : v)
        tmp[counts[bucketOf(e)]++] = e;
    if (crowd > 32) { // a crowded bucket by a comparison sort, the others as below
        size_t from = 0;
        for (size_t b = 0; b < buckets; ++b) {
            const size_t to = counts[b];
            if (to - from > 32)
                std::sort(tmp.begin() + std::ptrdiff_t(from), tmp.begin() + std::ptrdiff_t(to));
            from = to;
        }
    }
    // the buckets are in order, so an insertion sort over all of them moves entries within their buckets only
    for (size_t i = 1; i < n; ++i) {
        const Entry x = tmp[i];
        size_t k = i;
        while (k > 0 && x < tmp[k - 1]) {
            tmp[k] = tmp[k - 1];
            --k;
        }
        tmp[k] = x;
    }
    v.swap(tmp);
}

void SrtfTree::rebuild(const std::vector<Entry>& order)
{
    // every leaf laid out anew, kFill entries each (spread evenly), from the leaves' own storage
    ++m_version;
    const size_t n = order.size();
    const size_t leaves = (n + kFill - 1) / kFill;
    for (const Entry& e : order)
        m_slotU[size_t(e.node)] = e.u;
    while (m_leaf.size() < leaves) {
        m_leaf.emplace_back();
        m_pre.resize(m_pre.size() + size_t(kLeaf + 1) * m_types, 0);
    }
    m_freeLeaves.clear();
    for (size_t id = m_leaf.size(); id-- > leaves;)
        m_freeLeaves.push_back(int(id));
    m_order.resize(leaves);
    m_lastU.resize(leaves);
    m_lastJob.resize(leaves);
    for (size_t k = 0; k < leaves; ++k) {
        const size_t from = k * n / leaves, to = (k + 1) * n / leaves;
        Leaf& f = m_leaf[k];
        f.n = int(to - from);
        for (size_t i = from; i < to; ++i) {
            f.u[i - from] = order[i].u;
            f.job[i - from] = order[i].job;
            f.slot[i - from] = order[i].node;
        }
        m_order[k] = int(k);
        m_lastU[k] = order[to - 1].u;
        m_lastJob[k] = order[to - 1].job;
        remakePrefix(int(k), 0);
    }
    remakeGroups();
}

std::string SrtfTree::checkLayout() const
{
    int count = 0;
    bool first = true;
    double prevU = 0;
    int prevJob = 0;
    std::vector<int64_t> group(m_types, 0);
    for (size_t p = 0; p < m_order.size(); ++p) {
        const int id = m_order[p];
        const Leaf& f = m_leaf[size_t(id)];
        const std::string at = "place " + std::to_string(p) + ": ";
        if (f.n < 1 || f.n > kLeaf)
            return at + "holds " + std::to_string(f.n);
        std::vector<int64_t> acc(m_types, 0);
        for (int i = 0; i < f.n; ++i) {
            const int s = f.slot[i];
            if (m_slotU[size_t(s)] != f.u[i] || m_slotJob[size_t(s)] != f.job[i] || m_node[size_t(f.job[i])] != s)
                return at + "entry " + std::to_string(i) + " is not its slot's";
            if (!first && !(prevU < f.u[i] || (prevU == f.u[i] && prevJob < f.job[i])))
                return at + "entry " + std::to_string(i) + " out of order";
            first = false;
            prevU = f.u[i];
            prevJob = f.job[i];
            for (size_t t = 0; t < m_types; ++t)
                if (preOf(id, i)[t] != acc[t])
                    return at + "prefix row " + std::to_string(i) + " wrong";
            for (size_t t = 0; t < m_types; ++t)
                acc[t] += useAt(s)[t];
            ++count;
        }
        for (size_t t = 0; t < m_types; ++t) {
            if (preOf(id, f.n)[t] != acc[t])
                return at + "prefix total wrong";
            group[t] += acc[t];
        }
        if (m_lastU[p] != f.u[f.n - 1] || m_lastJob[p] != f.job[f.n - 1])
            return at + "last key wrong";
        if (p % kGroup == kGroup - 1 || p + 1 == m_order.size()) {
            for (size_t t = 0; t < m_types; ++t)
                if (groupOf(p / kGroup)[t] != group[t])
                    return at + "group sum wrong";
            std::fill(group.begin(), group.end(), 0);
        }
    }
    if (count != m_count)
        return "holds " + std::to_string(count) + " entries, counts " + std::to_string(m_count);
    return {};
}

} // namespace ss
