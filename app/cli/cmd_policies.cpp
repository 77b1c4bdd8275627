// `policies`: the registration table — runnable names, the parts of composite names, or (--json) every entry
// with its family, description and parameter schema.
#include <cstdio>

#include "cli.h"
#include "io/json.h"
#include "policy/registry.h"

namespace ss::cli {
namespace {

JsonValue paramsJson(const std::vector<ParamSpec>& params)
{
    JsonValue arr = JsonValue::makeArray();
    for (const ParamSpec& p : params) {
        JsonValue o = JsonValue::makeObject();
        o["key"] = JsonValue::makeString(p.key);
        o["type"] = JsonValue::makeString(toString(p.type));
        o["default"] = JsonValue::makeString(p.dflt);
        if (p.min > -1e299)
            o["min"] = JsonValue::makeNumber(p.min);
        if (p.max < 1e299)
            o["max"] = JsonValue::makeNumber(p.max);
        if (!p.choices.empty()) {
            JsonValue c = JsonValue::makeArray();
            for (const std::string& v : p.choices)
                c.push(JsonValue::makeString(v));
            o["values"] = std::move(c);
        }
        o["help"] = JsonValue::makeString(p.help);
        arr.push(std::move(o));
    }
    return arr;
}

int cmdPolicies(Args& a)
{
    const bool orderings = a.flag("orderings"), placements = a.flag("placements"), json = a.flag("json");
    a.finish();
    if (json) {
        // every table entry (stages, joint, learned), then every runnable name with its merged schema
        JsonValue root = JsonValue::makeObject();
        JsonValue entries = JsonValue::makeArray();
        for (const PolicyEntry& e : policyEntries()) {
            JsonValue o = JsonValue::makeObject();
            o["name"] = JsonValue::makeString(e.name);
            o["family"] = JsonValue::makeString(toString(e.family));
            o["description"] = JsonValue::makeString(e.description);
            o["params"] = paramsJson(e.params);
            entries.push(std::move(o));
        }
        JsonValue runnable = JsonValue::makeArray();
        for (const PolicyInfo& p : policyCatalog()) {
            JsonValue o = JsonValue::makeObject();
            o["name"] = JsonValue::makeString(p.name);
            o["group"] = JsonValue::makeString(p.group);
            o["description"] = JsonValue::makeString(p.description);
            o["params"] = paramsJson(p.params);
            runnable.push(std::move(o));
        }
        root["entries"] = std::move(entries);
        root["policies"] = std::move(runnable);
        std::printf("%s\n", writeJson(root).c_str());
        return 0;
    }
    const auto names = orderings ? orderingNames() : placements ? placementNames() : schedulerNames();
    for (const std::string& n : names)
        std::printf("%s\n", n.c_str());
    return 0;
}
CliCommand c("policies",
             "list every runnable policy name (--orderings / --placements for the parts; --json: the table with "
             "families, descriptions and parameter schemas)",
             &cmdPolicies);

} // namespace
} // namespace ss::cli
