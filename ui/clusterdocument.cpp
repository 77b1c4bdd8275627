#include "clusterdocument.h"

#include <algorithm>
#include <set>

namespace ss::ui {

ClusterCommand::ClusterCommand(ClusterDocument* doc, const QString& text, Fn redo, Fn undo)
    : m_doc(doc), m_redo(std::move(redo)), m_undo(std::move(undo))
{
    setText(text);
}

void ClusterCommand::redo()
{
    m_redo(m_doc->mutableSpec());
    m_doc->changed();
}

void ClusterCommand::undo()
{
    m_undo(m_doc->mutableSpec());
    m_doc->changed();
}

ClusterDocument::~ClusterDocument() { m_undo.blockSignals(true); }

ClusterDocument::ClusterDocument(QObject* parent) : QObject(parent)
{
    m_spec = makeClusterPreset("das-case");
    m_spec.finalize();
}

void ClusterDocument::changed()
{
    m_spec.finalize();
    const QString v = QString::fromStdString(m_spec.validate());
    if (v != m_validation) {
        m_validation = v;
        Q_EMIT validationChanged(v);
    }
    Q_EMIT clusterChanged();
}

void ClusterDocument::replace(const ClusterSpec& spec, const QString& what, bool clearUndo)
{
    if (clearUndo) {
        m_undo.clear();
        m_spec = spec;
        changed();
        return;
    }
    ClusterSpec before = m_spec;
    m_undo.push(new ClusterCommand(this, what, [spec](ClusterSpec& s) { s = spec; },
                                   [before](ClusterSpec& s) { s = before; }));
}

static std::vector<int> sortedUnique(std::vector<int> v, int n)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    v.erase(std::remove_if(v.begin(), v.end(), [n](int i) { return i < 0 || i >= n; }), v.end());
    return v;
}

static std::string uniqueMachineName(const ClusterSpec& s, const std::string& base)
{
    std::set<std::string> names;
    for (const Machine& m : s.machines)
        names.insert(m.name);
    for (int k = int(s.machines.size());; ++k) {
        std::string n = base + std::to_string(k);
        if (!names.count(n))
            return n;
    }
}

void ClusterDocument::addMachines(int count, int type, int gpus, int sw)
{
    if (count <= 0)
        return;
    const int at = m_spec.machineCount();
    ClusterSpec tmp = m_spec;
    std::vector<Machine> added;
    for (int i = 0; i < count; ++i) {
        Machine m;
        m.name = uniqueMachineName(tmp, "m");
        m.type = type;
        m.gpus = gpus;
        m.sw = sw;
        m.cpus = 32;
        m.memoryGb = 256;
        tmp.machines.push_back(m);
        added.push_back(m);
    }
    m_undo.push(new ClusterCommand(
        this, tr("Add %n machine(s)", nullptr, count),
        [at, added](ClusterSpec& s) { s.machines.insert(s.machines.begin() + at, added.begin(), added.end()); },
        [at, count](ClusterSpec& s) { s.machines.erase(s.machines.begin() + at, s.machines.begin() + at + count); }));
}

void ClusterDocument::removeMachines(std::vector<int> indices)
{
    indices = sortedUnique(std::move(indices), m_spec.machineCount());
    if (indices.empty())
        return;
    std::vector<Machine> removed;
    for (int i : indices)
        removed.push_back(m_spec.machines[size_t(i)]);
    m_undo.push(new ClusterCommand(
        this, tr("Remove %n machine(s)", nullptr, int(indices.size())),
        [indices](ClusterSpec& s) {
            for (auto it = indices.rbegin(); it != indices.rend(); ++it)
                s.machines.erase(s.machines.begin() + *it);
        },
        [indices, removed](ClusterSpec& s) {
            for (size_t k = 0; k < indices.size(); ++k)
                s.machines.insert(s.machines.begin() + indices[k], removed[k]);
        }));
}

