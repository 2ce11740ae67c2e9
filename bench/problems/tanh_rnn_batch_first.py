import functools
import itertools
import torch
import torch.nn as nn

# A hand-written two-layer tanh RNN, batch first, in KernelBench's file format: each step multiplies
# x_t @ w (no nn.Linear), the second layer reads the first's outputs stacked along 1
# (BENCHMARKS.md, seventy-fifth step; bench/rnn_steps.sh times it batched and step by step).
class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.w = nn.Parameter(torch.randn(input_size, hidden_size) / input_size ** 0.5)
        self.u = nn.Parameter(torch.randn(hidden_size, hidden_size) / hidden_size ** 0.5)
        self.v = nn.Parameter(torch.randn(hidden_size, hidden_size) / hidden_size ** 0.5)

    def forward(self, x, h0):
        w, u, v = self.w, self.u, self.v
        s = torch.stack(list(itertools.accumulate(x.unbind(1), lambda h, xt: torch.tanh(xt @ w + h @ u), initial=h0))[1:], 1)
        return functools.reduce(lambda g, y: torch.tanh(y @ v + g @ u), s.unbind(1), h0)

batch_size = 10
sequence_length = 512
input_size = 128
hidden_size = 256

def get_inputs():
    return [torch.randn(batch_size, sequence_length, input_size), torch.randn(batch_size, hidden_size)]

def get_init_inputs():
    return [input_size, hidden_size]
