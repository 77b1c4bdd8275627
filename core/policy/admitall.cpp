// The default admission stage: every job is accepted.
#include "policy/registry.h"

namespace ss {
namespace {

class AdmitAll final : public Admission {
public:
    std::unique_ptr<Admission> clone() const override { return std::make_unique<AdmitAll>(*this); }
    AdmissionRecord admit(const SchedContext&, int job) override { return {job, Admit::Accept, 1.0f, "admit all"}; }
};

const PolicyRegistrar reg({.name = "all",
                           .family = PolicyFamily::Admission,
                           .description = "accepts every job",
                           .admission = [](const PolicyOptions&) { return std::make_unique<AdmitAll>(); }});

} // namespace
} // namespace ss

