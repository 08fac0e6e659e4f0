// Emit: SVG rendering through Graphviz; every cgraph/gvc handle has an RAII owner.
#include "svg_render.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

struct ContextCloser {
    void operator()(GVC_t* c) const noexcept { gvFreeContext(c); }
};

using ContextPtr = std::unique_ptr<GVC_t, ContextCloser>;

struct GraphCloser {
    void operator()(Agraph_t* g) const noexcept { agclose(g); }
};

using GraphPtr = std::unique_ptr<Agraph_t, GraphCloser>;

struct RenderDataFree {
    void operator()(char* p) const noexcept { gvFreeRenderData(p); }
};

/// Frees a layout (gvFreeLayout) when the render is done, whatever happens in between.
class LayoutGuard {
public:
    LayoutGuard(GVC_t* gvc, Agraph_t* g) : gvc_(gvc), g_(g) {}

    ~LayoutGuard() { gvFreeLayout(gvc_, g_); }

    LayoutGuard(const LayoutGuard&) = delete;
    LayoutGuard& operator=(const LayoutGuard&) = delete;
    LayoutGuard(LayoutGuard&&) = delete;
    LayoutGuard& operator=(LayoutGuard&&) = delete;

private:
    GVC_t* gvc_;
    Agraph_t* g_;
};

}  // namespace

std::string render_svg(const std::string& dot_text) {
    agseterr(AGERR);  // layout warnings (e.g. label sizes) are not the user's problem
    // The context first: it is freed last, after the graph it laid out.
    const ContextPtr gvc(gvContext());
    if (!gvc) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not create a context");
    }
    const GraphPtr graph(agmemread(dot_text.c_str()));
    if (!graph) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not parse the diagram's DOT text");
    }
    if (gvLayout(gvc.get(), graph.get(), "dot") != 0) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz's dot layout failed",
                    "check that the Graphviz plugins are installed (dot -c)");
    }
    const LayoutGuard layout(gvc.get(), graph.get());
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc.get(), graph.get(), "svg", &data, &length) != 0 || data == nullptr) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not render SVG",
                    "check that the Graphviz core plugin is installed (dot -c)");
    }
    const std::unique_ptr<char, RenderDataFree> owned(data);
    return {data, length};
}

}  // namespace planlayout
