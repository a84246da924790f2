#pragma once

// The page of `etdump-inspect report`: one self-contained HTML file around the report's data
// (report_data.h), with inline CSS and a script that draws the sections (summary, timeline,
// top operators, distribution, delegates, values, comparison) as tables and SVG. It loads nothing:
// no external script, style, font or image, and no `http:`/`https:` URL anywhere, so it opens
// from disk without a network.
//
// The data sits in `<script type="application/json" id="etkit-data">`; every `<` in it is written
// `\u003c` (it can only be inside a JSON string) so that no string of a dump can end the
// island. The script builds the page with DOM calls and text nodes only (never markup from data).
// When it is done it sets on `<body>`: `data-rendered="1"`, `data-errors` (script errors caught),
// and counts of what it drew: `data-spans` (timeline rectangles), `data-stats-rows`,
// `data-operator-rows`, `data-distribution-rows`, `data-delegate-rows`, `data-values-rows`,
// `data-diff-rows`, `data-compare-rows`, `data-timelines` (for the headless-browser test).

#include <functional>
#include <string>
#include <string_view>

namespace etkit::inspect {

/// The page for `data` (the JSON of `report_data_json`) titled `title` (escaped here): the head,
/// the data as `write_script_json` writes it, and the tail.
std::string html_report_page(std::string_view title, std::string_view data);

/// The page up to the island's content (`title` escaped), for a page written in pieces:
/// `html_report_head`, the data through `write_script_json`, then `html_report_tail`.
std::string html_report_head(std::string_view title);

/// The page after the island's content.
std::string html_report_tail();

/// Hands `data` (a piece of the island's JSON) to `write` with every `<` written `\u003c`.
/// Pieces may be cut anywhere: `<` is one byte, and the escape never spans two.
void write_script_json(std::string_view data, const std::function<void(std::string_view)>& write);

/// `data` with every `<` written `\u003c` (the same JSON), safe inside a `<script>` element.
std::string escape_script_json(std::string_view data);

}  // namespace etkit::inspect