void ClusterDocument::duplicateMachines(std::vector<int> indices)
{
    indices = sortedUnique(std::move(indices), m_spec.machineCount());
    if (indices.empty())
        return;
    const int at = m_spec.machineCount();
    ClusterSpec tmp = m_spec;
    std::vector<Machine> added;
    for (int i : indices) {
        Machine m = tmp.machines[size_t(i)];
        m.name = uniqueMachineName(tmp, m.name + "-copy");
        tmp.machines.push_back(m);
        added.push_back(m);
    }
    const int count = int(added.size());
    m_undo.push(new ClusterCommand(
        this, tr("Duplicate %n machine(s)", nullptr, count),
        [at, added](ClusterSpec& s) { s.machines.insert(s.machines.begin() + at, added.begin(), added.end()); },
        [at, count](ClusterSpec& s) { s.machines.erase(s.machines.begin() + at, s.machines.begin() + at + count); }));
}

namespace {
template <class Get, class Set>
QUndoCommand* fieldCommand(ClusterDocument* doc, const QString& text, std::vector<int> indices, Get get, Set set,
                           decltype(std::declval<Get>()(std::declval<const Machine&>())) value)
{
    using V = decltype(value);
    std::vector<V> old;
    for (int i : indices)
        old.push_back(get(doc->spec().machines[size_t(i)]));
    return new ClusterCommand(
        doc, text,
        [indices, set, value](ClusterSpec& s) {
            for (int i : indices)
                set(s.machines[size_t(i)], value);
        },
        [indices, set, old](ClusterSpec& s) {
            for (size_t k = 0; k < indices.size(); ++k)
                set(s.machines[size_t(indices[k])], old[k]);
        });
}
} // namespace

void ClusterDocument::setMachinesType(const std::vector<int>& idx, int type)
{
    auto indices = sortedUnique(idx, m_spec.machineCount());
    if (indices.empty() || type < 0 || type >= int(m_spec.types.size()))
        return;
    m_undo.push(fieldCommand(this, tr("Set GPU type of %n machine(s)", nullptr, int(indices.size())), indices,
                             [](const Machine& m) { return m.type; }, [](Machine& m, int v) { m.type = v; }, type));
}

void ClusterDocument::setMachinesGpus(const std::vector<int>& idx, int gpus)
{
    auto indices = sortedUnique(idx, m_spec.machineCount());
    if (indices.empty() || gpus < 0)
        return;
    m_undo.push(fieldCommand(this, tr("Set GPU count of %n machine(s)", nullptr, int(indices.size())), indices,
                             [](const Machine& m) { return m.gpus; }, [](Machine& m, int v) { m.gpus = v; }, gpus));
}

void ClusterDocument::setMachinesSwitch(const std::vector<int>& idx, int sw)
{
    auto indices = sortedUnique(idx, m_spec.machineCount());
    if (indices.empty() || sw < 0 || sw >= int(m_spec.switches.size()))
        return;
    m_undo.push(fieldCommand(this, tr("Move %n machine(s)", nullptr, int(indices.size())), indices,
                             [](const Machine& m) { return m.sw; }, [](Machine& m, int v) { m.sw = v; }, sw));
}

void ClusterDocument::renameMachine(int index, const QString& name)
{
    if (index < 0 || index >= m_spec.machineCount() || name.isEmpty())
        return;
    m_undo.push(fieldCommand(this, tr("Rename machine"), {index}, [](const Machine& m) { return m.name; },
                             [](Machine& m, const std::string& v) { m.name = v; }, name.toStdString()));
}

void ClusterDocument::addSwitch(const QString& name, double uplinkGbps)
{
    Switch sw;
    sw.name = name.isEmpty() ? "sw" + std::to_string(m_spec.switches.size()) : name.toStdString();
    sw.uplinkGbps = uplinkGbps;
    m_undo.push(new ClusterCommand(this, tr("Add switch"), [sw](ClusterSpec& s) { s.switches.push_back(sw); },
                                   [](ClusterSpec& s) { s.switches.pop_back(); }));
}

