"""kforge_export.fx_names: torch.fx's namer in constant time gives the names torch's own gives a
traced graph, unique names for any sequence of candidates, and torch's namer back afterwards."""
import keyword
import random
import unittest

import torch
from torch.fx import graph as fx_graph
from torch.fx.experimental.proxy_tensor import make_fx

from kforge_export.fx_names import linear_node_names, quadratic_namer


def unrolled(x, w):
    """Many nodes of few operators, as an RNN unrolled over its steps traces."""
    h = torch.zeros_like(x[0])
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] + h @ w)
        h = h + 1.0
    return h


def traced(fn, *args):
    module = make_fx(fn)(*args)
    return [n.name for n in module.graph.nodes], module.code


class FxNodeNames(unittest.TestCase):
    def setUp(self):
        self.args = (torch.randn(120, 3, 5), torch.randn(5, 5))

    @unittest.skipIf(quadratic_namer() is None, "this torch's namer already starts where it ended")
    def test_a_traced_graph_gets_the_names_and_code_torchs_namer_gives(self):
        names, code = traced(unrolled, *self.args)
        with linear_node_names():
            fast_names, fast_code = traced(unrolled, *self.args)
        self.assertEqual(fast_names, names)
        self.assertEqual(fast_code, code)
        self.assertGreater(len(names), 600)

    def test_names_are_unique_identifiers_for_any_candidates(self):
        rng = random.Random(7)
        bases = ["add", "add_1", "add_5", "x", "x_2", "1x", "for", "a.b", "print"]
        with linear_node_names():
            namespace = fx_graph._Namespace()
            names = [namespace.create_name(rng.choice(bases), None) for _ in range(2000)]
        self.assertEqual(len(set(names)), len(names))
        for name in names:
            self.assertTrue(name.isidentifier() and not keyword.iskeyword(name), name)
            self.assertNotEqual(name, "print")

    def test_an_object_keeps_its_name(self):
        with linear_node_names():
            namespace = fx_graph._Namespace()
            obj = object()
            first = namespace.create_name("node", obj)
            namespace.create_name("node", None)
            self.assertEqual(namespace.create_name("other", obj), first)

    def test_torchs_namer_is_back_afterwards(self):
        before = fx_graph._Namespace.create_name
        with linear_node_names():
            pass
        with self.assertRaises(RuntimeError), linear_node_names():
            raise RuntimeError("a failed trace")
        self.assertIs(fx_graph._Namespace.create_name, before)


if __name__ == "__main__":
    unittest.main()
