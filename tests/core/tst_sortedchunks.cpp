// SortedChunks (the pending buckets of the preemptive schedulers) against std::set under random operations:
// the same contents in the same order, the same answers of insert, erase and lower_bound, chunks valid.
#include <QtTest>

#include <array>
#include <random>
#include <set>
#include <vector>

#include "policy/runindex.h"
#include "policy/sortedchunks.h"

using namespace ss;

namespace {

struct Item {
    std::array<double, 5> key;
    int job;
    bool operator<(const Item& o) const { return keyJobLess(key, job, o.key, o.job); }
};

template <class S> std::vector<int> jobsOf(const S& s)
{
    std::vector<int> v;
    for (const auto& x : s)
        v.push_back(x.job);
    return v;
}

} // namespace

class TestSortedChunks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void randomOperationsMatchStdSet()
    {
        // keys from a small range so equal keys (ties broken by job) and duplicates both happen; phases that
        // mostly insert (chunks split) and mostly erase (chunks emptied and dropped)
        std::mt19937_64 rng(7);
        for (int round = 0; round < 4; ++round) {
            SortedChunks<Item> s;
            std::set<Item> ref;
            const int range = round == 0 ? 5 : round == 1 ? 50 : 2000;
            auto randomItem = [&] {
                const double q = double(rng() % 3);
                return Item {{q, double(rng() % 2), double(int(rng() % uint64_t(range)) - range / 2), 0, 0},
                             int(rng() % 40)};
            };
            for (int step = 0; step < 20000; ++step) {
                const bool growing = (step / 2500) % 2 == 0;
                const int op = int(rng() % 10);
                const Item x = randomItem();
                if (op < (growing ? 6 : 3)) {
                    QCOMPARE(s.insert(x), ref.insert(x).second);
                } else if (op < 9) {
                    // erase a present value most of the time
                    Item y = x;
                    if (!ref.empty() && rng() % 4 != 0) {
                        auto it = ref.lower_bound(x);
                        if (it == ref.end())
                            it = ref.begin();
                        y = *it;
                    }
                    QCOMPARE(s.erase(y), ref.erase(y) == 1);
                } else {
                    const auto a = s.lower_bound(x);
                    const auto b = ref.lower_bound(x);
                    QCOMPARE(a == s.end(), b == ref.end());
                    if (b != ref.end()) {
                        QCOMPARE(a->job, b->job);
                        QCOMPARE(a->key, b->key);
                        // iteration from there goes on in order
                        auto ai = a;
                        auto bi = b;
                        for (int k = 0; k < 5 && bi != ref.end(); ++k, ++ai, ++bi) {
                            QVERIFY(ai != s.end());
                            QCOMPARE(ai->job, bi->job);
                        }
                    }
                }
                QCOMPARE(s.size(), ref.size());
                QCOMPARE(s.empty(), ref.empty());
                if (step % 500 == 0) {
                    QVERIFY(s.valid());
                    QCOMPARE(jobsOf(s), jobsOf(ref));
                }
            }
            QVERIFY(s.valid());
            QCOMPARE(jobsOf(s), jobsOf(ref));
            std::vector<Item> copied(s.begin(), s.end()); // forward iterators (the recorded queue copies them)
            QCOMPARE(copied.size(), ref.size());
            // empty it
            while (!ref.empty()) {
                const Item y = *ref.begin();
                ref.erase(ref.begin());
                QVERIFY(s.erase(y));
            }
            QVERIFY(s.empty());
            QVERIFY(s.begin() == s.end());
            QVERIFY(s.valid());
        }
    }

    void queueLikeUse()
    {
        // a pending queue: values join at the back and at the front, leave mostly from the front (the front
        // gap of a chunk grows, is reused by front insertions, and is given back)
        std::mt19937_64 rng(11);
        SortedChunks<Item> s;
        std::set<Item> ref;
        double back = 0, front = 0;
        for (int step = 0; step < 30000; ++step) {
            const int op = int(rng() % 8);
            if (op < 4) {
                const Item x {{0, 1, ++back, 0, 0}, step};
                QVERIFY(s.insert(x));
                ref.insert(x);
            } else if (op < 5) {
                const Item x {{0, 1, --front, 0, 0}, step};
                QVERIFY(s.insert(x));
                ref.insert(x);
            } else if (!ref.empty()) {
                auto it = ref.begin();
                if (op == 7) // sometimes the second or third
                    for (int k = int(rng() % 3); k > 0 && std::next(it) != ref.end(); --k)
                        ++it;
                QVERIFY(s.erase(*it));
                ref.erase(it);
            }
            if (step % 1000 == 0) {
                QVERIFY(s.valid());
                QCOMPARE(jobsOf(s), jobsOf(ref));
            }
        }
        QVERIFY(s.valid());
        QCOMPARE(jobsOf(s), jobsOf(ref));
    }

    void splitsAndOrderAtTheEnds()
    {
        // ascending appends (arrivals at the back) and descending ones (preempted jobs at the front)
        SortedChunks<Item> s;
        std::set<Item> ref;
        for (int i = 0; i < 1000; ++i) {
            const Item a {{0, 1, double(i), 0, 0}, i};
            const Item b {{0, 0, double(-i), 0, 0}, 5000 + i};
            QVERIFY(s.insert(a));
            QVERIFY(s.insert(b));
            QVERIFY(!s.insert(a));
            ref.insert(a);
            ref.insert(b);
        }
        QVERIFY(s.valid());
        QCOMPARE(jobsOf(s), jobsOf(ref));
        QCOMPARE(s.begin()->job, 5999);
        const Item probe {{0, 1, -1e300, 0, 0}, 0};
        QCOMPARE(s.lower_bound(probe)->job, 0);
        const Item past {{9, 0, 0, 0, 0}, 0};
        QVERIFY(s.lower_bound(past) == s.end());
        QVERIFY(!s.erase(past));
    }
};

QTEST_GUILESS_MAIN(TestSortedChunks)
#include "tst_sortedchunks.moc"