bool ClusterDocument::removeSwitch(int index)
{
    if (index < 0 || index >= int(m_spec.switches.size()))
        return false;
    for (const Machine& m : m_spec.machines)
        if (m.sw == index) {
            m_validation = tr("Switch '%1' still has machines; move or remove them first")
                               .arg(QString::fromStdString(m_spec.switches[size_t(index)].name));
            Q_EMIT validationChanged(m_validation);
            return false;
        }
    const ClusterSpec before = m_spec;
    // Index shifts touch machines and links; store the exact prior spec for undo.
    m_undo.push(new ClusterCommand(
        this, tr("Remove switch"),
        [index](ClusterSpec& s) {
            s.switches.erase(s.switches.begin() + index);
            for (Machine& m : s.machines)
                if (m.sw > index)
                    --m.sw;
            std::vector<Link> kept;
            for (Link l : s.links) {
                if (l.a == index || l.b == index)
                    continue;
                if (l.a > index) --l.a;
                if (l.b > index) --l.b;
                kept.push_back(l);
            }
            s.links = kept;
        },
        [before](ClusterSpec& s) { s = before; }));
    return true;
}

void ClusterDocument::duplicateSwitch(int index)
{
    if (index < 0 || index >= int(m_spec.switches.size()))
        return;
    const int newSw = int(m_spec.switches.size());
    Switch sw = m_spec.switches[size_t(index)];
    sw.name += "-copy";
    ClusterSpec tmp = m_spec;
    std::vector<Machine> added;
    for (const Machine& m0 : m_spec.machines)
        if (m0.sw == index) {
            Machine m = m0;
            m.sw = newSw;
            m.name = uniqueMachineName(tmp, m0.name + "-copy");
            tmp.machines.push_back(m);
            added.push_back(m);
        }
    const int at = m_spec.machineCount();
    const int count = int(added.size());
    m_undo.push(new ClusterCommand(
        this, tr("Duplicate switch"),
        [sw, at, added](ClusterSpec& s) {
            s.switches.push_back(sw);
            s.machines.insert(s.machines.begin() + at, added.begin(), added.end());
        },
        [at, count](ClusterSpec& s) {
            s.machines.erase(s.machines.begin() + at, s.machines.begin() + at + count);
            s.switches.pop_back();
        }));
}

void ClusterDocument::addLink(int a, int b, double gbps)
{
    const int n = int(m_spec.switches.size());
    if (a < 0 || b < 0 || a >= n || b >= n || a == b) {
        m_validation = tr("A link needs two different switches");
        Q_EMIT validationChanged(m_validation);
        return;
    }
    Link l{a, b, gbps};
    m_undo.push(new ClusterCommand(this, tr("Connect switches"), [l](ClusterSpec& s) { s.links.push_back(l); },
                                   [](ClusterSpec& s) { s.links.pop_back(); }));
}

void ClusterDocument::removeLink(int index)
{
    if (index < 0 || index >= int(m_spec.links.size()))
        return;
    const Link l = m_spec.links[size_t(index)];
    m_undo.push(new ClusterCommand(
        this, tr("Remove link"), [index](ClusterSpec& s) { s.links.erase(s.links.begin() + index); },
        [index, l](ClusterSpec& s) { s.links.insert(s.links.begin() + index, l); }));
}

void ClusterDocument::setLinkBandwidth(int index, double gbps)
{
    if (index < 0 || index >= int(m_spec.links.size()))
        return;
    const double old = m_spec.links[size_t(index)].gbps;
    m_undo.push(new ClusterCommand(
        this, tr("Set link bandwidth"), [index, gbps](ClusterSpec& s) { s.links[size_t(index)].gbps = gbps; },
        [index, old](ClusterSpec& s) { s.links[size_t(index)].gbps = old; }));
}

int ClusterDocument::ensureGpuType(const QString& name)
{
    const int have = m_spec.typeIndex(name.toStdString());
    if (have >= 0)
        return have;
    for (const GpuType& t : gpuTypeCatalog())
        if (QString::fromStdString(t.name) == name) {
            addGpuType(t);
            return int(m_spec.types.size()) - 1;
        }
    return -1;
}

void ClusterDocument::addGpuType(const GpuType& type)
{
    m_undo.push(new ClusterCommand(this, tr("Add GPU type"), [type](ClusterSpec& s) { s.types.push_back(type); },
                                   [](ClusterSpec& s) { s.types.pop_back(); }));
}

} // namespace ss::ui
