"""kforge_export.fake_values: the exporter's forward and backward graphs (shapes, strides, dtypes)
are the same with one FakeTensorMode as without, and make_fx of meta tensors then makes one mode
for the whole trace and leaves none behind (torch 2 and later). On a torch before 2.0 the mode is
not made, so both cases check only that the trace still works there (CI has Debian's 1.13)."""
import contextlib
import unittest
from unittest import mock

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from kforge_export import graph
from kforge_export.fake_values import shared_fake_mode

try:
    from torch._guards import detect_fake_mode
    from torch._subclasses import fake_tensor
except ImportError:  # torch before 2.0
    detect_fake_mode = None


def unrolled(x, w):
    """Many nodes of few operators, as an RNN unrolled over its steps traces."""
    h = torch.zeros_like(x[0])
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] + h @ w)
    return h


def gradient(x, w, g):
    """The gradient of unrolled by w, as a backward graph is traced (torch.autograd.grad)."""
    w = w.detach().requires_grad_(True)
    return torch.autograd.grad(unrolled(x, w), [w], [g])[0]


class FakeValues(unittest.TestCase):
    def test_the_exporters_forward_and_backward_graphs_are_the_same_with_one_mode(self):
        x, w, g = torch.randn(40, 3, 5), torch.randn(5, 5), torch.randn(3, 5)
        for fn, names, values, autograd in ((unrolled, ["x", "w"], [x, w], False),
                                            (gradient, ["x", "w", "g"], [x, w, g], True)):
            shared = graph.trace_graph(fn, names, values, autograd=autograd)
            with mock.patch.object(graph, "shared_fake_mode", contextlib.nullcontext):
                alone = graph.trace_graph(fn, names, values, autograd=autograd)
            self.assertNotIn("error", shared)
            self.assertEqual(shared, alone)
            self.assertGreater(len(shared["nodes"]), 120)

    @unittest.skipIf(detect_fake_mode is None, "this torch makes no fake values of real tensors")
    def test_one_fake_mode_is_made_for_the_whole_trace_and_none_is_left(self):
        meta = (torch.randn(60, 3, 5, device="meta"), torch.randn(5, 5, device="meta"))
        made = []
        original = fake_tensor.FakeTensorMode.__init__

        def counting(mode, *args, **kwargs):
            made.append(mode)
            original(mode, *args, **kwargs)

        fake_tensor.FakeTensorMode.__init__ = counting
        try:
            make_fx(unrolled)(*meta)
            alone = len(made)
            made.clear()
            with shared_fake_mode():
                make_fx(unrolled)(*meta)
        finally:
            fake_tensor.FakeTensorMode.__init__ = original
        self.assertGreater(alone, 180)  # a mode per value without it: what this saves
        self.assertEqual(len(made), 1)
        self.assertIsNone(detect_fake_mode())


if __name__ == "__main__":
    unittest.main()
