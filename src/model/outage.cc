#include "model/outage.h"

#include <cmath>

namespace muster {

bool MassLoss(int64_t out, int64_t peers, int threshold_pct) {
  return peers > 0 && out * 100 >= static_cast<int64_t>(threshold_pct) * peers;
}

double WilsonLowerBound(int64_t hits, int64_t n, double z) {
  if (n <= 0) return 0;
  const double p = static_cast<double>(hits) / static_cast<double>(n);
  const double nn = static_cast<double>(n);
  const double z2 = z * z;
  const double centre = p + z2 / (2 * nn);
  const double spread = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  return (centre - spread) / (1 + z2 / nn);
}

bool RunsGoOn(int64_t lost, int64_t asked, int64_t peers, int threshold_pct, bool sampled) {
  if (peers <= 0 || lost <= 0) return false;
  if (!sampled) return MassLoss(lost, peers, threshold_pct);
  return asked > 0 && WilsonLowerBound(lost, asked, 4.0) * 100.0 >= threshold_pct;
}

}  // namespace muster
