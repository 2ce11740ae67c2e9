"""kforge_export.fake_values: make_fx of meta tensors makes its fake values in one FakeTensorMode
(torch 2 and later), records the same graph and shapes as without it, and leaves no fake mode
behind; on a torch before 2.0 it changes nothing."""
import contextlib
import unittest
from unittest import mock

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.passes.shape_prop import ShapeProp

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


def shapes_of(module, args):
    """Each node's shape, stride and dtype, as the exporter gets them (ShapeProp)."""
    ShapeProp(module).propagate(*args)
    metas = [n.meta["tensor_meta"] for n in module.graph.nodes if "tensor_meta" in n.meta]
    return [(tuple(m.shape), tuple(m.stride), m.dtype) for m in metas]


class FakeValues(unittest.TestCase):
    def setUp(self):
        self.args = (torch.randn(60, 3, 5, device="meta"), torch.randn(5, 5, device="meta"))

    def test_the_graph_and_its_shapes_are_the_same_with_one_mode(self):
        alone = make_fx(unrolled)(*self.args)
        with shared_fake_mode():
            shared = make_fx(unrolled)(*self.args)
        self.assertEqual(shared.code, alone.code)
        shapes = shapes_of(alone, self.args)
        self.assertEqual(shapes_of(shared, self.args), shapes)
        self.assertGreater(len(shapes), 180)

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
        made = []
        original = fake_tensor.FakeTensorMode.__init__

        def counting(mode, *args, **kwargs):
            made.append(mode)
            original(mode, *args, **kwargs)

        fake_tensor.FakeTensorMode.__init__ = counting
        try:
            make_fx(unrolled)(*self.args)
            alone = len(made)
            made.clear()
            with shared_fake_mode():
                make_fx(unrolled)(*self.args)
        finally:
            fake_tensor.FakeTensorMode.__init__ = original
        self.assertGreater(alone, 180)  # a mode per value without it: what this saves
        self.assertEqual(len(made), 1)
        self.assertIsNone(detect_fake_mode())


if __name__ == "__main__":
    unittest.main()
