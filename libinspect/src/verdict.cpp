#include "etkit/inspect/verdict.h"

namespace etkit::inspect {

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::Incomplete: return "incomplete";
  }
  return "fail";
}

}  // namespace etkit::inspect
