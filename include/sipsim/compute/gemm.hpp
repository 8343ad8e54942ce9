#pragma once
// The GEMM model (docs/models.md, "Devices"): a matrix multiply's time from
// its shape. A GEMM's output is cut into tiles, one per thread block, which
// run in waves over the SMs; a wave costs as much as a full one, and so does a
// tile cut short at the matrix's edge (tile and wave quantisation: NVIDIA,
// "Matrix Multiplication Background User's Guide", 2023). The kernel picks
// the tile shape that finishes first. A full wave runs at the largest
// fraction of the matrix peak a GEMM reaches (the device's measured maximum
// achievable matmul FLOPS); a GEMM that moves more bytes than that time
// allows runs at the memory bandwidth (the roofline). Element-wise and
// nonlinear ops, and matrix multiplies that name no shape, stay on the
// roofline, the latter at the same fraction of the peak.
#include "sipsim/compute/roofline.hpp"

namespace sipsim::compute {

class GemmDevice final : public Roofline {
 public:
  explicit GemmDevice(const Accelerator& acc);
  pdes::Time op_ps(const OpCost& op) const override;
  // One GEMM's time at `precision`, without launch overhead or minimum.
  pdes::Time gemm_ps(const Gemm& g, Precision precision) const;
  // The op's time without launch overhead or minimum.
  pdes::Time gemm_body_ps(const OpCost& op) const;
};

}  // namespace sipsim::compute
