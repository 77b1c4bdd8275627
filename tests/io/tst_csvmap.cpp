// A CSV no reader recognises: the preview, the guessed column map, its check, the hint in readTrace's error,
// and a scenario that carries the map (issue 22 point 10: inputs only the CLI could read).
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "io/csvpreview.h"
#include "io/ioerror.h"
#include "io/runio.h"
#include "io/traceio.h"

using namespace ss;

class TstCsvMap : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string write(const std::string& name, const std::string& text)
    {
        const std::string p = m_dir.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }

private Q_SLOTS:
    void previewReadsHeaderAndRows()
    {
        const std::string p = write("plain.csv", "id,submit,gpus,duration\n\n1, 0 ,2,3600\n2,60,1,120\n3,90,4,7200\n");
        const CsvPreview pv = previewCsv(p, 2);
        QCOMPARE(pv.header, (std::vector<std::string>{"id", "submit", "gpus", "duration"}));
        QCOMPARE(pv.rows.size(), size_t(2));
        QCOMPARE(pv.rows[0][1], std::string("0")); // trimmed
        QCOMPARE(pv.firstDataLine, 3L);
        QCOMPARE(pv.delimiter, ',');
        const CsvPreview tabs = previewCsv(write("tabs.tsv", "a\tb\n1\t2\n"));
        QCOMPARE(tabs.delimiter, '\t');
        QCOMPARE(tabs.header.size(), size_t(2));
    }

    void previewErrorsNameFileAndLine()
    {
        auto expect = [](const std::string& path, long line, const char* part) {
            try {
                previewCsv(path);
                QFAIL("no error");
            } catch (const IoError& e) {
                QCOMPARE(e.line(), line);
                QVERIFY2(std::string(e.what()).find(part) != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).rfind(path, 0) == 0, e.what());
            }
        };
        expect(write("empty.csv", ""), 0, "empty file");
        expect(write("dup.csv", "\nsubmit,gpus,Submit\n1,2,3\n"), 2, "twice");
        expect(write("hole.csv", "submit,,gpus\n"), 1, "column 2 of the header has no name");
    }

    void guessFromNamesAndValues()
    {
        const std::string p = write("pai.csv", "job_name,Arrival_Time,num_gpu,RunTime,user,gpu_type,status\n"
                                               "j1,2020-07-01 10:00:00,8,3600,u1,V100,Terminated\n"
                                               "j2,2020-07-01 10:05:00,1,60,u2,T4,Failed\n");
        const ColumnGuess g = guessColumnMap(previewCsv(p));
        QCOMPARE(g.columns.at("id"), std::string("job_name"));
        QCOMPARE(g.columns.at("submit"), std::string("Arrival_Time"));
        QCOMPARE(g.columns.at("gpus"), std::string("num_gpu"));
        QCOMPARE(g.columns.at("duration"), std::string("RunTime"));
        QCOMPARE(g.columns.at("user"), std::string("user"));
        QCOMPARE(g.columns.at("gpu_spec"), std::string("gpu_type"));
        QCOMPARE(g.columns.at("status"), std::string("status"));
        QCOMPARE(g.timeFormat, std::string("%Y-%m-%d %H:%M:%S"));
        QVERIFY(checkColumnMap(previewCsv(p), g.columns).empty());
        // epoch milliseconds
        const ColumnGuess ms = guessColumnMap(previewCsv(write("ms.csv", "submit_time,gpus,duration\n1593597600000,1,5\n")));
        QCOMPARE(ms.timeFormat, std::string("ms"));
        // plain seconds: no time format; a column named by prefix is a note
        const ColumnGuess s = guessColumnMap(previewCsv(write("s.csv", "t,gpus_requested_total,duration_s\n0,1,5\n")));
        QCOMPARE(s.timeFormat, std::string());
        QCOMPARE(s.columns.at("gpus"), std::string("gpus_requested_total"));
        QCOMPARE(s.columns.at("duration"), std::string("duration_s"));
        QVERIFY(!s.columns.count("submit")); // "t" means nothing
        QVERIFY(!s.notes.empty());
    }

    void checkSaysWhatIsMissing()
    {
        const CsvPreview pv = previewCsv(write("c.csv", "a,b,c\n1,2,3\n"));
        QVERIFY(checkColumnMap(pv, {{"gpus", "b"}, {"duration", "c"}}).find("submit") != std::string::npos);
        QVERIFY(checkColumnMap(pv, {{"submit", "a"}, {"duration", "c"}}).find("gpus") != std::string::npos);
        QVERIFY(checkColumnMap(pv, {{"submit", "a"}, {"gpus", "b"}}).find("duration") != std::string::npos);
        QVERIFY(checkColumnMap(pv, {{"submit", "a"}, {"gpus", "b"}, {"end", "zz"}}).find("no column 'zz'") != std::string::npos);
        QVERIFY(checkColumnMap(pv, {{"submit", "a"}, {"gpus", "b"}, {"end", "c"}, {"colour", "a"}}).find("unknown key") != std::string::npos);
        QVERIFY(checkColumnMap(pv, {{"submit", "a"}, {"gpus", "b"}, {"end", "c"}}).empty());
    }

    void unknownFormatErrorSuggestsTheMap()
    {
        const std::string p = write("plain.csv", "id,submit,gpus,duration\n1,0,2,3600\n2,60,1,120\n");
        try {
            readTrace(p);
            QFAIL("no error");
        } catch (const IoError& e) {
            const std::string w = e.what();
            QVERIFY2(w.find("--map duration=duration,gpus=gpus,id=id,submit=submit") != std::string::npos, w.c_str());
            QVERIFY(w.find('\n') == std::string::npos);
        }
        // and that map reads it
        TraceReadOptions o;
        o.columnMap = {{"id", "id"}, {"submit", "submit"}, {"gpus", "gpus"}, {"duration", "duration"}};
        const Trace t = readTrace(p, o);
        QCOMPARE(t.jobs.size(), size_t(2));
        QCOMPARE(t.jobs[1].gpus, 1);
        QCOMPARE(t.jobs[0].duration, 3600.0);
    }

    void scenarioCarriesTheMap()
    {
        const std::string trace = write("sc.csv", "job,arrive,ngpu,end_ts,begin\n"
                                                  "7,2020-01-01 00:00:00,2,2020-01-01 01:00:00,2020-01-01 00:10:00\n");
        Scenario s;
        s.name = "mapped";
        s.tracePath = trace;
        s.traceFormat = "csv";
        s.traceColumns = {{"id", "job"}, {"submit", "arrive"}, {"gpus", "ngpu"}, {"end", "end_ts"}, {"start", "begin"}};
        s.traceTimeFormat = "%Y-%m-%d %H:%M:%S";
        const std::string path = m_dir.filePath("mapped.scenario.json").toStdString();
        writeScenario(s, path);
        const Scenario back = readScenario(path);
        QCOMPARE(back.traceColumns, s.traceColumns);
        QCOMPARE(back.traceTimeFormat, s.traceTimeFormat);
        const ExperimentPlan plan = planScenario(back);
        QCOMPARE(plan.inputs.at(0).trace->jobs.size(), size_t(1));
        QCOMPARE(plan.inputs.at(0).trace->jobs[0].gpus, 2);
        QCOMPARE(plan.inputs.at(0).trace->jobs[0].duration, 3000.0); // end - start
        // a bad key is an error naming the field
        const std::string bad = write("bad.scenario.json",
                                      "{\"format\":\"schedstudio-scenario\",\"version\":1,\"name\":\"b\",\n"
                                      "\"trace\":{\"path\":\"sc.csv\",\"columns\":{\"colour\":\"job\"}},\"policies\":[\"fifo+firstfit\"]}\n");
        try {
            readScenario(bad);
            QFAIL("no error");
        } catch (const IoError& e) {
            QVERIFY2(std::string(e.what()).find("trace.columns.colour") != std::string::npos, e.what());
            QCOMPARE(e.line(), 2L);
        }
    }
};

QTEST_GUILESS_MAIN(TstCsvMap)
#include "tst_csvmap.moc"
