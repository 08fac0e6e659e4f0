// Emit: SVG rendering through Graphviz; every cgraph/gvc handle has an RAII owner.
#include "svg_render.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>

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

// Object IDs in creation order. Graphviz's default ID discipline makes a named object's ID the
// address of its interned name, and cgraph orders subgraphs by ID: the SVG then lists clusters
// in heap-address order, which changes between processes and between renders in one process (a
// report renders several views). Here a name's ID is 2 × its first-seen index (even, as
// Graphviz's named IDs are) and anonymous objects count odd IDs per graph.
struct IdState {
    std::map<std::string, IDTYPE, std::less<>> ids;
    std::deque<std::string> names;  // names[i] has ID 2 × (i + 1); a deque keeps them in place
    IDTYPE next_anonymous = 1;
};

void* id_open(Agraph_t* /*g*/, Agdisc_t* /*disc*/) { return new IdState(); }

long id_map(void* state, int /*objtype*/, char* str, IDTYPE* id, int createflag) {
    auto* s = static_cast<IdState*>(state);
    if (str == nullptr) {
        *id = s->next_anonymous;
        s->next_anonymous += 2;
        return 1;
    }
    if (const auto it = s->ids.find(std::string_view(str)); it != s->ids.end()) {
        *id = it->second;
        return 1;
    }
    if (createflag == 0) {
        *id = 0;  // as Graphviz's own: a name never seen maps to no object
        return 1;
    }
    s->names.emplace_back(str);
    *id = static_cast<IDTYPE>(2 * s->names.size());
    s->ids.emplace(s->names.back(), *id);
    return 1;
}

long id_alloc(void* /*state*/, int /*objtype*/, IDTYPE /*id*/) { return 1; }

void id_free(void* /*state*/, int /*objtype*/, IDTYPE /*id*/) {}

char* id_print(void* state, int /*objtype*/, IDTYPE id) {
    auto* s = static_cast<IdState*>(state);
    if (id == 0 || id % 2 != 0 || id / 2 > s->names.size()) {
        return nullptr;  // anonymous: Graphviz names it itself
    }
    return s->names[static_cast<std::size_t>(id / 2 - 1)].data();
}

void id_close(void* state) { delete static_cast<IdState*>(state); }

void id_register(void* /*state*/, int /*objtype*/, void* /*obj*/) {}

// The DOT text read line by line from memory, as agmemread does.
struct MemReader {
    std::string_view text;
    std::size_t at = 0;
};

int mem_read(void* chan, char* buf, int bufsize) {
    auto* r = static_cast<MemReader*>(chan);
    if (bufsize <= 0 || r->at >= r->text.size()) {
        return 0;
    }
    const std::size_t newline = r->text.find('\n', r->at);
    const std::size_t end = newline == std::string_view::npos ? r->text.size() : newline + 1;
    const std::size_t n = std::min(end - r->at, static_cast<std::size_t>(bufsize));
    std::memcpy(buf, r->text.data() + r->at, n);
    r->at += n;
    return static_cast<int>(n);
}

}  // namespace

std::string render_svg(const std::string& dot_text) {
    agseterr(AGERR);  // layout warnings (e.g. label sizes) are not the user's problem
    GVC_t* const context = shared_context();
    if (context == nullptr) {
        throw Error(ExitCode::Internal, "diagram", "Graphviz could not create a context");
    }
    Agiddisc_t ids{id_open, id_map, id_alloc, id_free, id_print, id_close, id_register};
    Agiodisc_t io{mem_read, AgIoDisc.putstr, AgIoDisc.flush};
    Agdisc_t disc{&AgMemDisc, &ids, &io};
    MemReader reader{dot_text, 0};
    const GraphPtr graph(agread(&reader, &disc));  // the disciplines outlive the graph
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
