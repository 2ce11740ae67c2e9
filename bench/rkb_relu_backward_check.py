"""robust-kbench's own correctness check of its published mnist_linear_relu backward kernel, and
why it disagrees with the reference where it does (BENCHMARKS.md, "mnist_linear_relu's backward").

    python3 bench/rkb_relu_backward_check.py ROBUST_KBENCH_CHECKOUT [--trials N]

Needs a CUDA GPU, PyTorch and a robust-kbench checkout (its tasks/, highlighted/ and
robust_kbench/ folders). The kernel is built as robust-kbench builds it (torch.utils.cpp_extension
with its flags -O3 --use_fast_math); the task is loaded by robust-kbench's KernelTask and every
multi config is judged by robust-kbench's check_backward_correctness (5 trials, atol = rtol = 1e-5),
unchanged. Then every config is tried on more trials, each taken apart: for every row of the
gradient of x that is off, the output unit whose ReLU mask explains the difference (the difference
is g[b, o] * W[o, :] when the kernel and the reference disagree on whether x[b] @ W[o] + b[o] > 0),
and that pre-activation in float64 next to the reference's float32 value.
"""
import argparse
import os
import sys
import types

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("robust_kbench")
    parser.add_argument("--trials", type=int, default=20, help="trials of the analysis per config")
    args = parser.parse_args()
    root = os.path.abspath(args.robust_kbench)
    # robust_kbench/__init__.py imports its process pool and pycuda; the two modules used here
    # need neither, so the package is entered without running it.
    package = types.ModuleType("robust_kbench")
    package.__path__ = [os.path.join(root, "robust_kbench")]
    sys.modules["robust_kbench"] = package
    from robust_kbench.kernel_task import KernelTask
    from robust_kbench.sandbox.correct_backward_fn import (check_backward_correctness,
                                                          check_gradients_close)

    task = KernelTask(os.path.join(root, "tasks", "mnist_linear_relu"), multi_input_settings=True,
                      multi_init_settings=True, forward=False)
    kernel = load(name="rkb_mnist_linear_relu_backward",
                  sources=[os.path.join(root, "highlighted", "mnist_linear_relu", "backward",
                                        "kernel.cu")],
                  extra_cuda_cflags=["-O3", "--use_fast_math"], with_cuda=True)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, "
          f"TF32 matmul {torch.backends.cuda.matmul.allow_tf32}")
    configs = list(zip(task.get_configs_str(), task.get_input_settings(),
                       task.get_init_settings()))
    for name, inputs, init in configs:
        r = check_backward_correctness(task.model, task.forward_fn, task.autograd_fn,
                                       kernel.backward, task.get_inputs, inputs, init,
                                       num_correct_trials=5, rtol=1e-5, atol=1e-5)
        print(f"robust-kbench check {name}: correct={r.correct} trials passed "
              f"{r.num_correct}/5 max_diff={r.max_diff:.3g}")
    for name, inputs, init in configs:
        analyse(task, kernel, name, inputs, init, args.trials, check_gradients_close)


def analyse(task, kernel, name, inputs, init, trials, check_gradients_close):
    flips, rows_off, trials_off = [], 0, 0
    for trial in range(trials):
        torch.manual_seed(1000 + trial)
        model = task.model(**init).cuda()
        x = task.get_inputs(**inputs)[0].detach().cuda().requires_grad_()
        w, b = model.weights, model.biases
        g = torch.randn(x.shape[0], w.shape[0], device="cuda")
        task.forward_fn(x, w, b).backward(g)  # the reference: autograd, as robust-kbench's
        reference = {"input_0": x.grad, "param_weights": w.grad, "param_biases": b.grad}
        x, w, b = x.detach(), w.detach(), b.detach()
        got = dict(zip(reference, kernel.backward(g, x, w, b)))
        # robust-kbench's own comparison of the gradients, on these inputs.
        rkb_correct, rkb_max_diff = check_gradients_close(got, reference, atol=1e-5, rtol=1e-5)
        z32 = F.linear(x, w, b)  # the reference's pre-activation (cuBLAS, float32)
        dx, ref_dx = got["input_0"], reference["input_0"]
        off = ~torch.isclose(dx, ref_dx, rtol=1e-5, atol=1e-5)
        if rkb_correct and not off.any():
            continue
        print(f"{name} trial {trial}: robust-kbench's check_gradients_close: correct={rkb_correct}"
              f" max_diff={rkb_max_diff:.3g}")
        trials_off += 1
        z64 = F.linear(x.double(), w.double(), b.double())
        for row in off.any(dim=1).nonzero().flatten().tolist():
            rows_off += 1
            diff = (dx[row] - ref_dx[row]).double()
            # The unit whose mask flip explains the row: the difference is +-g[row, o] * W[o].
            fit = (w.double() @ diff) / (w.double().norm(dim=1) ** 2)
            o = int((fit.abs() - g[row].double().abs()).abs().argmin())
            residual = (diff - fit[o] * w[o].double()).abs().max().item()
            flips.append((trial, row, o, z64[row, o].item(), z32[row, o].item(),
                          int(off[row].sum()), residual, z64.abs().median().item()))
    print(f"\n{name}: {trials_off} of {trials} trials off, {rows_off} rows of dx off")
    print("trial row unit  z float64        z float32 (ref)  values off  residual  median |z|")
    for f in flips:
        print(f"{f[0]:5d} {f[1]:3d} {f[2]:5d} {f[3]: .6e} {f[4]: .6e} {f[5]:10d} {f[6]:.2e} "
              f"{f[7]:.3f}")


if __name__ == "__main__":
    main()
