// Replays the malformed-input corpus (tests/corpus, made by make_corpus.py plus the fuzzers' findings)
// through every reader: each input must end in a clear error (IoError / StoreError naming the file, with a
// reason) or in a valid load, never another exception, a crash, a sanitizer report or a hang. Run under the
// sanitizer build in CI (scripts/test-sanitize.sh). Prints the counts per reader.
#include <QtTest>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/accelio.h"
#include "io/json.h"
#include "io/oasisio.h"
#include "io/startstateio.h"
#include "io/runio.h"
#include "io/traceio.h"
#include "store/runstore.h"
#include "learn/checkpointfile.h"
#include "sim/decisionlog.h"
#include "../fuzz/fuzz_trace_options.h"

using namespace ss;
namespace fs = std::filesystem;

namespace {

struct Tally {
    int inputs = 0, errors = 0, loads = 0;
};

std::vector<fs::path> filesUnder(const fs::path& dir)
{
    std::vector<fs::path> out;
    if (!fs::is_directory(dir))
        return out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string slurp(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

} // namespace

class TstCorpus : public QObject {
    Q_OBJECT

    const fs::path m_root = fs::path(SS_SOURCE_DIR) / "tests" / "corpus";
    std::map<std::string, Tally> m_tally;

    // Runs one input through `load`; a clear error or a valid load passes, anything else fails the test.
    template <class Load> void replay(const std::string& reader, const fs::path& input, Load load)
    {
        Tally& t = m_tally[reader];
        ++t.inputs;
        const std::string name = input.filename().string();
        const auto t0 = std::chrono::steady_clock::now();
        try {
            const std::string invalid = load(input.string());
            QVERIFY2(invalid.empty(), (reader + ": " + input.string() + " loaded but is invalid: " + invalid).c_str());
            ++t.loads;
            if (reader != "trace" && reader != "cluster")
                qInfo("%s: %s loads", reader.c_str(), name.c_str());
        } catch (const Cancelled&) {
            QFAIL((reader + ": " + input.string() + ": cancelled without being asked").c_str());
        } catch (const IoError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(name) != std::string::npos, (reader + ": error does not name the file: " + what).c_str());
            QVERIFY2(!e.reason().empty(), (reader + ": error without a reason: " + what).c_str());
            QVERIFY2(what.find('\n') == std::string::npos, (reader + ": error is not one line: " + what).c_str());
            ++t.errors;
        } catch (const StoreError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(name) != std::string::npos, (reader + ": error does not name the file: " + what).c_str());
            ++t.errors;
        } catch (const std::runtime_error& e) {
            // the binary readers (decision logs, checkpoints) say "<file>: what went wrong"
            const std::string what = e.what();
            QVERIFY2((reader == "decisionlog" || reader == "checkpoint") && what.rfind(input.string() + ": ", 0) == 0,
                     (reader + ": " + input.string() + ": unexpected " + typeid(e).name() + ": " + what).c_str());
            QVERIFY2(what.find('\n') == std::string::npos, (reader + ": error is not one line: " + what).c_str());
            ++t.errors;
        } catch (const std::exception& e) {
            QFAIL((reader + ": " + input.string() + ": unexpected " + typeid(e).name() + ": " + e.what()).c_str());
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > 0.5)
            qInfo("%s: %s took %.2f s", reader.c_str(), name.c_str(), s);
        // every input here is a few KB: seconds mean a corrupt length was believed (a 4 GB checkpoint buffer
        // took 3.9 s) or a hang; the sanitizer build gets more room
        const double limit = std::getenv("ASAN_OPTIONS") ? 15.0 : 3.0;
        QVERIFY2(s < limit, (reader + ": " + input.string() + " took " + std::to_string(s) + " s").c_str());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(fs::is_directory(m_root), m_root.string().c_str());
    }

    void traces()
    {
        const auto dirs = filesUnder(m_root / "trace");
        QVERIFY(dirs.size() >= 100);
        auto check = [](const std::string& path, const TraceReadOptions& o) {
            TraceReadReport rep;
            const Trace t = readTrace(path, o, &rep);
            if (!t.jobs.empty() && t.jobs.front().submit != 0)
                return std::string("first submit is not rebased to 0");
            if (rep.jobs != long(t.jobs.size()))
                return "report counts " + std::to_string(rep.jobs) + " jobs, trace holds " + std::to_string(t.jobs.size());
            return t.validate();
        };
        for (const fs::path& p : dirs) {
            const std::string fmt = p.parent_path().filename().string();
            if (fmt == "fuzz") {
                // fuzz_trace's findings: the first byte chose the reader and options, the rest is the file
                const std::string bytes = slurp(p);
                if (bytes.empty())
                    continue;
                const fs::path body = fs::temp_directory_path() / ("tst_corpus-" + std::to_string(getpid()) + "-" + p.filename().string());
                std::ofstream(body, std::ios::binary) << bytes.substr(1);
                const TraceReadOptions o = ssfuzz::traceOptionsFromByte(uint8_t(bytes[0]));
                replay("trace", body, [&](const std::string& path) { return check(path, o); });
                fs::remove(body);
                continue;
            }
            for (const std::string& format : {fmt, std::string("auto")}) {
                TraceReadOptions o;
                o.format = format == "csv" ? "csv" : format;
                if (fmt == "csv") {
                    o.columnMap = {{"submit", "when"}, {"gpus", "gpus"}, {"duration", "secs"}, {"vc", "vc"}};
                    if (format == "auto")
                        continue; // a mapped CSV needs its map
                }
                for (bool skip : {false, true}) {
                    o.skipBadRows = skip;
                    replay("trace", p, [&](const std::string& path) { return check(path, o); });
                }
            }
        }
    }

