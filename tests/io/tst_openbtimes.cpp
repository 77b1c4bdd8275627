// openb pod lists without time columns (openb_pod_list_multigpu50.csv) take each pod's times from
// openb_pod_list_default.csv beside them, by pod name (issue 26; docs/FORMATS.md).
#include <QtTest>

#include <fstream>

#include "io/traceio.h"

using namespace ss;

class TstOpenbTimes : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string write(const QString& sub, const char* name, const std::string& text)
    {
        QDir().mkpath(m_dir.filePath(sub));
        const std::string p = m_dir.filePath(sub + "/" + QString::fromUtf8(name)).toStdString();
        std::ofstream(p) << text;
        return p;
    }
    static std::string errorOf(const std::function<void()>& f)
    {
        try {
            f();
        } catch (const std::exception& e) {
            return e.what();
        }
        return {};
    }

    const std::string kDefault =
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
        "openb-pod-0000,12000,16384,1,1000,,LS,Running,100,3700,160\n"
        "openb-pod-0001,6000,12288,1,460,,LS,Running,200,900,200\n"
        "openb-pod-0002,6000,12288,1,1000,,BE,Failed,5,10,5\n"
        "openb-pod-0003,6000,12288,1,1000,,BE,Succeeded,50,12902960,50\n";

private Q_SLOTS:
    void timesTakenByName()
    {
        write("a", "openb_pod_list_default.csv", kDefault);
        // the same pods, listed in another order, one of them asking for 4 whole GPUs
        const std::string p = write("a", "openb_pod_list_multigpu50.csv",
                                    "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                    "openb-pod-0001,6000,12288,1,460\n"
                                    "openb-pod-0000,12000,16384,4,1000\n"
                                    "openb-pod-0002,6000,12288,1,1000\n"
                                    "openb-pod-0003,6000,12288,1,1000\n");
        QCOMPARE(detectTraceFormat(p), std::string("openb"));
        TraceReadReport rep;
        const Trace t = readTrace(p, {}, &rep);
        QCOMPARE(t.jobs.size(), size_t(2));
        QCOMPARE(rep.skippedByReason.at("failed/killed"), 1L); // pod_phase of the default list
        QCOMPARE(rep.skippedByReason.at("still running"), 1L); // its deletion_time too
        // sorted by submit and rebased: pod 0 (created 100) first
        QCOMPARE(t.jobs[0].id, int64_t(0));
        QCOMPARE(t.jobs[0].gpus, 4.0);               // demand from this list
        QCOMPARE(t.jobs[0].duration, 3700.0 - 160.0); // times from the default one
        QCOMPARE(t.jobs[1].id, int64_t(1));
        QCOMPARE(t.jobs[1].gpus, 0.46);
        QCOMPARE(t.jobs[1].submit - t.jobs[0].submit, 100.0);
        QCOMPARE(t.jobs[1].duration, 700.0);
        bool noted = false;
        for (const std::string& n : t.notes)
            noted = noted || n.find("from openb_pod_list_default.csv by pod name") != std::string::npos;
        QVERIFY(noted);
    }

    void missingPodIsAnErrorOrSkipped()
    {
        const std::string def = write("b", "openb_pod_list_default.csv", kDefault);
        const std::string p = write("b", "openb_pod_list_multigpu50.csv",
                                    "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                    "openb-pod-0000,12000,16384,1,1000\n"
                                    "openb-pod-0009,88000,327680,8,1000\n");
        const std::string e = errorOf([&] { readTrace(p); });
        QVERIFY2(e.find(p + ":3") == 0 && e.find("'name'") != std::string::npos
                     && e.find("'openb-pod-0009' is not in " + def) != std::string::npos,
                 e.c_str());
        TraceReadOptions o;
        o.skipBadRows = true;
        TraceReadReport rep;
        const Trace t = readTrace(p, o, &rep);
        QCOMPARE(t.jobs.size(), size_t(1));
        QCOMPARE(rep.skippedByReason.at("no times in openb_pod_list_default.csv"), 1L);
    }

    void badTimeNamesTheDefaultList()
    {
        const std::string def = write("c", "openb_pod_list_default.csv",
                                      kDefault + "openb-pod-0004,1,1,1,1000,,LS,Running,zz,20,10\n");
        const std::string p = write("c", "openb_pod_list_multigpu50.csv",
                                    "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nopenb-pod-0004,1,1,1,1000\n");
        const std::string e = errorOf([&] { readTrace(p); });
        QVERIFY2(e.find(def + ":6") == 0 && e.find("creation_time") != std::string::npos, e.c_str());
    }

    void noDefaultListBeside()
    {
        const std::string p = write("d", "openb_pod_list_multigpu50.csv",
                                    "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nopenb-pod-0000,1,1,1,1000\n");
        const std::string e = errorOf([&] { readTrace(p); });
        QVERIFY2(e.find(p + ":1") == 0 && e.find("no openb_pod_list_default.csv beside it") != std::string::npos,
                 e.c_str());
    }
};

QTEST_GUILESS_MAIN(TstOpenbTimes)
#include "tst_openbtimes.moc"
