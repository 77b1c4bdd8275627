#pragma once
// A sorted set of distinct values kept in chunks of contiguous storage (a one-level B+-tree): the subset of
// std::set that the pending buckets of the preemptive schedulers use (insert, erase by value, lower_bound,
// in-order iteration), without a heap node per value. A chunk holds at most kMax values and is split in
// halves when it overflows; an emptied chunk is dropped. The last value of each chunk is kept in a
// contiguous array, so finding a value's chunk is a binary search over those, then one within the chunk.
// A chunk's values start at an offset (head): a change in its front half shifts the values before it, one in
// its back half those after it, so taking the first value (a queue's usual removal) moves nothing.
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
        reference operator*() const { return m_s->m_chunks[m_c].at(m_i); }
        pointer operator->() const { return &m_s->m_chunks[m_c].at(m_i); }
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
        return {this, c, m_chunks[c].lowerBound(x, m_less)};
    }

    /// Inserts x; false (nothing changed) when an equivalent value is in the set.
    bool insert(const T& x)
    {
        if (m_chunks.empty()) {
            m_chunks.emplace_back();
            m_chunks.back().v.reserve(kMax + 1);
            m_chunks.back().v.push_back(x);
            m_last.push_back(x);
            m_size = 1;
            return true;
        }
        size_t c = chunkOf(x);
        if (c == m_chunks.size())
            c = m_chunks.size() - 1; // after every value: at the end of the last chunk
        Chunk& ch = m_chunks[c];
        const size_t i = ch.lowerBound(x, m_less);
        if (i < ch.size() && !m_less(x, ch.at(i)))
            return false;
        ch.insertAt(i, x);
        ++m_size;
        if (ch.size() > kMax) {
            // split in halves: the upper half goes to a new chunk after this one
            Chunk upper;
            upper.v.reserve(kMax + 1);
            const size_t half = ch.size() / 2;
            upper.v.assign(ch.v.begin() + std::ptrdiff_t(ch.head + half), ch.v.end());
            ch.v.resize(ch.head + half);
            m_chunks.insert(m_chunks.begin() + std::ptrdiff_t(c + 1), std::move(upper));
            m_last.insert(m_last.begin() + std::ptrdiff_t(c + 1), m_chunks[c + 1].v.back());
        }
        m_last[c] = m_chunks[c].v.back();
        return true;
    }

    /// Erases the value equivalent to x; false when there is none.
    bool erase(const T& x)
    {
        const size_t c = chunkOf(x);
        if (c == m_chunks.size())
            return false;
        Chunk& ch = m_chunks[c];
        const size_t i = ch.lowerBound(x, m_less);
        if (i == ch.size() || m_less(x, ch.at(i)))
            return false;
        ch.eraseAt(i);
        --m_size;
        if (ch.size() == 0) {
            m_chunks.erase(m_chunks.begin() + std::ptrdiff_t(c));
            m_last.erase(m_last.begin() + std::ptrdiff_t(c));
        } else {
            m_last[c] = ch.v.back();
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
            const Chunk& ch = m_chunks[c];
            if (ch.size() == 0 || ch.size() > kMax || ch.head > ch.v.size() || m_less(ch.v.back(), m_last[c])
                || m_less(m_last[c], ch.v.back()))
                return false;
            for (size_t i = 0; i < ch.size(); ++i) {
                if (prev && !m_less(*prev, ch.at(i)))
                    return false;
                prev = &ch.at(i);
            }
            n += ch.size();
        }
        return n == m_size;
    }

private:
    struct Chunk {
        std::vector<T> v; // the values are v[head..]
        size_t head = 0;
        size_t size() const { return v.size() - head; }
        const T& at(size_t i) const { return v[head + i]; }
        size_t lowerBound(const T& x, const Less& less) const
        {
            return size_t(std::lower_bound(v.begin() + std::ptrdiff_t(head), v.end(), x, less) - v.begin()) - head;
        }
        void insertAt(size_t i, const T& x)
        {
            if (head > 0 && i < size() / 2) {
                // into the gap at the front: the values before position i move down one
                std::move(v.begin() + std::ptrdiff_t(head), v.begin() + std::ptrdiff_t(head + i),
                          v.begin() + std::ptrdiff_t(head - 1));
                --head;
                v[head + i] = x;
                return;
            }
            v.insert(v.begin() + std::ptrdiff_t(head + i), x);
        }
        void eraseAt(size_t i)
        {
            if (i < size() / 2 || i == 0) {
                // the values before position i move up one; the front gap grows
                std::move_backward(v.begin() + std::ptrdiff_t(head), v.begin() + std::ptrdiff_t(head + i),
                                   v.begin() + std::ptrdiff_t(head + i + 1));
                ++head;
                if (head > kMax) { // a long run of removals at the front: give the gap back
                    v.erase(v.begin(), v.begin() + std::ptrdiff_t(head));
                    head = 0;
                }
                return;
            }
            v.erase(v.begin() + std::ptrdiff_t(head + i));
        }
    };
    std::vector<Chunk> m_chunks;
    std::vector<T> m_last; // m_last[c]: the last value of chunk c
    size_t m_size = 0;
    [[no_unique_address]] Less m_less {};

    /// The first chunk whose last value is not less than x (m_chunks.size() when none).
    size_t chunkOf(const T& x) const
    {
        return size_t(std::lower_bound(m_last.begin(), m_last.end(), x, m_less) - m_last.begin());
    }
};

} // namespace ss
