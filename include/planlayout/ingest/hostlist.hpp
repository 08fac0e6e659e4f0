// Ingest: a Slurm hostlist expression (SLURM_JOB_NODELIST, `scontrol show hostnames` input) →
// host names in Slurm's order. The rules are those of Slurm's src/common/hostlist.c
// (_hostlist_create_bracketed, _push_range_list, _parse_single_range):
//   - hosts are separated by commas, spaces or tabs outside brackets;
//   - name[LIST] expands LIST, a comma list of N or LO-HI (LO <= HI, at most 65,536 per range);
//     every number is printed at least as wide as LO is written ("[012-019]": 012 ... 019,
//     "[8-12]": 8 ... 12, "[08-12]": 08 ... 12);
//   - the last bracket group must end the host ("gpu[1-2]x" is refused, as Slurm refuses it);
//     groups before it are expanded in Slurm's order: the group nearest the last is the outer
//     loop ("gpu[1-2]-r[01-02]": gpu1-r01, gpu1-r02, gpu2-r01, gpu2-r02);
//   - a name without brackets is taken as it is.
#pragma once

#include <string>
#include <vector>

namespace planlayout {

/// Expands `expr`. Throws Error (BadInput) naming `where`, the piece at fault and the fix for an
/// unclosed or stray bracket, text after the last ']', a range that is not LO-HI of decimal
/// numbers, a reversed range, a range over 65,536 hosts, an empty list, or more than
/// kMaxHostfileHosts hosts in all.
[[nodiscard]] std::vector<std::string> expand_slurm_hostlist(const std::string& expr, const std::string& where);

}  // namespace planlayout
