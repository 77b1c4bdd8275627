#pragma once
// A sorted set of distinct values kept in chunks of contiguous storage (a one-level B+-tree): the subset of
// std::set that the pending buckets of the preemptive schedulers use (insert, erase by value, lower_bound,
// in-order iteration), without a heap node per value. A chunk holds at most kMax values and is split in
// halves when it overflows; an emptied chunk is dropped. The last value of each chunk is kept in a
// contiguous array, so finding a value's chunk is a binary search over those, then one within the chunk.
// Iterators stay valid only while the set is not changed (the pending walk reads, then changes).
#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

namespace ss {

template <class T, class Less = std::less<T>> class SortedChunks {
public:
    static constexpr size_t kMax = 64;

    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;
        const_iterator() = default;
        reference operator*() const { return m_s->m_chunks[m_c][m_i]; }
        pointer operator->() const { return &m_s->m_chunks[m_c][m_i]; }
        const_iterator& operator++()
        {
            if (++m_i == m_s->m_chunks[m_c].size()) {
                ++m_c;
                m_i = 0;
            }
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator r = *this;
            ++*this;
            return r;
        }
        bool operator==(const const_iterator& o) const { return m_c == o.m_c && m_i == o.m_i; }
        bool operator!=(const const_iterator& o) const { return !(*this == o); }

    private:
        friend class SortedChunks;
        const_iterator(const SortedChunks* s, size_t c, size_t i) : m_s(s), m_c(c), m_i(i) {}
        const SortedChunks* m_s = nullptr;
        size_t m_c = 0, m_i = 0;
    };
    using iterator = const_iterator;

    const_iterator begin() const { return {this, 0, 0}; }
    const_iterator end() const { return {this, m_chunks.size(), 0}; }
    bool empty() const { return m_size == 0; }
    size_t size() const { return m_size; }
    void clear()
    {
        m_chunks.clear();
        m_last.clear();
        m_size = 0;
    }

    /// The first value not less than x.
    const_iterator lower_bound(const T& x) const
    {
        const size_t c = chunkOf(x);
        if (c == m_chunks.size())
            return end();
        const std::vector<T>& v = m_chunks[c];
        return {this, c, size_t(std::lower_bound(v.begin(), v.end(), x, m_less) - v.begin())};
    }

    /// Inserts x; false (nothing changed) when an equivalent value is in the set.
    bool insert(const T& x)
    {
        if (m_chunks.empty()) {
            m_chunks.emplace_back();
            m_chunks.back().reserve(kMax + 1);
            m_chunks.back().push_back(x);
            m_last.push_back(x);
            m_size = 1;
            return true;
        }
        size_t c = chunkOf(x);
        if (c == m_chunks.size())
            c = m_chunks.size() - 1; // after every value: at the end of the last chunk
        std::vector<T>& v = m_chunks[c];
        const auto it = std::lower_bound(v.begin(), v.end(), x, m_less);
        if (it != v.end() && !m_less(x, *it))
            return false;
        v.insert(it, x);
        ++m_size;
        if (v.size() > kMax) {
            // split in halves: the upper half goes to a new chunk after this one
            std::vector<T> upper;
            upper.reserve(kMax + 1);
            upper.assign(v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
            v.resize(v.size() / 2);
            m_chunks.insert(m_chunks.begin() + std::ptrdiff_t(c + 1), std::move(upper));
            m_last.insert(m_last.begin() + std::ptrdiff_t(c + 1), m_chunks[c + 1].back());
        }
        m_last[c] = m_chunks[c].back();
        return true;
    }

    /// Erases the value equivalent to x; false when there is none.
    bool erase(const T& x)
    {
        const size_t c = chunkOf(x);
        if (c == m_chunks.size())
            return false;
        std::vector<T>& v = m_chunks[c];
        const auto it = std::lower_bound(v.begin(), v.end(), x, m_less);
        if (it == v.end() || m_less(x, *it))
            return false;
        v.erase(it);
        --m_size;
        if (v.empty()) {
            m_chunks.erase(m_chunks.begin() + std::ptrdiff_t(c));
            m_last.erase(m_last.begin() + std::ptrdiff_t(c));
        } else {
            m_last[c] = v.back();
        }
        return true;
    }

    /// Chunks hold values in order, none empty, none over kMax, each chunk's last value recorded (tests).
    bool valid() const
    {
        size_t n = 0;
        const T* prev = nullptr;
        if (m_last.size() != m_chunks.size())
            return false;
        for (size_t c = 0; c < m_chunks.size(); ++c) {
            const std::vector<T>& v = m_chunks[c];
            if (v.empty() || v.size() > kMax || m_less(v.back(), m_last[c]) || m_less(m_last[c], v.back()))
                return false;
            for (const T& x : v) {
                if (prev && !m_less(*prev, x))
                    return false;
                prev = &x;
            }
            n += v.size();
        }
        return n == m_size;
    }

private:
    std::vector<std::vector<T>> m_chunks;
    std::vector<T> m_last; // m_last[c] = m_chunks[c].back()
    size_t m_size = 0;
    [[no_unique_address]] Less m_less {};

    /// The first chunk whose last value is not less than x (m_chunks.size() when none).
    size_t chunkOf(const T& x) const
    {
        return size_t(std::lower_bound(m_last.begin(), m_last.end(), x, m_less) - m_last.begin());
    }
};

} // namespace ss
