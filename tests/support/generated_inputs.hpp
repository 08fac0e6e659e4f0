// Generated inputs shared by the scale tests (tests/unit/test_scale_inputs.cpp) and the benchmark
// (bench/bench_main.cpp): large captures made at run time, never checked in.
#pragma once

#include <cstdio>
#include <sstream>
#include <string>

namespace planlayout::testing {

/// GPU i and NIC i share a PCIe switch (PIX); other GPU/NIC pairs on the same half are NODE,
/// across halves SYS; GPUs are NVSwitch peers.
inline std::string smi_matrix(int gpus) {
    std::ostringstream s;
    for (int i = 0; i < gpus; ++i) {
        s << "\tGPU" << i;
    }
    for (int i = 0; i < gpus; ++i) {
        s << "\tNIC" << i;
    }
    s << "\tCPU Affinity\tNUMA Affinity\n";
    const auto half = [&](int d) { return (d % gpus) * 2 / gpus; };
    for (int a = 0; a < 2 * gpus; ++a) {
        s << (a < gpus ? "GPU" : "NIC") << a % gpus;
        for (int b = 0; b < 2 * gpus; ++b) {
            if (a == b) {
                s << "\tX";
            } else if (a < gpus && b < gpus) {
                s << "\tNV18";
            } else if (a % gpus == b % gpus) {
                s << "\tPIX";
            } else {
                s << (half(a) == half(b) ? "\tNODE" : "\tSYS");
            }
        }
        if (a < gpus) {
            s << "\t0-15\t" << half(a);
        }
        s << "\n";
    }
    s << "\nNIC Legend:\n\n";
    for (int i = 0; i < gpus; ++i) {
        s << "  NIC" << i << ": mlx5_" << i << "\n";
    }
    return s.str();
}

/// An NCCL topology with GPU i and NIC i under switch i, two CPUs.
inline std::string nccl_xml(int gpus, bool nvlink = false) {
    std::ostringstream s;
    s << "<system version=\"1\">\n";
    for (int c = 0; c < 2; ++c) {
        s << "<cpu numaid=\"" << c << "\" affinity=\"0000ffff\" arch=\"x86_64\">\n";
        for (int i = c * gpus / 2; i < (c + 1) * gpus / 2; ++i) {
            char bus[32];
            std::snprintf(bus, sizeof bus, "%04x", i);
            s << "<pci busid=\"ffff:" << bus << ":00.0\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
              << "<pci busid=\"" << bus << ":01:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
              << "<gpu dev=\"" << i << "\" sm=\"90\" rank=\"" << i << "\""
              << (nvlink ? "><nvlink target=\"fffffff:ff:00.0\" count=\"18\" tclass=\"0x068000\"/></gpu>" : "/>") << "</pci>"
              << "<pci busid=\"" << bus << ":02:00.0\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
              << "<nic><net name=\"mlx5_" << i << "\" dev=\"" << i << "\" speed=\"400000\" port=\"1\"/></nic></pci></pci>\n";
        }
        s << "</cpu>\n";
    }
    s << "</system>\n";
    return s.str();
}

}  // namespace planlayout::testing
