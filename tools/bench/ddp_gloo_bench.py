#!/usr/bin/python3
"""W5 data-parallel, PyTorch peer: DistributedDataParallel with the gloo backend on
1 and 2 processes of this machine (loopback), the same MLP (784-256-10, Adam, per-rank batch) and
allreduce sizes (1-64 MiB float32) as tools/bench/dist_bench.cc.

    /usr/bin/python3 tools/bench/ddp_gloo_bench.py [--batch 128] [--steps 30]

Needs Debian's python3-torch (checks torch.distributed.is_gloo_available()). Nothing is downloaded.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, args, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
    torch.set_num_threads(1 if world > 1 else 2)  # 2 cores in all: one per rank, both for one rank
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    model = torch.nn.parallel.DistributedDataParallel(net)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    torch.manual_seed(100 + rank)
    x, y = torch.randn(args.batch, 784), torch.randint(0, 10, (args.batch,))

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    dist.barrier()
    t = time.perf_counter()
    for _ in range(args.steps):
        step()
    dist.barrier()
    sps = args.steps / (time.perf_counter() - t)
    if rank == 0:
        print(f"torch DDP gloo: {world} rank(s), per-rank batch {args.batch}: {sps:.2f} steps/s, "
              f"{sps * args.batch * world:.0f} samples/s", flush=True)
    mib = 1
    while mib <= 64:
        buf = torch.ones(mib << 18)
        dist.all_reduce(buf)
        reps = 10 if mib <= 8 else 4
        dist.barrier()
        t = time.perf_counter()
        for _ in range(reps):
            dist.all_reduce(buf)
        sec = (time.perf_counter() - t) / reps
        algbw = (mib << 20) / sec / 1e9
        if rank == 0:
            print(f"torch gloo allreduce {mib:2d} MiB: {sec * 1e3:8.2f} ms  algbw {algbw:6.2f} GB/s  "
                  f"busbw {algbw * 2 * (world - 1) / world:6.2f} GB/s", flush=True)
        mib *= 2
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--ranks", default="1,2")
    args = p.parse_args()
    if not dist.is_available() or not dist.is_gloo_available():
        print("torch.distributed with gloo is not available in this PyTorch build")
        return
    print(f"torch {torch.__version__}, gloo available")
    for i, world in enumerate(int(w) for w in args.ranks.split(",")):
        mp.spawn(worker, args=(world, args, 29500 + i), nprocs=world, join=True)


if __name__ == "__main__":
    main()
