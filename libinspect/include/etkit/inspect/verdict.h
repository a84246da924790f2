#pragma once

// The verdict of a check that CI gates on (`compare`, `diff`): it passed, it failed (a value
// past tolerance, a regression, a structural difference), or it is incomplete: nothing was
// checked, or part of what one side has was never checked against the other. A verdict never
// passes when nothing was checked.

namespace etkit::inspect {

/// The outcome of compare or diff.
enum class Verdict { Pass, Fail, Incomplete };

/// "pass", "fail" or "incomplete" (the `result` field of the summary tables).
const char* verdict_name(Verdict verdict);

}  // namespace etkit::inspect