    void clusters()
    {
        const auto files = filesUnder(m_root / "cluster");
        QVERIFY(files.size() >= 40);
        for (const fs::path& p : files)
            replay("cluster", p, [](const std::string& path) {
                const ClusterSpec c = readCluster(path);
                const std::string bad = c.validate();
                if (!bad.empty())
                    return bad;
                // what we write must read back as the same cluster
                const ClusterSpec again = clusterFromJson(clusterToJson(c), path);
                return again.machineCount() == c.machineCount() && again.totalGpus() == c.totalGpus()
                    ? std::string() : std::string("cluster does not survive a JSON round trip");
            });
    }

    void json()
    {
        const auto files = filesUnder(m_root / "json");
        QVERIFY(files.size() >= 15);
        for (const fs::path& p : files)
            replay("json", p, [](const std::string& path) {
                const JsonValue v = parseJson(slurp(path), path);
                const std::string once = writeJson(v);
                return writeJson(parseJson(once, path)) == once ? std::string() : std::string("write/read/write differs");
            });
    }

    void throughputTables()
    {
        const auto files = filesUnder(m_root / "throughputs");
        QVERIFY(files.size() >= 15);
        for (const fs::path& p : files)
            replay("throughputs", p, [](const std::string& path) {
                const ThroughputTable t = readThroughputTable(path);
                return t.empty() ? std::string("an empty table loaded") : std::string();
            });
    }

    void scenarios()
    {
        const auto files = filesUnder(m_root / "scenario");
        QVERIFY(files.size() >= 20);
        for (const fs::path& p : files)
            replay("scenario", p, [](const std::string& path) {
                const Scenario s = readScenario(path);
                // a scenario that loads must write and read back to the same scenario
                const std::string dir = fs::path(path).parent_path().string();
                const std::string once = writeJson(scenarioToJson(s, dir));
                return writeJson(scenarioToJson(scenarioFromJson(once, dir, path), dir)) == once
                    ? std::string() : std::string("scenario does not survive a round trip");
            });
    }

    void stores()
    {
        const auto files = filesUnder(m_root / "store");
        QVERIFY(files.size() >= 6);
        for (const fs::path& p : files) {
            // work on a copy: opening may not touch the checked-in file
            const fs::path copy = fs::temp_directory_path() / ("tst_corpus-" + std::to_string(getpid()) + "-" + p.filename().string());
            fs::copy_file(p, copy, fs::copy_options::overwrite_existing);
            const auto before = slurp(copy);
            replay("store", copy, [](const std::string& path) {
                RunStore s(path, RunStore::Mode::ReadOnly);
                (void)s.listRuns();
                return std::string();
            });
            QVERIFY2(slurp(copy) == before, ("opening modified " + p.string()).c_str());
            fs::remove(copy);
            fs::remove(copy.string() + "-wal");
            fs::remove(copy.string() + "-shm");
        }
    }

    void decisionLogs()
    {
        const auto files = filesUnder(m_root / "decisionlog");
        QVERIFY(files.size() >= 15);
        for (const fs::path& p : files)
            replay("decisionlog", p, [](const std::string& path) {
                const DecisionLog log = readDecisionLog(path);
                for (const DecisionRecord& r : log.records)
                    for (const PlacementRecord& pl : r.placements)
                        for (const GpuSlot& g : pl.slots)
                            if (g.gpu < 0 || (log.gpuCount > 0 && g.gpu >= log.gpuCount))
                                return std::string("a placement names GPU ") + std::to_string(g.gpu);
                return std::string();
            });
    }

    void checkpoints()
    {
        const auto files = filesUnder(m_root / "checkpoint");
        QVERIFY(files.size() >= 15);
        for (const fs::path& p : files)
            replay("checkpoint", p, [](const std::string& path) {
                (void)learn::readCheckpointFile(path, true);
                return std::string();
            });
    }

    void oasisScenarios()
    {
        const auto files = filesUnder(m_root / "oasis");
        QVERIFY(files.size() >= 20);
        for (const fs::path& p : files)
            replay("oasis", p, [](const std::string& path) {
                const oasis::OasisScenario sc = oasis::readScenario(path);
                return sc.jobs.empty() ? std::string("a scenario without jobs loaded") : std::string();
            });
    }

    void acceleratorFiles()
    {
        const auto files = filesUnder(m_root / "accel");
        QVERIFY(files.size() >= 30);
        for (const fs::path& p : files) {
            const bool chip = p.filename().string().rfind("chip-", 0) == 0;
            replay(chip ? "accel-chip" : "accel-network", p, [chip](const std::string& path) {
                if (chip)
                    return accel::readChip(path).subs.empty() ? std::string("a chip without sub-accelerators loaded")
                                                              : std::string();
                return accel::readNetwork(path).layers.empty() ? std::string("a network without layers loaded")
                                                               : std::string();
            });
        }
    }

    void startStates()
    {
        ClusterSpec c = makeClusterPreset("das-case");
        c.finalize();
        const auto files = filesUnder(m_root / "startstate");
        QVERIFY(files.size() >= 20);
        for (const fs::path& p : files)
            replay("startstate", p, [&c](const std::string& path) {
                (void)readStartState(path, c);
                return std::string();
            });
    }

    void cleanupTestCase()
    {
        int total = 0;
        for (const auto& [reader, t] : m_tally) {
            qInfo("corpus %-12s %4d inputs: %4d clear errors, %4d valid loads", reader.c_str(), t.inputs, t.errors, t.loads);
            total += t.inputs;
        }
        qInfo("corpus total %d inputs replayed", total);
    }
};

QTEST_APPLESS_MAIN(TstCorpus)
#include "tst_corpus.moc"
