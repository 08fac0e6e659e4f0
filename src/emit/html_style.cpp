// Emit: the HTML report page's style sheet: light, dark (prefers-color-scheme) and print.
#include <string_view>

#include "html_parts.hpp"

namespace planlayout::html_parts {
namespace {

// The page's whole style. Colours of the path classes come from the DiagramStyle (per element).
constexpr const char* kCss = R"(
:root { color-scheme: light dark; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1b1b1b;
       background: #ffffff; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 20px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #d9dee3; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p.sub { margin: 0 0 12px; color: #555; }
nav { margin: 10px 0 0; font-size: 13px; }
nav a { margin-right: 14px; color: #0b5cad; text-decoration: none; }
code, pre { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: 10px 12px; overflow-x: auto; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.facts dt { font-weight: 600; color: #444; }
dl.facts dd { margin: 0; }
.verdict { border-left: 6px solid #0072B2; background: #eef5fb; padding: 10px 16px; margin: 14px 0; }
.verdict.bad { border-left-color: #D55E00; background: #fdf1ea; }
.verdict.neutral { border-left-color: #7f7f7f; background: #f4f4f4; }
.verdict p { margin: 4px 0; }
.verdict .headline { font-size: 16px; font-weight: 600; }
.verdict ul { margin: 4px 0 4px 18px; padding: 0; }
.warn { color: #9a3a00; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
th, td { border: 1px solid #d9dee3; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f1f3f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.cross td { background: #fff6e5; }
tr.cross td:first-child { box-shadow: inset 4px 0 0 #E69F00; font-weight: 600; }
tr.total td { font-weight: 600; border-top: 2px solid #9aa4ad; }
tr.error td { background: #fdecea; }
.chip { display: inline-block; padding: 0 6px; margin: 1px 2px 1px 0; border-radius: 3px; border: 1px solid #c8ced4;
        border-left-width: 6px; white-space: nowrap; font-size: 12px; }
.bar { height: 14px; background: #e9ecef; border-radius: 2px; position: relative; width: 420px; }
.bar span { display: block; height: 100%; background: #0072B2; border-radius: 2px; }
.bar.over span { background: #D55E00; }
figure { margin: 14px 0 22px; }
figure .view { overflow-x: auto; border: 1px solid #e1e4e8; padding: 6px; background: #fff; }
figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
table.assumed td:first-child { white-space: nowrap; font-weight: 600; }
table.assumed .item { white-space: nowrap; }
figcaption { font-size: 13px; color: #444; margin-top: 4px; }
details > summary { cursor: pointer; color: #0b5cad; margin: 6px 0; }
.muted { color: #6a737d; }
footer { margin-top: 36px; font-size: 12px; color: #6a737d; }
.go-line { border: 2px solid #7f7f7f; border-left-width: 10px; background: #f4f4f4; padding: 8px 16px; margin: 14px 0 6px; }
.go-line.go { border-color: #009E73; background: #e9f7f1; }
.go-line.nogo { border-color: #D55E00; background: #fdf1ea; }
.go-line.maybe { border-color: #E69F00; background: #fff6e5; }
.go-line p { margin: 3px 0; }
.go-line .headline { font-size: 17px; font-weight: 700; }
.go-line .accept.failed { color: #b03a00; font-weight: 600; }
.go-line .why { font-size: 13px; }
@media screen and (prefers-color-scheme: dark) {
  body { color: #e3e6e8; background: #16191d; }
  h2 { border-bottom-color: #3a4149; }
  p.sub, dl.facts dt, figcaption { color: #b4bcc4; }
  nav a, details > summary { color: #79b8ff; }
  pre { background: #1f2429; border-color: #3a4149; }
  th { background: #242a30; }
  th, td { border-color: #3a4149; }
  tr.cross td { background: #3b3018; }
  tr.error td { background: #40201d; }
  .verdict { background: #172636; }
  .verdict.bad { background: #3b2318; }
  .verdict.neutral, .go-line { background: #23272c; }
  .go-line.go { background: #143328; }
  .go-line.nogo { background: #3b2318; }
  .go-line.maybe { background: #3b3018; }
  .go-line .accept.failed, .warn { color: #ff9f66; }
  .chip { border-color: #4b535c; }
  .bar { background: #2d3339; }
  .muted, footer { color: #9aa4ad; }
  figure .view { border-color: #3a4149; }  /* the pictures keep their white ground: their colours are for it */
}
@media print {
  :root { color-scheme: light; }
  body { font-size: 11px; color: #000; background: #fff; }
  main { max-width: none; padding: 0; }
  nav, details { display: none; }
  h2 { break-after: avoid; margin-top: 18px; }
  table, figure, .verdict, .go-line, dl.facts { break-inside: avoid; }
  figure .view { overflow: visible; border: none; padding: 0; }
  figure svg { max-width: 100%; height: auto; }
  pre { white-space: pre-wrap; }
  a { color: inherit; text-decoration: none; }
  .go-line, .verdict, .chip, .bar span, tr.cross td, tr.error td, th { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
)";


}  // namespace

std::string_view page_css() { return kCss; }

}  // namespace planlayout::html_parts
