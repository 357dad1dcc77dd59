#include "ndarray/ops/optim/optim_api.h"

#include "ndarray/ops/optim/optim_util.h"

namespace mxnet::nd {
NDArray sgd_update(const NDArray& weight, const NDArray& grad, const SGDOptions& opts,
                   const NDArray& out) {
  return optim::RunOne(MX_ND_OP(sgd_update), opts, {weight, grad}, out);
}
NDArray sgd_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                       const SGDMomOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(sgd_mom_update), opts, {weight, grad, mom}, out);
}
NDArray mp_sgd_update(const NDArray& weight, const NDArray& grad, const NDArray& weight32,
                      const SGDOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(mp_sgd_update), opts, {weight, grad, weight32}, out);
}
NDArray mp_sgd_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                          const NDArray& weight32, const SGDMomOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(mp_sgd_mom_update), opts, {weight, grad, mom, weight32}, out);
}
NDArray nag_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                       const NAGMomOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(nag_mom_update), opts, {weight, grad, mom}, out);
}
NDArray mp_nag_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                          const NDArray& weight32, const NAGMomOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(mp_nag_mom_update), opts, {weight, grad, mom, weight32}, out);
}
NDArray adam_update(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                    const NDArray& var, const AdamOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(adam_update), opts, {weight, grad, mean, var}, out);
}
NDArray adamw_update(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                     const NDArray& var, const NDArray& rescale_grad, const AdamWOptions& opts,
                     const NDArray& out) {
  return optim::RunOne(MX_ND_OP(_adamw_update), opts, {weight, grad, mean, var, rescale_grad}, out);
}
NDArray mp_adamw_update(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                        const NDArray& var, const NDArray& weight32, const NDArray& rescale_grad,
                        const AdamWOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(_mp_adamw_update), opts,
                       {weight, grad, mean, var, weight32, rescale_grad}, out);
}
NDArray rmsprop_update(const NDArray& weight, const NDArray& grad, const NDArray& n,
                       const RMSPropOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(rmsprop_update), opts, {weight, grad, n}, out);
}
NDArray rmspropalex_update(const NDArray& weight, const NDArray& grad, const NDArray& n,
                           const NDArray& g, const NDArray& delta, const RMSPropAlexOptions& opts,
                           const NDArray& out) {
  return optim::RunOne(MX_ND_OP(rmspropalex_update), opts, {weight, grad, n, g, delta}, out);
}
NDArray ftrl_update(const NDArray& weight, const NDArray& grad, const NDArray& z, const NDArray& n,
                    const FtrlOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(ftrl_update), opts, {weight, grad, z, n}, out);
}
NDArray signsgd_update(const NDArray& weight, const NDArray& grad, const SignSGDOptions& opts,
                       const NDArray& out) {
  return optim::RunOne(MX_ND_OP(signsgd_update), opts, {weight, grad}, out);
}
NDArray signum_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                      const SignumOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(signum_update), opts, {weight, grad, mom}, out);
}
NDArray lamb_update_phase1(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                           const NDArray& var, const LambPhase1Options& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(lamb_update_phase1), opts, {weight, grad, mean, var}, out);
}
NDArray lamb_update_phase2(const NDArray& weight, const NDArray& g, const NDArray& r1,
                           const NDArray& r2, const LambPhase2Options& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(lamb_update_phase2), opts, {weight, g, r1, r2}, out);
}
NDArray mp_lamb_update_phase1(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                              const NDArray& var, const NDArray& weight32,
                              const LambPhase1Options& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(mp_lamb_update_phase1), opts, {weight, grad, mean, var, weight32},
                       out);
}
NDArray mp_lamb_update_phase2(const NDArray& weight, const NDArray& g, const NDArray& r1,
                              const NDArray& r2, const NDArray& weight32,
                              const LambPhase2Options& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(mp_lamb_update_phase2), opts, {weight, g, r1, r2, weight32}, out);
}

}  // namespace mxnet::nd
