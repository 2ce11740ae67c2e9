"""kforge_export.graph takes each node's shape, dtype and strides from what make_fx recorded while
tracing, and runs the graph a second time (ShapeProp) only where make_fx left a node without them
(torch before 2.0 records no value of a node that returns a tuple). Either way the graph is the
same as with ShapeProp always: forward graphs with tuples, views, constants and an RNN, and a
backward graph."""
import unittest
from unittest import mock

import torch
import torch.nn.functional as F

from kforge_export import graph

TORCH_2 = int(torch.__version__.split(".")[0]) >= 2


def pointwise(x, y):
    return torch.sigmoid(x) * y.transpose(0, 1) + 1


def pooled_with_indices(x):
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    return values + 1, indices


def layer_norm_of_a_view(x, w, b):
    return F.layer_norm(x.transpose(1, 2), (x.shape[1],), w, b).relu()


def bidirectional_gru(x, h):
    torch.manual_seed(0)
    return torch.nn.GRU(5, 7, bidirectional=True)(x, h)[0]


def constant_times(x):
    return x * torch.tensor(0.5, device=x.device)


def layer_norm_gradient(x, w):
    w = w.detach().requires_grad_(True)
    return torch.autograd.grad(F.layer_norm(x @ w, (w.shape[1],)).sum(), [w])[0]


CASES = [
    (pointwise, ["x", "y"], [torch.randn(4, 6), torch.randn(6, 4)], False),
    (pooled_with_indices, ["x"], [torch.randn(2, 3, 9, 8)], False),
    (layer_norm_of_a_view, ["x", "w", "b"], [torch.randn(4, 6, 5), torch.randn(6), torch.randn(6)], False),
    (bidirectional_gru, ["x", "h"], [torch.randn(4, 3, 5), torch.randn(2, 3, 7)], False),
    (constant_times, ["x"], [torch.randn(4, 3)], False),
    (layer_norm_gradient, ["x", "w"], [torch.randn(4, 5), torch.randn(5, 6)], True),
]


def traced(fn, names, values, autograd, complete=None):
    """trace_graph's graph and whether each trace found make_fx's values complete; `complete`
    overrides that finding."""
    found = []
    check = graph._traced_meta_complete

    def recorded(module):
        found.append(check(module) if complete is None else complete)
        return found[-1]

    with mock.patch.object(graph, "_traced_meta_complete", recorded):
        return graph.trace_graph(fn, names, values, autograd=autograd), found


class TracedMeta(unittest.TestCase):
    def test_the_graph_is_the_same_as_with_a_second_pass_always(self):
        for fn, names, values, autograd in CASES:
            with self.subTest(fn.__name__):
                described, _ = traced(fn, names, values, autograd)
                propagated, _ = traced(fn, names, values, autograd, complete=False)
                self.assertNotIn("error", described)
                self.assertEqual(described, propagated)
                self.assertTrue(all("meta" in n for n in described["nodes"] if n["op"] != "output"))

    def test_a_pointwise_graph_needs_no_second_pass(self):
        self.assertEqual(traced(*CASES[0])[1], [True])

    def test_a_node_that_returns_a_tuple_needs_one_only_before_torch_2(self):
        for case in CASES[1:4]:
            with self.subTest(case[0].__name__):
                self.assertEqual(traced(*case)[1], [TORCH_2])


if __name__ == "__main__":
    unittest.main()
