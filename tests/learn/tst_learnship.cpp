// Issue 26: parallel episode collection (identical results for every worker count), the bad-input promise of
// checkpoints (another feature version, cluster or variant refused naming both; a training run killed part way
// leaves its last checkpoint whole and resumable) and `reproduce --shipped`.
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "../clirun.h"
#include "learn/learn.h"
#include "learn/trainer.h"
#include "model/fnv.h"
#include "model/tracegen.h"
#include "learnfixture.h"

#include <csignal>

using namespace ss;
using namespace ss::learn;

namespace {


TrainConfig smallConfig(int workers)
{
    TrainConfig c;
    c.policy = "das";
    c.cluster = makeClusterPreset("das-case");
    c.trace = learnfix::tinyTrace(90, 7, c.cluster.totalGpus());
    c.evalTrace = learnfix::tinyTrace(30, 8, c.cluster.totalGpus());
    c.validTrace = learnfix::tinyTrace(30, 9, c.cluster.totalGpus());
    c.seed = 3;
    c.iterations = 3;
    c.episodesPerIteration = 3; // not a multiple of 2 workers: one thread runs two episodes
    c.episodeJobs = 30;
    c.evalEvery = 1;
    c.ppoEpochs = 2;
    c.minibatch = 32;
    c.dModel = 16;
    c.heads = 2;
    c.workers = workers;
    return c;
}

std::string slurp(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

using learnfix::errorOf;

// FNV-1a 64 as the checkpoint file uses it (over the JSON header, then the tensors; model/fnv.h).
uint64_t fnv1a(const std::string& s, uint64_t h = Fnv().h)
{
    Fnv f;
    f.h = h;
    f.bytes(s.data(), s.size());
    return f.h;
}

// The file with `from` replaced by `to` in its JSON header and the checksum made right again: a well-formed
// checkpoint that differs only there.
std::string rewriteHeader(const std::string& bytes, const std::string& from, const std::string& to)
{
    uint32_t jlen = 0;
    std::memcpy(&jlen, bytes.data() + 12, 4);
    std::string json = bytes.substr(16, jlen);
    const size_t p = json.find(from);
    if (p == std::string::npos)
        return {};
    json.replace(p, from.size(), to);
    uint64_t tlen = 0;
    std::memcpy(&tlen, bytes.data() + 16 + jlen, 8);
    const std::string tensors = bytes.substr(16 + jlen + 8, size_t(tlen));
    std::string out = bytes.substr(0, 12);
    const uint32_t nj = uint32_t(json.size());
    out.append(reinterpret_cast<const char*>(&nj), 4);
    out += json;
    out.append(reinterpret_cast<const char*>(&tlen), 8);
    out += tensors;
    const uint64_t sum = fnv1a(tensors, fnv1a(json));
    out.append(reinterpret_cast<const char*>(&sum), 8);
    return out;
}

} // namespace

class TstLearnShip : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string tmp(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

private Q_SLOTS:
    void workersGiveIdenticalTraining()
    {
        // The same config on 1, 2 and 3 threads: every statistic, every evaluation and the checkpoint bytes equal.
        struct Out {
            std::vector<double> stats;
            std::string file;
            std::pair<double, double> eval, base;
        };
        auto train = [&](int workers) {
            Trainer t(smallConfig(workers));
            Out o;
            while (t.step()) {
                const TrainStats s = t.lastStats();
                o.stats.insert(o.stats.end(),
                               {double(s.iteration), double(s.envSteps), s.meanReward, s.policyLossOrder,
                                s.policyLossPlace, s.valueLoss, s.criticError, s.entropyOrder, s.entropyPlace,
                                s.trainMeanJctMin, s.evalMeanJctMin, s.evalMeanFeeUsd, s.validMeanJctMin,
                                s.validMeanFeeUsd, double(s.bestIteration)});
            }
            const std::string path = tmp(("w" + std::to_string(workers) + ".sscp").c_str());
            t.save(path);
            o.file = slurp(path);
            o.eval = t.evaluate(t.config().evalTrace);
            o.base = t.evaluateBaseline("fifo+firstfit", t.config().evalTrace);
            return o;
        };
        const Out one = train(1), two = train(2), three = train(3);
        QCOMPARE(one.stats.size(), size_t(3 * 15));
        QVERIFY(one.stats[10] > 0 && one.stats[12] > 0); // evaluated and validated every iteration
        QVERIFY(one.file.size() > 1000);
        QCOMPARE(two.stats, one.stats);
        QCOMPARE(three.stats, one.stats);
        QVERIFY(two.file == one.file);
        QVERIFY(three.file == one.file);
        QCOMPARE(two.eval, one.eval);
        QCOMPARE(two.base, one.base);
        // ... and the comparison can fail: another seed trains another policy.
        TrainConfig other = smallConfig(2);
        other.seed = 4;
        Trainer t(other);
        QVERIFY(t.step());
        QVERIFY(t.lastStats().meanReward != one.stats[2]);
    }

    void otherFeatureVersionClusterOrVariantRefused()
    {
        TrainConfig c = smallConfig(1);
        c.iterations = 1;
        c.evalTrace = {};
        c.validTrace = {};
        Trainer t(c);
        QVERIFY(t.step());
        const std::string path = tmp("fv.sscp");
        t.save(path);
        const std::string bytes = slurp(path);
        QVERIFY(errorOf([&] { readCheckpointInfo(path); }).empty());
        // another feature version: both versions named
        const std::string v2 = rewriteHeader(bytes, "\"feature_version\":3", "\"feature_version\":2");
        QVERIFY2(!v2.empty(), "header layout changed");
        {
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f << v2;
        }
        const std::string e = errorOf([&] { readCheckpointInfo(path); });
        QVERIFY2(e.find(path) == 0 && e.find("version 2") != std::string::npos
                     && e.find("this build (version 3)") != std::string::npos,
                 e.c_str());
        // another cluster and another variant, when resuming: both named
        {
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f << bytes;
        }
        TrainConfig r = c;
        r.resume = path;
        r.iterations = 2;
        r.cluster = makeClusterPreset("das-small");
        const std::string ec = errorOf([&] { Trainer x(r); });
        QVERIFY2(ec.find("'das-case'") != std::string::npos && ec.find("'das-small'") != std::string::npos, ec.c_str());
        r.cluster = c.cluster;
        r.policy = "da+mc";
        const std::string ev = errorOf([&] { Trainer x(r); });
        QVERIFY2(ev.find("'das'") != std::string::npos && ev.find("'da+mc'") != std::string::npos, ev.c_str());
    }

    void killedTrainingLeavesItsLastCheckpointResumable()
    {
        // `train` writes --out every iteration (write-then-rename): killed part way, the file holds a whole
        // earlier iteration that `--resume` continues from.
        const QString ck = QString::fromStdString(tmp("kill.sscp")), curve = QString::fromStdString(tmp("kill.csv"));
        QProcess p;
        p.setWorkingDirectory(QStringLiteral(SS_SOURCE_DIR));
        p.start(QStringLiteral(SS_CLI),
                {"train", "--policy", "das", "--cluster", "das-case", "--trace", "sample-traces/das-small-200.csv",
                 "--iterations", "500", "--episode-jobs", "40", "--eval-every", "0", "--workers", "1", "--seed", "2",
                 "--out", ck, "--curve", curve});
        QVERIFY(p.waitForStarted());
        // wait for two iterations in the curve (header lines: 2)
        QElapsedTimer timer;
        timer.start();
        auto curveLines = [&] {
            QFile f(curve);
            return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : 0;
        };
        while (curveLines() < 4 && timer.elapsed() < 120000 && p.state() == QProcess::Running)
            QTest::qWait(50);
        QCOMPARE(p.state(), QProcess::Running);
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished());
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        const CheckpointInfo info = readCheckpointInfo(ck.toStdString()); // whole: magic, checksum, tensors
        QVERIFY2(info.iterations >= 1 && info.iterations < 500, qPrintable(QString::number(info.iterations)));
        const sstest::CliResult r = sstest::runCli(
            {"train", "--policy", "das", "--cluster", "das-case", "--trace", "sample-traces/das-small-200.csv",
             "--iterations", QString::number(info.iterations + 1), "--episode-jobs", "40", "--eval-every", "0",
             "--seed", "2", "--resume", ck, "--out", ck, "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains(QByteArray(", ") + QByteArray::number(info.iterations + 1) + " iterations"),
                 r.out.constData());
        QCOMPARE(readCheckpointInfo(ck.toStdString()).iterations, info.iterations + 1);
    }

    void reproduceShippedScoresCheckpointsWithoutTraining()
    {
        // Two checkpoints made by `train` in a folder; `reproduce --shipped --checkpoints DIR` scores them on the
        // held-out slice. With perf seeds 1, 7920 and 15839 (TrainConfig::evalSeed of seed 1) its DAS cell is the
        // held-out figure `train` printed for the policy it wrote.
        const QString dir = QString::fromStdString(tmp("ship"));
        QVERIFY(QDir().mkpath(dir));
        QByteArray printed;
        for (const char* v : {"das", "da"}) {
            const sstest::CliResult t = sstest::runCli(
                {"train", "--policy", v, "--cluster", "das-case", "--trace", "sample-traces/das-small-200.csv",
                 "--iterations", "1", "--episode-jobs", "40", "--seed", "1", "--out",
                 dir + "/" + v + "-das-case.sscp"});
            QVERIFY2(t.code == 0, t.err.constData());
            if (QByteArray(v) == "das")
                printed = t.out;
        }
        const QRegularExpression written("written policy \\(iteration 1\\) ([0-9.]+) min \\$([0-9.]+)");
        const QRegularExpressionMatch w = written.match(QString::fromUtf8(printed));
        QVERIFY2(w.hasMatch(), printed.constData());
        const QStringList common = {"reproduce", "--shipped", "--trace", "sample-traces/das-small-200.csv",
                                    "--clusters", "das-case", "--seeds", "1,7920,15839"};
        const sstest::CliResult r = sstest::runCli(common + QStringList{"--checkpoints", dir, "--rows",
                                                                         "FIFO-FirstFit,DA,DAS"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("no training") && !r.err.contains("iter "), r.out.constData());
        const QRegularExpression row("\\| DAS \\| ([0-9.]+) \\| ([0-9.]+) \\|");
        const QRegularExpressionMatch m = row.match(QString::fromUtf8(r.out));
        QVERIFY2(m.hasMatch(), r.out.constData());
        QVERIFY2(std::abs(m.captured(1).toDouble() - w.captured(1).toDouble()) < 0.006
                     && std::abs(m.captured(2).toDouble() - w.captured(2).toDouble()) < 0.0006,
                 qPrintable(m.captured(0) + " vs " + w.captured(0)));
        QVERIFY(r.out.contains("| DA |") && r.out.contains("| FIFO-FirstFit |"));
        // A missing checkpoint: refused before anything runs, naming the variant, the cluster and the path.
        const sstest::CliResult miss = sstest::runCli(common + QStringList{"--checkpoints", dir, "--rows", "DA+MC"});
        QCOMPARE(miss.code, 2);
        QVERIFY2(miss.err.contains("no checkpoint for da+mc on das-case")
                     && miss.err.contains((dir + "/da+mc-das-case.sscp").toUtf8()),
                 miss.err.constData());
        // A checkpoint of another variant under the row's name: both named.
        const QString wrong = QString::fromStdString(tmp("wrong"));
        QVERIFY(QDir().mkpath(wrong));
        QVERIFY(QFile::copy(dir + "/das-das-case.sscp", wrong + "/da-das-case.sscp"));
        const sstest::CliResult bad = sstest::runCli(common + QStringList{"--checkpoints", wrong, "--rows", "DA"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("is das on cluster 'das-case'") && bad.err.contains("the row is da on 'das-case'"),
                 bad.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstLearnShip)
#include "tst_learnship.moc"
