// Cluster files and the JSON reader: native round trip, count expansion, versioning, errors naming line and
// field, the published machine lists.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "io/json.h"
#include "io/traceio.h"

using namespace ss;

class TstClusterIo : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string write(const std::string& name, const std::string& text)
    {
        const std::string p = m_dir.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    static std::string shared(const char* rel) { return std::string(SS_SHARED_TRACES) + "/" + rel; }

    void expectError(const std::string& text, long line, const std::string& field, const std::string& part)
    {
        try {
            clusterFromJson(text, "c.json");
            QFAIL("no error");
        } catch (const IoError& e) {
            const std::string w = e.what();
            QVERIFY2(w.rfind("c.json:", 0) == 0, w.c_str());
            QCOMPARE(e.line(), line);
            QCOMPARE(e.field(), field);
            QVERIFY2(w.find(part) != std::string::npos, w.c_str());
        }
    }

    const std::string kGood = R"({
  "format": "schedstudio-cluster", "version": 1, "name": "lab",
  "gpu_types": [{"name": "V100", "price_per_hour": 3.06, "memory_gb": 16, "speed": 1},
                {"name": "T4", "price_per_hour": 0.35, "memory_gb": 16, "speed": 0.4}],
  "switches": [{"name": "s0", "uplink_gbps": 100}, {"name": "s1", "uplink_gbps": 40}],
  "links": [{"from": "s0", "to": "s1", "gbps": 25}],
  "machines": [
    {"name": "big", "gpu_type": "V100", "gpus": 8, "cpus": 64, "memory_gb": 512, "switch": "s0", "nic_gbps": 100},
    {"name": "t", "gpu_type": "T4", "gpus": 2, "cpus": 16, "memory_gb": 64, "switch": "s1", "nic_gbps": 10, "count": 3}
  ]
})";

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void jsonBasics()
    {
        const JsonValue v = parseJson("{\n \"a\": [1, 2.5, -3e2],\n \"b\": \"x\\u00e9\\n\",\n \"c\": {\"d\": null, \"e\": true}\n}", "f");
        QCOMPARE(v.find("a")->array().at(2).number(), -300.0);
        QCOMPARE(v.find("a")->line(), 2L);
        QCOMPARE(v.find("b")->string(), std::string("x\xC3\xA9\n"));
        QVERIFY(v.find("c")->find("d")->isNull());
        QVERIFY(v.find("c")->find("e")->boolean());
        const JsonValue back = parseJson(writeJson(v), "g");
        QCOMPARE(writeJson(back), writeJson(v));
        QCOMPARE(formatNumber(0.1), std::string("0.1"));
        QCOMPARE(formatNumber(3), std::string("3"));
        for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "{\"a\":1}x", "[1 2]", "tru"}) {
            try {
                parseJson(bad, "bad.json");
                QFAIL(bad);
            } catch (const IoError& e) {
                QVERIFY(std::string(e.what()).rfind("bad.json", 0) == 0);
            }
        }
        try {
            parseJson("{\n\"a\": 1,\n\"b\": [1,\n2,,]}", "l.json");
            QFAIL("no error");
        } catch (const IoError& e) {
            QCOMPARE(e.line(), 4L);
        }
        std::string deep(1000, '[');
        QVERIFY_THROWS_EXCEPTION(IoError, parseJson(deep, "deep.json"));
    }

    void nativeCluster()
    {
        const ClusterSpec c = clusterFromJson(kGood, "c.json");
        QCOMPARE(c.name, std::string("lab"));
        QCOMPARE(c.machineCount(), 4);
        QCOMPARE(c.totalGpus(), 14);
        QCOMPARE(c.machines[1].name, std::string("t-0"));
        QCOMPARE(c.machines[3].name, std::string("t-2"));
        QCOMPARE(c.machines[3].sw, 1);
        QCOMPARE(c.machines[3].nicGbps, 10.0);
        QCOMPARE(c.types[size_t(c.machines[2].type)].name, std::string("T4"));
        QCOMPARE(c.links.size(), size_t(1));
        QCOMPARE(c.links[0].gbps, 25.0);
        // Round trip: the JSON of what was read reads back to the same cluster.
        const std::string json = clusterToJson(c);
        const ClusterSpec d = clusterFromJson(json, "d.json");
        QCOMPARE(d.fingerprint(), c.fingerprint());
        QCOMPARE(clusterToJson(d), json);
        const std::string p = m_dir.filePath("lab.json").toStdString();
        writeClusterJson(c, p);
        std::string fmt;
        QCOMPARE(readCluster(p, &fmt).fingerprint(), c.fingerprint());
        QCOMPARE(fmt, std::string("native"));
        // A preset round-trips too.
        const ClusterSpec pre = readCluster("das-small", &fmt);
        QCOMPARE(fmt, std::string("preset"));
        QCOMPARE(clusterFromJson(clusterToJson(pre), "p.json").fingerprint(), pre.fingerprint());
    }

    void clusterErrors()
    {
        auto replace = [&](const std::string& from, const std::string& to) {
            std::string s = kGood;
            const size_t p = s.find(from);
            Q_ASSERT(p != std::string::npos);
            s.replace(p, from.size(), to);
            return s;
        };
        expectError(replace("\"version\": 1", "\"version\": 2"), 2, "version", "unsupported version 2");
        expectError(replace("schedstudio-cluster", "other"), 2, "format", "expected \"schedstudio-cluster\"");
        expectError(replace("\"gpu_type\": \"T4\"", "\"gpu_type\": \"H100\""), 9, "machines[1].gpu_type",
                    "unknown GPU type 'H100'");
        expectError(replace("\"switch\": \"s1\"", "\"switch\": \"nope\""), 9, "machines[1].switch", "unknown switch");
        expectError(replace("\"gpus\": 8", "\"gpus\": \"8\""), 8, "machines[0].gpus", "expected a number");
        expectError(replace("\"count\": 3", "\"count\": 0"), 9, "machines[1].count", "whole number");
        expectError(replace("\"speed\": 0.4", "\"speed\": 0"), 4, "gpu_types[1].speed", "must be > 0");
        expectError(replace("\"to\": \"s1\"", "\"to\": \"s9\""), 6, "links[0].to", "unknown switch 's9'");
        expectError("[1]", 1, "", "must be a JSON object");
        try {
            readCluster("no-such-preset-or-file");
            QFAIL("no error");
        } catch (const IoError& e) {
            QVERIFY(std::string(e.what()).find("das-small") != std::string::npos);
        }
    }

    void publishedLists()
    {
        std::string fmt;
        const auto ph = write("cluster_machine_list", "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\nm1,8, 24GB\n");
        ClusterSpec c = readCluster(ph, &fmt);
        QCOMPARE(fmt, std::string("philly-machines"));
        QCOMPARE(c.totalGpus(), 10);
        QCOMPARE(c.types.size(), size_t(2));
        QCOMPARE(c.types[size_t(c.machines[1].type)].memoryGb, 24.0);

        const auto pai = write("pai_machine_spec.csv", "a,CPU,96,512,0\nb,V100M32,96,512,8\nc,T4,64,256,2\n");
        c = readCluster(pai, &fmt);
        QCOMPARE(fmt, std::string("pai2020-machines"));
        QCOMPARE(c.totalGpus(), 10);
        QCOMPARE(c.machines[0].gpus, 0);
        QCOMPARE(c.machines[1].cpus, 96.0);
        QCOMPARE(c.types[size_t(c.machines[1].type)].memoryGb, 32.0);

        const auto ob = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,786432,8,G2\n");
        c = readCluster(ob, &fmt);
        QCOMPARE(fmt, std::string("openb-nodes"));
        QCOMPARE(c.machines[1].cpus, 96.0);
        QCOMPARE(c.machines[1].memoryGb, 768.0);
        QCOMPARE(c.types[size_t(c.machines[1].type)].name, std::string("G2"));

        const auto ti = write("n2g4.csv", "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n2,3,4,40,256");
        c = readCluster(ti, &fmt);
        QCOMPARE(fmt, std::string("tiresias-spec"));
        QCOMPARE(c.machineCount(), 6);
        QCOMPARE(c.totalGpus(), 24);
        QCOMPARE(c.machines[5].sw, 1);

        const auto gv = write("spec.json", "{\n    \"philly\": [\"10:4:0\"]\n}\n");
        c = readCluster(gv, &fmt);
        QCOMPARE(fmt, std::string("gavel-spec"));
        QCOMPARE(c.totalGpus(), 14);
        QCOMPARE(c.machineCount(), 4); // 4+4+2 V100, 4 P100

        const auto bad = write("badnodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,lots,0,\n");
        try {
            readCluster(bad);
            QFAIL("no error");
        } catch (const IoError& e) {
            QCOMPARE(e.line(), 2L);
            QCOMPARE(e.field(), std::string("memory_mib"));
        }
        // Found by fuzz_cluster (tests/corpus/cluster/finding-oom-*): a GPU count of 99999999999 was cut to an
        // int and then allocated GPU by GPU (4.8 GB). Every list reader bounds it, as the JSON reader does.
        const std::pair<std::string, std::string> huge[] = {
            {"machineId, number of GPUs, single GPU mem\nm0,99999999999, 12GB\n", "number of GPUs"},
            {"a,V100,96,512,5000\n", "cap_gpu"},
            {"sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,4097,G2\n", "gpu"},
            {"num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n10000,100000,8,40,256\n",
             "num_node_p_switch"}};
        int k = 0;
        for (const auto& [text, field] : huge) {
            const auto p = write("huge" + std::to_string(++k) + ".csv", text);
            try {
                readCluster(p);
                QFAIL(("no error for " + text).c_str());
            } catch (const IoError& e) {
                QCOMPARE(e.line(), 2L - (field == "cap_gpu"));
                QCOMPARE(e.field(), field);
            }
        }
    }

    void realClusters_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("machines");
        QTest::addColumn<int>("gpus");
        QTest::newRow("philly") << "philly/cluster_machine_list" << 552 << 321 * 2 + 231 * 8;
        QTest::newRow("openb-gpu") << "alibaba-pai-v2023/openb_node_list_gpu_node.csv" << 1213 << -1;
        QTest::newRow("openb-all") << "alibaba-pai-v2023/openb_node_list_all_node.csv" << 1523 << -1;
        QTest::newRow("tiresias") << "tiresias/n32g4.csv" << 32 << 128;
        QTest::newRow("tiresias160") << "tiresias/n160g8.csv" << 160 << 1280;
        QTest::newRow("gavel") << "gavel/cluster_specs.json" << 125 << 500;
    }
    void realClusters()
    {
        QFETCH(QString, file);
        QFETCH(int, machines);
        QFETCH(int, gpus);
        const std::string p = shared(file.toUtf8().constData());
        if (!std::filesystem::exists(p))
            QSKIP("shared traces not present (../shared/traces)");
        const ClusterSpec c = readCluster(p);
        QCOMPARE(c.machineCount(), machines);
        if (gpus >= 0)
            QCOMPARE(c.totalGpus(), gpus);
        QVERIFY(c.validate().empty());
    }
    void realPaiAndThroughputs()
    {
        const std::string p = shared("alibaba-pai-v2020/pai_machine_spec.csv");
        if (!std::filesystem::exists(p))
            QSKIP("shared traces not present (../shared/traces)");
        const ClusterSpec c = readCluster(p);
        QVERIFY(c.machineCount() >= 1896);
        QVERIFY(c.typeIndex("V100M32") >= 0);
        const ThroughputTable t = readThroughputTable(shared("gavel/simulation_throughputs.json"));
        const double k80 = t.relativeSpeed("ResNet-50 (batch size 64)", "k80");
        QVERIFY2(k80 > 0.05 && k80 < 0.6, std::to_string(k80).c_str());
        QCOMPARE(t.relativeSpeed("ResNet-50 (batch size 64)", "v100"), 1.0);
    }
};

QTEST_GUILESS_MAIN(TstClusterIo)
#include "tst_clusterio.moc"
