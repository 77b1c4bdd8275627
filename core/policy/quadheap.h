#pragma once
// A min-heap with four children a node (half the depth of a binary heap, and a node's children in one cache line
// for 16-byte items): std::priority_queue's operations plus removeIf, for heaps of lazily deleted entries that are
// popped often (2D-Gittins's certificate expiries). `Less` is a strict order; with it total, the items come out in
// the same order as from std::pop_heap.
#include <cstddef>
#include <utility>
#include <vector>

namespace ss {

template <class T, class Less> class QuadHeap {
public:
    bool empty() const { return m_h.empty(); }
    size_t size() const { return m_h.size(); }
    const T& top() const { return m_h.front(); }
    void clear() { m_h.clear(); }
    void push(const T& x)
    {
        m_h.push_back(x);
        up(m_h.size() - 1);
    }
    void pop()
    {
        const T last = m_h.back();
        m_h.pop_back();
        if (!m_h.empty())
            down(0, last);
    }
    /// Drops every item for which pred(item) holds, then restores the heap.
    template <class Pred> void removeIf(Pred pred)
    {
        size_t w = 0;
        for (size_t i = 0; i < m_h.size(); ++i)
            if (!pred(m_h[i]))
                m_h[w++] = m_h[i];
        m_h.resize(w);
        for (size_t i = m_h.size() / 4 + 1; i-- > 0;)
            if (i < m_h.size()) {
                const T x = m_h[i];
                down(i, x);
            }
    }
    /// Whether every node is no less than its parent (tests).
    bool valid() const
    {
        for (size_t i = 1; i < m_h.size(); ++i)
            if (Less {}(m_h[i], m_h[(i - 1) / 4]))
                return false;
        return true;
    }

private:
    std::vector<T> m_h;
    void up(size_t i)
    {
        const T x = m_h[i];
        while (i > 0) {
            const size_t p = (i - 1) / 4;
            if (!Less {}(x, m_h[p]))
                break;
            m_h[i] = m_h[p];
            i = p;
        }
        m_h[i] = x;
    }
    /// Places x at node i or below it.
    void down(size_t i, const T& x)
    {
        const size_t n = m_h.size();
        for (;;) {
            const size_t c = 4 * i + 1;
            if (c >= n)
                break;
            size_t best = c;
            const size_t end = c + 4 < n ? c + 4 : n;
            for (size_t k = c + 1; k < end; ++k)
                if (Less {}(m_h[k], m_h[best]))
                    best = k;
            if (!Less {}(m_h[best], x))
                break;
            m_h[i] = m_h[best];
            i = best;
        }
        m_h[i] = x;
    }
};

} // namespace ss
