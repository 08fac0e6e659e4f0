// Framework comparison: where one framework's groups equal another's (groups --same-as).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/parallel/groups.hpp"

namespace planlayout {

enum class KindVerdict {
    Same,         // the same groups with the same member order
    SameMembers,  // the same groups as sets; members listed in another order
    Differ,       // the counterpart of the same role (or shape) holds other groups
    NoCounterpart // the other framework creates no kind of this role or shape
};

struct KindComparison {
    std::string kind;   // the framework's kind
    std::string role;
    std::int64_t groups = 0;
    std::int64_t size = 0;
    std::string counterpart;  // the other framework's kind compared with ("" when none)
    KindVerdict verdict = KindVerdict::NoCounterpart;
    // Differ: the first rank whose groups differ, its group here and in the counterpart.
    std::int64_t rank = -1;
    std::vector<std::int64_t> group;
    std::vector<std::int64_t> counterpart_group;
};

/// Megatron's groups for the degrees a framework's groups were built from, as a Megatron user
/// would launch them: the same world, tp, pp, cp, ep (and dp), Megatron's default order and etp
/// (= tp). Throws Error (BadInput) when Megatron refuses those degrees.
[[nodiscard]] Groups megatron_counterpart(const Groups& framework);

/// Kind by kind (a's order, kinds of one group per rank — singletons and kinds without a group
/// for some rank are compared too): a's groups against b's kind named by a's role, else any b
/// kind with the same groups. Groups are materialised: meant for what a person reads (up to a few
/// hundred thousand ranks).
[[nodiscard]] std::vector<KindComparison> compare_groups(const Groups& a, const Groups& b);

[[nodiscard]] const char* verdict_name(KindVerdict v);  // "same", "same-members", "differ", "no-counterpart"

}  // namespace planlayout
