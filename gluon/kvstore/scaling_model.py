#!/usr/bin/env python3
"""Efficiency model of synchronous data-parallel training (docs/distributed.md).

One step on n workers = compute (forward + backward + update, T_c) + the gradient allreduce
that is not hidden behind backward. Ring allreduce of S bytes (Patarasuk & Yuan 2009; the
busbw convention of nccl-tests and osu_allreduce):
    T_ar(n, S) = 2 (n - 1) alpha + 2 (n - 1) / n * S / B
alpha: per-message latency, B: the link's bus bandwidth.
    efficiency without overlap (this project's Trainer: allreduce after backward)
        E = T_c / (T_c + T_ar)
    with backward overlapped by bucketed allreduces (Horovod, PyTorch DDP), at best
        E = T_c / (T_c + max(0, T_ar - T_bwd))
Inputs marked "measured" come from this machine (see docs/distributed.md for the commands);
the GPU-side inputs are assumptions (no GPU here) and are labelled as such.
Usage: python3 gluon/kvstore/scaling_model.py
"""


def t_allreduce(n, size_bytes, alpha_s, bus_bytes_per_s):
    if n <= 1:
        return 0.0
    return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * size_bytes / bus_bytes_per_s


def efficiency(t_c, t_bwd, t_ar, overlap):
    exposed = max(0.0, t_ar - t_bwd) if overlap else t_ar
    return t_c / (t_c + exposed)


# ---- measured here (Intel Xeon, AVX-512 VNNI, 2 cores, load average 10-15) ----
# mxnet train --profile, LeNet, batch 128, 1 thread, 64 steps: forward 2.17 s, backward 4.47 s,
# step 0.04 s.
LENET_FWD, LENET_BWD, LENET_UPD = 2.17 / 64, 4.47 / 64, 0.04 / 64
LENET_BYTES = 117066 * 4  # parameters (float32 gradients)
# allreduce_benchmark, 2 processes: small-message latency and mid-size bus bandwidth.
MPI_SHM = dict(alpha=0.7e-6, bus=4.4e9)  # --mca btl self,vader (raw MPI_Allreduce)
MPI_TCP = dict(alpha=7e-6, bus=1.7e9)    # --mca btl self,tcp, loopback

# ---- assumptions (not measured: no GPU or multi-node network on this machine) ----
R50_BYTES = 25575912 * 4  # ResNet-50 v1 trainable parameters (counted with MXNet 1.9.1)
NVLINK = dict(alpha=10e-6, bus=100e9)   # one node, 8 GPUs, NVLink-class links
NETWORK = dict(alpha=20e-6, bus=12.5e9)  # 8 nodes, 100 Gb/s per GPU (flat ring, conservative)
BWD_FRACTION = LENET_BWD / (LENET_FWD + LENET_BWD)  # measured ratio, applied to ResNet-50


def main():
    t_c = LENET_FWD + LENET_BWD + LENET_UPD
    print("LeNet (%.0f KB of gradients), measured T_c = %.1f ms per step of 128:" %
          (LENET_BYTES / 1e3, t_c * 1e3))
    print("  %-30s %4s %10s %9s %9s" % ("link", "n", "T_ar ms", "E", "E overlap"))
    for name, link in (("MPI shared memory (measured)", MPI_SHM),
                       ("MPI TCP loopback (measured)", MPI_TCP)):
        for n in (2, 8, 64):
            t = t_allreduce(n, LENET_BYTES, link["alpha"], link["bus"])
            print("  %-30s %4d %10.3f %9.3f %9.3f" %
                  (name, n, t * 1e3, efficiency(t_c, LENET_BWD, t, False),
                   efficiency(t_c, LENET_BWD, t, True)))
    print()
    print("ResNet-50 (%.1f MB of float32 gradients), GPUs (assumed links), backward = %.2f T_c:" %
          (R50_BYTES / 1e6, BWD_FRACTION))
    print("  %-8s %4s %-26s %10s %9s %9s" % ("T_c ms", "n", "link", "T_ar ms", "E", "E overlap"))
    for t_c_ms in (50, 100, 200):
        t_c = t_c_ms / 1e3
        for n, name, link in ((8, "NVLink 100 GB/s", NVLINK), (64, "network 12.5 GB/s", NETWORK)):
            t = t_allreduce(n, R50_BYTES, link["alpha"], link["bus"])
            print("  %-8d %4d %-26s %10.2f %9.3f %9.3f" %
                  (t_c_ms, n, name, t * 1e3, efficiency(t_c, BWD_FRACTION * t_c, t, False),
                   efficiency(t_c, BWD_FRACTION * t_c, t, True)))
    # 2bit compression sends 1/16 of the bytes: an allgather of n compressed copies.
    print()
    print("ResNet-50 with 2bit compression (allgather of S/16 per worker), T_c = 100 ms:")
    for n, name, link in ((8, "NVLink 100 GB/s", NVLINK), (64, "network 12.5 GB/s", NETWORK)):
        t = (n - 1) * link["alpha"] + (n - 1) * (R50_BYTES / 16) / link["bus"]
        print("  n=%-3d %-20s T_allgather %.2f ms, E %.3f" %
              (n, name, t * 1e3, efficiency(0.1, 0, t, False)))


if __name__ == "__main__":
    main()
