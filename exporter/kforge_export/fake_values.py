"""One FakeTensorMode for all the fake values make_fx records while it traces real tensors.

make_fx in torch 2 records each node's value (node.meta["val"]) as a fake tensor. Tracing real
tensors (the exporter traces meta tensors, or zeros), it makes that fake tensor in the fake mode
`torch._guards.detect_fake_mode` finds, and where there is none in a new FakeTensorMode, one per
value; each new mode records the Python stack it was made on (`traceback.extract_stack`). An RNN
unrolled over its steps makes about 166,000 such values: cProfile of the export of KernelBench's
41_GRUBidirectional at full size on torch 2.11 put 81 of its 231 s of make_fx there.
`shared_fake_mode` makes one mode, in a tracing context where detect_fake_mode finds it, so every
value is made in it; the values' shapes, strides and dtypes are the same either way. torch before
2.0 (Debian's 1.13) keeps the traced tensor itself and has no torch._guards: nothing changes there.
"""
import contextlib


@contextlib.contextmanager
def shared_fake_mode():
    """While active, make_fx of real tensors makes its fake values in one FakeTensorMode."""
    try:
        from torch._guards import TracingContext, tracing
        from torch._subclasses.fake_tensor import FakeTensorMode
    except ImportError:  # torch before 2.0: make_fx makes no fake values of real tensors
        yield
        return
    with tracing(TracingContext(FakeTensorMode(allow_fallback_kernels=True))):
        yield
