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

// One context for the process. Graphviz 2.42's pango plugin remembers a pointer to the last font
// name it measured, and that name lives in the context's font table: laying out with a second
// context after the first was freed reads freed memory (ASan: heap-use-after-free under
// textspan_size). So every render shares one context, made on first use and freed at exit.
// Graphviz is not thread-safe, and neither is render_svg.
GVC_t* shared_context() {
    static const ContextPtr kContext(gvContext());
    return kContext.get();
}

}  // namespace

std::string render_svg(const std::string& dot_text) {
    agseterr(AGERR);  // layout warnings (e.g. label sizes) are not the user's problem
    GVC_t* const context = shared_context();
    if (context == nullptr) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not create a context");
    }
    const GraphPtr graph(agmemread(dot_text.c_str()));
    if (!graph) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not parse the diagram's DOT text");
    }
    if (gvLayout(context, graph.get(), "dot") != 0) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz's dot layout failed",
                    "check that the Graphviz plugins are installed (dot -c)");
    }
    const LayoutGuard layout(context, graph.get());
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(context, graph.get(), "svg", &data, &length) != 0 || data == nullptr) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not render SVG",
                    "check that the Graphviz core plugin is installed (dot -c)");
    }
    const std::unique_ptr<char, RenderDataFree> owned(data);
    return {data, length};
}

}  // namespace planlayout
