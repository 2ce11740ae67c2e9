import torch
import torch.nn as nn

# A hand-written LSTM whose gates' weights are one parameter each for the input and the state, in
# KernelBench's file format: each step multiplies x_t @ wi[k] and h @ wh[k] for its four gates k,
# wi[k] a select taken afresh at each step (BENCHMARKS.md, seventy-seventh step; bench/rnn_steps.sh
# times it batched and step by step).
class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.wi = nn.Parameter(torch.randn(4, input_size, hidden_size) / input_size ** 0.5)
        self.wh = nn.Parameter(torch.randn(4, hidden_size, hidden_size) / hidden_size ** 0.5)

    def forward(self, x, h0, c0):
        h, c = h0, c0
        for xt in x.unbind(0):
            i = torch.sigmoid(xt @ self.wi[0] + h @ self.wh[0])
            f = torch.sigmoid(xt @ self.wi[1] + h @ self.wh[1])
            g = torch.tanh(xt @ self.wi[2] + h @ self.wh[2])
            o = torch.sigmoid(xt @ self.wi[3] + h @ self.wh[3])
            c = f * c + i * g
            h = o * torch.tanh(c)
        return h

batch_size = 10
sequence_length = 512
input_size = 128
hidden_size = 256

def get_inputs():
    return [torch.randn(sequence_length, batch_size, input_size), torch.randn(batch_size, hidden_size),
            torch.randn(batch_size, hidden_size)]

def get_init_inputs():
    return [input_size, hidden_size]
