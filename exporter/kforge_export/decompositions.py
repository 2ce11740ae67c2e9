"""The operators a backward graph is traced into: autograd's backward operators written as the
ATen operators the kernel generator lowers, by torch's own decompositions (torch._decomp) where
torch has one, and by kforge's below where it has none (convolution_backward)."""
import torch

# Traced as torch's decompositions write them. The norms' forward operators too: whole, they hold
# on to the bias, which no gradient needs and backward_fn is often not given.
TORCH_DECOMPOSED = (
    "native_layer_norm", "native_group_norm", "native_batch_norm",
    "native_layer_norm_backward", "native_group_norm_backward", "native_batch_norm_backward",
    "_softmax_backward_data", "_log_softmax_backward_data", "threshold_backward", "gelu_backward",
    "sigmoid_backward", "tanh_backward", "silu_backward", "hardtanh_backward", "leaky_relu_backward",
    "elu_backward", "softplus_backward", "mish_backward", "hardsigmoid_backward", "hardswish_backward",
    "log_sigmoid_backward", "mse_loss_backward", "l1_loss_backward", "smooth_l1_loss_backward",
    "huber_loss_backward", "nll_loss_backward", "binary_cross_entropy_backward",
    "avg_pool2d_backward", "embedding_dense_backward", "select_backward", "slice_backward",
    "diagonal_backward", "index_select_backward", "_adaptive_avg_pool2d_backward", "rsub",
)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """A convolution's gradients as convolutions (groups 1, not transposed; other cases are left
    to the operator, which the generator then names): the input's, a transposed convolution of the
    output's gradient with the weight; the weight's, a convolution of the input with the output's
    gradient, batch and channels swapped, stride and dilation exchanged; the bias's, a sum."""
    if transposed or groups != 1:
        return NotImplemented
    aten = torch.ops.aten
    spatial = len(stride)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        extra = []
        for d in range(spatial):
            produced = ((grad_output.shape[2 + d] - 1) * stride[d] - 2 * padding[d]
                        + dilation[d] * (weight.shape[2 + d] - 1) + 1)
            extra.append(input.shape[2 + d] - produced)
        grad_input = aten.convolution(grad_output, weight, None, stride, padding, dilation, True, extra, 1)
    if output_mask[1]:
        per_channel = aten.convolution(input.transpose(0, 1), grad_output.transpose(0, 1), None, dilation,
                                       padding, stride, False, [0] * spatial, 1)
        for d in range(spatial):
            per_channel = per_channel.narrow(2 + d, 0, weight.shape[2 + d])
        grad_weight = per_channel.transpose(0, 1)
    if output_mask[2]:
        grad_bias = grad_output.sum([0] + list(range(2, 2 + spatial)))
    return grad_input, grad_weight, grad_bias


def backward_decompositions():
    """The decomposition table make_fx traces a backward graph with."""
    from torch._decomp import get_decompositions
    ops = [getattr(torch.ops.aten, name) for name in TORCH_DECOMPOSED if hasattr(torch.ops.aten, name)]
    table = dict(get_decompositions(ops))
    table[torch.ops.aten.convolution_backward.default] = convolution_backward
    return table
